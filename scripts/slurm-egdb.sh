#!/usr/bin/env bash
# Builds the endgame databases of a piece count as Slurm array jobs, in
# dependency layers: a slice's layer is 1 + the largest layer of the slices
# of its size it reads (`checkers egdb slices --json`: "reads"; every slice
# of fewer pieces is read too, so it comes after all of them). One array
# job per layer, each task building one slice (`egdb build --slice`, which
# refuses to start if what it reads is missing), each layer submitted with
# --dependency=afterok on the one before, then the check: an array of
# `egdb verify --full --slice ...` tasks (each re-derives VERIFY_PER_TASK
# slices, default 16, from their successors, and checks every file's header
# and checksum), so that a set too large for one machine's day (the 7-piece
# set) is checked in parallel too.
#
#   CHECKERS_BIN=/shared/bin/checkers CHECKERS_EGDB=/shared/egdb \
#     scripts/slurm-egdb.sh PIECES [FROM] [--for FEN]...
#
# Builds the missing slices of FROM..PIECES pieces (default FROM = PIECES:
# the slices of fewer pieces must be there already); with --for, of
# PIECES pieces only those a game from one of the FENs may enter and what
# they read (as `egdb build --pieces PIECES --for FEN`); slices present in
# CHECKERS_EGDB are skipped, so the script can be run again after a failed
# layer (the check then covers every slice of FROM..PIECES pieces listed).
# Prints the id of the last job (the check) on stdout; what it submits on
# stderr. Task lists and job output go to JOBS_DIR (default
# ./slurm-egdb-PIECES, on storage every node sees). SBATCH_ARGS adds
# options to every sbatch (partition, account, --time ...); CPUS (default
# 2) is --cpus-per-task and the build's --threads.
#
# Memory: a layer's array asks for what its largest build needs, as `egdb
# slices --json` gives it ("build_bytes": a state byte and a value byte a
# position and the frontier's two bitmaps), plus MEM_BASE_MB (default 512)
# for the program and the mapped files of the smaller slices it reads. The
# largest 7-piece slice (3m2k@6-0m2k, 357 M positions) then asks for 1.3 GB,
# the largest 8-piece one (3m2k@6-0m3k, 2.97 G) for 6.7 GB. (Measured with
# `/usr/bin/time -v`: 0m5k-0m3k, 1.18 G positions, 2.5 GB by build_bytes,
# peaked at 2.73 GB.) MAX_MEM_MB caps what a task asks for: a slice whose
# build needs more is built out of core within it (each task passes
# `egdb build --memory` its job's memory less MEM_BASE_MB; the tables go
# in scratch files, paged to disk), so that nodes with less memory than
# the largest slice needs can build the whole set. The scratch files go in
# SCRATCH_DIR (a folder on the nodes' own disks that exists on every
# node, e.g. /tmp) or else in CHECKERS_EGDB.
set -euo pipefail
: "${CHECKERS_BIN:?set CHECKERS_BIN to the checkers release binary (on storage every node sees)}"
: "${CHECKERS_EGDB:?set CHECKERS_EGDB to the database folder (on storage every node sees)}"

if [ "${1:-}" = --task ]; then
  # One array task: build the slice on line SLURM_ARRAY_TASK_ID of $2.
  slice=$(sed -n "${SLURM_ARRAY_TASK_ID:?run as an array job}p" "$2")
  [ -n "$slice" ] || { echo "no slice on line $SLURM_ARRAY_TASK_ID of $2" >&2; exit 1; }
  if [ -f "$CHECKERS_EGDB/$slice.egdb" ]; then
    echo "$slice: present"
    exit 0
  fi
  # The tables may take the job's memory less what the program and the
  # mapped files need; past that the build goes out of core.
  memory=()
  if [ -n "${SLURM_MEM_PER_NODE:-}" ]; then
    tables=$((SLURM_MEM_PER_NODE - ${MEM_BASE_MB:-512}))
    memory=(--memory "$((tables > 0 ? tables : 0))")
  fi
  if [ -n "${SCRATCH_DIR:-}" ]; then
    memory+=(--scratch "$SCRATCH_DIR")
  fi
  exec "$CHECKERS_BIN" egdb build --slice "$slice" --dir "$CHECKERS_EGDB" \
    --threads "${SLURM_CPUS_PER_TASK:-1}" "${memory[@]}"
fi
if [ "${1:-}" = --verify-task ]; then
  # One check task: re-derive the slices on line SLURM_ARRAY_TASK_ID of $2.
  line=$(sed -n "${SLURM_ARRAY_TASK_ID:?run as an array job}p" "$2")
  [ -n "$line" ] || { echo "no slice on line $SLURM_ARRAY_TASK_ID of $2" >&2; exit 1; }
  slice_args=()
  for s in $line; do slice_args+=(--slice "$s"); done
  # A journal per task: a task stopped part way (time limit, node
  # failure) and run again (`scontrol requeue`, or the script again) skips
  # the slices it already checked clean against the same files.
  exec "$CHECKERS_BIN" egdb verify --full "${slice_args[@]}" --dir "$CHECKERS_EGDB" \
    --journal "$(dirname "$2")/verify-$SLURM_ARRAY_TASK_ID.journal" \
    --threads "${SLURM_CPUS_PER_TASK:-1}"
fi

usage="usage: slurm-egdb.sh PIECES [FROM] [--for FEN]..."
args=()
for_fens=()
while [ $# -gt 0 ]; do
  case $1 in
  --for) for_fens+=(--for "${2:?$usage}"); shift 2 ;;
  -*) echo "$usage" >&2; exit 2 ;;
  *) args+=("$1"); shift ;;
  esac
done
pieces=${args[0]:?$usage}
from=${args[1]:-$pieces}
cpus=${CPUS:-2}
jobs=$(realpath -m "${JOBS_DIR:-slurm-egdb-$pieces}")
self=$(realpath "$0")
mkdir -p "$jobs" "$CHECKERS_EGDB"
rm -f "$jobs"/layer-*.txt.new "$jobs"/check.txt.new
read -r -a extra <<<"${SBATCH_ARGS:-}"

# slice -> layer; the base layer of a piece count is past every layer of
# the counts below it.
declare -A layer
base=0
top=0
for ((p = from; p <= pieces; p++)); do
  # Slices come in build order: what a slice reads is listed before it.
  while IFS=$'\t' read -r slice bytes reads; do
    echo "$slice" >>"$jobs/check.txt.new"
    [ -f "$CHECKERS_EGDB/$slice.egdb" ] && continue
    l=$((base + 1))
    for r in $reads; do
      [ -n "${layer[$r]:-}" ] && [ "${layer[$r]}" -ge "$l" ] && l=$((layer[$r] + 1))
    done
    layer[$slice]=$l
    echo "$slice $bytes" >>"$jobs/layer-$l.txt.new"
    [ "$l" -gt "$top" ] && top=$l
  done < <(
    fens=()
    [ "$p" = "$pieces" ] && fens=("${for_fens[@]}")
    "$CHECKERS_BIN" egdb slices --pieces "$p" "${fens[@]}" --json |
    jq -r '[.slice, .build_bytes, (.reads | join(" "))] | @tsv')
  base=$top
done

# The check's task list: VERIFY_PER_TASK slices a line (an array stays
# under Slurm's default MaxArraySize of 1001 tasks).
xargs -n "${VERIFY_PER_TASK:-16}" <"$jobs/check.txt.new" >"$jobs/check.txt"
rm "$jobs/check.txt.new"
checks=$(wc -l <"$jobs/check.txt")
submit_check() {
  local jid
  jid=$(sbatch --parsable "${extra[@]}" "$@" --job-name=egdb-verify --array="1-$checks" \
    --cpus-per-task="$cpus" --mem="$((${MEM_BASE_MB:-512} * 2))M" \
    --output="$jobs/verify-%A_%a.out" "$self" --verify-task "$jobs/check.txt")
  echo "verify: $checks task(s) of up to ${VERIFY_PER_TASK:-16} slices: job $jid" >&2
  echo "$jid"
}

if [ "$top" = 0 ]; then
  echo "every slice of $from-$pieces pieces is in $CHECKERS_EGDB" >&2
  submit_check
  exit 0
fi

prev=
for ((l = 1; l <= top; l++)); do
  f=$jobs/layer-$l.txt
  cut -d' ' -f1 "$f.new" >"$f"
  n=$(wc -l <"$f")
  largest=$(cut -d' ' -f2 "$f.new" | sort -n | tail -1)
  rm "$f.new"
  mem=$((largest / 1048576 + ${MEM_BASE_MB:-512}))
  over=
  if [ -n "${MAX_MEM_MB:-}" ] && [ "$mem" -gt "$MAX_MEM_MB" ]; then
    mem=$MAX_MEM_MB
    over=" (capped by MAX_MEM_MB: larger builds go out of core)"
  fi
  dep=()
  [ -n "$prev" ] && dep=(--dependency="afterok:$prev" --kill-on-invalid-dep=yes)
  prev=$(sbatch --parsable "${extra[@]}" "${dep[@]}" --job-name="egdb-$pieces-l$l" \
    --array="1-$n" --cpus-per-task="$cpus" --mem="${mem}M" \
    --output="$jobs/layer-$l-%A_%a.out" "$self" --task "$f")
  echo "layer $l: $n slice(s), largest build $largest bytes, --mem ${mem}M$over: job $prev" >&2
done
submit_check --dependency="afterok:$prev" --kill-on-invalid-dep=yes
