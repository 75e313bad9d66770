"""Extract each task's checkpoint values in each of the 4 public gpt-4o airline trials.

nice -n 19 python3 tau_checkpoints.py WORK
  WORK: the --out/work directory of `scripts/tau-bench-power.py --trials-design` (it holds one
  baseline per trial, alpha-<a>/baselines/t<i>/, each made by `baseline update` of that trial).
Writes data/gpt4o_airline_checkpoints.json: for every checkpoint and task_success, per task (in
task order) the 4 trial values as the gate scored them: 1 pass, 0 violation, null when the
checkpoint did not apply to that episode.
"""

from __future__ import annotations

import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    work = sys.argv[1]
    alpha_dir = sorted(glob.glob(os.path.join(work, "alpha-*")))[0]
    trials = []
    for t in range(4):
        path = os.path.join(alpha_dir, "baselines", f"t{t}", "airline-trial.history.jsonl")
        with open(path) as fh:
            lines = [json.loads(line) for line in fh if line.strip()]
        trials.append(lines[-1]["case_values"])
    tasks = sorted(trials[0], key=lambda c: int(c.rsplit("-", 1)[1]))
    metrics = sorted({m for tr in trials for case in tr.values() for m in case
                      if m.startswith("checkpoint:") or m == "task_success"})
    values = {}
    for metric in metrics:
        rows = []
        for task in tasks:
            row = []
            for tr in trials:
                v = tr.get(task, {}).get(metric)
                if v is not None and len(v) != 1:
                    raise SystemExit(f"{task} {metric}: expected one trial, got {len(v)}")
                row.append(None if v is None else v[0])
            rows.append(row)
        values[metric] = rows
    out = dict(
        source="sierra-research/tau-bench historical_trajectories/gpt-4o-airline.json (MIT), "
               "scored by agenteval-gate's tau-bench airline suite "
               "(scripts/tau-bench-power.py --trials-design, per-trial baselines)",
        tasks=tasks,
        values=values,
    )
    path = os.path.join(HERE, "data", "gpt4o_airline_checkpoints.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=None, separators=(",", ":"))
        fh.write("\n")
    print(f"wrote {path}: {len(tasks)} tasks, {len(metrics)} metrics")


if __name__ == "__main__":
    main()
