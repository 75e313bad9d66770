"""Real-data false alarms and power on tau-bench airline gpt-4o (50 tasks x 4 trials, reward 0/1).

nice -n 19 python3 tau_data.py      # once: extracts data/gpt4o_airline_rewards.json
nice -n 19 python3 taubench.py [--seeds 25]
Writes results/taubench.json and results/taubench.md.

Designs (every split of the 4 trials of each task into head trials and history trials):
  old      today's test: head trial b vs baseline trial a, paired sign-flip (exact sign test);
           the 12 ordered pairs (a, b)
  m=1,r=3  new test, head = trial b, history = the other 3 trials (4 rotations)
  m=1,r=2  head = trial b, history = 2 of the others (12)
  m=2,r=2  head = 2 trials, history = the other 2 (6)
  m=3,r=1  head = 3 trials, history = 1 (4)
  adaptive history = 2 trials, first head trial = one of the others, the last trial is the
           re-run (k = 2) used only if the rule fires (12 arrangements); selective test.
Null: the real trials as they are.  Injection: in a seeded random round(rate x #successes) of the
head's successful episodes (over all head trials, re-run included) the reward is set to 0.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os

import numpy as np

import strat_test as st

HERE = os.path.dirname(os.path.abspath(__file__))
RATES = (0.10, 0.25, 0.40)
STATS = ("cmh", "mod", "zperm")


def load():
    with open(os.path.join(HERE, "data", "gpt4o_airline_rewards.json")) as fh:
        d = json.load(fh)
    return np.array([d[k] for k in sorted(d, key=int)], dtype=float)  # (50, 4)


def designs():
    T = range(4)
    out = {"old": [((b,), (a,)) for a in T for b in T if a != b]}
    out["m=1,r=3"] = [((b,), tuple(t for t in T if t != b)) for b in T]
    out["m=1,r=2"] = [((b,), h) for b in T for h in itertools.combinations([t for t in T if t != b], 2)]
    out["m=2,r=2"] = [(h, tuple(t for t in T if t not in h)) for h in itertools.combinations(T, 2)]
    out["m=3,r=1"] = [(h, tuple(t for t in T if t not in h)) for h in itertools.combinations(T, 3)]
    out["adaptive"] = [((f, x), h) for h in itertools.combinations(T, 2)
                       for f in T if f not in h for x in T if x not in h and x != f]
    return out


def inject(head, rate, rng):
    """head: (n, m) rewards; zero a random round(rate * #successes) of the successful entries."""
    head = head.copy()
    succ = np.argwhere(head == 1)
    k = int(round(rate * len(succ)))
    if k:
        pick = succ[rng.choice(len(succ), size=k, replace=False)]
        head[pick[:, 0], pick[:, 1]] = 0
    return head


def test_design(name, head, hist, rule=None):
    """p-values for one data set. head (n, m), hist (n, r). Returns dict stat -> p (+ trials)."""
    n = head.shape[0]
    if name == "old":
        return {"signflip": st.sign_flip_1v1(head[:, 0] - hist[:, 0])["p"]}, 1.0
    if name == "adaptive":
        out, trials = {}, None
        for rl in rule:
            cases = []
            nt = 0
            for i in range(n):
                rer = st.rule_fires(rl, hist[i], head[i, 0])
                h = head[i] if rer else head[i, :1]
                nt += len(h)
                cases.append((h, hist[i], rer))
            for s in ("cmh", "mod"):
                out[f"{rl}|{s}"] = st.strat_perm_test(cases, stat=s, rule=rl, seed=7)["p"]
            out[f"{rl}|trials"] = nt / n
        return out, None
    cases = [(head[i], hist[i]) for i in range(n)]
    return {s: st.strat_perm_test(cases, stat=s, seed=7)["p"] for s in STATS}, float(head.shape[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=25)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--md-only", action="store_true", help="re-write results/taubench.md from the JSON")
    args = ap.parse_args()
    if args.md_only:
        return write_md(json.load(open(os.path.join(HERE, "results", "taubench.json"))))
    R = load()
    res = {"meta": dict(seeds=args.seeds, seed=args.seed, rates=RATES,
                        successes_per_trial=R.sum(axis=0).tolist())}
    rules = ("nonconstant", "minority1", "below_mean")
    for name, splits in designs().items():
        rows = []
        for si, (hd, hi) in enumerate(splits):
            head, hist = R[:, list(hd)], R[:, list(hi)]
            p, _ = test_design(name, head, hist, rules)
            rows.append(dict(split=[hd, hi], rate=0.0, seed=None, p=p))
            for rate in RATES:
                for s in range(args.seeds):
                    rng = np.random.default_rng([args.seed, si, int(rate * 100), s, len(name)])
                    p, _ = test_design(name, inject(head, rate, rng), hist, rules)
                    rows.append(dict(split=[hd, hi], rate=rate, seed=s, p=p))
        res[name] = rows
        print(name, len(rows), flush=True)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "taubench.json"), "w") as fh:
        json.dump(res, fh)
    write_md(res)


def write_md(res):
    lines = ["# tau-bench airline gpt-4o: false alarms and detection (single 0/1 metric: reward)", "",
             f"Generated by `nice -n 19 python3 taubench.py --seeds {res['meta']['seeds']}`; "
             f"successes per trial {res['meta']['successes_per_trial']}.", "",
             "Rejection counts at alpha = 0.05 / 0.01 (single metric, no multiple-comparison family). "
             "Null = the real trials unchanged (one data set per split); injected = "
             f"{res['meta']['seeds']} seeds per split.", "",
             "| design | test | splits | null: false alarms 0.05 / 0.01 | null p (median) | "
             + " | ".join(f"inj {int(r * 100)}%: 0.05 / 0.01" for r in RATES) + " | mean head trials/case |",
             "|---|---|---:|---|---:|" + "---|" * len(RATES) + "---:|"]
    for name in ("old", "m=1,r=3", "m=1,r=2", "m=2,r=2", "m=3,r=1", "adaptive"):
        rows = res[name]
        keys = [k for k in rows[0]["p"] if not k.endswith("trials")]
        nsplit = len({json.dumps(r["split"]) for r in rows})
        for k in keys:
            cells = []
            for rate in (0.0,) + tuple(RATES):
                ps = np.array([r["p"][k] for r in rows if r["rate"] == rate])
                cells.append(f"{(ps <= 0.05).sum()}/{len(ps)} / {(ps <= 0.01).sum()}/{len(ps)}")
                if rate == 0.0:
                    cells.append(f"{np.median(ps):.3g}")
            if name == "adaptive":
                rl = k.split("|")[0]
                tr = np.mean([r["p"][f"{rl}|trials"] for r in rows if r["rate"] == 0.0])
                tr_s = f"{tr:.2f} (null)"
            else:
                tr_s = "1" if name in ("old",) else name.split(",")[0][2:]
            lines.append(f"| {name} | {k.replace('|', ': ')} | {nsplit} | " + " | ".join(cells) + f" | {tr_s} |")
    with open(os.path.join(HERE, "results", "taubench.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
