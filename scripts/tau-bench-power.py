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

With --trials-design (issue 20), the same measurement for the trials design,
side by side with one trial against one:

- new: for each rotation h, one baseline `rot<h>` from the other 3 trials in
  the trials layout (traces/trial-<i>/, evidence/trial-<i>/: 3 trials per
  case, so the stratified permutation test decides), and head = trial h;
- old: the same head against each of the other trials alone (baseline
  `t<a>`), the 12 ordered pairs of 1.;
- the head is trial h as is (real null) or with each kind injected at each
  rate, seeded by seed|kind|rate|head<h> only, so both designs see exactly
  the same injected head;
- each alpha of --alphas is the suite's `gates.alpha` (a suite and baselines
  per alpha), every compare runs at it (nothing is re-decided afterwards);
- records detected (exit 2 and `regression` on the kind's checkpoint),
  reported (`regression` or `suspected` on it, whatever the exit), false
  alarms on the null runs, issue 20's target per kind, and how flaky each
  checkpoint is across the 3 baseline trials of each rotation;
- writes power-trials.md and power-trials.json to --out (reports of every
  compare under --out/work/alpha-<a>/reports/) and prints the Markdown.

Usage:
  python3 scripts/tau-bench-power.py --source gpt-4o-airline.json \\
      --bin target/release/agenteval-gate [--out DIR] [--seed S] [--rates 0.1,0.25,0.4]
  python3 scripts/tau-bench-power.py --trials-design --source gpt-4o-airline.json \\
      --bin target/release/agenteval-gate --out DIR [--seed 42] [--rates 0.1,0.25,0.4] \\
      [--alphas 0.05,0.01] [--kinds no-confirmation,...] [--jobs 2]
      (--jobs N runs N compares at once, each with `--jobs 1`)
  python3 scripts/tau-bench-power.py --source FILE --render-json power-trials.json --out DIR
      (the trials tables again from a saved power-trials.json, no compare)
  python3 scripts/tau-bench-power.py --source FILE --inject-all KIND --trial T --out DIR
      (writes DIR/airline-trial with KIND injected into every applicable
      episode of trial T, and DIR/injected.json listing them; for tests)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
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


def write_episodes(episodes: list[dict], traces: Path, evidence: Path) -> None:
    """One trace and one evidence file per episode, named by case id as the suite expects."""
    traces.mkdir(parents=True, exist_ok=True)
    evidence.mkdir(parents=True, exist_ok=True)
    for ep in episodes:
        cid = f"task-{ep['task_id']}"
        (traces / f"{cid}.json").write_text(json.dumps(ep, indent=1) + "\n")
        (evidence / f"{cid}.json").write_text(json.dumps(SPLIT.evidence_of(ep), indent=2) + "\n")


def write_run(episodes: list[dict], out: Path) -> tuple[Path, Path]:
    """traces/ and evidence/ of one run (one trial per case)."""
    traces, evidence = out / "traces", out / "evidence"
    write_episodes(episodes, traces, evidence)
    return traces, evidence


def write_trials(trials: list[list[dict]], out: Path) -> tuple[Path, Path]:
    """traces/trial-<i>/ and evidence/trial-<i>/ of one run with several
    trials per case: the layout replay reads as trials (docs/statistics.md)."""
    traces, evidence = out / "traces", out / "evidence"
    for i, episodes in enumerate(trials):
        write_episodes(episodes, traces / f"trial-{i}", evidence / f"trial-{i}")
    return traces, evidence


def set_alpha(suite_yaml: Path, alpha: float) -> None:
    """`gates.alpha: <alpha>` in a suite written by write_suite."""
    text = suite_yaml.read_text()
    if re.search(r"^  alpha:", text, flags=re.M):
        sys.exit(f"{suite_yaml}: already sets `gates.alpha`")
    text, n = re.subn(r"^gates:\n", f"gates:\n  alpha: {alpha}\n", text, count=1, flags=re.M)
    if n != 1:
        sys.exit(f"{suite_yaml}: no `gates:` block to set `alpha` in")
    suite_yaml.write_text(text)


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
        "alpha": report.get("settings", {}).get("alpha"),
        "family_alpha": report.get("family", {}).get("alpha"),
    }
    if checkpoint is not None:
        m = next((m for m in report["metrics"] if m["name"] == f"checkpoint:{checkpoint}"), None)
        out["target"] = None if m is None else {
            k: m.get(k) for k in ("status", "n", "nonzero", "base_mean", "head_mean", "delta", "test", "p_value",
                                  "q_value", "trials")
        }
    return out


class Gate:
    def __init__(self, binary: Path, work: Path, seed: int, extra: list[str] | None = None):
        self.bin = str(binary)
        self.work = work
        self.seed = seed
        self.suites = work / "suite"
        self.baselines = work / "baselines"
        self.extra = extra or []

    def common(self, traces: Path, evidence: Path) -> list[str]:
        return ["--suites-dir", str(self.suites), "--suite", SUITE_NAME, "--baselines-dir", str(self.baselines),
                "--traces", str(traces), "--evidence", str(evidence), "--seed", str(self.seed), "--deterministic",
                *self.extra]

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
    episodes, trials, by_trial = load_trials(args.source)
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


# --- Trials design (issue 20): 1 head trial vs 3 baseline trials -----------------

ALPHAS = (0.05, 0.01)
# Issue 20's target: a critical kind with at least MIN_APPLICABLE applicable
# episodes is caught (gate fails on it) in >= TARGET_SHARE of the rotations at
# 40 % and reported (regression or suspected) in >= TARGET_SHARE at 25 %, with
# no false alarm on the real null rotations.
TARGET_SHARE = 0.8
MIN_APPLICABLE = 8


def load_trials(source: Path):
    episodes = json.loads(source.read_bytes())
    trials = sorted({ep["trial"] for ep in episodes})
    by_trial = {t: sorted((ep for ep in episodes if ep["trial"] == t), key=lambda e: e["task_id"]) for t in trials}
    tasks = {t: [ep["task_id"] for ep in eps] for t, eps in by_trial.items()}
    if len({tuple(v) for v in tasks.values()}) != 1:
        sys.exit(f"{source}: the trials do not cover the same tasks")
    return episodes, trials, by_trial


def case_results(baseline_json: Path, checkpoint: str) -> dict[str, list[str]]:
    """Per case id, the checkpoint's result in each trial of a baseline report."""
    out: dict[str, list[str]] = {}
    for case in json.loads(baseline_json.read_text())["report"]["cases"]:
        res = next((c["result"] for c in case.get("checkpoints", []) if c["id"] == checkpoint), "N/A")
        out.setdefault(case["id"], []).append(res)
    return out


def stability(results: list[str]) -> str:
    """`pass` (passed in every trial), `flaky` (passed in some, failed in
    others), `fail` (failed in every trial where it applied) or `n/a`."""
    decided = [r for r in results if r in ("PASS", "FAIL")]
    if not decided:
        return "n/a"
    if all(r == "PASS" for r in decided):
        return "pass"
    if all(r == "FAIL" for r in decided):
        return "fail"
    return "flaky"


def stabilities(results: dict[str, list[str]], cases: list[str]) -> dict[str, int]:
    return {s: sum(stability(results[c]) == s for c in cases) for s in ("pass", "flaky", "fail", "n/a")}


def share(count: int, runs: int) -> bool:
    return runs > 0 and count >= TARGET_SHARE * runs


def trials_cell(recs: list[dict]) -> dict:
    ps = [r["target"]["p_value"] for r in recs if r.get("target") and r["target"].get("p_value") is not None]
    qs = [r["target"]["q_value"] for r in recs if r.get("target") and r["target"].get("q_value") is not None]
    return {
        "runs": len(recs),
        "detected": sum(r["detected"] for r in recs),
        "reported": sum(r["reported"] for r in recs),
        "other_failure": sum(r["exit"] == 2 and not r["detected"] for r in recs),
        # detections where the smoke tier stopped the run (the verdict of its 8 cases)
        "detected_at_smoke": sum(r["detected"] and r["stopped_at_smoke"] for r in recs),
        # the target's p at or below the alpha of the tier that decided, before BH
        "p_below_alpha": sum(bool(r.get("target")) and r["target"].get("p_value") is not None
                             and r["family_alpha"] is not None and r["target"]["p_value"] <= r["family_alpha"]
                             for r in recs),
        "k_range": span([len(r["injected"]) for r in recs]),
        "n_range": span([r["applicable"] for r in recs]),
        "median_p": median(ps),
        "median_q": median(qs),
    }


def trials_power(args) -> int:
    """Old design (1 trial vs 1 trial, 12 ordered pairs) and new design (1
    head trial vs the other 3 as trials of one baseline, 4 rotations) on the
    same injected head trials, at every alpha of --alphas."""
    episodes, trials, by_trial = load_trials(args.source)
    if len(trials) < 3:
        sys.exit(f"{args.source}: the trials design needs at least 3 trials")
    rates = tuple(float(r) for r in args.rates.split(","))
    alphas = tuple(float(a) for a in args.alphas.split(","))
    unknown = [k for k in args.kinds.split(",") if k not in inject.KINDS]
    if unknown:
        sys.exit(f"--kinds: unknown {', '.join(unknown)} (known: {', '.join(inject.KINDS)})")
    work = args.out / "work"
    if work.exists():
        shutil.rmtree(work)

    # Head runs, shared by both designs and every alpha: each trial as is
    # (null) and with each kind injected at each rate. The injected episodes
    # depend on the head trial only (seed|kind|rate|head<h>), so old and new
    # see exactly the same head.
    heads = []
    for h in trials:
        heads.append({"kind": "null", "checkpoint": None, "rate": None, "head": h, "applicable": None, "injected": [],
                      "dirs": write_run(by_trial[h], work / "heads" / f"null-t{h}")})
    for kind in args.kinds.split(","):
        checkpoint = inject.KINDS[kind][1]
        for rate in rates:
            for h in trials:
                rng = random.Random(f"{args.seed}|{kind}|{rate}|head{h}")
                eps, applicable, chosen = inject_run(by_trial[h], kind, rate, rng)
                heads.append({"kind": kind, "checkpoint": checkpoint, "rate": rate, "head": h,
                              "applicable": len(applicable), "applicable_cases": [f"task-{x}" for x in applicable],
                              "injected": [f"task-{x}" for x in chosen],
                              "dirs": write_run(eps, work / "heads" / f"{kind}-{fmt_rate(rate)}-t{h}")})
    single = {t: (work / "heads" / f"null-t{t}" / "traces", work / "heads" / f"null-t{t}" / "evidence") for t in trials}
    rotation = {h: write_trials([by_trial[t] for t in trials if t != h], work / "rotations" / f"rot{h}") for h in trials}

    extra = ["--jobs", "1"] if args.jobs > 1 else []
    gates = {}
    for alpha in alphas:
        gate = Gate(args.bin, work / f"alpha-{alpha}", args.seed, extra)
        write_suite(args.source, trials[0], gate.suites)
        set_alpha(gate.suites / SUITE_NAME / "suite.yaml", alpha)
        for t in trials:
            gate.baseline(f"t{t}", *single[t])
        for h in trials:
            gate.baseline(f"rot{h}", *rotation[h])
        (gate.work / "reports").mkdir()
        gates[alpha] = gate

    jobs = []
    for alpha in alphas:
        for head in heads:
            h = head["head"]
            jobs.append((alpha, "new", head, f"rot{h}", [t for t in trials if t != h]))
            jobs.extend((alpha, "old", head, f"t{a}", [a]) for a in trials if a != h)

    def one(job) -> dict:
        alpha, design, head, base, base_trials = job
        gate = gates[alpha]
        tag = "null" if head["kind"] == "null" else f"{head['kind']}-{fmt_rate(head['rate'])}"
        out = gate.work / "reports" / f"{design}-{tag}-{base}-t{head['head']}.json"
        r = gate.compare(base, *head["dirs"], out, head["checkpoint"])
        t = r.get("target") or {}
        rec = compare_record(alpha, out, r, {"alpha": alpha, "design": design, "kind": head["kind"],
                                             "rate": head["rate"], "head": head["head"], "base": base_trials,
                                             "applicable": head["applicable"], "injected": head["injected"]})
        print(f"a={alpha} {design} {tag} {base} -> t{head['head']}: exit {r['exit']} target {t.get('status')} "
              f"p={t.get('p_value')} q={t.get('q_value')}", file=sys.stderr)
        return rec

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        records = list(pool.map(one, jobs))

    summary = trials_summary(args, trials, rates, alphas, heads, records, gates)
    md = "# Trials: 1 head trial vs 3 baseline trials (tau-bench airline, gpt-4o)\n\n" + trials_tables(summary)
    (args.out / "power-trials.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    (args.out / "power-trials.md").write_text(md)
    print(md)
    return 0


def compare_record(alpha: float, out: Path, r: dict, fields: dict) -> dict:
    """One compare's record: `fields`, the summary `r` (less its reasons),
    detected (exit 2 with `regression` on the target) and reported
    (`regression` or `suspected` on it). The report must be at `alpha`."""
    if r["alpha"] is not None and abs(r["alpha"] - alpha) > 1e-12:
        sys.exit(f"{out}: the report's alpha is {r['alpha']}, expected {alpha}")
    t = r.get("target") or {}
    rec = {**fields, **r,
           "detected": r["exit"] == 2 and t.get("status") == "regression",
           "reported": t.get("status") in ("regression", "suspected")}
    del rec["reasons"]
    return rec


def per_alpha_blocks(records: list[dict], kinds: dict, rates, alphas, heads: list[dict]) -> dict:
    """Null false alarms, detection cells and issue 20's target, per alpha,
    from the records of every compare (also used by --render-json)."""
    per_alpha = {}
    for alpha in alphas:
        recs = [r for r in records if r["alpha"] == alpha]
        null = {d: [r for r in recs if r["kind"] == "null" and r["design"] == d] for d in ("old", "new")}
        detection = {}
        for kind, meta in kinds.items():
            row = {}
            for rate in rates:
                row[fmt_rate(rate)] = {d: trials_cell([r for r in recs if r["kind"] == kind and r["rate"] == rate
                                                       and r["design"] == d]) for d in ("old", "new")}
            detection[kind] = row
        target = {}
        for kind, meta in kinds.items():
            n_min = min(x["applicable"] for x in heads if x["kind"] == kind)
            at40, at25 = detection[kind].get("40%"), detection[kind].get("25%")
            fa = sum(r["exit"] == 2 for r in null["new"])
            t = {"critical": meta["severity"] == "critical", "min_applicable": n_min,
                 "in_scope": meta["severity"] == "critical" and n_min >= MIN_APPLICABLE, "null_false_alarms": fa}
            for design in ("new", "old"):
                t[design] = None if at40 is None or at25 is None else {
                    "detected_40": f"{at40[design]['detected']}/{at40[design]['runs']}",
                    "reported_25": f"{at25[design]['reported']}/{at25[design]['runs']}",
                    "met": share(at40[design]["detected"], at40[design]["runs"])
                    and share(at25[design]["reported"], at25[design]["runs"])
                    and sum(r["exit"] == 2 for r in null[design]) == 0,
                }
            target[kind] = t
        per_alpha[str(alpha)] = {
            "null": {d: [{k: r[k] for k in ("base", "head", "exit", "verdict", "flagged", "family_alpha")} for r in v]
                     for d, v in null.items()},
            "detection": detection,
            "target": target,
        }
    return per_alpha


def trials_summary(args, trials, rates, alphas, heads, records, gates) -> dict:
    kinds = {kind: {"checkpoint": inject.KINDS[kind][1], "severity": inject.KINDS[kind][2]}
             for kind in args.kinds.split(",")}
    # How flaky each kind's checkpoint is across the 3 trials of each
    # rotation's baseline (the same at every alpha): over all 50 cases, and
    # over the cases where the kind applies in the head trial.
    flakiness = {}
    first = gates[alphas[0]]
    for kind, meta in kinds.items():
        row = {}
        for h in trials:
            res = case_results(first.baselines / f"rot{h}" / f"{SUITE_NAME}.json", meta["checkpoint"])
            head = next(x for x in heads if x["kind"] == kind and x["head"] == h)
            row[f"t{h}"] = {"applicable": head["applicable"],
                            "applicable_by_baseline": stabilities(res, head["applicable_cases"]),
                            "all_cases": stabilities(res, sorted(res))}
        flakiness[kind] = row

    # Signal and noise of each new-design compare on the kind's checkpoint:
    # the injected cases by their stability across the 3 baseline trials, and
    # the cases left as recorded whose head result is below / above their
    # baseline mean (the agent's own variation, which the injection must beat).
    signal = {}
    for kind, meta in kinds.items():
        row = {}
        for rate in rates:
            cells = {}
            for h in trials:
                base = case_results(first.baselines / f"rot{h}" / f"{SUITE_NAME}.json", meta["checkpoint"])
                own = case_results(first.baselines / f"t{h}" / f"{SUITE_NAME}.json", meta["checkpoint"])
                head = next(x for x in heads if x["kind"] == kind and x["rate"] == rate and x["head"] == h)
                injected = set(head["injected"])
                cell = {"injected": stabilities(base, sorted(injected)), "worse": 0, "better": 0}
                for case, results in base.items():
                    decided = [r == "PASS" for r in results if r in ("PASS", "FAIL")]
                    mine = own[case][0]
                    if case in injected or not decided or mine not in ("PASS", "FAIL"):
                        continue
                    value, mean = float(mine == "PASS"), sum(decided) / len(decided)
                    cell["worse"] += value < mean
                    cell["better"] += value > mean
                cells[f"t{h}"] = cell
            row[fmt_rate(rate)] = cells
        signal[kind] = row

    per_alpha = per_alpha_blocks(records, kinds, rates, alphas, heads)
    return {
        "source": args.source.name,
        "seed": args.seed,
        "trials": trials,
        "rates": list(rates),
        "alphas": list(alphas),
        "kinds": kinds,
        "design": {
            "old": "1 trial vs 1 trial: the injected head trial b against baseline trial a, every ordered pair a != b "
                   "(12 pairs, each head trial against each of the other 3 trials)",
            "new": "1 head trial vs 3 baseline trials: the injected head trial h against one baseline made from the "
                   "other 3 trials (`trial-<i>/` layout, 3 trials per case), every rotation h (4)",
            "injection_seed": "random.Random(f'{seed}|{kind}|{rate}|head{h}'): the same injected head in both designs",
            "tier": "progressive (smoke tier at 20% of alpha, then the full 50 cases), as a user gets it",
        },
        "heads": [{k: x[k] for k in ("kind", "rate", "head", "applicable", "injected")} for x in heads if x["kind"] != "null"],
        "flakiness": flakiness,
        "signal": signal,
        "per_alpha": per_alpha,
        "runs": records,
    }


def smoke(cell: dict) -> str:
    n = cell.get("detected_at_smoke", 0)
    return f" ({n} by the smoke tier)" if n else ""


def trials_tables(summary: dict) -> str:
    kinds, rates = summary["kinds"], summary["rates"]
    lines = [f"Source {summary['source']}, seed {summary['seed']}, rates "
             + ", ".join(fmt_rate(r) for r in rates) + ", alpha " + ", ".join(str(a) for a in summary["alphas"]) + ".",
             "",
             f"- **old** = {summary['design']['old']}.",
             f"- **new** = {summary['design']['new']}.",
             f"- Injected episodes: {summary['design']['injection_seed']}.",
             f"- Tier: {summary['design']['tier']}.",
             "- **detected** = gate exit 2 with `regression` on the kind's checkpoint; **reported** = that checkpoint "
             "is `regression` or `suspected` in the JSON report, whether or not the gate failed; "
             "k = episodes injected of n applicable in the head trial; \"by the smoke tier\" = detections where the "
             "smoke tier's 8 cases stopped the run; p <= alpha before BH = the target's p at or below the alpha of the "
             "tier that decided, i.e. what a family of one would have caught.",
             ""]
    for alpha, block in summary["per_alpha"].items():
        lines += [f"## alpha = {alpha}", "", "### Real null (nothing injected)", ""]
        for d, label in (("old", "old, 12 ordered pairs"), ("new", "new, 4 rotations")):
            v = block["null"][d]
            fa = sum(r["exit"] == 2 for r in v)
            flagged = sorted({f"{k} ({s})" for r in v for k, s in r["flagged"].items()})
            lines.append(f"- {label}: false alarms (exit 2) **{fa}/{len(v)}**; metrics flagged in any: "
                         + (", ".join(flagged) or "none"))
        lines += ["", "### Detection", "",
                  "| violation | checkpoint (severity) | rate | k of n | old detected | old reported | new detected "
                  "| new reported | p <= alpha before BH, old / new | other failure old / new | median p old / new |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for kind, row in block["detection"].items():
            meta = kinds[kind]
            for rate in rates:
                c = row[fmt_rate(rate)]
                o, n = c["old"], c["new"]
                lines.append(f"| {kind} | {meta['checkpoint']} ({meta['severity']}) | {fmt_rate(rate)} "
                             f"| {n['k_range']} of {n['n_range']} | {o['detected']}/{o['runs']} | {o['reported']}/{o['runs']} "
                             f"| **{n['detected']}/{n['runs']}**{smoke(n)} | **{n['reported']}/{n['runs']}** "
                             f"| {o['p_below_alpha']}/{o['runs']} / {n['p_below_alpha']}/{n['runs']} "
                             f"| {o['other_failure']} / {n['other_failure']} | {o['median_p']} / {n['median_p']} |")
        lines += ["", "### Issue 20's target", "",
                  f"Critical kinds with at least {MIN_APPLICABLE} applicable episodes in every head trial: detected in "
                  f">= {round(TARGET_SHARE * 100)}% of runs at 40%, reported in >= {round(TARGET_SHARE * 100)}% at 25%, "
                  "0 false alarms on the null runs of the same design.", "",
                  "| violation | in scope (critical, min n) | new: detected 40% / reported 25% | new: met "
                  "| old: detected 40% / reported 25% | old: met |",
                  "|---|---|---|---|---|---|"]
        for kind, t in block["target"].items():
            scope = f"{'yes' if t['in_scope'] else 'no'} ({'critical' if t['critical'] else kinds[kind]['severity']}, "\
                    f"n >= {t['min_applicable']})"
            cells = []
            for d in ("new", "old"):
                x = t[d]
                if x is None:
                    cells += ["-", "-"]
                else:
                    cells += [f"{x['detected_40']} / {x['reported_25']}",
                              ("**yes**" if x["met"] else "no") if t["in_scope"] else ("yes" if x["met"] else "no")]
            lines.append(f"| {kind} | {scope} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["## How flaky each checkpoint is across the 3 baseline trials", "",
              "Per rotation (head trial t<h>, baseline = the other 3 trials): of the n head episodes where the kind "
              "applies, how many have the checkpoint passing in all 3 baseline trials / flaky (pass in some, fail in "
              "others) / failing in all that apply / not applicable in any; and the same over all 50 cases.", "",
              "| violation | checkpoint | " + " | ".join(f"head t{h}: applicable (pass/flaky/fail/n.a.)"
                                                      for h in summary["trials"])
              + " | all 50 cases, per rotation: flaky |",
              "|---|---|" + "---|" * len(summary["trials"]) + "---|"]
    for kind in kinds:
        row = summary["flakiness"][kind]
        cells = []
        for h in summary["trials"]:
            x = row[f"t{h}"]
            a = x["applicable_by_baseline"]
            cells.append(f"{x['applicable']} ({a['pass']}/{a['flaky']}/{a['fail']}/{a['n/a']})")
        flaky_all = ", ".join(str(row[f"t{h}"]["all_cases"]["flaky"]) for h in summary["trials"])
        lines.append(f"| {kind} | {kinds[kind]['checkpoint']} | " + " | ".join(cells) + f" | {flaky_all} |")
    if "signal" in summary:
        lines += ["", "## Signal and noise on the checkpoint (new design)", "",
                  "Per rotation: the k injected cases by their checkpoint across the 3 baseline trials "
                  "(passing in all / flaky / failing in all / not applicable in any), then, among the cases left as "
                  "recorded, how many have the head's result below / above their baseline mean (the agent's own "
                  "variation between trials).", "",
                  "| violation | rate | " + " | ".join(f"head t{h}: injected (pass/flaky/fail/n.a.); worse / better"
                                                    for h in summary["trials"]) + " |",
                  "|---|---|" + "---|" * len(summary["trials"])]
        for kind in kinds:
            for rate in rates:
                cells = []
                for h in summary["trials"]:
                    c = summary["signal"][kind][fmt_rate(rate)][f"t{h}"]
                    i = c["injected"]
                    cells.append(f"{sum(i.values())} ({i['pass']}/{i['flaky']}/{i['fail']}/{i['n/a']}); "
                                 f"{c['worse']} / {c['better']}")
                lines.append(f"| {kind} | {fmt_rate(rate)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def render_json(args) -> int:
    """The tables of a saved power-trials.json, recomputed from its runs."""
    summary = json.loads(args.render_json.read_text())
    # the JSON is written with sorted keys: back to the order of tau_power_inject.KINDS
    order = [k for k in inject.KINDS if k in summary["kinds"]] + sorted(set(summary["kinds"]) - set(inject.KINDS))
    summary["kinds"] = {k: summary["kinds"][k] for k in order}
    summary["per_alpha"] = per_alpha_blocks(summary["runs"], summary["kinds"], summary["rates"], summary["alphas"],
                                            summary["heads"])
    md = "# Trials: 1 head trial vs 3 baseline trials (tau-bench airline, gpt-4o)\n\n" + trials_tables(summary)
    (args.out / "power-trials.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    (args.out / "power-trials.md").write_text(md)
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
    p.add_argument("--trials-design", action="store_true",
                   help="1 head trial vs the other trials as one baseline's trials (4 rotations), "
                        "side by side with 1 vs 1 (12 pairs), on the same injected heads")
    p.add_argument("--alphas", default=",".join(str(a) for a in ALPHAS),
                   help="with --trials-design: the suite's `gates.alpha` values to measure at")
    p.add_argument("--jobs", type=int, default=1, help="with --trials-design: compares run at once")
    p.add_argument("--kinds", default=",".join(inject.KINDS), help="with --trials-design: the injection kinds")
    p.add_argument("--render-json", type=Path, metavar="FILE",
                   help="recompute the tables of a saved power-trials.json from its runs and write them to --out "
                        "(no compare is run)")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.inject_all:
        return inject_all(args)
    if args.render_json:
        return render_json(args)
    if args.trials_design:
        return trials_power(args)
    return power(args)


if __name__ == "__main__":
    sys.exit(main())
