#!/usr/bin/env python3
"""How to spend 4 trials: 2 head trials against 2 baseline trials, on real tau-bench episodes.

Issue 20's measurement (scripts/tau-bench-power.py --trials-design) gives the
head 1 trial and the baseline the other 3. A user who can afford k trials per
case on the pull request has another choice: more head trials, whose own
flakiness then averages out. This script measures that choice on the same 200
public gpt-4o airline episodes (50 tasks x 4 trials):

- each of the 6 splits of the 4 trials into 2 head trials H and 2 baseline
  trials B: baseline `split-<B>` from B in the trials layout
  (traces/trial-<i>/), head = H in the same layout, so both sides have 2
  trials per case and the stratified permutation test decides;
- the head as recorded (real null) and with each kind injected at each rate:
  the injected tasks are round(rate x n) of the n tasks where the kind applies
  in at least one head trial (at least 1), seeded by seed|kind|rate|heads<H>,
  and the violation goes into every head trial of a chosen task where it
  applies, as a changed prompt would make the agent commit it in every trial;
- each alpha of --alphas is the suite's `gates.alpha` (a suite and baselines
  per alpha); detected = exit 2 with `regression` on the kind's checkpoint,
  reported = `regression` or `suspected` on it, false alarm = exit 2 on a
  null head.

Writes power-split.md and power-split.json to --out (every compare report
under --out/work/alpha-<a>/reports/) and prints the Markdown. The 1-vs-3
numbers to read it beside are docs/detection-power-trials.json.

Usage:
  python3 scripts/tau-bench-power-split.py --source gpt-4o-airline.json \\
      --bin target/release/agenteval-gate --out DIR [--seed 42] [--rates 0.1,0.25,0.4] \\
      [--alphas 0.05,0.01] [--kinds no-confirmation,...] [--jobs 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import random
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import tau_power_inject as inject  # noqa: E402

_spec = importlib.util.spec_from_file_location("tau_bench_power", HERE / "tau-bench-power.py")
power = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(power)


def inject_split(by_trial: dict, heads: tuple[int, ...], kind: str, rate: float, rng: random.Random):
    """The head trials with `kind` injected into round(rate x n) of the n
    tasks where it applies in some head trial, in every head trial where it
    applies; (trials, n, chosen task ids)."""
    fn = inject.KINDS[kind][0]
    done = {h: {ep["task_id"]: fn(ep) for ep in by_trial[h]} for h in heads}
    applicable = sorted({t for h in heads for t, r in done[h].items() if r is not None})
    k = max(1, int(rate * len(applicable) + 0.5)) if applicable else 0
    chosen = set(rng.sample(applicable, k))
    trials = [
        [done[h][ep["task_id"]][0] if ep["task_id"] in chosen and done[h][ep["task_id"]] is not None else ep
         for ep in by_trial[h]]
        for h in heads
    ]
    return trials, len(applicable), sorted(chosen)


def label(trials: tuple[int, ...]) -> str:
    return "".join(str(t) for t in trials)


def cell(recs: list[dict]) -> dict:
    ps = [r["target"]["p_value"] for r in recs if r.get("target") and r["target"].get("p_value") is not None]
    return {
        "runs": len(recs),
        "detected": sum(r["detected"] for r in recs),
        "reported": sum(r["reported"] for r in recs),
        "other_failure": sum(r["exit"] == 2 and not r["detected"] for r in recs),
        "k_range": power.span([len(r["injected"]) for r in recs]),
        "n_range": power.span([r["applicable"] for r in recs]),
        "median_p": power.median(ps),
    }


def tables(summary: dict) -> str:
    out = []
    for alpha, block in summary["per_alpha"].items():
        null = block["null"]
        out.append(f"### alpha = {alpha}\n")
        out.append(f"Real null (6 splits): **{null['false_alarms']}/{null['runs']}** false alarms "
                   f"(flagged below `fail_on`: {', '.join(null['flagged']) or 'none'}).\n")
        out.append("| violation | checkpoint | rate | k of n | detected | reported | median p |")
        out.append("|---|---|---|---|---:|---:|---|")
        for row in block["rows"]:
            c = row["cell"]
            mp = "-" if c["median_p"] is None else f"{c['median_p']:.4g}"
            out.append(f"| {row['kind']} | {row['checkpoint']} | {power.fmt_rate(row['rate'])} | "
                       f"{c['k_range']} of {c['n_range']} | {c['detected']}/{c['runs']} | "
                       f"{c['reported']}/{c['runs']} | {mp} |")
        out.append("")
    return "\n".join(out) + "\n"


def arguments(doc: str, out: str) -> argparse.Namespace:
    """The command line shared with tau-bench-power-adaptive.py."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--source", type=Path, required=True, help="tau-bench episodes JSON (gpt-4o-airline.json)")
    p.add_argument("--bin", type=Path, default=power.REPO / "target" / "release" / "agenteval-gate")
    p.add_argument("--out", type=Path, default=Path(out))
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--rates", default=",".join(str(r) for r in power.RATES))
    p.add_argument("--alphas", default=",".join(str(a) for a in power.ALPHAS))
    p.add_argument("--kinds", default=",".join(inject.KINDS))
    p.add_argument("--jobs", type=int, default=1, help="compares run at once (each with `--jobs 1`)")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    args.rates = tuple(float(r) for r in args.rates.split(","))
    args.alphas = tuple(float(a) for a in args.alphas.split(","))
    args.kinds = args.kinds.split(",")
    unknown = [k for k in args.kinds if k not in inject.KINDS]
    if unknown:
        sys.exit(f"--kinds: unknown {', '.join(unknown)} (known: {', '.join(inject.KINDS)})")
    return args


def setup(args, suite_extra: str = "") -> tuple[list[dict], dict]:
    """The head runs of every split (real null and each kind and rate; `dirs`
    = their traces/ and evidence/ in the trials layout) and, per alpha, a
    Gate whose suite (plus `suite_extra`) has that alpha and the baselines
    `split-<B>` of every split."""
    _, trials, by_trial = power.load_trials(args.source)
    if len(trials) != 4:
        sys.exit(f"{args.source}: the split design needs 4 trials, found {len(trials)}")
    work = args.out / "work"
    if work.exists():
        shutil.rmtree(work)
    splits = [(h, tuple(t for t in trials if t not in h)) for h in itertools.combinations(trials, 2)]
    heads = []
    for h, b in splits:
        heads.append({"kind": "null", "checkpoint": None, "rate": None, "heads": h, "base": b,
                      "applicable": None, "injected": [],
                      "dirs": power.write_trials([by_trial[t] for t in h], work / "heads" / f"null-h{label(h)}")})
        for kind in args.kinds:
            for rate in args.rates:
                rng = random.Random(f"{args.seed}|{kind}|{rate}|heads{label(h)}")
                eps, n, chosen = inject_split(by_trial, h, kind, rate, rng)
                heads.append({"kind": kind, "checkpoint": inject.KINDS[kind][1], "rate": rate, "heads": h,
                              "base": b, "applicable": n, "injected": [f"task-{x}" for x in chosen],
                              "dirs": power.write_trials(eps, work / "heads" /
                                                         f"{kind}-{power.fmt_rate(rate)}-h{label(h)}")})
    bases = {b: power.write_trials([by_trial[t] for t in b], work / "bases" / f"split-{label(b)}") for _, b in splits}

    extra = ["--jobs", "1"] if args.jobs > 1 else []
    gates = {}
    for alpha in args.alphas:
        gate = power.Gate(args.bin, work / f"alpha-{alpha}", args.seed, extra)
        power.write_suite(args.source, trials[0], gate.suites)
        suite_yaml = gate.suites / power.SUITE_NAME / "suite.yaml"
        power.set_alpha(suite_yaml, alpha)
        if suite_extra:
            with open(suite_yaml, "a") as f:
                f.write(suite_extra)
        for b, dirs in bases.items():
            gate.baseline(f"split-{label(b)}", *dirs)
        (gate.work / "reports").mkdir()
        gates[alpha] = gate
    return heads, gates


def main() -> int:
    args = arguments(__doc__, "power-split-out")
    rates, alphas, kinds = args.rates, args.alphas, args.kinds
    heads, gates = setup(args)

    def one(job) -> dict:
        alpha, head = job
        gate = gates[alpha]
        tag = "null" if head["kind"] == "null" else f"{head['kind']}-{power.fmt_rate(head['rate'])}"
        out = gate.work / "reports" / f"{tag}-h{label(head['heads'])}.json"
        r = gate.compare(f"split-{label(head['base'])}", *head["dirs"], out, head["checkpoint"])
        t = r.get("target") or {}
        rec = power.compare_record(alpha, out, r, {"alpha": alpha, "kind": head["kind"], "rate": head["rate"],
                                                   "heads": list(head["heads"]), "base": list(head["base"]),
                                                   "applicable": head["applicable"], "injected": head["injected"]})
        print(f"a={alpha} {tag} h{label(head['heads'])}: exit {r['exit']} target {t.get('status')} "
              f"p={t.get('p_value')} q={t.get('q_value')}", file=sys.stderr)
        return rec

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        records = list(pool.map(one, [(a, h) for a in alphas for h in heads]))

    per_alpha = {}
    for alpha in alphas:
        recs = [r for r in records if r["alpha"] == alpha]
        nulls = [r for r in recs if r["kind"] == "null"]
        rows = [{"kind": k, "checkpoint": inject.KINDS[k][1], "rate": rate,
                 "cell": cell([r for r in recs if r["kind"] == k and r["rate"] == rate])}
                for k in kinds for rate in rates]
        per_alpha[str(alpha)] = {
            "null": {"runs": len(nulls), "false_alarms": sum(r["exit"] == 2 for r in nulls),
                     "flagged": sorted({m for r in nulls for m in r["flagged"]})},
            "rows": rows,
        }
    summary = {"seed": args.seed, "rates": list(rates), "alphas": list(alphas), "records": records,
               "per_alpha": per_alpha}
    md = "# Trials: 2 head trials vs 2 baseline trials (tau-bench airline, gpt-4o, 6 splits)\n\n" + tables(summary)
    (args.out / "power-split.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    (args.out / "power-split.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
