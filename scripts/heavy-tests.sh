#!/usr/bin/env bash
# The heavy checks kept out of the default test run: deep perft, the large
# database and solver checks. Run on a quiet machine; takes tens of minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --release -- --ignored "$@"
