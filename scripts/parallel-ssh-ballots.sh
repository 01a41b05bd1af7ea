#!/usr/bin/env bash
# The same as the Slurm array job with GNU parallel over ssh: one ballot per
# job slot on the hosts listed in HOSTS_FILE (GNU parallel --sshloginfile
# format), each writing its own shard, then a local merge and report.
#
#   HOSTS_FILE=hosts.txt REMOTE_BIN=/opt/checkers/checkers \
#     scripts/parallel-ssh-ballots.sh [DECK] [SECS-PER-BALLOT] [OUT_DIR]
# Every host needs the binary at REMOTE_BIN and the databases at
# CHECKERS_EGDB (or its default cache folder).
set -euo pipefail
cd "$(dirname "$0")/.."
deck=${1:-156}
budget=${2:-600}
out=${3:-runs/parallel-$deck}
: "${HOSTS_FILE:?list the ssh hosts in HOSTS_FILE}"
: "${REMOTE_BIN:?set REMOTE_BIN to the checkers binary path on the hosts}"
mkdir -p "$out/shards"
bin=./target/release/checkers
ballots=$("$bin" ballots list --deck "$deck" --json | python3 -c \
  'import json,sys; print(" ".join(str(b["number"]) for b in map(json.loads, sys.stdin)))')
# Each job runs remotely, returns its shard (--return) and cleans up.
parallel --sshloginfile "$HOSTS_FILE" --jobs 1 --joblog "$out/joblog" --resume \
  --return "ballot-{}.sqlite" --cleanup --workdir ... \
  "$REMOTE_BIN ballots run --ballot {} --budget $budget --position-budget $budget --store ballot-{}.sqlite --threads 2" \
  ::: $ballots
mv ballot-*.sqlite "$out/shards/" 2>/dev/null || true
"$bin" db merge --store "$out/merged.sqlite" "$out"/shards/ballot-*.sqlite
"$bin" ballots report --store "$out/merged.sqlite" --out "$out/report"
