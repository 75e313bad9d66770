#!/usr/bin/env bash
# Resource bench (issue 25 item 8, issue 22 item 7): wall time, CPU time and
# peak RSS of the gate on four large inputs, each at three sizes, with the
# growth exponent of time and memory between the smallest and the largest.
#
#   bench/resources.sh [SCALE] [BIN]
#
# SCALE multiplies the sizes (default 1: 62.5k/250k/1M OTel SDK spans,
# 62.5k/250k/1M chat messages, 52k/208k/830k telemetry events (~244 MB),
# 625/2.5k/10k checkpoints × 24 cases for compare). BIN defaults to the
# bench-profile build (`cargo build --profile bench`), built if missing.
# Inputs come from bench/gen_resources.py into bench/out/resources/.
#
# Workloads: `trace FILE --format json` (ingest, DAG and rules scores, the
# JSON written to /dev/null) for the three trace formats, and
# `compare --baseline main --deterministic` on the generated suite (after a
# `baseline update` of the same traces). Prints one line per run and a
# summary table in Markdown.
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${1:-1}
BIN=${2:-}
if [[ -z "$BIN" ]]; then
  cargo build --profile bench --locked --quiet
  BIN="${CARGO_TARGET_DIR:-target}/release/agenteval-gate"
fi
BIN=$(realpath "$BIN")
OUT=bench/out/resources
mkdir -p "$OUT"
GEN="python3 bench/gen_resources.py"

sizes() { # base sizes at SCALE 1 → three integers
  python3 -c "import sys; s=float(sys.argv[1]); print(' '.join(str(int(round(x*s))) for x in map(int, sys.argv[2:])))" "$SCALE" "$@"
}

RESULTS=$OUT/results.tsv
: >"$RESULTS"

# measure NAME N BYTES -- command...: one line "name n bytes wall cpu rss_kb exit"
measure() {
  local name=$1 n=$2 bytes=$3
  shift 4
  local log=$OUT/time.log
  local rc=0
  /usr/bin/time -v -o "$log" "$@" >/dev/null 2>"$OUT/stderr.log" || rc=$?
  local wall cpu rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$log")
  cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u+s}' "$log")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$n" "$bytes" "$wall" "$cpu" "$rss" "$rc" | tee -a "$RESULTS"
}

trace_workload() { # name generator base sizes...
  local name=$1 gen=$2
  shift 2
  for n in $(sizes "$@"); do
    local file=$OUT/$name-$n.json
    [[ -f $file ]] || $GEN "$gen" "$n" "$file"
    measure "$name" "$n" "$(stat -c %s "$file")" -- "$BIN" --isolated trace "$file" --format json
  done
}

compare_workload() {
  for c in $(sizes 625 2500 10000); do
    local dir=$OUT/compare-$c
    if [[ ! -d $dir ]]; then
      $GEN compare "$c" "$dir"
      (cd "$dir" && "$BIN" --isolated baseline update --name main --deterministic --quiet >/dev/null)
    fi
    local bytes=$(( c * 24 ))
    measure compare "$c" "$bytes" -- sh -c "cd '$dir' && exec '$BIN' --isolated compare --baseline main --deterministic --quiet"
  done
}

trace_workload otel-sdk otel-sdk 62500 250000 1000000
trace_workload chat chat 62500 250000 1000000
trace_workload telemetry telemetry 52000 208000 830000
compare_workload

python3 - "$RESULTS" <<'EOF'
import math, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
by = {}
for name, n, size, wall, cpu, rss, rc in rows:
    by.setdefault(name, []).append((int(n), int(size), float(wall), float(cpu), int(rss), rc))
print()
print("| workload | n | input | wall s | CPU s | peak RSS | RSS / input | exit |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for name, rs in by.items():
    for n, size, wall, cpu, rss, rc in rs:
        unit = "checkpoints × 24" if name == "compare" else ""
        inp = "—" if name == "compare" else f"{size/1e6:.1f} MB"
        ratio = "—" if name == "compare" else f"{rss*1024/size:.1f}×"
        print(f"| {name} | {n:,} {unit} | {inp} | {wall:.2f} | {cpu:.2f} | {rss/1024:.0f} MB | {ratio} | {rc} |")
print()
print("| workload | CPU growth exponent | RSS growth exponent |")
print("|---|---:|---:|")
for name, rs in by.items():
    (n0, _, _, c0, m0, _), (n1, _, _, c1, m1, _) = rs[0], rs[-1]
    k = math.log(n1 / n0)
    print(f"| {name} | n^{math.log(max(c1,0.01)/max(c0,0.01))/k:.2f} | n^{math.log(m1/m0)/k:.2f} |")
EOF
