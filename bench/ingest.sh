#!/usr/bin/env bash
# Ingestion bench (issue 22 item 7), two parts, one run:
#
# 1. Throughput of `run` vs the raw serde_json parse of the same bytes
#    (`cargo bench --bench ingest`: N small OTLP traces, then one deep chain).
# 2. One ~100 MB OTLP/JSON file in two shapes, "one" (a single trace of SPANS
#    spans) and "many" (the same spans over 2,000 traces): the median wall
#    time and peak RSS of `agenteval-gate trace FILE --format json`, next to
#    Python's `json.loads` of the same bytes (in-process, and its peak RSS as
#    a process), a plain `serde_json::Value` parse and the gate's own
#    `trace::parse_traces`, each in-process on one thread.
#
# Usage: bench/ingest.sh [N_TRACES] [RUNS] [CHAIN_SPANS] [SPANS]
#        (defaults 2000, 7, 20000, 82000; SPANS=0 skips part 2)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${2:-7}
SPANS=${4:-82000}
cargo bench --bench ingest --locked -- "${1:-2000}" "$RUNS" "${3:-20000}"
[[ "$SPANS" == 0 ]] && exit 0

TARGET=${CARGO_TARGET_DIR:-target}
cargo build --profile bench --locked --quiet
BIN=$(realpath "$TARGET/release/agenteval-gate")
BENCH=$(cargo bench --bench ingest --locked --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "ingest":
        print(m["executable"])')
OUT=bench/out/ingest-py
mkdir -p "$OUT"
# The in-process parses repeat RUNS times; the process runs 5 times (minutes otherwise).
PROC_RUNS=5

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# wall seconds and peak RSS (KiB) of one command, its stdout discarded
timed() {
  /usr/bin/time -f '%e %M' -o "$OUT/time.txt" "$@" >/dev/null
  cat "$OUT/time.txt"
}

# shellcheck disable=SC2016 # backticks are Markdown
printf '\n| shape | file | spans / traces | `trace --format json`: wall | its peak RSS | `parse_traces` (in-process) | `serde_json::Value` (in-process) | Python `json.loads` (in-process) | Python peak RSS | trace / Python | parse_traces / Python | Value / parse_traces |\n'
printf '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for shape in one many; do
  file=$OUT/$shape-$SPANS.json
  traces=1
  [[ $shape == many ]] && traces=2000
  [[ -f $file ]] || python3 bench/gen_resources.py otlp "$SPANS" "$file" "$traces"
  bytes=$(stat -c %s "$file")
  walls=() rss=()
  for _ in $(seq "$PROC_RUNS"); do
    read -r w r < <(timed "$BIN" --isolated trace "$file" --format json)
    walls+=("$w") rss+=("$r")
  done
  gate_wall=$(printf '%s\n' "${walls[@]}" | median)
  gate_rss=$(printf '%s\n' "${rss[@]}" | sort -g | tail -1)
  read -r value parse < <("$BENCH" "--file=$file" "$RUNS" | awk '/^value_s/ {v=$2} /^parse_traces_s/ {p=$2} END {print v, p}')
  py=$(python3 -c 'import json, sys, time
data = open(sys.argv[1], "rb").read()
times = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter(); json.loads(data); times.append(time.perf_counter() - t)
times.sort(); print("%.4f" % times[len(times) // 2])' "$file" "$RUNS")
  read -r _ py_rss < <(timed python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read())' "$file")
  python3 - "$shape" "$bytes" "$SPANS" "$traces" "$gate_wall" "$gate_rss" "$parse" "$value" "$py" "$py_rss" <<'PY'
import sys
shape, b, spans, traces, gw, grss, parse, value, py, pyrss = sys.argv[1:]
b = int(b); mb = b / 1e6
gw, parse, value, py = map(float, (gw, parse, value, py))
grss, pyrss = int(grss) * 1024, int(pyrss) * 1024
print(f"| {shape} | {mb:.1f} MB | {int(spans):,} / {int(traces):,} | {gw:.2f} s | {grss/1e6:,.0f} MB ({grss/b:.1f}×) "
      f"| {parse:.2f} s | {value:.2f} s | {py:.2f} s | {pyrss/1e6:,.0f} MB ({pyrss/b:.1f}×) "
      f"| {gw/py:.2f}× | {parse/py:.2f}× | {value/parse:.2f}× |")
PY
done
echo
echo "Medians: \`trace\` of $PROC_RUNS process runs (peak RSS: the largest), in-process parses of $RUNS runs after a warm-up."
