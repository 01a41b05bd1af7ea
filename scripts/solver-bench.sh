#!/usr/bin/env bash
# Solver benchmark: every position of solver/tests/data/bench.tsv (8-14
# pieces from master-game endings) with each solver, a fixed time per
# position (CPU seconds of the solving thread), and the endgame databases
# up to EGDB_PIECES (default 5; built on first use). Prints one table row
# per position and solver: result, nodes, milliseconds, proof size; then
# totals per solver. SOLVERS (default "default ab dfpn") chooses the
# solvers: "default" is `checkers solve` without --solver or --trust-loops.
#
#   scripts/solver-bench.sh [SECS-PER-POSITION]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
pieces=${EGDB_PIECES:-5}
# CHECKERS_BIN: a binary to use instead of building this checkout's.
bin=${CHECKERS_BIN:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=./target/release/checkers
fi
out=$(mktemp -d)
status=0
solvers=${SOLVERS:-default ab dfpn}
for solver in $solvers; do
  choice=(--solver "$solver")
  [ "$solver" = default ] && choice=()
  # A failed line (a proof that cannot be extracted, a disagreement) is
  # reported in the output and makes the batch exit non-zero: the table
  # still prints, with it as an error row, and the script then fails.
  "$bin" solve --batch solver/tests/data/bench.tsv "${choice[@]}" --time "$secs" \
    --egdb-pieces "$pieces" --json > "$out/$solver.jsonl" || status=1
done
python3 - "$out" "$secs" "$pieces" $solvers <<'PY'
import json, sys, os
out, secs, pieces = sys.argv[1], sys.argv[2], sys.argv[3]
solvers = sys.argv[4:]
print(f"# solver benchmark: {secs} s per position, databases to {pieces} pieces")
print(f"{'pieces':>6}  {'fen':<58} {'solver':<7} {'result':<7} {'nodes':>11} {'ms':>7} {'proof':>7}")
totals = {}
for solver in solvers:
    for line in open(os.path.join(out, f"{solver}.jsonl")):
        r = json.loads(line)
        t = totals.setdefault(solver, [0, 0, 0, 0])
        if "error" in r:
            t[0] += 1
            print(f"{'':>6}  {r['input']:<58} {solver:<7} error: {r['error']}")
            continue
        size = sum(p["proof_size"] for p in r["proofs"])
        pcs = sum(1 for c in r["fen"].split(":")[1:] for s in c[1:].split(",") if s)
        print(f"{pcs:>6}  {r['fen']:<58} {solver:<7} {r['value'] or '-':<7} {r['nodes']:>11} {r['millis']:>7} {size:>7}")
        t[0] += 1; t[1] += r["value"] is not None and r["value"] in ("win", "draw", "loss")
        t[2] += r["nodes"]; t[3] += r["millis"]
for s, (n, exact, nodes, ms) in totals.items():
    nps = nodes / (ms / 1000) if ms else 0
    print(f"# {s}: {exact}/{n} exact, {nodes} nodes, {ms / 1000:.1f} s, {nps / 1e6:.2f} M nodes/s")
PY
rm -rf "$out"
exit "$status"
