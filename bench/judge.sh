#!/usr/bin/env bash
# Judge pipeline throughput against a loopback server: overhead (instant
# server), cache hits, and a 200 ms server at several concurrencies.
# Usage: bench/judge.sh [N_QUESTIONS] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench judge -- "${1:-4000}" "${2:-5}"
