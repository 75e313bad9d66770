#!/usr/bin/env python3
"""The per-target table of docs/fuzzing.md from the summary.tsv files that
scripts/fuzz.sh appends to (one line per run): execs and CPU seconds summed
over the runs, coverage (libFuzzer's `cov:` and `ft:`) of the last run,
corpus entries as committed (fuzz/corpus/<target>/), crashes.

Usage: python3 scripts/fuzz_table.py SUMMARY.tsv [SUMMARY.tsv...]
"""

import csv
import os
import sys

PARSERS = [
    "trace_detect", "trace_otlp", "trace_otel_sdk", "trace_openinference",
    "trace_attribute_map", "trace_telemetry_jsonl", "trace_chat", "trace_swe_agent",
    "trace_multi_agent", "suite_yaml", "cases_jsonl", "baseline_json", "history_jsonl",
    "run_report", "compare_report",
]
RENDERS = ["render_trace", "render_suite", "render_reports"]


def main(paths):
    runs = {}
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                runs.setdefault(row["target"], []).append(row)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "corpus")
    print("| target | runs | seconds | CPU s | execs | execs/s | execs/CPU s | cov | ft | corpus (committed) | crashes |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    totals = {"parsers": [0, 0, 0], "renders": [0, 0, 0]}
    for target in PARSERS + RENDERS:
        rows = runs.get(target, [])
        if not rows:
            continue
        secs = sum(int(r["seconds"]) for r in rows)
        cpu = sum(int(r["cpu_seconds"] or 0) for r in rows)
        execs = sum(int(r["execs"]) for r in rows)
        crashes = max(int(r["crashes"]) for r in rows)
        last = rows[-1]
        corpus_dir = os.path.join(root, target)
        corpus = len(os.listdir(corpus_dir)) if os.path.isdir(corpus_dir) else 0
        kind = "parsers" if target in PARSERS else "renders"
        for i, v in enumerate((secs, cpu, execs)):
            totals[kind][i] += v
        print(
            f"| `{target}` | {len(rows)} | {secs:,} | {cpu:,} | {execs:,} | {execs // max(secs, 1):,} "
            f"| {execs // max(cpu, 1):,} | {last['cov']} | {last['ft']} | {corpus:,} | {crashes} |"
        )
    for kind, (secs, cpu, execs) in totals.items():
        print(f"| **{kind}** | | {secs:,} | {cpu:,} | **{execs:,}** | | {execs // max(cpu, 1):,} | | | | |")


if __name__ == "__main__":
    main(sys.argv[1:])
