#!/usr/bin/env bash
# The endgame-database builder's pace, for comparing two binaries side by side
# (issue 27's acceptance figure).
#
# Builds, one `egdb build --slice` each and in build order, the slices of
# PIECES pieces that a game from the given positions may enter (default: the
# two king endings of issue 27, 16 slices of 7 pieces, 1.38 G positions), in a
# scratch folder that links every other file of DB_DIR (which must hold every
# slice of fewer pieces). Prints each slice's line, then the whole run's CPU
# and wall time and positions a CPU-second, and writes the md5 of every file
# it built to OUT.md5, so that two binaries' files can be compared.
#
# Usage: scripts/egdb-build-pace.sh BIN DB_DIR OUT [FEN...]
#   PIECES   piece count of the slices built (default 7)
#   THREADS  threads of each build (default 2)
#   LIST_BIN the binary that lists the slices (default BIN; an older binary
#            may list more slices, from a looser reach, than a newer one)
# Two binaries at once, so that both see the same load:
#   scripts/egdb-build-pace.sh OLD D6 /tmp/old & scripts/egdb-build-pace.sh NEW D6 /tmp/new; wait
set -euo pipefail
. "$(dirname "$0")/lib/egdb.sh"
egdb_check_args 3 "$@"
bin=$1 db=$2 out=$3
shift 3
pieces=${PIECES:-7}
list_bin=${LIST_BIN:-$bin}
if [ $# -eq 0 ]; then
  set -- "W:WK6,K9,K12:BK17,19,K20,K25" "W:WK3,K4,8,K28:B6,K22,K23"
fi
egdb_for_args "$@"

slices=$("$list_bin" egdb slices --pieces "$pieces" "${for_args[@]}" --json |
  python3 -c 'import json,sys; [print(json.loads(l)["slice"], json.loads(l)["positions"]) for l in sys.stdin]')
[ -n "$slices" ] || { echo "egdb-build-pace: no slice to build" >&2; exit 1; }
total=$(echo "$slices" | awk '{s += $2} END {print s}')

scratch=$(mktemp -d "${TMPDIR:-/tmp}/egdb-build-pace.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
for f in "$db"/*.egdb; do ln -s "$(readlink -f "$f")" "$scratch/"; done
for s in $(echo "$slices" | awk '{print $1}'); do rm -f "$scratch/$s.egdb"; done

echo "egdb-build-pace: $(echo "$slices" | wc -l) slices of $pieces pieces, $total positions, $threads threads, $bin"
# The builds' user and system time: this shell's reaped children's, in
# clock ticks, from its /proc entry (fields after the command name),
# after the builds less before them.
children_ticks() { sed 's/^.*) //' /proc/$$/stat | awk '{print $14 + $15}'; }
ticks_before=$(children_ticks)
start=$(date +%s.%N)
for s in $(echo "$slices" | awk '{print $1}'); do
  "$bin" egdb build --pieces "$pieces" --slice "$s" --dir "$scratch" --threads "$threads" 2>&1 |
    grep -E 'levels|rror' | sed 's/^.*\] //'
done
ticks=$(( $(children_ticks) - ticks_before ))
python3 - "$start" "$(date +%s.%N)" "$ticks" "$(getconf CLK_TCK)" "$total" <<'PY'
import sys
start, end, ticks, hz, total = map(float, sys.argv[1:])
cpu = ticks / hz
print(f"egdb-build-pace: {total:.0f} positions, {cpu:.1f} CPU-s (user+sys), {end - start:.0f} s wall, "
      f"{total / cpu / 1e6:.2f} M positions a CPU-second")
PY
(cd "$scratch" && find . -type f -name '*.egdb' -exec md5sum {} + | awk '{print $2, $1}' | sort) > "$out.md5"
echo "egdb-build-pace: md5 of the files built in $out.md5"
