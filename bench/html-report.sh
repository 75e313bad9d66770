#!/usr/bin/env bash
# Size and render time of the compare/run HTML reports and the PR comment at
# N cases (the regressed support-bot example replicated).
# Usage: bench/html-report.sh [N_CASES] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --locked --bench html_report -- "${1:-1000}" "${2:-5}"
