#!/usr/bin/env bash
# Ingestion throughput of `run` vs the raw serde_json parse of the same bytes.
# Usage: bench/ingest.sh [N_TRACES] [RUNS] [CHAIN_SPANS]
# The last line times one deep trace (a 20,000-span parent chain) through
# parse + DAG + rules scores.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench ingest -- "${1:-2000}" "${2:-7}" "${3:-20000}"
