#!/usr/bin/env bash
# Known positions (../shared/data/known-positions.tsv) solved from the rules
# with the retrograde analysis first and then both searches (--solver all;
# SOLVER=both for the searches alone), each position with endgame databases SMALLER than
# itself where that is possible: a position of p pieces uses the databases
# up to min(p - 1, EGDB_PIECES) pieces (default 6; built on first use).
# Proofs are extracted and checked by the independent verifier. Prints one
# row per position (wanted value, result, nodes, time, proof size) and a
# summary; exits non-zero when a result contradicts the known value or a
# line fails.
#
#   scripts/known-positions.sh [SECS-PER-POSITION] [MIN-PIECES]
#
# MIN-PIECES (default 5) skips the smaller positions, which the databases
# answer directly. ONLY (an awk regular expression) keeps the positions
# whose FEN matches it; SOLVE_ARGS adds options to every `solve`, e.g. a
# larger retrograde analysis for the 6-piece studies (about 14 GB):
#
#   SOLVER=retro ONLY='W:W29,14|B:W28,32,K15' \
#   SOLVE_ARGS='--retro-positions 180000000 --max-proof-nodes 30000000' \
#   scripts/known-positions.sh 1200 6
#
# KingsRow's 8-piece draw B:W14,20,26,31:B5,6,17,K32 takes df-pn building
# on results that relied on a repetition for its "not a win" half (894 s
# with the whole 7-piece set; its ">=draw" half takes 665 nodes):
#
#   checkers solve B:W14,20,26,31:B5,6,17,K32 --solver dfpn --question win \
#     --time 1500 --egdb-pieces 7 --table-entries 40000000 --trust-loops
#
# Drinkwater's 6-piece draw B:W28,32,K15:B3,12,26 is settled by df-pn with
# the 5-piece databases, building on results that relied on a repetition:
# ">=draw" in 650,485,469 nodes, 553 s (a verified proof of 1,275,940
# positions); "not a win" (--question win) in 160 nodes:
#
#   checkers solve B:W28,32,K15:B3,12,26 --solver dfpn --question draw \
#     --time 900 --egdb-pieces 5 --table-entries 40000000 --trust-loops
#
# Wiswell's 12-piece win W:W12,15,16,25,30,32:B3,7,9,14,18,24 is settled
# with the whole 7-piece set and a table of 40 M entries (48,300,732 nodes,
# 129 s; a verified proof of 178,023 positions, depth 125):
#
#   checkers solve W:W12,15,16,25,30,32:B3,7,9,14,18,24 --solver dfpn \
#     --question win --time 1800 --egdb-pieces 7 --table-entries 40000000
#
# A search longer than a session keeps its tables with --checkpoint FILE
# and goes on when the same command runs again. The same win in runs of
# 10 M nodes (--nodes 10000000 --checkpoint FILE), each resumed from the
# last one's file: five runs, 42,162,351 nodes in all, a verified proof
# of 168,813 positions. The open ones (Wardell's ">=draw", Wiswell's
# 16-piece draw) are run that way across sessions:
#
#   checkers solve B:W28,24,21,20,K2:BK27,19,15,11,7 --solver dfpn \
#     --question draw --time 4500 --egdb-pieces 7 --table-entries 80000000 \
#     --trust-loops --checkpoint wardell-draw.ckpt
#   checkers solve W:W28,27,25,23,22,18,17,14:B20,16,13,11,9,5,3,1 \
#     --solver dfpn --question draw --time 4000 --egdb-pieces 7 \
#     --table-entries 40000000 --checkpoint wiswell16-draw.ckpt
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
min=${2:-5}
top=${EGDB_PIECES:-6}
solver=${SOLVER:-all}
only=${ONLY:-}
# Split into words on purpose: options and their values.
read -r -a extra <<< "${SOLVE_ARGS:-}"
tsv=${KNOWN_TSV:-../shared/data/known-positions.tsv}
# CHECKERS_BIN: a binary to use instead of building this checkout's.
bin=${CHECKERS_BIN:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=./target/release/checkers
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# CHECKERS_EGDB_BUILD=no: use the slices present (e.g. a 7-piece set still
# being built); the others are unknown leaves.
if [ "${CHECKERS_EGDB_BUILD:-missing}" != no ]; then
  "$bin" egdb build --pieces "$top" >&2
fi
status=0
# One batch per database size.
for dbp in $(seq 2 "$top"); do
  awk -F'\t' -v dbp="$dbp" -v top="$top" -v min="$min" -v only="$only" '
    /^#/ || $1 == "pieces" { next }
    only != "" && $2 !~ only { next }
    { p = $1 + 0; d = (p - 1 < top) ? p - 1 : top;
      if (p >= min && d == dbp) print $2 "\t" $3 }' "$tsv" > "$out/want-$dbp.tsv"
  if [ ! -s "$out/want-$dbp.tsv" ]; then rm "$out/want-$dbp.tsv"; continue; fi
  cut -f1 "$out/want-$dbp.tsv" > "$out/fens-$dbp"
  "$bin" solve --batch "$out/fens-$dbp" --solver "$solver" --egdb-pieces "$dbp" --time "$secs" \
    --json "${extra[@]}" > "$out/got-$dbp.jsonl" || status=1
done
python3 - "$out" "$secs" "$solver" <<'PY' || status=1
import json, os, sys
out, secs, solver = sys.argv[1], sys.argv[2], sys.argv[3]
order = ["loss", "draw", "win"]
span = {"win": ("win", "win"), "draw": ("draw", "draw"), "loss": ("loss", "loss"),
        ">=draw": ("draw", "win"), "<=draw": ("loss", "draw"), None: ("loss", "win")}
print(f"# known positions: --solver {solver}, {secs} s each, databases smaller than the position")
print(f"{'pcs':>3} {'db':>2}  {'fen':<46} {'want':<5} {'got':<7} {'nodes':>11} {'ms':>7} {'proof':>7} solver")
exact = total = wrong = errors = 0
for name in sorted(os.listdir(out)):
    if not name.startswith("want-"):
        continue
    dbp = name[5:-4]
    want = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, name))]
    got = [json.loads(l) for l in open(os.path.join(out, f"got-{dbp}.jsonl"))]
    for (fen, w), r in zip(want, got):
        total += 1
        pcs = sum(1 for c in fen.split(":")[1:] for s in c[1:].split(",") if s)
        if "error" in r:
            errors += 1
            print(f"{pcs:>3} {dbp:>2}  {fen:<46} {w:<5} error: {r['error']}")
            continue
        res = r["value"]
        lo, hi = span[res]
        bad = not (order.index(lo) <= order.index(w) <= order.index(hi))
        wrong += bad
        exact += res == w
        size = sum(p["proof_size"] for p in r["proofs"])
        ok = all(p["verified"] for p in r["proofs"])
        print(f"{pcs:>3} {dbp:>2}  {fen:<46} {w:<5} {res or '-':<7} {r['nodes']:>11} "
              f"{r['millis']:>7} {size:>7} {r['solver']}{'' if ok else ' UNVERIFIED'}{' WRONG' if bad else ''}")
print(f"# {exact}/{total} exact, {wrong} contradicting the known value, {errors} failed lines")
sys.exit(1 if wrong else 0)
PY
exit "$status"
