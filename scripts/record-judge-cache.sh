#!/usr/bin/env bash
# Re-record suites/support-bot/judge-cache/ from the SCRIPTED STAND-IN judge
# (scripts/stand_in_judge.py: fixed keyword and number rules, NOT a language
# model), so `compare --baseline main --judge replay` can show judged results
# without an API key. The answers only illustrate the report fields; they are
# not judgements.
#
# Records every question the judge is asked about the baseline recording
# (traces/ + evidence/) and the regressed one (traces-regressed/ +
# evidence-regressed/), the GPA trace judges included (`--trace-judges gpa`,
# one question per case; the stand-in scores its seven dimensions by fixed
# rules too). Deterministic: re-running gives the same files. The
# stand-in listens on a fixed port: the base URL is part of every cache key,
# and support-bot's `judge.replay.base_url` names this one.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet
bin=${CARGO_TARGET_DIR:-target}/debug/agenteval-gate
port=18721
cache=suites/support-bot/judge-cache
tmp=$(mktemp -d)
python3 scripts/stand_in_judge.py --port "$port" >"$tmp/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 50); do
  grep -q listening "$tmp/server.log" 2>/dev/null && break
  sleep 0.1
done
url=$(sed -n 's/^listening on //p' "$tmp/server.log")
if [ "$url" != "http://127.0.0.1:$port/v1" ]; then
  echo "the stand-in judge did not start on port $port (in use?): $(cat "$tmp/server.log")" >&2
  exit 1
fi
rm -rf "$cache"
for variant in "" "-regressed"; do
  "$bin" --isolated --quiet run --suite support-bot --deterministic \
    --traces "suites/support-bot/traces$variant" --evidence "suites/support-bot/evidence$variant" \
    --judge openai --judge-model agenteval-stand-in-rules --judge-base-url "$url" --trace-judges gpa \
    --out "$tmp/run$variant.json" --format json >/dev/null
done
echo "recorded $(find "$cache" -name '*.json' | wc -l | tr -d ' ') answers of the stand-in judge into $cache"
