#!/usr/bin/env python3
"""Split the tau-bench airline episodes into the airline-tau suite.

Input: the 19-episode subset (`gpt-4o-airline.subset.json`, see SOURCE.md)
or the upstream `historical_trajectories/gpt-4o-airline.json` of
sierra-research/tau-bench (200 records; the 19 (task_id, trial) pairs below
are selected from it). Both give the same output.

Output, all derived from the episodes without changing them:
  traces/task-<task_id>.json    one episode object, as is (JSON, indent=1)
  evidence/task-<task_id>.json  the ground truth from `info.reward_info`
  cases.jsonl                   one case per episode: the user simulator's
                                instruction as input, the gold actions'
                                tools as `expected_tools` (task success is
                                the reward, via the suite's `task.success`)

Usage:
  python3 suites/airline-tau/split_episodes.py [--source FILE] [--check]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent
DEFAULT_SOURCE = Path("/work/shared/traces/tau-bench/gpt-4o-airline.subset.json")
# SHA-256 of the two accepted inputs (SOURCE.md).
KNOWN_SOURCES = {
    "85ae655894696de664f1c068604491ab127850ef1f147c7aa3c3f73cdbd027d9": "subset (19 records)",
    "e9e6c0297660c537f83d4fd9c476ce7a9a86ecd2784874b7bfc13be598e37bfa": "upstream gpt-4o-airline.json @ 59a200c",
}
EPISODES = [(t, 0) for t in (0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 18, 20, 24, 26, 29, 31, 33)]
SMOKE = {0, 1, 4, 6, 8, 11, 12, 31}
WRITE_TOOLS = {"book_reservation", "cancel_reservation", "update_reservation_flights",
               "update_reservation_passengers", "update_reservation_baggages", "send_certificate"}


def load(source: Path) -> list[dict]:
    if not source.is_file():
        sys.exit(
            f"{source}: not found; pass --source with the subset or tau-bench's "
            "historical_trajectories/gpt-4o-airline.json (see SOURCE.md)"
        )
    data = source.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest not in KNOWN_SOURCES:
        sys.exit(f"{source}: unknown input (sha256 {digest}); expected one of the files listed in SOURCE.md")
    records = json.loads(data)
    by_key = {(r["task_id"], r["trial"]): r for r in records}
    missing = [k for k in EPISODES if k not in by_key]
    if missing:
        sys.exit(f"{source}: episodes {missing} not found")
    return [by_key[k] for k in EPISODES]


def evidence_of(ep: dict) -> dict:
    info = ep["info"]
    reward_info = info.get("reward_info")
    out = {
        "source": "tau-bench info.reward_info (ground truth of the episode)",
        "reward": ep["reward"],
        "reward_info_recorded": reward_info is not None,
    }
    if reward_info is not None:
        graded = reward_info.get("info", {})
        for key in ("r_actions", "r_outputs", "outputs", "gt_data_hash"):
            if key in graded:
                out[key] = graded[key]
    out["terminated_by"] = info.get("source")
    out["gold_actions"] = [a["name"] for a in info["task"]["actions"]]
    out["required_outputs"] = info["task"].get("outputs", [])
    return out


def tags_of(ep: dict) -> list[str]:
    gold = {a["name"] for a in ep["info"]["task"]["actions"]}
    tags = ["smoke"] if ep["task_id"] in SMOKE else []
    tags.append("success" if ep["reward"] == 1.0 else "failure")
    if "book_reservation" in gold:
        tags.append("booking")
    if "cancel_reservation" in gold:
        tags.append("cancellation")
    if any(g.startswith("update_reservation_") for g in gold):
        tags.append("modification")
    if ep["info"].get("source") == "transfer_to_human_agents" or "transfer_to_human_agents" in gold:
        tags.append("transfer")
    if not gold & WRITE_TOOLS:
        tags.append("read-only")
    return tags


def case_of(ep: dict) -> dict:
    task = ep["info"]["task"]
    gold = list(dict.fromkeys(a["name"] for a in task["actions"]))
    case = {
        "id": f"task-{ep['task_id']}",
        "input": task["instruction"],
        "tags": tags_of(ep),
        "expected_tools": gold,
        "metadata": {
            "task_id": ep["task_id"],
            "trial": ep["trial"],
            "user_id": task["user_id"],
            "terminated_by": ep["info"].get("source"),
        },
    }
    # No `expected_output`: tau-bench checks required outputs against every
    # reply of the agent, not only the last one, and its verdict is already
    # the suite's task success (`task.success` reads the reward).
    return case


def main() -> int:
    p = argparse.ArgumentParser(description="Split tau-bench airline episodes into the airline-tau suite.")
    p.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="subset or upstream episodes JSON")
    p.add_argument("--check", action="store_true", help="compare with the committed files instead of writing")
    args = p.parse_args()

    episodes = load(args.source)
    outputs: dict[Path, bytes] = {}
    for ep in episodes:
        name = f"task-{ep['task_id']}.json"
        outputs[SUITE / "traces" / name] = (json.dumps(ep, indent=1) + "\n").encode()
        outputs[SUITE / "evidence" / name] = (json.dumps(evidence_of(ep), indent=2) + "\n").encode()
    outputs[SUITE / "cases.jsonl"] = "".join(json.dumps(case_of(ep)) + "\n" for ep in episodes).encode()

    if args.check:
        stale = [q for q, b in outputs.items() if not q.is_file() or q.read_bytes() != b]
        for q in stale:
            print(f"stale: {q.relative_to(SUITE)}", file=sys.stderr)
        print(f"checked {len(outputs)} files, {len(stale)} differ")
        return 1 if stale else 0
    for path, data in outputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    print(f"wrote {len(outputs)} files from {len(episodes)} episodes ({KNOWN_SOURCES[hashlib.sha256(args.source.read_bytes()).hexdigest()]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
