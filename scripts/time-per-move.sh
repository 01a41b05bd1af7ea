#!/usr/bin/env bash
# Time the engine uses per move: `bestmove --time T --json` on the first N
# ballot positions of the ballots table, single thread; positions with one
# legal move (answered at once) are left out. Prints each time, then the
# mean, least and most time, mean depth and nodes.
# Usage: scripts/time-per-move.sh [path/to/checkers] [T=0.1] [N=40]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/target/release/checkers}"
t="${2:-0.1}"
n="${3:-40}"
table="${CHECKERS_DATA:-$root/../shared/data}/ballots.tsv"
grep -v '^#' "$table" | awk -F'\t' 'NR>1' | head -n "$n" |
while IFS=$'\t' read -r -a f; do
  for x in "${f[@]}"; do
    case "$x" in [BW]:*) "$bin" bestmove "$x" --time "$t" --json --tt-mb 16; break;; esac
  done
done | T="$t" python3 -c '
import sys, json, os
rs = [json.loads(l) for l in sys.stdin if l.strip()]
rs = [r for r in rs if r["nodes"] > 100]
ts = sorted(r["millis"] / 1000 for r in rs)
n = len(rs)
print(" ".join("%.4f" % x for x in ts))
print("%d moves with a choice at %s s: mean time %.4f s, min %.4f, max %.4f; mean depth %.2f, mean nodes %.0f"
      % (n, os.environ["T"], sum(ts) / n, ts[0], ts[-1],
         sum(r["depth"] for r in rs) / n, sum(r["nodes"] for r in rs) / n))
'
