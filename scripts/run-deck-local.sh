#!/usr/bin/env bash
# Runs a whole deck of ballots on this machine and writes the report.
# Resumable: run it again after an interruption and it goes on where it
# stopped (the store keeps every proved ply).
#
#   scripts/run-deck-local.sh [DECK] [SECS-PER-BALLOT] [STORE] [OUT]
#   DECK: 156 (default), 144, all, barred
set -euo pipefail
cd "$(dirname "$0")/.."
deck=${1:-156}
budget=${2:-25}
store=${3:-runs/deck-$deck.sqlite}
out=${4:-runs/report-$deck}
threads=${THREADS:-$(nproc)}
egdb_pieces=${EGDB_PIECES:-6}
mkdir -p "$(dirname "$store")" "$out"
cargo build --release --quiet
bin=./target/release/checkers
"$bin" egdb build --pieces "$egdb_pieces"
"$bin" ballots run --deck "$deck" --budget "$budget" --position-budget "$budget" \
  --egdb-pieces "$egdb_pieces" --store "$store" --threads "$threads"
"$bin" ballots report --store "$store" --out "$out"
echo "report: $out/ballots.md"
