#!/usr/bin/env bash
# Plays this checkout's engine (player A) against the engine of an earlier
# commit (player B), built from git in a scratch folder, through the Hub
# protocol: the figure issue 56 asks for ("against the engine of 198a577,
# both with the 6-piece databases, no book, one thread each, 0.1 s a
# move, every ballot of the 156 deck with colours swapped").
#
# Usage: scripts/match-commit.sh REV [checkers match options...]
#   REV      a commit, tag or branch of this repository
#   options  passed to `checkers match` after the defaults (MATCH_ARGS)
# Environment:
#   MATCH_ARGS the match's defaults (default: --time 0.1 --deck 156
#            --egdb-pieces 6 --no-book --threads 2: two games at once, each
#            engine one thread); set it to change one of them, e.g.
#            MATCH_ARGS="--nodes 200000 --deck 156 --egdb-pieces 6
#            --no-book --threads 2" for node budgets on a shared machine
#   BIN      this checkout's binary (default target/release/checkers, built
#            here with `cargo build --release` when missing)
#   SCRATCH  where REV is unpacked and built (default
#            ${TMPDIR:-/tmp}/checkers-rev-<commit>); a binary already built
#            there is reused
#   OLD_ARGS the earlier engine's `hub` options (default: --egdb-pieces
#            6 --tt-mb 16 --no-book)
#   CHECKERS_EGDB  the databases' folder, read by both engines (the
#            6-piece set is built there on first use when missing)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ]; then
  echo "usage: $0 REV [checkers match options...]" >&2
  exit 2
fi
rev="$1"
shift
commit="$(git -C "$root" rev-parse --verify --quiet "$rev^{commit}")" || {
  echo "$0: $rev is not a commit of $root" >&2
  exit 2
}
short="${commit:0:12}"
scratch="${SCRATCH:-${TMPDIR:-/tmp}/checkers-rev-$short}"
old="$scratch/target/release/checkers"
if [ ! -x "$old" ]; then
  echo "building $short in $scratch" >&2
  rm -rf "$scratch.partial"
  mkdir -p "$scratch.partial"
  git -C "$root" archive "$commit" | tar -x -C "$scratch.partial"
  (cd "$scratch.partial" && cargo build --release --quiet)
  rm -rf "$scratch"
  mv "$scratch.partial" "$scratch"
fi
bin="${BIN:-$root/target/release/checkers}"
if [ ! -x "$bin" ]; then
  (cd "$root" && cargo build --release --quiet)
fi
old_args="${OLD_ARGS:---egdb-pieces 6 --tt-mb 16 --no-book}"
echo "A = $bin ($(git -C "$root" rev-parse --short HEAD)), B = $old hub $old_args ($short)" >&2
match_args="${MATCH_ARGS:---time 0.1 --deck 156 --egdb-pieces 6 --no-book --threads 2}"
# shellcheck disable=SC2086 # the defaults are words
exec "$bin" match --engine-cmd "$old hub $old_args" $match_args "$@"
