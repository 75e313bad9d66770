"""Extract the 0/1 rewards of tau-bench airline gpt-4o (50 tasks x 4 trials) into data/.

Source: sierra-research/tau-bench, historical_trajectories/gpt-4o-airline.json (MIT), read from
the local mirror with `git show`.  Writes data/gpt4o_airline_rewards.json: {task_id: [r_trial0..3]}.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MIRROR = "/work/.mirror/sierra-research+tau-bench/repo"
OUT = os.path.join(HERE, "data", "gpt4o_airline_rewards.json")


def main():
    raw = subprocess.run(["git", "-C", MIRROR, "show", "HEAD:historical_trajectories/gpt-4o-airline.json"],
                         check=True, capture_output=True).stdout
    commit = subprocess.run(["git", "-C", MIRROR, "rev-parse", "HEAD"], check=True,
                            capture_output=True, text=True).stdout.strip()
    eps = json.loads(raw)
    out = {}
    for e in eps:
        out.setdefault(str(e["task_id"]), [None] * 4)[e["trial"]] = float(e["reward"])
    assert len(out) == 50 and all(None not in v for v in out.values())
    assert all(x in (0.0, 1.0) for v in out.values() for x in v)
    out = {k: out[k] for k in sorted(out, key=int)}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as fh:
        json.dump(out, fh, indent=0)
    counts = [int(sum(v)) for v in out.values()]
    print(f"tau-bench commit {commit}; {len(eps)} episodes; "
          f"always succeed {counts.count(4)}, always fail {counts.count(0)}, flip {50 - counts.count(4) - counts.count(0)}; "
          f"successes per trial {[int(sum(v[t] for v in out.values())) for t in range(4)]}", file=sys.stderr)


if __name__ == "__main__":
    main()
