#!/usr/bin/env bash
# Exports proofs as PDN (`checkers proof export --format pdn`) and reads
# them back with pydraughts' PDNReader (installed from PyPI into a venv,
# as scripts/hub-pydraughts.sh does): every game written must be read,
# as English draughts, with its FEN. (pydraughts' reader has quirks of its
# own with set-up positions in English draughts: it repeats the first
# move of a game from a Black-to-move FEN, and pairs the moves of a
# White-to-move FEN as if the first move were Black's; it does the same
# to the PDN its own writer produces, so this script does not check the
# move lists.)
# Usage: scripts/proof-pdn-pydraughts.sh [path/to/checkers]  (default: debug build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/target/debug/checkers}"
if [ ! -x "$bin" ]; then
  (cd "$root" && cargo build)
fi
venv="${PYDRAUGHTS_VENV:-/tmp/checkers-pydraughts-venv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -c "import draughts" 2>/dev/null || "$venv/bin/pip" install -q pydraughts
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Positions of both sides to move, with proofs of several plies and (at
# 4 pieces with the 3-piece databases) proofs whose root is a leaf.
cat >"$work/fens.txt" <<'FENS'
W:WK19,K23:B12,K28
B:WK19,K23:B12,K28
W:WK18,K19,K20:BK27,K28
B:W14:B10
W:W18,19,K22:B10,11,21
FENS
CHECKERS_EGDB="$work/egdb" "$bin" solve --batch "$work/fens.txt" --egdb-pieces 3 --time 5 \
  --proof-out "$work/proofs.txt" >/dev/null
"$bin" proof export "$work/proofs.txt" --format pdn >"$work/proofs.pdn"
"$venv/bin/python" - "$work/proofs.pdn" <<'PY'
import sys
from draughts.PDN import PDNReader
with open(sys.argv[1]) as f:
    text = f.read()
written = text.count("[Event ")
games = PDNReader(filename=sys.argv[1]).games
print(f"proof-pdn-pydraughts: {written} games written, {len(games)} read")
bad = [g.tags for g in games if g.variant != "english" or "FEN" not in g.tags or not g.moves]
if len(games) != written or bad or written == 0:
    sys.exit(f"pydraughts misread the export: {bad[:3]}")
PY
echo "proof-pdn-pydraughts: ok"
