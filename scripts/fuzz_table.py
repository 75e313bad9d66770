#!/usr/bin/env python3
"""The per-target table of docs/fuzzing.md from the summary.tsv files that
scripts/fuzz.sh appends to (one line per run): execs and CPU seconds summed
over the runs, coverage (libFuzzer's `cov:` and `ft:`) of the last run,
corpus entries as committed (fuzz/corpus/<target>/), crashes. One table
per phase: runs at the full cap (4 MiB traces, 2 MiB the rest) and runs
with a smaller `FUZZ_MAX_LEN` (the summary's `max_len` column), then the
totals of all phases.

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


def phase(row):
    """`full` at the full cap (or before the column existed), else the cap."""
    cap = (4 << 20) if row["target"].startswith("trace_") or row["target"] == "render_trace" else (2 << 20)
    max_len = row.get("max_len") or ""
    return "full" if not max_len or int(max_len) >= cap else max_len


def table(runs, root):
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
        if execs:
            print(f"| **{kind}** | | {secs:,} | {cpu:,} | **{execs:,}** | | {execs // max(cpu, 1):,} | | | | |")
    return totals


def main(paths):
    phases = {}
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                phases.setdefault(phase(row), {}).setdefault(row["target"], []).append(row)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "corpus")
    grand = {"parsers": [0, 0, 0], "renders": [0, 0, 0]}
    for name in sorted(phases, key=lambda p: (p == "full", p)):
        print(f"Phase: -max_len={name if name != 'full' else 'full cap (4 MiB traces, 2 MiB the rest)'}")
        print()
        totals = table(phases[name], root)
        print()
        for kind in grand:
            grand[kind] = [a + b for a, b in zip(grand[kind], totals[kind])]
    for kind, (secs, cpu, execs) in grand.items():
        print(f"All phases, {kind}: {execs:,} execs in {secs:,} s ({cpu:,} CPU s)")


if __name__ == "__main__":
    main(sys.argv[1:])
