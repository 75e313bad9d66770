#!/usr/bin/env python3
"""Adaptive confirmation on real tau-bench episodes: run mode, head trials replayed by a copying agent.

Issue 20 item 5 re-runs only the cases whose first result moved against
their baseline trials. It needs runs, and the public episodes are records;
this script makes them runs: the suite gets an `agent:` that copies the
recorded episode of (case, `AGENTEVAL_TRIAL`) from a head directory into
`{trace_file}` and `{evidence_file}` (and counts its runs), so `compare` in
run mode gets trial 0, 1, ... of each case exactly when it asks for it.

For each of the 6 splits of the 4 gpt-4o trials (2 baseline trials B,
baseline `split-<B>`; 2 head trials H, as in scripts/tau-bench-power-split.py,
real null and every injection kind and rate), three head designs, each a
`compare` in run mode:

- `one`: `--trials 1` (trial H[0] of every case);
- `adaptive`: `--trials 1:2` (H[0] of every case, then H[1] of the cases
  the re-run rule does not settle);
- `two`: `--trials 2` (both; the same as the split script's replay, which
  this checks).

Reports detected / reported / false alarms per design as the split script
does, and the agent runs per case. Writes power-adaptive.md and .json to
--out and prints the Markdown.

Usage:
  python3 scripts/tau-bench-power-adaptive.py --source gpt-4o-airline.json \\
      --bin target/release/agenteval-gate --out DIR [--seed 42] [--rates 0.1,0.25,0.4] \\
      [--alphas 0.05,0.01] [--kinds no-confirmation,...] [--jobs 2]
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import tau_power_inject as inject  # noqa: E402


def _load(name: str, file: str):
    spec = importlib.util.spec_from_file_location(name, HERE / file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


power = _load("tau_bench_power", "tau-bench-power.py")
split = _load("tau_bench_power_split", "tau-bench-power-split.py")

DESIGNS = {"one": "1", "adaptive": "1:2", "two": "2"}

# The agent: copy the recorded trial of this case, count the run.
AGENT = """
agent:
  command: ["sh", "-c", "cp \\"$AEG_REC/traces/trial-$AGENTEVAL_TRIAL/$AGENTEVAL_CASE_ID.json\\" \\"$AGENTEVAL_TRACE_FILE\\" && cp \\"$AEG_REC/evidence/trial-$AGENTEVAL_TRIAL/$AGENTEVAL_CASE_ID.json\\" \\"$AGENTEVAL_EVIDENCE_FILE\\" && echo \\"$AGENTEVAL_CASE_ID $AGENTEVAL_TRIAL\\" >> \\"$AEG_RUNS\\""]
  timeout_s: 30
  env_passthrough: [AEG_REC, AEG_RUNS]
"""


def compare_run(gate, base: str, rec: Path, design: str, out: Path, checkpoint: str | None) -> dict:
    """`compare` in run mode with the copying agent reading `rec`."""
    runs = out.with_suffix(".runs")
    env = {**os.environ, "AEG_REC": str(rec.resolve()), "AEG_RUNS": str(runs.resolve())}
    cmd = [gate.bin, "--quiet", "compare", "--baseline", base, "--format", "json", "--out", str(out),
           "--suites-dir", str(gate.suites), "--suite", power.SUITE_NAME, "--baselines-dir", str(gate.baselines),
           "--seed", str(gate.seed), "--deterministic", "--trials", DESIGNS[design], *gate.extra]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode not in (0, 2):
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
    r = power.summarize(json.loads(out.read_text()), p.returncode, checkpoint)
    r["agent_runs"] = len(runs.read_text().splitlines()) if runs.exists() else 0
    return r


def main() -> int:
    args = split.arguments(__doc__, "power-adaptive-out")
    rates, alphas, kinds = args.rates, args.alphas, args.kinds
    heads, gates = split.setup(args, AGENT)

    def one(job) -> dict:
        alpha, design, head = job
        gate = gates[alpha]
        tag = "null" if head["kind"] == "null" else f"{head['kind']}-{power.fmt_rate(head['rate'])}"
        out = gate.work / "reports" / f"{design}-{tag}-h{split.label(head['heads'])}.json"
        rec_dir = head["dirs"][0].parent
        r = compare_run(gate, f"split-{split.label(head['base'])}", rec_dir, design, out, head["checkpoint"])
        t = r.get("target") or {}
        rec = power.compare_record(alpha, out, r, {"alpha": alpha, "design": design, "kind": head["kind"],
                                                   "rate": head["rate"], "heads": list(head["heads"]),
                                                   "base": list(head["base"]), "applicable": head["applicable"],
                                                   "injected": head["injected"]})
        print(f"a={alpha} {design} {tag} h{split.label(head['heads'])}: exit {r['exit']} runs {r['agent_runs']} "
              f"target {t.get('status')} p={t.get('p_value')} q={t.get('q_value')}", file=sys.stderr)
        return rec

    jobs = [(a, d, h) for a in alphas for d in DESIGNS for h in heads]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        records = list(pool.map(one, jobs))

    lines = ["# Adaptive confirmation on tau-bench airline (gpt-4o, 6 splits, 2 baseline trials, run mode)", ""]
    per_alpha = {}
    for alpha in alphas:
        block = {}
        lines.append(f"## alpha = {alpha}\n")
        lines.append("| design | null false alarms | agent runs per case (null; all) |")
        lines.append("|---|---:|---|")
        for d in DESIGNS:
            recs = [r for r in records if r["alpha"] == alpha and r["design"] == d]
            nulls = [r for r in recs if r["kind"] == "null"]
            per_case = lambda rs: sum(r["agent_runs"] for r in rs) / (50 * len(rs))  # noqa: E731
            block[d] = {"null_runs": len(nulls), "false_alarms": sum(r["exit"] == 2 for r in nulls),
                        "runs_per_case_null": per_case(nulls), "runs_per_case_all": per_case(recs),
                        "rows": [{"kind": k, "rate": rate, "cell": split.cell(
                            [r for r in recs if r["kind"] == k and r["rate"] == rate])}
                            for k in kinds for rate in rates]}
            lines.append(f"| {d} (`--trials {DESIGNS[d]}`) | {block[d]['false_alarms']}/{len(nulls)} | "
                         f"{block[d]['runs_per_case_null']:.2f}; {block[d]['runs_per_case_all']:.2f} |")
        lines.append("")
        lines.append("| violation | checkpoint | rate | " + " | ".join(f"{d}: detected" for d in DESIGNS) + " |")
        lines.append("|---|---|---|" + "---:|" * len(DESIGNS))
        for i, (k, rate) in enumerate((k, rate) for k in kinds for rate in rates):
            cells = [block[d]["rows"][i]["cell"] for d in DESIGNS]
            lines.append(f"| {k} | {inject.KINDS[k][1]} | {power.fmt_rate(rate)} | " +
                         " | ".join(f"{c['detected']}/{c['runs']}" for c in cells) + " |")
        lines.append("")
        per_alpha[str(alpha)] = block
    md = "\n".join(lines) + "\n"
    summary = {"seed": args.seed, "rates": list(rates), "alphas": list(alphas), "records": records,
               "per_alpha": per_alpha}
    (args.out / "power-adaptive.json").write_text(json.dumps(summary, indent=1, sort_keys=True, default=str) + "\n")
    (args.out / "power-adaptive.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
