#!/usr/bin/env bash
# The checkpoint results of a suite, one line per case and checkpoint
# (case, trial, checkpoint, result, na_kind, cited spans, notes), sorted:
# the same lines before and after a change to tier-2 evaluation mean the
# change did not alter a single verdict, note or citation.
# Usage: bench/policy-results.sh SUITE_DIR OUT.tsv [BINARY]
#   BINARY defaults to the bench-profile build of agenteval-gate.
# Before/after a change:
#   bench/policy-results.sh /tmp/a200/airline-200 /tmp/before.tsv
#   (change, rebuild)
#   bench/policy-results.sh /tmp/a200/airline-200 /tmp/after.tsv
#   diff /tmp/before.tsv /tmp/after.tsv && echo identical
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(cd "$1" && pwd)
out=$2
bin=${3:-}
if [ -z "$bin" ]; then
    cargo build --profile bench --bin agenteval-gate --quiet
    bin="${CARGO_TARGET_DIR:-target}/release/agenteval-gate"
fi
run=$(mktemp)
trap 'rm -f "$run"' EXIT
# Exit 1/2 mean checkpoints failed, which is the point of the comparison.
"$bin" run --suites-dir "$(dirname "$dir")" --suite "$(basename "$dir")" \
    --deterministic --out "$run" >/dev/null || [ $? -le 2 ]
python3 - "$run" >"$out" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
rows = []
for case in report["cases"]:
    for c in case["checkpoints"]:
        rows.append("\t".join([
            case["id"], str(case.get("trial", 0)), c["id"], c["result"],
            c.get("na_kind") or "", ",".join(c.get("cited_spans", [])),
            c["notes"].replace("\t", " ").replace("\n", " "),
        ]))
print("\n".join(sorted(rows)))
PY
echo "$(wc -l <"$out") checkpoint results in $out" >&2
