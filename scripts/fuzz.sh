#!/usr/bin/env bash
# Fuzz every parser of agenteval-gate (issues 12 and 25). Parser targets
# (trace_*, suite_yaml, cases_jsonl, baseline_json, history_jsonl,
# run_report, compare_report) parse and evaluate only; render targets
# (render_trace, render_suite, render_reports) push what parses and every
# error through the renderers (see fuzz/src/lib.rs). docs/fuzzing.md has
# the campaign's numbers.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 60 s, all targets)
#        scripts/fuzz.sh --cmin [TARGET...]                 minimise fuzz/corpus/<target>/ (FUZZ_KEEP_MAX)
#        scripts/fuzz.sh --seeds [TARGET...]                only refresh fuzz/seeds/<target>/
# Needs: rustup toolchain install nightly && cargo install cargo-fuzz
# Run it niced on a shared machine: nice -n 19 scripts/fuzz.sh 600
#
# Corpora: fuzz/corpus/<target>/ is committed (the minimised campaign
# corpus) and is where new inputs land; fuzz/seeds/<target>/ (not committed)
# is re-seeded on every run from tests/fixtures, suites/ and baselines/.
# Crashes land in fuzz/artifacts/<target>/; logs in $FUZZ_LOG_DIR
# (default fuzz/artifacts), and one summary line per run is appended to
# $FUZZ_LOG_DIR/summary.tsv.
#
# Input caps: traces 4 MiB, everything else 2 MiB, above every
# size-dependent path the harness can reach (the harness scales the file
# cap down to 1 MiB and the memory budget to 32 MiB: docs/fuzzing.md).
# FUZZ_MAX_LEN=BYTES runs a smaller cap instead (a fast phase: seeds over
# it are left out, the generated big ones too); the summary line says which.
#
# Build dir: cargo's (CARGO_TARGET_DIR, else fuzz/target).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "error: needs nightly and cargo-fuzz: rustup toolchain install nightly && cargo install cargo-fuzz" >&2
  exit 1
fi
mode=run
secs=60
if [ "${1:-}" = "--cmin" ] || [ "${1:-}" = "--seeds" ]; then
  mode="${1#--}"
  shift
elif [ "$#" -gt 0 ]; then
  secs="$1"
  shift
fi
if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
logdir="${FUZZ_LOG_DIR:-fuzz/artifacts}"
mkdir -p "$logdir"

# cap TARGET: the full-size -max_len and the seed filter, in bytes.
cap() {
  case "$1" in
    trace_* | render_trace) echo $((4 << 20)) ;;
    *) echo $((2 << 20)) ;;
  esac
}

# Seeds of this run: a run with FUZZ_MAX_LEN has its own (fuzz/seeds-small),
# so that a full-cap run and a small one can run side by side.
seeds="fuzz/seeds"
if [ -n "${FUZZ_MAX_LEN:-}" ] && [ "$mode" = run ]; then
  seeds="fuzz/seeds-small"
fi

# max_len TARGET: libFuzzer's -max_len of this run (FUZZ_MAX_LEN if set).
max_len() {
  echo "${FUZZ_MAX_LEN:-$(cap "$1")}"
}

# seed TARGET FILE...: copy files within the target's cap into its seeds.
seed() {
  local t="$1" dir="$seeds/$1" max
  max=$(cap "$t")
  shift
  mkdir -p "$dir"
  local f
  for f in "$@"; do
    if [ -f "$f" ] && [ "$(wc -c <"$f")" -le "$max" ]; then
      cp "$f" "$dir/$(tr / _ <<<"$f")"
    fi
  done
}

# small_seeds DIR: next to each seed over 64 KiB, a small variant (every
# JSON list cut to 2 items; the first 20 lines of JSONL), so the fuzzer has
# fast valid inputs of every kind, not only half-MiB ones.
small_seeds() {
  python3 - "$1" <<'PY'
import json, os, sys
def cut(v):
    if isinstance(v, list):
        return [cut(x) for x in v[:2]]
    if isinstance(v, dict):
        return {k: cut(x) for k, x in v.items()}
    return v
d = sys.argv[1]
for name in sorted(os.listdir(d)):
    path = os.path.join(d, name)
    if os.path.getsize(path) <= 65536:
        continue
    text = open(path, encoding="utf-8", errors="replace").read()
    try:
        small = json.dumps(cut(json.loads(text)))
    except ValueError:
        small = "".join(text.splitlines(keepends=True)[:20])
    with open(os.path.join(d, "small-" + name), "w", encoding="utf-8") as f:
        f.write(small)
PY
}

# big_seeds TARGET DIR: inputs past each size-dependent path, generated
# (not committed as seeds): traces over the harness's memory budget, a DAG
# of more than 1,024 spans, errors past column 65,535, a suite over the YAML
# node budget, files over the harness's 1 MiB file cap.
big_seeds() {
  python3 - "$1" "$2" <<'PY'
import json, os, sys
target, d = sys.argv[1], sys.argv[2]
def write(name, text):
    with open(os.path.join(d, "big-" + name), "w", encoding="utf-8") as f:
        f.write(text)
def otlp(n):
    spans = [{
        "traceId": "5b8efff798038103d269b633813fc60c", "spanId": f"{i + 1:016x}",
        **({"parentSpanId": f"{(i - 1) // 2 + 1:016x}"} if i else {}),
        "name": "chat gpt-4o" if i % 2 else "execute_tool lookup",
        "startTimeUnixNano": str(1544712660000000000 + i * 1000),
        "endTimeUnixNano": str(1544712660000000000 + i * 1000 + 500),
        "attributes": [{"key": "gen_ai.operation.name",
                        "value": {"stringValue": "chat" if i % 2 else "execute_tool"}}],
    } for i in range(n)]
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}, separators=(",", ":"))
if target.startswith("trace_") or target == "render_trace":
    write("otlp-12000-spans.json", otlp(12000))          # 3.6 MB > 2.7 MiB: OTLP over the budget
    small = otlp(1500)                                     # > 1,024 spans, one line
    write("otlp-1500-spans.json", small)
    write("otlp-1500-spans-bad-tail.json", small + ",}")   # an error past column 65,535
    tau = "tests/fixtures/traces/tau-bench/gpt-4o-airline.subset.json"
    if os.path.exists(tau):
        episodes = json.load(open(tau))
        write("tau-x2.json", json.dumps(episodes + episodes))  # > 410 KiB: chat over the budget
elif target in ("suite_yaml", "render_suite"):
    write("nodes.yaml", "[" + "a," * 260000 + "a]\n")     # > 250,000 YAML nodes
    write("long-line.yaml", '{suite: "' + "a" * 70000 + '", spec_version: "1", bogus: 1}\n')
    write("over-cap.yaml", "suite: fuzz\n" + ("# " + "x" * 77 + "\n") * 14000)  # > 1 MiB
elif target == "cases_jsonl":
    write("over-cap.jsonl", '{"id": "c1", "input": "' + "x" * (1 << 20) + '"}\n')
elif target in ("run_report", "compare_report", "render_reports", "baseline_json"):
    for name in sorted(os.listdir(d)):
        if name.startswith(("small-", "big-")) or os.path.getsize(os.path.join(d, name)) < 65536:
            continue
        text = json.dumps(json.load(open(os.path.join(d, name))), separators=(",", ":"))
        write("bad-tail-" + name, text + "x")                         # an error past column 65,535
        write("over-cap-" + name, text + " " * max(0, (1 << 20) + 1 - len(text)))  # > 1 MiB
        break
PY
}

# run_report_seeds DIR: the run report inside each baseline.
run_report_seeds() {
  local b
  for b in baselines/*/*.json; do
    python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["report"], open(sys.argv[2], "w"))' \
      "$b" "$1/run-$(basename "$(dirname "$b")")-$(basename "$b")"
  done
}

# compare_report_seeds DIR: the compare reports of the integration snapshots.
compare_report_seeds() {
  local s
  for s in tests/integration/snapshots/*compare*json.snap; do
    # insta header: the JSON starts after the second `---` line.
    awk 'n>=2{print} /^---$/{n++}' "$s" >"$1/$(basename "$s" .snap).json"
  done
}

traces=()
while IFS= read -r -d '' f; do traces+=("$f"); done < <(
  find tests/fixtures/traces suites -type f \( -name '*.json' -o -name '*.jsonl' -o -name '*.traj' \) \
    ! -path '*/evidence*' ! -path '*/judge-cache/*' ! -name 'cases.jsonl' -print0 | sort -z)
suites=()
while IFS= read -r -d '' f; do suites+=("$f"); done < <(find suites tests/fixtures/suites -name '*.yaml' -print0 | sort -z)
cases=()
while IFS= read -r -d '' f; do cases+=("$f"); done < <(find suites tests/fixtures/suites -name '*.jsonl' -print0 | sort -z)

for t in "${targets[@]}"; do
  rm -rf "${seeds:?}/${t:?}"
  mkdir -p "$seeds/$t" "fuzz/corpus/$t"
  case "$t" in
    trace_* | render_trace) seed "$t" "${traces[@]}" ;;
    suite_yaml | render_suite) seed "$t" "${suites[@]}" ;;
    cases_jsonl) seed "$t" "${cases[@]}" ;;
    baseline_json) seed "$t" baselines/*/*.json ;;
    history_jsonl) seed "$t" baselines/*/*.history.jsonl ;;
    run_report)
      run_report_seeds "$seeds/$t"
      seed "$t" src/report/render/testdata/run-*.json ;;
    compare_report)
      compare_report_seeds "$seeds/$t"
      seed "$t" src/report/render/testdata/compare-*.json ;;
    render_reports)
      seed "$t" baselines/*/*.json
      run_report_seeds "$seeds/$t"
      compare_report_seeds "$seeds/$t"
      seed "$t" src/report/render/testdata/*.json ;;
  esac
  small_seeds "$seeds/$t"
  if [ -n "${FUZZ_MAX_LEN:-}" ] && [ "$mode" = run ]; then
    find "$seeds/$t" -type f -size +"$FUZZ_MAX_LEN"c -delete
  else
    big_seeds "$t" "$seeds/$t"
  fi
done

if [ "$mode" = seeds ]; then
  exit 0
fi
if [ "$mode" = cmin ]; then
  # The smallest set of corpus and seed inputs with the same features
  # (libFuzzer's -set_cover_merge=1), less the exact copies of seeds (they
  # are re-seeded on every run) and the inputs over FUZZ_KEEP_MAX bytes
  # (default 16 KiB: the committed corpora stay small; the big seeds are
  # generated again on every run).
  keep_max="${FUZZ_KEEP_MAX:-16384}"
  cargo +nightly fuzz build -O --debug-assertions >/dev/null
  triple=$(rustc +nightly -vV | sed -n 's/^host: //p')
  bin_dir="${CARGO_TARGET_DIR:-fuzz/target}/$triple/release"
  for t in "${targets[@]}"; do
    new="fuzz/corpus/$t.cmin"
    rm -rf "$new"
    mkdir -p "$new"
    "$bin_dir/$t" -set_cover_merge=1 -max_len="$(cap "$t")" -timeout=60 -rss_limit_mb=4096 \
      "$new" "fuzz/corpus/$t" "$seeds/$t" >"$logdir/$t.cmin.log" 2>&1
    merged=$(find "$new" -type f | wc -l)
    for f in "$seeds/$t"/*; do
      rm -f "$new/$(sha1sum "$f" | cut -d' ' -f1)"
    done
    find "$new" -type f -size +"$keep_max"c -delete
    rm -rf "fuzz/corpus/$t"
    mv "$new" "fuzz/corpus/$t"
    printf '%-24s merged %6s, kept %6s files, %8s\n' "$t" "$merged" "$(find "fuzz/corpus/$t" -type f | wc -l)" \
      "$(du -sh "fuzz/corpus/$t" | cut -f1)"
  done
  exit 0
fi

summary="$logdir/summary.tsv"
[ -f "$summary" ] || printf 'date\ttarget\tseconds\tcpu_seconds\texecs\texecs_per_s\texecs_per_cpu_s\tcov\tft\tcorpus\tcrashes\tstatus\tmax_len\n' >"$summary"
printf '%-24s %12s %8s %8s %7s %7s %8s %8s\n' target execs execs/s exec/cpus cov ft corpus crashes
total=0
for t in "${targets[@]}"; do
  log="$logdir/$t${FUZZ_MAX_LEN:+.max$FUZZ_MAX_LEN}.$(date -u +%Y%m%dT%H%M%S).log"
  mkdir -p "fuzz/artifacts/$t"
  status=0
  # CPU seconds (user + sys) of the run, with GNU time where there is one:
  # on a shared machine exec/s per CPU second is the fair speed.
  timer=()
  [ -x /usr/bin/time ] && timer=(/usr/bin/time -f '%U %S' -o "$log.cpu")
  "${timer[@]}" cargo +nightly fuzz run -O --debug-assertions "$t" "fuzz/corpus/$t" "$seeds/$t" -- \
    -max_total_time="$secs" -print_final_stats=1 -timeout=60 -rss_limit_mb=4096 \
    -max_len="$(max_len "$t")" -artifact_prefix="fuzz/artifacts/$t/" >"$log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cpu=$(awk 'NF==2 && $1 ~ /^[0-9.]+$/ {printf "%.0f", $1 + $2}' "$log.cpu" 2>/dev/null || true)
  cpu_rate=$([ "${cpu:-0}" -gt 0 ] && echo $((${execs:-0} / cpu)) || echo "?")
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corpus=$(find "fuzz/corpus/$t" -type f | wc -l)
  crashes=$(find "fuzz/artifacts/$t" -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' \) | wc -l)
  printf '%-24s %12s %8s %8s %7s %7s %8s %8s%s\n' "$t" "${execs:-?}" "${rate:-?}" "$cpu_rate" "${cov:-?}" "${ft:-?}" \
    "$corpus" "$crashes" "$([ "$status" -ne 0 ] && echo "  (stopped: see $log)")"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$secs" "${cpu:-}" \
    "${execs:-0}" "${rate:-0}" "$cpu_rate" "${cov:-}" "${ft:-}" "$corpus" "$crashes" "$status" "$(max_len "$t")" >>"$summary"
  total=$((total + ${execs:-0}))
done
echo "total execs: $total"
