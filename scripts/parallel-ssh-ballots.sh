#!/usr/bin/env bash
# The same as the Slurm array job with GNU parallel over ssh: one ballot per
# job slot on the hosts listed in HOSTS_FILE (GNU parallel --sshloginfile
# format), each writing its own store in a scratch folder on its host,
# backed up whole with `checkers db backup` and returned as its shard,
# then a local merge and report.
#
#   HOSTS_FILE=hosts.txt REMOTE_BIN=/opt/checkers/checkers \
#     scripts/parallel-ssh-ballots.sh [DECK] [SECS-PER-BALLOT] [OUT_DIR]
# Every host needs the binary at REMOTE_BIN and the databases to
# EGDB_PIECES (default 6) at CHECKERS_EGDB (or its default cache folder),
# built beforehand: the runs build none (CHECKERS_EGDB_BUILD=no).
#
# Running it again continues: each ballot's shard is sent back to its host
# and the walk resumes from it (with a larger budget it goes on). A ballot
# whose job failed keeps its earlier shard (or none).
set -euo pipefail
cd "$(dirname "$0")/.."
deck=${1:-156}
budget=${2:-600}
out=$(realpath -m "${3:-runs/parallel-$deck}")
: "${HOSTS_FILE:?list the ssh hosts in HOSTS_FILE}"
: "${REMOTE_BIN:?set REMOTE_BIN to the checkers binary path on the hosts}"
hosts=$(realpath "$HOSTS_FILE")
mkdir -p "$out/shards"
bin=$(realpath ./target/release/checkers)
ballots=$("$bin" ballots list --deck "$deck" --json | jq -r '.number' | tr '\n' ' ')
egdb_env=
[ -n "${CHECKERS_EGDB:-}" ] && egdb_env="CHECKERS_EGDB=$(printf %q "$CHECKERS_EGDB")"
# The job on a host, in parallel's scratch folder there: resume from the
# shard sent over (an empty file when there is none yet), run, back the
# store up over the shard, which parallel brings back (--return).
job="s=ballot-{}.sqlite; st=0;
  if [ -s \$s ]; then $REMOTE_BIN db backup run.sqlite --store \$s || exit 1; fi;
  $egdb_env CHECKERS_EGDB_BUILD=no $REMOTE_BIN ballots run --ballot {} --budget $budget \
    --position-budget ${POSITION_BUDGET:-$budget} --egdb-pieces ${EGDB_PIECES:-6} \
    --store run.sqlite --threads 1 || st=\$?;
  [ -f run.sqlite ] && $REMOTE_BIN db backup \$s --store run.sqlite || st=1;
  rm -f run.sqlite run.sqlite-wal run.sqlite-shm; exit \$st"
cd "$out/shards"
for b in $ballots; do
  [ -e "ballot-$b.sqlite" ] || : >"ballot-$b.sqlite"
done
status=0
parallel --sshloginfile "$hosts" --jobs 100% --joblog "$out/joblog" \
  --transferfile "ballot-{}.sqlite" --return "ballot-{}.sqlite" --cleanup --workdir ... \
  "$job" ::: $ballots || status=$?
shards=()
for b in $ballots; do
  [ -s "ballot-$b.sqlite" ] && shards+=("$out/shards/ballot-$b.sqlite")
done
cd - >/dev/null
[ ${#shards[@]} -gt 0 ] || { echo "no shard came back" >&2; exit 1; }
"$bin" db merge --store "$out/merged.sqlite" "${shards[@]}" || status=$?
"$bin" ballots report --store "$out/merged.sqlite" --out "$out/report"
exit "$status"
