#!/usr/bin/env bash
# Plays one game between pydraughts' HubEngine (driving `checkers hub`)
# and pydraughts' own move list (the opponent picks legal moves at random),
# checking that every engine move is legal and the protocol holds.
# Usage: scripts/hub-pydraughts.sh [path/to/checkers]   (default: release build)
# Exits non-zero on any failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/target/release/checkers}"
if [ ! -x "$bin" ]; then
  (cd "$root" && cargo build --release)
fi
venv="${PYDRAUGHTS_VENV:-/tmp/checkers-pydraughts-venv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -c "import draughts" 2>/dev/null || "$venv/bin/pip" install -q pydraughts
"$venv/bin/python" - "$bin" <<'PY'
import random, sys
import draughts
from draughts.engine import HubEngine, Limit

engine = HubEngine([sys.argv[1], "hub"])
engine.init()
board = draughts.Board(variant="english")
rng = random.Random(2007)
engine_side = board.turn  # the engine takes the first player (Black)
plies = 0
while not board.is_over() and plies < 200:
    if board.turn == engine_side:
        result = engine.play(board, Limit(movetime=0.1), ponder=False)
        legal = [m.hub_move for m in board.legal_moves()]
        if result.move.hub_move not in legal:
            sys.exit(f"engine move {result.move.hub_move} not legal; legal: {legal}")
        board.push(result.move)
    else:
        board.push(rng.choice(board.legal_moves()))
    plies += 1
engine.quit()
engine.kill_process()
winner = board.winner()
print(f"game over after {plies} plies; winner: {winner} (engine plays {engine_side}); info: {engine.info}")
if not board.is_over() and plies < 200:
    sys.exit("game did not finish")
if board.is_over() and winner not in (engine_side, 0):
    sys.exit("the engine lost to random moves")
PY
echo "hub-pydraughts: ok"
