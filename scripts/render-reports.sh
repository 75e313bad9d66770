#!/usr/bin/env bash
# Render the example reports as HTML and look at them in a real browser:
# headless Chromium takes a screenshot of each (first screen and full page).
#
#   scripts/render-reports.sh [OUT_DIR]   default: target/report-shots
#   LARGE=1 scripts/render-reports.sh     also the 1,000-case reports that
#                                         bench/html-report.sh wrote to bench/out/html/
#   DOCS=1 scripts/render-reports.sh      refresh docs/report-compare.png (pngquant if present)
#
# Needs Chromium (Debian: `apt-get install -y chromium`; or set CHROMIUM=/path).
# The browser gets no network: the reports load nothing, and a host resolver
# that resolves nothing makes sure of it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/report-shots}
mkdir -p "$out"
browser=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
if [[ -z "$browser" ]]; then
  echo "error: Chromium not found; install it (Debian: apt-get install -y chromium) or set CHROMIUM=/path/to/chromium" >&2
  exit 69
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

cargo build --locked --quiet
bin=target/debug/agenteval-gate
gate() { "$bin" --isolated --quiet "$@"; }
# `compare` exits 2 on a failed gate and `run` on a breached absolute gate: both are results here.
expect() {
  local want=$1
  shift
  local code=0
  "$@" >/dev/null || code=$?
  if [[ " $want " != *" $code "* ]]; then
    echo "error: \`$*\` exited $code (expected $want)" >&2
    exit 1
  fi
}

expect 2 gate compare --baseline main --suite support-bot \
  --traces suites/support-bot/traces-regressed --evidence suites/support-bot/evidence-regressed \
  --deterministic --format json --out "$out/compare-regressed.json"
expect 0 gate compare --baseline main --deterministic --format json --out "$out/compare-pass.json"
for suite in code-review airline-tau; do
  expect "0 2" gate run --suite "$suite" --deterministic --out "$out/run-$suite.json"
done

shoot() { # html png height
  "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --host-resolver-rules="MAP * ~NOTFOUND" --user-data-dir="$profile" --hide-scrollbars \
    --window-size="1400,$3" --screenshot="$2" "file://$(realpath "$1")" >/dev/null 2>&1
  [[ -s "$2" ]] || { echo "error: no screenshot of $1" >&2; exit 1; }
}

pages=()
for json in "$out"/compare-*.json "$out"/run-*.json; do
  html=${json%.json}.html
  gate report "$json" --format html --out "$html"
  pages+=("$html")
done
if [[ "${LARGE:-0}" == 1 ]]; then
  for html in bench/out/html/compare.html bench/out/html/run.html; do
    [[ -f "$html" ]] || { echo "error: $html missing; run bench/html-report.sh first" >&2; exit 1; }
    cp "$html" "$out/large-$(basename "$html")"
    pages+=("$out/large-$(basename "$html")")
  done
fi
for html in "${pages[@]}"; do
  base=${html%.html}
  shoot "$html" "$base.png" 900
  shoot "$html" "$base-full.png" 6000
  echo "$base.png  $base-full.png  ($(wc -c <"$html") bytes of HTML)"
done

if [[ "${DOCS:-0}" == 1 ]]; then
  if command -v pngquant >/dev/null; then
    pngquant --force --quality 60-85 --strip --output docs/report-compare.png "$out/compare-regressed.png"
  else
    cp "$out/compare-regressed.png" docs/report-compare.png
  fi
  echo "docs/report-compare.png: $(wc -c <docs/report-compare.png) bytes"
fi
