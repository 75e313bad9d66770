#!/usr/bin/env python3
"""Failure-attribution accuracy of agenteval-gate on Who&When episodes.

One command over a directory of Who&When JSON files (the public dataset of
"Which Agent Causes Task Failures and When?", Zhang et al., ICML 2025,
github.com/ag2ai/Agents_Failure_Attribution):

    scripts/who-and-when-accuracy.py DIR                      # deterministic attribution
    scripts/who-and-when-accuracy.py DIR --judge openai       # judged (`root_cause: judge`)
    scripts/who-and-when-accuracy.py DIR --judge replay --judge-cache .agenteval-cache

It writes a throw-away suite (one case per file, traces read from DIR) to a
temporary directory, runs `agenteval-gate run --deterministic` on it, reads
each case's `root_cause` from the run report, and compares it with the
episode's labels:

- agent-level accuracy: the named agent equals `mistake_agent`;
- step-level accuracy: the named step equals `mistake_step`. Steps are
  0-based indices into `history` (message i is span `m<i>` in the trace
  model), as in the dataset: the labelled step's speaker is the labelled
  agent in 178 of the 184 episodes;
- the uniform random baseline, as an expectation: the mean over episodes of
  1/#agents (distinct speakers, `Orchestrator (thought)` and
  `Orchestrator (-> WebSurfer)` counting as one agent `Orchestrator`) and of
  1/#steps (messages).

An episode without a named root cause counts as wrong at both levels (and
is counted separately). Coverage (`agent named`: episodes whose root cause
names an agent) and precision where named (`right where named`: of those,
the ones naming `mistake_agent`) are shown too: a root cause at an
infrastructure failure (a timeout, a refused connection) names its step
but no agent. Every Who&When episode is a failed run (that is how
the dataset was built), so the suite marks each case failed with a tier-1
checkpoint on a generated evidence file; the dataset's labels are never
written to the evidence or shown to a judge (the trace adapter keeps them
in the trace metadata, which no prompt reads).

Results are split by the dataset's two halves, named by the file prefix
(`algorithm-generated_*`, `hand-crafted_*`), and totalled. `--json FILE`
also writes every number and each episode's prediction.

Standard library only.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HALVES = ("algorithm-generated", "hand-crafted")
ROOT = Path(__file__).resolve().parent.parent


def speaker(message):
    """The agent of a message: `name` (CaptainAgent) else `role` (Magentic-One),
    without a trailing note in parentheses (`Orchestrator (-> WebSurfer)`)."""
    raw = (message.get("name") or message.get("role") or "").strip()
    m = re.match(r"^(.*?) \((.*)\)$", raw)
    return m.group(1).strip() if m else raw


def half_of(stem):
    for h in HALVES:
        if stem.startswith(h):
            return h
    return "other"


def load_episodes(directory):
    episodes = []
    for path in sorted(Path(directory).glob("*.json")):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        history = data.get("history")
        if not isinstance(history, list) or "mistake_agent" not in data:
            sys.exit(f"error: {path}: not a labelled Who&When episode (no `history` or `mistake_agent`)")
        try:
            step = int(str(data["mistake_step"]).strip())
        except (KeyError, ValueError):
            sys.exit(f"error: {path}: `mistake_step` is not a step index")
        episodes.append(
            {
                "id": path.stem,
                "path": path,
                "half": half_of(path.stem),
                "agent": str(data["mistake_agent"]).strip(),
                "step": step,
                "speakers": [speaker(m) for m in history],
            }
        )
    if not episodes:
        sys.exit(f"error: no `*.json` files in {directory}")
    return episodes


def write_suite(tmp, directory, episodes, judged):
    suite_dir = Path(tmp) / "suites" / "who-and-when"
    evidence = suite_dir / "evidence"
    evidence.mkdir(parents=True)
    for e in episodes:
        (evidence / f"{e['id']}.json").write_text(json.dumps({"run": {"failed": True}}))
    lines = [
        "suite: who-and-when",
        'spec_version: "1.0.0"',
        "description: Who&When episodes (failed multi-agent runs) for the attribution accuracy check.",
        f"traces: {json.dumps(str(Path(directory).resolve()))}",
        "evidence: evidence/",
    ]
    if judged:
        lines.append("scoring: {root_cause: judge}")
        # Only the root-cause question: one judge call per failed case.
        lines.append("judge: {steps: false}")
    lines += [
        "checkpoints:",
        "  - id: WW-01",
        "    tier: 1",
        "    instruction: The run succeeded (every Who&When episode is a failed run)",
        "    severity: low",
        "    evidence_sources: [run]",
        "    assert: {path: /run/failed, equals: false}",
        "cases:",
    ]
    lines += [f"  - id: {json.dumps(e['id'])}" for e in episodes]
    (suite_dir / "suite.yaml").write_text("\n".join(lines) + "\n")
    return Path(tmp) / "suites"


def run_gate(binary, suites_dir, out, args):
    cmd = [
        str(binary), "run", "--isolated", "--quiet", "--deterministic",
        "--suites-dir", str(suites_dir), "--suite", "who-and-when",
        "--format", "json", "--out", str(out),
        "--judge", args.judge or "none",
    ]
    for flag, value in (("--judge-model", args.judge_model), ("--judge-cache", args.judge_cache),
                        ("--judge-base-url", args.judge_base_url), ("--judge-max-cost", args.judge_max_cost)):
        if value is not None:
            cmd += [flag, str(value)]
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # `run` exits 0, or 2 when an absolute gate fails; the report is written either way.
    if proc.returncode not in (0, 2) or not out.exists():
        sys.exit(f"error: `{' '.join(cmd)}` exited {proc.returncode}:\n{proc.stderr}")
    with open(out, encoding="utf-8") as f:
        return json.load(f)


def prediction(case):
    """(step index, agent, status) from a case's `root_cause` block."""
    rc = case.get("root_cause")
    if not rc:
        return None, None, "none"
    span = rc.get("span_id") or ""
    m = re.fullmatch(r"m(\d+)", span)
    step = int(m.group(1)) if m else None
    agent = rc.get("agent")
    if step is None and agent is None:
        return None, None, rc.get("status", "none")
    return step, agent, rc.get("status", "named")


def score(episodes, report):
    by_id = {c["id"]: c for c in report.get("cases", [])}
    rows = []
    for e in episodes:
        case = by_id.get(e["id"])
        if case is None:
            sys.exit(f"error: the run report has no case `{e['id']}`")
        step, agent, status = prediction(case)
        rows.append(
            {
                "id": e["id"],
                "half": e["half"],
                "label_agent": e["agent"],
                "label_step": e["step"],
                "predicted_agent": agent,
                "predicted_step": step,
                "status": status,
                "reason": (case.get("root_cause") or {}).get("reason"),
                "agent_correct": agent is not None and agent == e["agent"],
                "step_correct": step is not None and step == e["step"],
                "random_agent": 1.0 / len(set(e["speakers"])) if e["speakers"] else 0.0,
                "random_step": 1.0 / len(e["speakers"]) if e["speakers"] else 0.0,
            }
        )
    return rows


def summarise(rows):
    groups = {}
    for name in HALVES + ("other",):
        part = [r for r in rows if r["half"] == name]
        if part:
            groups[name] = part
    groups["total"] = rows
    out = {}
    for name, part in groups.items():
        n = len(part)
        out[name] = {
            "episodes": n,
            "agent_correct": sum(r["agent_correct"] for r in part),
            "step_correct": sum(r["step_correct"] for r in part),
            "no_root_cause": sum(r["predicted_step"] is None and r["predicted_agent"] is None for r in part),
            "agent_named": sum(r["predicted_agent"] is not None for r in part),
            "random_agent": sum(r["random_agent"] for r in part) / n,
            "random_step": sum(r["random_step"] for r in part) / n,
        }
    return out


def pct(k, n):
    return 100.0 * k / n if n else 0.0


def render(summary, method):
    lines = [
        f"Who&When failure attribution: {method}",
        f"{'half':<20} {'episodes':>8}  {'agent-level':>16}  {'step-level':>16}  "
        f"{'random agent':>12}  {'random step':>11}  {'no root cause':>13}  "
        f"{'agent named':>16}  {'right where named':>17}",
    ]
    for name, s in summary.items():
        n = s["episodes"]
        lines.append(
            f"{name:<20} {n:>8}  {s['agent_correct']:>4}/{n:<4} {pct(s['agent_correct'], n):>5.1f}%  "
            f"{s['step_correct']:>4}/{n:<4} {pct(s['step_correct'], n):>5.1f}%  "
            f"{100 * s['random_agent']:>11.1f}%  {100 * s['random_step']:>10.1f}%  {s['no_root_cause']:>13}  "
            f"{s['agent_named']:>4}/{n:<4} {pct(s['agent_named'], n):>5.1f}%  "
            f"{s['agent_correct']:>4}/{s['agent_named']:<4} {pct(s['agent_correct'], s['agent_named']):>5.1f}%"
        )
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("directory", help="a directory of Who&When episode files (*.json)")
    p.add_argument("--bin", default=os.environ.get("AGENTEVAL_GATE_BIN"),
                   help="the agenteval-gate binary (default: $AGENTEVAL_GATE_BIN, else target/release, else target/debug)")
    p.add_argument("--judge", choices=["none", "openai", "anthropic", "replay"], default=None,
                   help="judged root cause (`root_cause: judge`) with this judge; default: the deterministic attribution")
    p.add_argument("--judge-model")
    p.add_argument("--judge-cache")
    p.add_argument("--judge-base-url")
    p.add_argument("--judge-max-cost")
    p.add_argument("--json", dest="json_out", help="also write the numbers and every prediction as JSON")
    args = p.parse_args()
    if args.judge == "none":
        args.judge = None

    binary = args.bin
    if binary is None:
        for candidate in (ROOT / "target/release/agenteval-gate", ROOT / "target/debug/agenteval-gate"):
            if candidate.exists():
                binary = candidate
                break
    if binary is None or not Path(binary).exists():
        sys.exit("error: no agenteval-gate binary; run `cargo build --release` or pass --bin")

    episodes = load_episodes(args.directory)
    with tempfile.TemporaryDirectory() as tmp:
        suites_dir = write_suite(tmp, args.directory, episodes, judged=args.judge is not None)
        report = run_gate(binary, suites_dir, Path(tmp) / "report.json", args)
    rows = score(episodes, report)
    summary = summarise(rows)
    if args.judge:
        method = f"judged (`root_cause: judge`, --judge {args.judge}"
        method += f", model {args.judge_model})" if args.judge_model else ")"
        judge = report.get("judge") or {}
        method += f"; judge calls {judge.get('calls', 0)}, cache hits {judge.get('cache_hits', 0)}, errors {judge.get('errors', 0)}"
    else:
        method = "deterministic (rules scorer, greedy attribution, earliest root cause)"
    print(render(summary, method))
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump({"method": method, "summary": summary, "episodes": rows}, f, indent=2, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()
