#!/usr/bin/env bash
# The bitbase builder against the reference builder (docs/egdb-build.txt):
# builds the same slices with both, in two scratch folders on the same
# smaller slices, and compares every file built, byte for byte (md5).
# Prints each builder's CPU time (user + system), wall time and peak
# memory.
#
# Usage: scripts/egdb-builders-compare.sh BIN DB_DIR PIECES [FEN...]
#   DB_DIR  holds every slice of fewer than PIECES pieces (other files
#           in it are ignored)
#   FEN...  only the slices of PIECES pieces a game from these positions
#           may enter (egdb build --for); without: every slice of PIECES
#           pieces (the whole 6-piece set: PIECES=6 on a 5-piece folder)
#   THREADS threads of each build (default 2)
#   AT_ONCE=1 runs the two builds at once (each then sees the other's
#           load), else one after the other
# Exit status 0 when every file is identical, 1 when one differs.
set -euo pipefail
. "$(dirname "$0")/lib/egdb.sh"
egdb_check_args 3 "$@"
bin=$1 db=$2 pieces=$3
shift 3
egdb_for_args "$@"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/egdb-builders-compare.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
for builder in reference bitbase; do
  mkdir "$scratch/$builder"
  # Links to the slices of fewer pieces: a name's digits before m and k
  # add up to its piece count.
  for f in "$db"/*.egdb; do
    n=$(basename "$f" .egdb | grep -oE '[0-9]+[mk]' | tr -d 'mk' | awk '{s += $1} END {print s}')
    [ "$n" -lt "$pieces" ] && ln -s "$(readlink -f "$f")" "$scratch/$builder/"
  done
done

run() {
  local builder=$1
  /usr/bin/time -f "$builder: %U user + %S system CPU-s, %e s wall, %M KB peak" \
    "$bin" egdb build --pieces "$pieces" "${for_args[@]}" --dir "$scratch/$builder" \
    --threads "$threads" --builder "$builder" >"$scratch/$builder.log" 2>&1 ||
    { echo "egdb-builders-compare: the $builder build failed:" >&2; tail -5 "$scratch/$builder.log" >&2; exit 1; }
}
if [ "${AT_ONCE:-0}" = 1 ]; then
  run reference & a=$!
  run bitbase & b=$!
  wait $a
  wait $b
else
  run reference
  run bitbase
fi
for builder in reference bitbase; do
  grep -E "CPU-s" "$scratch/$builder.log" || true
  (cd "$scratch/$builder" && find . -maxdepth 1 -type f -name '*.egdb' -exec md5sum {} + | sort -k2) >"$scratch/$builder.md5"
done
built=$(wc -l <"$scratch/reference.md5")
if diff "$scratch/reference.md5" "$scratch/bitbase.md5" >"$scratch/diff"; then
  echo "egdb-builders-compare: $built files of $pieces pieces, every one identical"
else
  echo "egdb-builders-compare: files differ:" >&2
  cat "$scratch/diff" >&2
  exit 1
fi
