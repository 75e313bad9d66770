#!/usr/bin/env bash
# Fuzz every parser of agenteval-gate (issue 12): each trace format, the
# suite YAML and cases JSONL, baselines and their history, run and compare
# reports. Every target also renders what parses and every error (see
# fuzz/src/lib.rs), so a panic anywhere on those paths is a crash.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 60 s, all targets)
# Needs: rustup toolchain install nightly && cargo install cargo-fuzz
# Corpora are seeded from tests/fixtures, suites/ and baselines/ into
# fuzz/corpus/<target>/ (not committed); crashes land in fuzz/artifacts/<target>/.
# Prints one line per target: execs, corpus size, crashes.
set -euo pipefail
cd "$(dirname "$0")/.."

secs="${1:-60}"
shift || true
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "error: needs nightly and cargo-fuzz: rustup toolchain install nightly && cargo install cargo-fuzz" >&2
  exit 1
fi
if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo +nightly fuzz list)
fi

# seed TARGET FILE...: copy files under 512 KiB into the target's corpus.
seed() {
  local dir="fuzz/corpus/$1"
  shift
  mkdir -p "$dir"
  local f
  for f in "$@"; do
    if [ -f "$f" ] && [ "$(wc -c <"$f")" -le 524288 ]; then
      cp "$f" "$dir/$(basename "$f")"
    fi
  done
}

traces=()
while IFS= read -r -d '' f; do traces+=("$f"); done < <(
  find tests/fixtures/traces suites -type f \( -name '*.json' -o -name '*.jsonl' -o -name '*.traj' \) \
    ! -path '*/evidence*' ! -name 'cases.jsonl' -print0 | sort -z)
suites=()
while IFS= read -r -d '' f; do suites+=("$f"); done < <(find suites tests/fixtures/suites -name '*.yaml' -print0 | sort -z)
cases=()
while IFS= read -r -d '' f; do cases+=("$f"); done < <(find suites tests/fixtures/suites -name '*.jsonl' -print0 | sort -z)

for t in "${targets[@]}"; do
  case "$t" in
    trace_*) seed "$t" "${traces[@]}" ;;
    suite_yaml) seed "$t" "${suites[@]}" ;;
    cases_jsonl) seed "$t" "${cases[@]}" ;;
    baseline_json) seed "$t" baselines/*/*.json ;;
    history_jsonl) seed "$t" baselines/*/*.history.jsonl ;;
    run_report)
      mkdir -p "fuzz/corpus/$t"
      for b in baselines/*/*.json; do
        python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["report"], open(sys.argv[2], "w"))' \
          "$b" "fuzz/corpus/$t/$(basename "$b")"
      done ;;
    compare_report)
      mkdir -p "fuzz/corpus/$t"
      for s in tests/integration/snapshots/*compare*json.snap; do
        # insta header: the JSON starts after the second `---` line.
        awk 'n>=2{print} /^---$/{n++}' "$s" >"fuzz/corpus/$t/$(basename "$s" .snap).json"
      done ;;
  esac
done

printf '%-24s %12s %10s %8s\n' target execs corpus crashes
total=0
for t in "${targets[@]}"; do
  log="fuzz/artifacts/$t.log"
  mkdir -p "fuzz/artifacts/$t"
  status=0
  cargo +nightly fuzz run -O --debug-assertions "$t" "fuzz/corpus/$t" -- \
    -max_total_time="$secs" -print_final_stats=1 -timeout=20 -rss_limit_mb=4096 \
    -max_len=524288 >"$log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  corpus=$(find "fuzz/corpus/$t" -type f | wc -l)
  crashes=$(find "fuzz/artifacts/$t" -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' \) | wc -l)
  printf '%-24s %12s %10s %8s%s\n' "$t" "${execs:-?}" "$corpus" "$crashes" \
    "$([ "$status" -ne 0 ] && echo "  (stopped: see $log)")"
  total=$((total + ${execs:-0}))
done
echo "total execs: $total"
