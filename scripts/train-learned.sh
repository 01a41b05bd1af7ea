#!/usr/bin/env bash
# Rebuilds the committed learned-evaluation weights
# (engine/src/eval/learned.bin) from nothing but this repository and the
# 6-piece databases, in two generations of self-play games (each
# resumable: a rerun plays only the games missing from its file):
#
#   1. 20,000 games with the hand weights          -> gen1.tsv
#   2. 20,000 games with the first learned weights -> gen2.tsv
#      (the seven-row-window weights of commit 57d3c86, read from git)
#
# then the fit on both, written to OUT (default
# engine/src/eval/learned.bin). Every game is depth 6 after 8 random
# plies, game N seeded by N, and the fit is the same on any number of
# threads, so the result matches the committed file bit for bit. About
# 40 minutes on 2 cores (docs/measurements.md, "Learned evaluation"). A
# third generation, played with the result, did not pay (the same
# section); GENERATIONS=3 plays and fits it all the same.
#
#   scripts/train-learned.sh WORK-DIR [OUT]
#
# Needs: CHECKERS_EGDB pointing at a complete 6-piece set (or lets
# `checkers` build it), a git checkout (for generation 2's players).
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:?usage: scripts/train-learned.sh WORK-DIR [OUT]}
out=${2:-engine/src/eval/learned.bin}
mkdir -p "$work"
bin=${CHECKERS_BIN:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=./target/release/checkers
fi
threads=${THREADS:-2}
common=(--games 20000 --depth 6 --random-plies 8 --threads "$threads")
fit=(--steps 300 --lr 0.01 --l2 100 --threads "$threads")

"$bin" train generate --positions "$work/gen1.tsv" --play-eval hand "${common[@]}"

gen1_weights="$work/weights-57d3c86.bin"
if [ ! -s "$gen1_weights" ]; then
  git show 57d3c86:engine/src/eval/learned.bin >"$gen1_weights.part"
  mv "$gen1_weights.part" "$gen1_weights"
fi
"$bin" train generate --positions "$work/gen2.tsv" --play-eval "$gen1_weights" "${common[@]}"

if [ "${GENERATIONS:-2}" = 2 ]; then
  "$bin" train fit --positions "$work/gen1.tsv" --fit-also "$work/gen2.tsv" \
    --out "$out" "${fit[@]}"
else
  "$bin" train fit --positions "$work/gen1.tsv" --fit-also "$work/gen2.tsv" \
    --out "$work/weights-gen2.bin" "${fit[@]}"
  "$bin" train generate --positions "$work/gen3.tsv" --play-eval "$work/weights-gen2.bin" "${common[@]}"
  "$bin" train fit --positions "$work/gen1.tsv" --fit-also "$work/gen2.tsv" \
    --fit-also "$work/gen3.tsv" --out "$out" "${fit[@]}"
fi
echo "train-learned: wrote $out"
