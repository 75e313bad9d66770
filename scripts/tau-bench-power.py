#!/usr/bin/env python3
"""Detection power and false alarms of the gate on real tau-bench airline episodes.

tau-bench publishes 50 airline tasks x 4 trials of gpt-4o. Each trial is a
run of the same agent on the same 50 cases, so any two trials form a null
pair: nothing changed but the agent's and the simulated user's sampling.

1. Null pairs: for every ordered pair of distinct trials (a, b), the baseline
   is trial a (`baseline update --name t<a> --deterministic`) and trial b is
   compared with it (`compare --baseline t<a>`, progressive tiers as a user
   gets them: the suite's smoke tier at 20 % of alpha, then the full suite).
   A failed gate (exit 2) is a false alarm.
2. Injected policy violations: for each pair, the head trial b gets one kind
   of violation (scripts/tau_power_inject.py) in a seeded random share of the
   episodes where it applies, in the raw episode before conversion, and is
   compared with baseline t<a>. Detected = the gate fails (exit 2) with a
   `regression` on the checkpoint that encodes the broken rule.
3. Control: the same injections into the baseline's own trial (pairs (b, b)),
   so that only the injection differs.
4. Writes power.md and power.json to --out and prints the Markdown.

The gate's history of suite means has one point per baseline (one trial), so
the 2-sigma leg is unavailable (it needs 5) and the test leg decides alone;
the reports say so.

Usage:
  python3 scripts/tau-bench-power.py --source gpt-4o-airline.json \\
      --bin target/release/agenteval-gate [--out DIR] [--seed S] [--rates 0.1,0.25,0.4]
  python3 scripts/tau-bench-power.py --source FILE --inject-all KIND --trial T --out DIR
      (writes DIR/airline-trial with KIND injected into every applicable
      episode of trial T, and DIR/injected.json listing them; for tests)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
import tau_power_inject as inject  # noqa: E402

SUITE_NAME = "airline-trial"
RATES = (0.10, 0.25, 0.40)


def load_module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SPLIT = load_module("split_episodes", REPO / "suites" / "airline-tau" / "split_episodes.py")


def write_suite(source: Path, trial: int, out: Path) -> None:
    """The trial's suite (cases `task-<id>`, airline-tau spec) via tau-bench-airline.py."""
    run([sys.executable, str(REPO / "scripts" / "tau-bench-airline.py"), "--source", str(source),
         "--trial", str(trial), "--out", str(out / SUITE_NAME)], quiet=True)


def write_run(episodes: list[dict], out: Path) -> tuple[Path, Path]:
    """traces/ and evidence/ of one run, named by case id as the suite expects."""
    traces, evidence = out / "traces", out / "evidence"
    traces.mkdir(parents=True, exist_ok=True)
    evidence.mkdir(parents=True, exist_ok=True)
    for ep in episodes:
        cid = f"task-{ep['task_id']}"
        (traces / f"{cid}.json").write_text(json.dumps(ep, indent=1) + "\n")
        (evidence / f"{cid}.json").write_text(json.dumps(SPLIT.evidence_of(ep), indent=2) + "\n")
    return traces, evidence


def run(cmd: list[str], quiet: bool = False, ok=(0,)) -> int:
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in ok:
        sys.exit(f"command failed (exit {p.returncode}): {' '.join(cmd)}\n{p.stdout}\n{p.stderr}")
    return p.returncode


def inject_run(episodes: list[dict], kind: str, rate: float, rng: random.Random):
    """Inject `kind` into round(rate x applicable) episodes (at least one)."""
    fn = inject.KINDS[kind][0]
    done = {ep["task_id"]: fn(ep) for ep in episodes}
    applicable = sorted(t for t, r in done.items() if r is not None)
    k = max(1, int(rate * len(applicable) + 0.5)) if applicable else 0
    chosen = sorted(rng.sample(applicable, k))
    out = [done[ep["task_id"]][0] if ep["task_id"] in chosen else ep for ep in episodes]
    return out, applicable, chosen


def summarize(report: dict, exit_code: int, checkpoint: str | None) -> dict:
    """Exit code, verdict, the tier that decided, the metrics flagged and, for
    an injection, the statistics of the checkpoint that encodes the rule."""
    flagged = {m["name"]: m["status"] for m in report["metrics"] if m["status"] in ("regression", "suspected")}
    stopped = [t["tier"] for t in report.get("tiers", []) if t.get("stopped_early")]
    out = {
        "exit": exit_code,
        "verdict": report["verdict"],
        "stopped_at_smoke": bool(stopped),
        "flagged": dict(sorted(flagged.items())),
        "reasons": report.get("reasons", []),
    }
    if checkpoint is not None:
        m = next((m for m in report["metrics"] if m["name"] == f"checkpoint:{checkpoint}"), None)
        out["target"] = None if m is None else {
            k: m.get(k) for k in ("status", "n", "nonzero", "base_mean", "head_mean", "delta", "test", "p_value", "q_value")
        }
    return out


class Gate:
    def __init__(self, binary: Path, work: Path, seed: int):
        self.bin = str(binary)
        self.work = work
        self.seed = seed
        self.suites = work / "suite"
        self.baselines = work / "baselines"

    def common(self, traces: Path, evidence: Path) -> list[str]:
        return ["--suites-dir", str(self.suites), "--suite", SUITE_NAME, "--baselines-dir", str(self.baselines),
                "--traces", str(traces), "--evidence", str(evidence), "--seed", str(self.seed), "--deterministic"]

    def baseline(self, name: str, traces: Path, evidence: Path) -> None:
        run([self.bin, "--quiet", "baseline", "update", "--name", name] + self.common(traces, evidence))

    def compare(self, name: str, traces: Path, evidence: Path, out: Path, checkpoint: str | None) -> dict:
        code = run([self.bin, "--quiet", "compare", "--baseline", name, "--format", "json", "--out", str(out)]
                   + self.common(traces, evidence), ok=(0, 2))
        return summarize(json.loads(out.read_text()), code, checkpoint)


def fmt_rate(r: float) -> str:
    return f"{round(r * 100)}%"


def tables(summary: dict) -> str:
    lines = ["## False alarms on null pairs (trial b compared with baseline trial a, nothing injected)", ""]
    null = summary["null"]
    fa = [r for r in null if r["exit"] == 2]
    lines.append(f"False alarms (gate exit 2): **{len(fa)}/{len(null)}** ordered pairs")
    lines.append("")
    lines.append("| baseline | head | exit | verdict | metrics flagged |")
    lines.append("|---|---|---|---|---|")
    for r in null:
        flagged = ", ".join(f"{k} ({v})" for k, v in r["flagged"].items()) or "none"
        lines.append(f"| t{r['base']} | t{r['head']} | {r['exit']} | {r['verdict']} | {flagged} |")
    lines += ["", "## Detection of injected violations", "",
              "Detected = gate exit 2 with `regression` on the target checkpoint; "
              "other = gate exit 2 without it; flagged only = target `regression`/`suspected` but the gate passed "
              "(counts over the 12 ordered trial pairs; k = episodes injected of n applicable in the head trial).", ""]
    rates = summary["rates"]
    lines.append("| violation | checkpoint (severity) | " + " | ".join(f"{fmt_rate(r)}" for r in rates) + " |")
    lines.append("|---|---|" + "---|" * len(rates))
    for kind, row in summary["detection"].items():
        cells = []
        for rate in rates:
            c = row[fmt_rate(rate)]
            cells.append(f"{c['detected']}/{c['runs']} (k={c['k_range']} of n={c['n_range']})")
        lines.append(f"| {kind} | {row['checkpoint']} ({row['severity']}) | " + " | ".join(cells) + " |")
    lines += ["", "| violation | rate | detected | other failure | flagged only | target p-values (median) |",
              "|---|---|---|---|---|---|"]
    for kind, row in summary["detection"].items():
        for rate in rates:
            c = row[fmt_rate(rate)]
            lines.append(f"| {kind} | {fmt_rate(rate)} | {c['detected']}/{c['runs']} | {c['other_failure']}/{c['runs']} "
                         f"| {c['flagged_only']}/{c['runs']} | {c['median_p']} |")
    lines += ["", "## Control: the violation injected into the baseline's own trial", "",
              "Pairs (b, b): the head is baseline trial b with the violation injected, so nothing but the injection differs.", "",
              "| violation | checkpoint (severity) | " + " | ".join(f"{fmt_rate(r)}" for r in rates) + " |",
              "|---|---|" + "---|" * len(rates)]
    for kind, row in summary["control_same_trial"].items():
        cells = []
        for rate in rates:
            c = row[fmt_rate(rate)]
            cells.append(f"{c['detected']}/{c['runs']} (k={c['k_range']}, median p {c['median_p']})")
        lines.append(f"| {kind} | {row['checkpoint']} ({row['severity']}) | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def span(values: list[int]) -> str:
    lo, hi = min(values), max(values)
    return str(lo) if lo == hi else f"{lo}-{hi}"


def median(values: list[float]):
    if not values:
        return None
    v = sorted(values)
    mid = len(v) // 2
    m = v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2
    return float(f"{m:.4g}")


def power(args) -> int:
    episodes = json.loads(args.source.read_bytes())
    trials = sorted({ep["trial"] for ep in episodes})
    by_trial = {t: sorted((ep for ep in episodes if ep["trial"] == t), key=lambda e: e["task_id"]) for t in trials}
    tasks = {t: [ep["task_id"] for ep in eps] for t, eps in by_trial.items()}
    if len({tuple(v) for v in tasks.values()}) != 1:
        sys.exit(f"{args.source}: the trials do not cover the same tasks")
    rates = tuple(float(r) for r in args.rates.split(","))
    work = args.out / "work"
    if work.exists():
        shutil.rmtree(work)
    gate = Gate(args.bin, work, args.seed)
    write_suite(args.source, trials[0], gate.suites)
    runs = {t: write_run(by_trial[t], work / "runs" / f"t{t}") for t in trials}
    for t in trials:
        gate.baseline(f"t{t}", *runs[t])
    pairs = [(a, b) for a in trials for b in trials if a != b]
    reports = work / "reports"
    reports.mkdir(parents=True)

    null = []
    for a, b in pairs:
        r = gate.compare(f"t{a}", *runs[b], reports / f"null-t{a}-t{b}.json", None)
        null.append({"base": a, "head": b, **r})
        print(f"null t{a} -> t{b}: exit {r['exit']}", file=sys.stderr)

    injected = []
    detection = {}
    control = {}
    # Control: the head is the baseline's own trial with the violation
    # injected (pairs (b, b)), so only the injection differs.
    for (table, pair_list, tag) in ((detection, pairs, ""), (control, [(t, t) for t in trials], "same-")):
        for kind, (_, checkpoint, severity) in inject.KINDS.items():
            row = {"checkpoint": checkpoint, "severity": severity}
            for rate in rates:
                cell = []
                for a, b in pair_list:
                    rng = random.Random(f"{args.seed}|{kind}|{rate}|{a}|{b}")
                    eps, applicable, chosen = inject_run(by_trial[b], kind, rate, rng)
                    d = work / "runs" / f"{tag}{kind}-{fmt_rate(rate)}-t{a}-t{b}"
                    traces, evidence = write_run(eps, d)
                    r = gate.compare(f"t{a}", traces, evidence, reports / f"{d.name}.json", checkpoint)
                    shutil.rmtree(d)
                    t = r["target"] or {}
                    rec = {"kind": kind, "rate": rate, "base": a, "head": b, "applicable": len(applicable),
                           "injected": [f"task-{x}" for x in chosen], **r,
                           "detected": r["exit"] == 2 and t.get("status") == "regression"}
                    cell.append(rec)
                    if not tag:
                        injected.append(rec)
                    print(f"{kind} {fmt_rate(rate)} t{a} -> t{b}: k={len(chosen)}/{len(applicable)} exit {r['exit']} "
                          f"target {t.get('status')} p={t.get('p_value')}", file=sys.stderr)
                row[fmt_rate(rate)] = {
                    "runs": len(cell),
                    "detected": sum(c["detected"] for c in cell),
                    "other_failure": sum(c["exit"] == 2 and not c["detected"] for c in cell),
                    "flagged_only": sum(c["exit"] == 0 and (c["target"] or {}).get("status") in ("regression", "suspected")
                                        for c in cell),
                    "k_range": span([len(c["injected"]) for c in cell]),
                    "n_range": span([c["applicable"] for c in cell]),
                    "median_p": median([c["target"]["p_value"] for c in cell
                                        if c["target"] and c["target"].get("p_value") is not None]),
                }
            table[kind] = row

    summary = {
        "source": args.source.name,
        "episodes": len(episodes),
        "trials": trials,
        "seed": args.seed,
        "rates": list(rates),
        "tier": "progressive (smoke tier of airline-tau at 20% of alpha, then the full 50 cases)",
        "null": null,
        "detection": detection,
        "control_same_trial": control,
        "runs": injected,
    }
    md = "# Detection power of agenteval-gate on tau-bench airline (gpt-4o)\n\n" + tables(summary)
    (args.out / "power.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    (args.out / "power.md").write_text(md)
    print(md)
    return 0


def inject_all(args) -> int:
    """Every applicable episode of one trial with KIND injected, as a suite (for tests)."""
    episodes = [ep for ep in json.loads(args.source.read_bytes()) if ep["trial"] == args.trial]
    fn, checkpoint, _ = inject.KINDS[args.inject_all]
    out_eps, listed = [], []
    for ep in episodes:
        r = fn(ep)
        if r is None:
            out_eps.append(ep)
        else:
            out_eps.append(r[0])
            listed.append({"case": f"task-{ep['task_id']}", **r[1]})
    write_suite(args.source, args.trial, args.out)
    suite = args.out / SUITE_NAME
    shutil.rmtree(suite / "traces")
    shutil.rmtree(suite / "evidence")
    write_run(out_eps, suite)
    (args.out / "injected.json").write_text(json.dumps({"checkpoint": checkpoint, "cases": listed}, indent=1) + "\n")
    print(f"{args.inject_all}: injected into {len(listed)} of {len(episodes)} episodes")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source", type=Path, required=True, help="tau-bench episodes JSON (gpt-4o-airline.json)")
    p.add_argument("--bin", type=Path, default=REPO / "target" / "release" / "agenteval-gate")
    p.add_argument("--out", type=Path, default=Path("power-out"))
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--rates", default=",".join(str(r) for r in RATES), help="shares of the applicable episodes to inject")
    p.add_argument("--inject-all", choices=sorted(inject.KINDS), help="write one injected trial as a suite and stop")
    p.add_argument("--trial", type=int, default=0, help="with --inject-all: the trial")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.inject_all:
        return inject_all(args)
    return power(args)


if __name__ == "__main__":
    sys.exit(main())
