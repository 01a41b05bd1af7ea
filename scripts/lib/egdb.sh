# Sourced by the scripts that build databases with a given binary
# (scripts/egdb-build-pace.sh, scripts/egdb-builders-compare.sh): the
# checks of their arguments BIN DB_DIR ..., their --for arguments, and
# the threads of each build.

# Threads of each build: THREADS, 2 by default.
threads=${THREADS:-2}

# `egdb_check_args MIN "$@"`: with fewer than MIN arguments, prints the
# sourcing script's header comment (its lines after the first, up to the
# first that is not a comment) and exits 2; exits 2 with a message naming
# the script unless BIN (the first argument) is an executable and DB_DIR
# (the second) a folder.
egdb_check_args() {
  local min=$1 me
  shift
  if [ $# -lt "$min" ]; then
    awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" >&2
    exit 2
  fi
  me=$(basename "$0" .sh)
  [ -x "$1" ] || { echo "$me: $1 is not an executable" >&2; exit 2; }
  [ -d "$2" ] || { echo "$me: $2 is not a folder" >&2; exit 2; }
}

# Sets the array for_args to `--for FEN` for each argument FEN.
egdb_for_args() {
  local fen
  for_args=()
  for fen in "$@"; do for_args+=(--for "$fen"); done
}
