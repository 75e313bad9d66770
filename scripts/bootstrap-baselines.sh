#!/usr/bin/env bash
# Rebuild the committed example baselines (baselines/main/) with the tool itself.
#
# support-bot gets six history points: five runs of the example agent with
# seeded transient tool failures (AGENT_FLAKE_SEED=1..5, the run-to-run noise
# of a real deployment), then the recorded traces. So its 2σ band is available.
# code-review and airline-tau get one update each: their 2σ band reports
# "unavailable" until five updates exist, as it would in a new project.
#
# Written with --deterministic (no timestamps or git metadata), so re-running
# this script reproduces the files byte for byte.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet
bin=${CARGO_TARGET_DIR:-target}/debug/agenteval-gate
rm -rf baselines/main
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for k in 1 2 3 4 5; do
  python3 suites/support-bot/record.py --flake-seed "$k" --out "$tmp/run-$k" >/dev/null
  "$bin" --isolated --quiet baseline update --name main --suite support-bot \
    --traces "$tmp/run-$k/traces" --evidence "$tmp/run-$k/evidence" --deterministic
done
# The recorded traces, in replay mode (support-bot declares `agent:`, so
# without --traces it would run the agent, which gives the same traces).
"$bin" --isolated --quiet baseline update --name main --suite support-bot \
  --traces suites/support-bot/traces --evidence suites/support-bot/evidence --deterministic
"$bin" --isolated --quiet baseline update --name main --suite code-review --deterministic
"$bin" --isolated --quiet baseline update --name main --suite airline-tau --deterministic
# A second baseline of support-bot, judged by replaying the committed judge
# cache (recorded from the SCRIPTED STAND-IN judge, not a model: see
# scripts/record-judge-cache.sh), GPA trace judges included, for
# `compare --baseline stand-in-judge --judge replay --trace-judges gpa`.
rm -rf baselines/stand-in-judge
"$bin" --isolated --quiet baseline update --name stand-in-judge --suite support-bot \
  --traces suites/support-bot/traces --evidence suites/support-bot/evidence --judge replay --trace-judges gpa --deterministic
"$bin" --isolated baseline list
