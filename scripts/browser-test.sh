#!/usr/bin/env bash
# The proof browser (`checkers serve`) in a real headless browser:
# Chromium and chromedriver from Debian's packages (installed with apt-get
# when missing, as root), selenium from PyPI in a virtual environment
# (SERVE_VENV, default ~/.cache/checkers/serve-venv), pointed at
# /usr/bin/chromedriver so that nothing else is downloaded.
#
# It makes a small store with the main job (ballots 1 and 2, 4-piece
# databases, 15 CPU-s a ballot, about two minutes with the databases'
# build) unless SERVE_TEST_STORE names one, starts `checkers serve` on a
# free port, walks the page with scripts/browser-test.py (ballot list ->
# main line -> position and its moves -> proof tree -> a bad FEN),
# checking what it shows against the JSON API, saves a screenshot of each
# step into SERVE_SCREENSHOTS (default /tmp/serve-screenshots), stops the
# server and exits non-zero on any failure.
#
# CHECKERS_BIN names the binary (default: cargo build --release).
# CHECKERS_EGDB is the databases' folder as for every command.
set -euo pipefail
cd "$(dirname "$0")/.."

shots=${SERVE_SCREENSHOTS:-/tmp/serve-screenshots}
venv=${SERVE_VENV:-$HOME/.cache/checkers/serve-venv}
bin=${CHECKERS_BIN:-}
if [ -z "$bin" ]; then
  cargo build --release
  bin=target/release/checkers
fi
bin=$(realpath "$bin")

if ! [ -x /usr/bin/chromium ] || ! [ -x /usr/bin/chromedriver ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "browser-test: needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver, as root)" >&2
    exit 1
  fi
  echo "== apt-get install chromium chromium-driver"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi
if ! "$venv/bin/python" -c "import selenium" 2>/dev/null; then
  echo "== selenium into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q selenium
fi

work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

store=${SERVE_TEST_STORE:-}
if [ -z "$store" ]; then
  store=$work/proofs.sqlite
  echo "== a small store: ballots run --ballot 1 --ballot 2"
  "$bin" ballots run --ballot 1 --ballot 2 --egdb-pieces 4 --budget 15 \
    --position-budget 2 --threads 1 --line-depth 6 --store "$store" 2>&1 | tail -4
fi

echo "== checkers serve --store $store"
"$bin" serve --store "$store" --egdb-pieces 4 --port 0 >"$work/serve.out" 2>"$work/serve.err" &
server=$!
url=""
for _ in $(seq 1 600); do
  url=$(grep -o 'http://[0-9.]*:[0-9]*/' "$work/serve.out" || true)
  [ -n "$url" ] && break
  if ! kill -0 "$server" 2>/dev/null; then
    echo "browser-test: checkers serve stopped:" >&2
    cat "$work/serve.err" >&2
    exit 1
  fi
  sleep 0.2
done
if [ -z "$url" ]; then
  echo "browser-test: checkers serve printed no address" >&2
  exit 1
fi
echo "serving $url"

echo "== headless Chromium"
"$venv/bin/python" scripts/browser-test.py "$url" "$shots"
echo "browser-test: ok (screenshots in $shots)"
