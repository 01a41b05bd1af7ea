#!/usr/bin/env bash
# The cluster scripts on a real one-node Slurm cluster started here, in
# the foreground of this script (a Debian 12 container as root, no
# systemd): installs slurmctld, slurmd and munge from the distribution if
# missing, writes a private slurm.conf and munge key under a scratch
# folder (other ports and sockets than a system Slurm's), starts munged,
# slurmctld and slurmd, and stops them at the end, also on failure.
#
#   scripts/slurm-test.sh          # builds the release binary first
#   CHECKERS_BIN=path scripts/slurm-test.sh
#
# It checks, and prints PASS or FAIL for each:
#  1. scripts/slurm-egdb.sh: 2 and 3 pieces built directly, then the 21
#     4-piece slices a position needs as array jobs in 11 dependency
#     layers, each task's memory capped (MAX_MEM_MB) below what its build
#     needs, so that every one is built out of core: all of them and
#     nothing else built, each task saying it went out of core, each
#     slice re-derived once by the script's check array (`egdb verify
#     --full --slice`), 0 inconsistent, and `egdb verify --full` over the
#     folder;
#  2. scripts/slurm-ballots.sbatch as an array of 3 tasks (ballots 1-3,
#     15 s each) with scripts/slurm-merge.sbatch depending on it: each
#     shard holds its walk, every result of every shard is in the merged
#     store;
#  3. the same array again, 600 s a ballot under a 1-minute time limit
#     (the early warning left out): every task meets the limit, backs up,
#     its shard keeps every result and job record it had and records the
#     new run beside the old (resumed, not started afresh), the walks go
#     on (new job records), and the merge folds it all in;
#  4. beside it, the early warning: a task of four ballots under a
#     6-minute limit with the script's own --signal=B:USR1@300 stops its
#     run, backs up and ends COMPLETED before the limit.
# Exits non-zero if anything failed. Scratch folder: SLURM_TEST_DIR (default
# a new folder under /tmp, removed on success unless KEEP=1). Takes about
# 4 minutes on 2 cores, the release build aside.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

say() { printf '[%6.1fs] %s\n' "$(($(date +%s%N) / 1000000 - t0))e-3" "$*"; }
t0=$(($(date +%s%N) / 1000000))
results=()
failed=0
check() { # check NAME COMMAND...: runs COMMAND, records PASS/FAIL
  local name=$1
  shift
  if "$@"; then
    results+=("PASS  $name")
    say "PASS: $name"
  else
    results+=("FAIL  $name")
    say "FAIL: $name"
    failed=1
  fi
}

# --- the binary --------------------------------------------------------
if [ -z "${CHECKERS_BIN:-}" ]; then
  say "building the release binary"
  cargo build --release -j2 >&2
  CHECKERS_BIN=$repo/target/release/checkers
fi
CHECKERS_BIN=$(realpath "$CHECKERS_BIN")
export CHECKERS_BIN

# --- Slurm and munge ---------------------------------------------------
need=()
for c in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge jq:jq sqlite3:sqlite3; do
  command -v "${c%%:*}" >/dev/null || need+=("${c#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

work=${SLURM_TEST_DIR:-$(mktemp -d /tmp/checkers-slurm-test.XXXXXX)}
mkdir -p "$work"/{etc,state,spool,log,run,munge,shared}
chmod 700 "$work/munge"
work=$(realpath "$work")
host=$(hostname -s)
mem_mb=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 }' /proc/meminfo)
mem_mb=$((mem_mb - 1024 > 1024 ? mem_mb - 1024 : mem_mb / 2))
export SLURM_CONF=$work/etc/slurm.conf
cat >"$SLURM_CONF" <<EOF
# One node, this host, for scripts/slurm-test.sh. No cgroups (a container):
# processes are tracked by parent pid, nothing is confined.
ClusterName=checkers-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=46817
SlurmdPort=46818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1024
SchedulerType=sched/backfill
ReturnToService=2
MailProg=/bin/true
# Finished jobs stay visible to scontrol (no accounting database here).
MinJobAge=3600
# Start array tasks as soon as others end (the default waits 3 s).
SchedulerParameters=batch_sched_delay=0
KillWait=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 RealMemory=$mem_mb State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

pids=()
stop_daemons() {
  local p
  scancel --quiet --user=root 2>/dev/null || true
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null || true
  done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do
      kill -0 "$p" 2>/dev/null || break
      sleep 0.2
    done
    kill -9 "$p" 2>/dev/null || true
  done
  pids=()
}
finish() {
  local rc=$?
  stop_daemons
  echo
  echo "== slurm-test summary ($(($(date +%s) - t0 / 1000)) s, scratch $work)"
  local r
  for r in "${results[@]}"; do echo "$r"; done
  if [ "$failed" = 0 ] && [ "$rc" = 0 ] && [ ${#results[@]} -gt 0 ]; then
    echo "slurm-test: PASS"
    [ "${KEEP:-0}" = 1 ] || rm -rf "$work"
  else
    echo "slurm-test: FAIL (logs: $work/log, job output: $work/shared)"
    exit 1
  fi
}
trap finish EXIT

say "starting munged, slurmctld, slurmd on $host (scratch $work)"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --foreground --force --key-file="$work/munge/munge.key" \
  --socket="$work/munge/munge.socket" --pid-file="$work/run/munged.pid" \
  --log-file="$work/log/munged.log" --seed-file="$work/munge/seed" \
  >>"$work/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.1; done
slurmctld -D -i -f "$SLURM_CONF" >>"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >>"$work/log/slurmd.out" 2>&1 &
pids+=($!)
for i in $(seq 60); do
  state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  [ "$i" = 60 ] && { tail -20 "$work"/log/*.log >&2; echo "node not idle: '$state'" >&2; exit 1; }
  sleep 1
done
say "node $host idle: $(sinfo -h -o '%c CPUs, %m MB')"

# --- helpers -----------------------------------------------------------
# wait_jobs SECS: until the queue is empty (false after SECS seconds).
wait_jobs() {
  local i
  for ((i = 0; i < $1; i += 2)); do
    [ -z "$(squeue -h -o %i)" ] && return 0
    sleep 2
  done
  squeue >&2
  return 1
}
# job_states JOBID: the state of the job or of each of its array tasks.
job_states() {
  scontrol -o show job "$1" | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 | sort | uniq -c |
    awk '{ printf "%s%s x%s", sep, $2, $1; sep = ", " }'
}
# all_in STATE JOBID: every task of the job ended in STATE.
all_in() {
  local s
  s=$(scontrol -o show job "$2" | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 | sort -u)
  [ "$s" = "$1" ] || { echo "job $2: $(job_states "$2"), expected all $1" >&2; return 1; }
}
stat_of() { # stat_of STORE FIELD: a number from `db stats --json`
  "$CHECKERS_BIN" db stats --json --store "$1" | jq -r ".$2"
}
# covers STORE OTHER: every result of OTHER (a store, or a `db export`
# of one) is in STORE with the same outcome or a narrower one (a bound
# the merge tightened).
covers() {
  local missing other=$2
  if [ "${other%.jsonl}" = "$other" ]; then
    other=$work/covers-other.jsonl
    "$CHECKERS_BIN" db export --store "$2" >"$other" || return 1
  fi
  "$CHECKERS_BIN" db export --store "$1" >"$work/covers-store.jsonl" || return 1
  missing=$(jq -rn --slurpfile m "$work/covers-store.jsonl" --slurpfile s "$other" '
      ($m | map({key: .fen, value: .value}) | from_entries) as $have
      | def ok($a; $b): $a == $b
          or ($a == ">=draw" and ($b == "win" or $b == "draw"))
          or ($a == "<=draw" and ($b == "loss" or $b == "draw"));
      $s[] | select(ok(.value; $have[.fen] // "none") | not)
      | "\(.fen) \(.value) -> \($have[.fen] // "missing")"')
  if [ -n "$missing" ]; then
    echo "$2: results not in $1:" >&2
    echo "$missing" | head -5 >&2
    return 1
  fi
}

shared=$work/shared
egdb=$shared/egdb

# --- 1. databases: 2-3 pieces directly, 4 pieces as layered array jobs --
# Of 4 pieces, the 21 slices (in 11 layers) a game from FOR_FEN may enter:
# all 296 would take 2 minutes of Slurm's task starts here.
FOR_FEN=${FOR_FEN:-W:WK19,23:B12,K28}
say "egdb: 2-3 pieces directly, then the 4-piece slices of $FOR_FEN as array jobs"
CHECKERS_EGDB=$egdb "$CHECKERS_BIN" egdb build --pieces 3 --threads 2 2>&1 | tail -1
egdb_ok() {
  local jid want have
  # MAX_MEM_MB = MEM_BASE_MB: no memory left for the tables (--memory 0),
  # so every task builds out of core.
  mkdir -p "$work/node-scratch"
  CHECKERS_EGDB=$egdb JOBS_DIR=$shared/egdb-jobs CPUS=1 SBATCH_ARGS="--time=10" \
    MEM_BASE_MB=256 MAX_MEM_MB=256 SCRATCH_DIR=$work/node-scratch \
    scripts/slurm-egdb.sh 4 --for "$FOR_FEN" >/dev/null 2>"$shared/egdb-submit.log" || return 1
  sed 's/^/  /' "$shared/egdb-submit.log"
  wait_jobs 600 || return 1
  for j in $(grep -o 'job [0-9]*' "$shared/egdb-submit.log" | cut -d' ' -f2); do
    all_in COMPLETED "$j" || return 1
  done
  for p in 2 3; do "$CHECKERS_BIN" egdb slices --pieces $p --json; done | jq -r .slice >"$work/want"
  "$CHECKERS_BIN" egdb slices --pieces 4 --for "$FOR_FEN" --json | jq -r .slice >"$work/want4"
  want=$(sort "$work/want" "$work/want4")
  have=$(ls "$egdb" | sed -n 's/\.egdb$//p' | sort)
  # Every slice listed for the position is there, and no other of 4 pieces.
  [ "$want" = "$have" ] || { echo "slices: $(diff <(echo "$want") <(echo "$have") | head -5)" >&2; return 1; }
  want=$(sort "$work/want4")
  say "egdb: the $(echo "$want" | wc -l) slices of 4 pieces for $FOR_FEN built"
  local outside
  outside=$(cat "$shared"/egdb-jobs/layer-*.out | grep -c "allowed: built out of core" || true)
  say "egdb: $outside of them built out of core within their tasks' capped memory"
  [ "$outside" = "$(echo "$want" | wc -l)" ] || { echo "out of core: $outside" >&2; return 1; }
  # In the node's scratch folder, and nothing left there.
  grep -q "scratch files in $work/node-scratch" "$shared"/egdb-jobs/layer-1-*.out || return 1
  [ -z "$(ls -A "$work/node-scratch")" ] || { echo "scratch left: $(ls -A "$work/node-scratch")" >&2; return 1; }
  # The check's array re-derived each of them once, none inconsistent.
  local checked
  checked=$(cat "$shared"/egdb-jobs/verify-*.out |
    sed -n 's/^full check of \([0-9]*\) slices\{0,1\} .* 0 inconsistent.*/\1/p' |
    awk '{s += $1} END {print s + 0}')
  say "egdb: the check's array re-derived $checked slices, 0 inconsistent"
  [ "$checked" = "$(echo "$want" | wc -l)" ] || { echo "checked $checked slices" >&2; return 1; }
  CHECKERS_EGDB=$egdb "$CHECKERS_BIN" egdb verify --full --threads 2 2>&1 | tail -2
}
check "egdb: layered array jobs build the 4-piece slices of a position, verify --full" egdb_ok
# The rest of the 4-piece slices for the ballots (directly: fast).
CHECKERS_EGDB=$egdb "$CHECKERS_BIN" egdb build --pieces 4 --threads 2 2>&1 | tail -1

# --- 2. ballots: an array of 3 tasks, then the merge -------------------
export CHECKERS_EGDB=$egdb EGDB_PIECES=4 BALLOTS="1 2 3" SHARED_DIR=$shared/run
mkdir -p "$SHARED_DIR"
submit_run() { # submit_run BUDGET POSITION_BUDGET SBATCH-OPTION...: array, then merge
  local budget=$1 position=$2
  shift 2
  array=$(BUDGET=$budget POSITION_BUDGET=$position sbatch --parsable --array=1-3 \
    --cpus-per-task=1 --mem=2G --output="$SHARED_DIR/ballots-%A_%a.out" "$@" \
    scripts/slurm-ballots.sbatch)
  merge=$(sbatch --parsable --dependency="afterany:$array" --mem=1G \
    --output="$SHARED_DIR/merge-%j.out" scripts/slurm-merge.sbatch)
  say "submitted array $array (budget $budget s, $* ) and merge $merge"
}
# shards_ok: every shard holds its walk (a main line and job records; a
# walk stuck at its first ply proves nothing), the shards some results,
# and every result of every shard is in the merged store.
shards_ok() {
  local s n total=0
  for s in "$SHARED_DIR"/shards/ballots-{1,2,3}.sqlite; do
    [ -f "$s" ] || { echo "no shard $s" >&2; return 1; }
    n=$(stat_of "$s" results) || return 1
    say "  $(basename "$s"): $n results, $(stat_of "$s" job_records) job records, $(stat_of "$s" main_lines) main line, $(stat_of "$s" runs) runs"
    [ "$(stat_of "$s" main_lines)" -gt 0 ] && [ "$(stat_of "$s" job_records)" -gt 0 ] ||
      { echo "$s: no main line or no job record" >&2; return 1; }
    total=$((total + n))
    covers "$SHARED_DIR/merged.sqlite" "$s" || return 1
  done
  [ "$total" -gt 0 ] || { echo "no results in any shard" >&2; return 1; }
  say "  merged: $(stat_of "$SHARED_DIR/merged.sqlite" results) results, $(stat_of "$SHARED_DIR/merged.sqlite" job_records) job records"
}
run1_ok() {
  submit_run 15 5
  wait_jobs 600 || return 1
  all_in COMPLETED "$array" && all_in COMPLETED "$merge" && shards_ok
}
check "ballots: 3 array tasks (15 s each) and the merge; the merged store holds every shard's results" run1_ok
for s in 1 2 3; do
  f=$SHARED_DIR/shards/ballots-$s.sqlite
  [ -f "$f" ] || continue
  "$CHECKERS_BIN" db export --store "$f" >"$work/before-$s.jsonl"
  echo "$(stat_of "$f" results) $(stat_of "$f" job_records) $(stat_of "$f" runs)" >"$work/before-$s.counts"
done

# --- 3. the same array again, larger budget, stopped by the time limit --
# --signal=B:USR1@0 leaves out the script's early warning: the tasks meet
# the time limit itself (SIGTERM to every process, SIGKILL 30 s later).
run2_ok() {
  # 10 s a position: an attempt at the ply the first run left open gets
  # twice what it resisted there (about 10-20 CPU-s), so it ends, with a
  # record, inside the minute even on a loaded machine. With 600 s a
  # position the check needed the open ply proved within the minute,
  # which depended on the machine's load and on how hard that ply is.
  submit_run 600 10 --time=1 --signal=B:USR1@0
  # Meanwhile (beside the array's last task) the early warning: ballots
  # 4 to 7 one after the other under a 6-minute limit with the script's
  # own --signal=B:USR1@300, which Slurm sends a minute or so after the
  # start. (Under a 1-minute limit it came at once, sometimes before the
  # walk had proved a ply. Ballot 4 alone was not enough: how long its
  # walk lasts depends on the solvers, and once it ended within the
  # minute, before the warning came.)
  mkdir -p "$shared/run-usr1"
  usr1=$(SHARED_DIR=$shared/run-usr1 BALLOTS="4 5 6 7" BALLOTS_PER_TASK=4 \
    BUDGET=600 POSITION_BUDGET=600 \
    sbatch --parsable --array=1 --cpus-per-task=1 --mem=2G --time=6 \
    --output="$shared/run-usr1/ballots-%A_%a.out" scripts/slurm-ballots.sbatch)
  wait_jobs 600 || return 1
  all_in TIMEOUT "$array" && all_in COMPLETED "$merge" || return 1
  local s w r0 j0 n0 r1 j1 n1 went=0
  for s in 1 2 3; do
    f=$SHARED_DIR/shards/ballots-$s.sqlite
    grep -q "store backed up to" "$SHARED_DIR"/ballots-"${array}"_$s.out || {
      echo "task $s: no backup after the time limit" >&2
      cat "$SHARED_DIR"/ballots-"${array}"_$s.out >&2
      return 1
    }
    read -r r0 j0 n0 <"$work/before-$s.counts"
    r1=$(stat_of "$f" results) j1=$(stat_of "$f" job_records) n1=$(stat_of "$f" runs)
    say "  ballots-$s: results $r0 -> $r1, job records $j0 -> $j1, runs $n0 -> $n1"
    # Resumed from the shard: the earlier run is still recorded beside
    # this one, no result is lost, no job record is dropped.
    [ "$n1" = $((n0 + 1)) ] || { echo "ballots-$s: not resumed from its shard" >&2; return 1; }
    [ "$r1" -ge "$r0" ] && [ "$j1" -ge "$j0" ] || { echo "ballots-$s: shrank" >&2; return 1; }
    covers "$f" "$work/before-$s.jsonl" || return 1
    # The walk went on: the new run (the latest) left job records (not
    # where it spent the minute on one ply it could not finish: a ply cut
    # short by the stop leaves no record).
    w=$(sqlite3 -readonly "$f" "SELECT count(*) FROM job_records WHERE run_id =
      (SELECT id FROM runs ORDER BY started DESC, rowid DESC LIMIT 1)")
    say "  ballots-$s: $w job record(s) of the new run"
    went=$((went + w))
  done
  [ "$went" -gt 0 ] || { echo "no walk went on" >&2; return 1; }
  shards_ok
}
check "ballots again: 600 s budget (10 s a position) under a 1-minute limit; each task resumes, is stopped, backs up, goes on" run2_ok
usr1_ok() {
  local out=$shared/run-usr1/ballots-${usr1}_1.out n
  grep -q "USR1, stopping the run" "$out" && grep -q "store backed up to" "$out" ||
    { echo "$out: no early stop and backup" >&2; cat "$out" >&2; return 1; }
  all_in COMPLETED "$usr1" || return 1
  local shard=$shared/run-usr1/shards/ballots-4-5-6-7.sqlite
  n=$(stat_of "$shard" results) || return 1
  say "  ballots-4-5-6-7: $n results, $(stat_of "$shard" job_records) job records, job $(job_states "$usr1")"
  [ "$n" -gt 0 ] || { echo "ballots-4-5-6-7: no result before the warning" >&2; cat "$out" >&2; return 1; }
}
check "ballots: the early warning (USR1) stops a task before its time limit, and it backs up" usr1_ok
