#!/usr/bin/env bash
# Tier-2 policy evaluation with and without the issue-24 checkpoints.
# Usage: bench/policy.sh [SUITE_DIR] [RUNS]
# SUITE_DIR defaults to suites/airline-tau (19 episodes); for all 200:
#   python3 scripts/tau-bench-airline.py --source gpt-4o-airline.json --out /tmp/a200/airline-200
#   bench/policy.sh /tmp/a200/airline-200
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench policy -- "${1:-suites/airline-tau}" "${2:-9}"
