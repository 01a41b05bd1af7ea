#!/usr/bin/env bash
# Plays games between pydraughts' HubEngine (driving `checkers hub`) and
# pydraughts' own move list (the opponent picks legal moves at random):
# one from the start position and two set up from a FEN, checking that
# every engine move is legal and the protocol holds.
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

def play(fen, seed):
    """One game: the engine takes the side to move of `fen` (None: the
    start position, Black), the opponent picks legal moves at random."""
    engine = HubEngine([sys.argv[1], "hub"])
    engine.init()
    if fen is None:
        board = draughts.Board(variant="english")
    else:
        board = draughts.Board(variant="english", fen=fen)
    rng = random.Random(seed)
    engine_side = board.turn
    plies = 0
    while not board.is_over() and plies < 200:
        if board.turn == engine_side:
            result = engine.play(board, Limit(movetime=0.1), ponder=False)
            legal = [m.hub_move for m in board.legal_moves()]
            if result.move.hub_move not in legal:
                sys.exit(f"{fen or 'start'}: engine move {result.move.hub_move} not legal; legal: {legal}")
            board.push(result.move)
        else:
            board.push(rng.choice(board.legal_moves()))
        plies += 1
    engine.quit()
    engine.kill_process()
    winner = board.winner()
    print(f"{fen or 'start'}: game over after {plies} plies; winner: {winner} (engine plays {engine_side}); info: {engine.info}")
    if not board.is_over() and plies < 200:
        sys.exit("game did not finish")
    if board.is_over() and winner not in (engine_side, 0):
        sys.exit("the engine lost to random moves")

play(None, 2007)
# Set up from a FEN, pydraughts sends its internal board (turned 180
# degrees, colours swapped) with the moves in the game's numbering.
play("W:W18,22,23,27,28:B1,5,10,14", 2008)
play("B:WK22,K23:BK31,K32,K30", 2009)
PY
echo "hub-pydraughts: ok"
