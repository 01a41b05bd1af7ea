#!/usr/bin/env bash
# The heavy checks kept out of the default test run: deep perft, the large
# database and solver checks, then the cluster scripts on a one-node Slurm
# cluster (scripts/slurm-test.sh, about 5 minutes; as root only, since it
# installs Slurm and starts its daemons: SLURM_TEST=0 leaves it out, 1
# runs it anyway), and the proof browser in headless Chromium
# (scripts/browser-test.sh, a few minutes; it installs Debian's chromium
# when missing, so by default it runs as root or where chromedriver is
# installed: BROWSER_TEST=0 leaves it out, 1 runs it anyway). Run on a
# quiet machine; takes tens of minutes. PYDRAUGHTS_TEST=1 also reads the
# proof PDN export back with pydraughts (scripts/proof-pdn-pydraughts.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --release -- --ignored "$@"
if [ "${SLURM_TEST:-$([ "$(id -u)" = 0 ] && echo 1 || echo 0)}" = 1 ]; then
  cargo build --release
  CHECKERS_BIN=target/release/checkers scripts/slurm-test.sh
else
  echo "heavy-tests: scripts/slurm-test.sh left out (not root; SLURM_TEST=1 runs it)"
fi
if [ "${BROWSER_TEST:-$({ [ "$(id -u)" = 0 ] || [ -x /usr/bin/chromedriver ]; } && echo 1 || echo 0)}" = 1 ]; then
  cargo build --release
  CHECKERS_BIN=target/release/checkers scripts/browser-test.sh
else
  echo "heavy-tests: scripts/browser-test.sh left out (not root, no chromedriver; BROWSER_TEST=1 runs it)"
fi
if [ "${PYDRAUGHTS_TEST:-0}" = 1 ]; then
  cargo build --release
  scripts/proof-pdn-pydraughts.sh target/release/checkers
else
  echo "heavy-tests: scripts/proof-pdn-pydraughts.sh left out (it installs pydraughts from PyPI; PYDRAUGHTS_TEST=1 runs it)"
fi
