#!/usr/bin/env python3
"""Turn tau-bench's public airline episodes into a suite you can run.

tau-bench (sierra-research/tau-bench, MIT) publishes 200 gpt-4o airline
episodes (50 tasks x 4 trials) as `historical_trajectories/gpt-4o-airline.json`.
The repository bundles 19 of them in `suites/airline-tau`; this script
writes ALL of a downloaded file into a new suite directory that uses the
airline-tau spec (checkpoints, tool catalog, task success):

  OUT/suite.yaml        suites/airline-tau/suite.yaml, with `suite:` renamed
  OUT/traces/<id>.json  one episode each, as is
  OUT/evidence/<id>.json  tau-bench's ground truth for the episode
  OUT/cases.jsonl       one case per episode

Case ids are `task-<task_id>.trial-<trial>`. Evidence and cases are built
exactly as for airline-tau (`suites/airline-tau/split_episodes.py`).

With `--trial N`, only trial N's 50 episodes are written and case ids are
`task-<task_id>`, so that the suites of different trials have the same cases
and one trial can be compared with another (`baseline update` on trial a,
`compare --traces ... --evidence ...` on trial b). The cases then carry only
what belongs to the task (input, gold tools, tags from the gold actions and
the smoke set), not the episode's outcome (the `success`/`failure` tags, a
`transfer` tag the gold does not call for, and the trial in the metadata vary
from trial to trial, and
a case whose definition changed is left out of a comparison).

Usage:
  curl -LO https://raw.githubusercontent.com/sierra-research/tau-bench/59a200c6d575d595120f1cb70fea53cef0632f6b/historical_trajectories/gpt-4o-airline.json
  python3 scripts/tau-bench-airline.py --source gpt-4o-airline.json --out /tmp/airline-200
  agenteval-gate run --suites-dir /tmp --suite airline-200 --deterministic --out /tmp/airline-200.json
  python3 scripts/tau-bench-airline.py --source gpt-4o-airline.json --trial 1 --out /tmp/t1/airline-trial
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SUITE = REPO / "suites" / "airline-tau"


def split_module():
    spec = importlib.util.spec_from_file_location("split_episodes", SUITE / "split_episodes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def task_case(case: dict) -> dict:
    """The part of a case that belongs to the task, the same in every trial."""
    outcome = {"success", "failure"}
    if "transfer_to_human_agents" not in case["expected_tools"]:
        outcome.add("transfer")  # tagged because this episode ended in a transfer
    case["tags"] = [t for t in case["tags"] if t not in outcome]
    case["metadata"] = {k: v for k, v in case["metadata"].items() if k in ("task_id", "user_id")}
    return case


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source", type=Path, required=True, help="tau-bench episodes JSON (an array of episodes)")
    p.add_argument("--out", type=Path, required=True, help="suite directory to create; its name becomes the suite name")
    p.add_argument("--trial", type=int, help="write only this trial's episodes, with case ids `task-<task_id>`")
    args = p.parse_args()

    split = split_module()
    try:
        episodes = json.loads(args.source.read_bytes())
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"{args.source}: cannot read episodes: {e}")
    if not isinstance(episodes, list) or not all(isinstance(e, dict) and "traj" in e for e in episodes):
        sys.exit(f"{args.source}: expected a JSON array of tau-bench episodes (objects with `traj`)")

    name = args.out.name
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
        sys.exit(f"{args.out}: the directory name becomes the suite name; use letters, digits, '-', '_', '.'")
    (args.out / "traces").mkdir(parents=True, exist_ok=True)
    (args.out / "evidence").mkdir(parents=True, exist_ok=True)
    cases = []
    seen = set()
    if args.trial is not None:
        episodes = [ep for ep in episodes if ep.get("trial") == args.trial]
        if not episodes:
            sys.exit(f"{args.source}: no episode of trial {args.trial}")
    for ep in episodes:
        case_id = f"task-{ep['task_id']}" if args.trial is not None else f"task-{ep['task_id']}.trial-{ep['trial']}"
        if case_id in seen:
            sys.exit(f"{args.source}: episode {case_id} appears twice")
        seen.add(case_id)
        (args.out / "traces" / f"{case_id}.json").write_text(json.dumps(ep, indent=1) + "\n")
        (args.out / "evidence" / f"{case_id}.json").write_text(json.dumps(split.evidence_of(ep), indent=2) + "\n")
        case = split.case_of(ep)
        case["id"] = case_id
        if args.trial is not None:
            case = task_case(case)
        cases.append(json.dumps(case) + "\n")
    (args.out / "cases.jsonl").write_text("".join(cases))

    spec = (SUITE / "suite.yaml").read_text()
    spec, n = re.subn(r"^suite: airline-tau$", f"suite: {name}", spec, count=1, flags=re.M)
    if n != 1:
        sys.exit(f"{SUITE / 'suite.yaml'}: no `suite: airline-tau` line to rename")
    (args.out / "suite.yaml").write_text(spec)
    print(f"wrote {len(cases)} episodes to {args.out} (suite `{name}`)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
