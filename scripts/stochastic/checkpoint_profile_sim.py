"""What it takes to catch a violation of one real checkpoint: power by head trials, history depth
and number of cases, for a checkpoint that behaves as it does on tau-bench's gpt-4o airline
episodes (issue 20: the target that the 4 public trials cannot reach for A2-08).

nice -n 19 python3 checkpoint_profile_sim.py                       # A2-08, A2-01, A2-09 (~25 min)
nice -n 19 python3 checkpoint_profile_sim.py --quick               # smoke test
nice -n 19 python3 checkpoint_profile_sim.py --checkpoints A2-08 --reps 200
nice -n 19 python3 checkpoint_profile_sim.py --check-real ../../docs/detection-power-trials.json
Writes results/checkpoint_profile.json and .md (checkpoint_profile-<name>.* with --name).

Data: data/gpt4o_airline_checkpoints.json, each task's value of each critical checkpoint in each
of the 4 public trials (1 pass, 0 violation, null when the checkpoint did not apply), as the gate
scored them (tau_checkpoints.py extracts them from the per-trial baselines that
scripts/tau-bench-power.py --trials-design writes).

Case model (a "posterior predictive" of the real cases): a simulated case copies a real task
drawn with replacement; its chance that the checkpoint applies in a trial is drawn from
Beta(k + 1/2, 4 - k + 1/2) (k = trials of 4 where it applied) and its pass rate when it applies
from Beta(s + 1/2, k - s + 1/2) (s = passes; Beta(1/2, 1/2) when it never applied). Stable real
tasks stay mostly stable and flaky ones flaky, with the uncertainty 4 trials leave.

Design: n cases, m head trials, r baseline (history) trials per case, every trial an independent
draw. Injection (as in scripts/tau-bench-power-split.py): round(rate x #cases that keep the rule in
some head trial) of those cases are chosen at random and every head trial of theirs where the
checkpoint applies fails it. (The real injections apply only where the rule is kept and its
evidence can be cut: for A2-08 16 of the 27 head episodes where it applies in trial 0, against
about 20 that pass it; the model's share of injected cases is that much larger.) The test is the gate's: the stratified permutation test with the
moderated statistic (simlib 'mod', which src/stats/strata implements), one-sided, on the trials
where the checkpoint applies (a case needs at least one on each side), Monte Carlo p with B
arrangements. Reported: the share of replicates with p <= a for
  a = 0.8 alpha      the full tier's level after the smoke tier's 20 % (the checkpoint alone), and
  a = 0.8 alpha / 4  about what Benjamini-Hochberg asks of the only moving metric in a family of 4
                     critical metrics (the tau-bench suite's), i.e. what the gate needs to fail,
at alpha 0.05 and 0.01, and the null rate (nothing injected) as a check of size.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time

import numpy as np

import simlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "results")
DATA = os.path.join(HERE, "data", "gpt4o_airline_checkpoints.json")
SEED = 20_2026
ALPHAS = (0.05, 0.01)
BH_FAMILY = 4
SMOKE_SHARE = 0.2


def load(checkpoint):
    with open(DATA) as fh:
        d = json.load(fh)
    rows = d["values"][checkpoint]
    k = np.array([sum(v is not None for v in row) for row in rows], float)
    s = np.array([sum(v for v in row if v is not None) for row in rows], float)
    return k, s


def draw_cases(k, s, reps, n, rng):
    """Per replicate and case: chance the checkpoint applies, pass rate when it does."""
    idx = rng.integers(0, len(k), size=(reps, n))
    kk, ss = k[idx], s[idx]
    apply = rng.beta(kk + 0.5, 4 - kk + 0.5)
    passes = rng.beta(ss + 0.5, kk - ss + 0.5)
    return apply, passes


def draw_trials(apply, passes, t, rng):
    """(reps, n, t) values: 1 pass, 0 violation, nan not applicable."""
    shape = apply.shape + (t,)
    applies = rng.random(shape) < apply[:, :, None]
    ok = rng.random(shape) < passes[:, :, None]
    return np.where(applies, ok.astype(float), np.nan)


def inject(head, rate, rng):
    if rate <= 0:
        return head
    head = head.copy()
    reps, n, _ = head.shape
    # Where the injection can apply: the rule is kept in some head trial (an episode that already
    # breaks it has nothing left to break; tau_power_inject.py cuts a confirmation that exists).
    eligible = (head == 1.0).any(axis=2)  # (reps, n)
    for i in range(reps):
        cand = np.flatnonzero(eligible[i])
        k = int(round(rate * len(cand)))
        if k == 0:
            continue
        chosen = rng.choice(cand, size=k, replace=False)
        row = head[i, chosen]
        head[i, chosen] = np.where(np.isnan(row), np.nan, 0.0)
    return head


def pack(values, count):
    """Move each case's applicable values to the front; keep the first `count`."""
    order = np.argsort(np.isnan(values), axis=2, kind="stable")
    packed = np.take_along_axis(values, order, axis=2)
    return packed[:, :, :count]


def p_values(head, base, B, rng):
    """The gate's one-sided stratified test on the applicable trials of each case."""
    m_i = (~np.isnan(head)).sum(axis=2)
    r_i = (~np.isnan(base)).sum(axis=2)
    groups, masks = [], []
    for mg in range(1, head.shape[2] + 1):
        for rg in range(1, base.shape[2] + 1):
            mask = (m_i == mg) & (r_i == rg)
            if not mask.any():
                continue
            X = np.concatenate([pack(head, mg), pack(base, rg)], axis=2)
            X = np.where(mask[:, :, None], np.nan_to_num(X), 0.0)
            groups.append((X, mg))
            masks.append(mask)
    if not groups:
        return np.ones(head.shape[0])
    p, _ = simlib.mc_pvalues(groups, ["mod"], B, rng, masks=masks)
    return p["mod"]


def run_cell(k, s, n, m, r, rate, reps, B, chunk, rng):
    out = []
    for a in range(0, reps, chunk):
        c = min(chunk, reps - a)
        apply, passes = draw_cases(k, s, c, n, rng)
        head = inject(draw_trials(apply, passes, m, rng), rate, rng)
        base = draw_trials(apply, passes, r, rng)
        out.append(p_values(head, base, B, rng))
    return np.concatenate(out)


def summarize(p):
    row = {}
    for alpha in ALPHAS:
        level = (1 - SMOKE_SHARE) * alpha
        row[f"alone@{alpha}"] = float((p <= level).mean())
        row[f"family@{alpha}"] = float((p <= level / BH_FAMILY).mean())
    return row


KIND_CHECKPOINT = {"no-confirmation": "A2-08", "no-identification": "A2-01",
                   "unread-change": "A2-09"}


def check_real(path, B, seed):
    """This script's test against the gate's, on the real rotations of the 1-vs-3 design.

    For every compare of the trials design in `path` (docs/detection-power-trials.json) whose
    kind is one of KIND_CHECKPOINT's, the head is the recorded trial with the injected tasks'
    checkpoint set to 0 where it applies, the baseline the other 3 trials; prints the gate's p
    (the report's) beside this script's, and the share of rotations at each level."""
    with open(path) as fh:
        runs = json.load(fh)["runs"]
    with open(DATA) as fh:
        data = json.load(fh)
    tasks = data["tasks"]
    lines = ["| kind | rate | head trial | injected | gate's p | this script's p |",
             "|---|---|---|---|---|---|"]
    for run in runs:
        cp = KIND_CHECKPOINT.get(run["kind"])
        if run["design"] != "new" or run["alpha"] != ALPHAS[0] or cp is None:
            continue
        values = np.array([[np.nan if v is None else v for v in row]
                           for row in data["values"][f"checkpoint:{cp}"]])
        head = values[:, [run["head"]]].copy()
        for task in run["injected"]:
            i = tasks.index(task)
            head[i, 0] = np.where(np.isnan(head[i, 0]), np.nan, 0.0)
        base = values[:, run["base"]]
        p = p_values(head[None], base[None], B, np.random.default_rng(seed))[0]
        note = " (stopped at the smoke tier)" if run["stopped_at_smoke"] else ""
        lines.append(f"| {run['kind']} ({cp}) | {run['rate']:.0%} | t{run['head']} | "
                     f"{len(run['injected'])} | {run['target']['p_value']:.4f}{note} | {p:.4f} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkpoints", default="A2-08,A2-01,A2-09")
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--reps-null", type=int, default=400)
    ap.add_argument("--B", type=int, default=999)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--name", default="", help="results/checkpoint_profile-<name>.{json,md}")
    ap.add_argument("--check-real", metavar="POWER_TRIALS_JSON",
                    help="compare this script's test with the gate's on the real rotations")
    args = ap.parse_args()
    if args.check_real:
        text = check_real(args.check_real, 19_999, args.seed)
        os.makedirs(OUT, exist_ok=True)
        with open(os.path.join(OUT, "checkpoint_profile-real.md"), "w") as fh:
            fh.write(text)
        print(text)
        return
    designs = [(50, 1, 3), (50, 2, 2), (50, 1, 8), (50, 2, 8), (50, 3, 3), (50, 3, 8),
               (100, 1, 3), (100, 3, 8), (200, 1, 3), (200, 3, 8)]
    rates = (0.25, 0.40)
    if args.quick:
        designs, args.reps, args.reps_null, args.B = [(50, 1, 3), (50, 3, 8)], 40, 40, 199
    t0 = time.time()
    results = []
    for cp in args.checkpoints.split(","):
        k, s = load(f"checkpoint:{cp}")
        for n, m, r in designs:
            for rate in (0.0,) + rates:
                seed = simlib_seed(args.seed, cp, n, m, r, rate)
                rng = np.random.default_rng(seed)
                reps = args.reps_null if rate == 0 else args.reps
                chunk = max(1, min(reps, 4000 // n))
                p = run_cell(k, s, n, m, r, rate, reps, args.B, chunk, rng)
                row = dict(checkpoint=cp, n=n, m=m, r=r, rate=rate, reps=reps, B=args.B,
                           seed=seed, **summarize(p))
                results.append(row)
                print(json.dumps(row), flush=True)
    os.makedirs(OUT, exist_ok=True)
    meta = dict(seed=args.seed, reps=args.reps, reps_null=args.reps_null, B=args.B,
                seconds=round(time.time() - t0, 1), quick=args.quick)
    suffix = ("-" + args.name if args.name else "") + ("-quick" if args.quick else "")
    with open(os.path.join(OUT, f"checkpoint_profile{suffix}.json"), "w") as fh:
        json.dump(dict(meta=meta, results=results), fh, indent=1)
    with open(os.path.join(OUT, f"checkpoint_profile{suffix}.md"), "w") as fh:
        fh.write(render(results, meta))
    print(render(results, meta))


def simlib_seed(seed, cp, n, m, r, rate):
    """A seed per cell, stable across runs and Python versions (no hash())."""
    text = f"{seed}|{cp}|{n}|{m}|{r}|{rate}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def render(results, meta):
    lines = [
        "Share of replicates the checkpoint's test reaches the level (alone: 0.8 alpha; "
        "family: 0.8 alpha / 4), "
        f"{meta['reps']} replicates per injected cell, {meta['reps_null']} per null cell, "
        f"B = {meta['B']}, seed {meta['seed']}, {meta['seconds']} s. "
        "Cells: alone / family.",
        "",
        "| checkpoint | n | head m | history r | null a=0.05 | 25 % a=0.05 | 40 % a=0.05 "
        "| null a=0.01 | 25 % a=0.01 | 40 % a=0.01 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    key = {}
    for row in results:
        key[(row["checkpoint"], row["n"], row["m"], row["r"], row["rate"])] = row
    seen = []
    for row in results:
        d = (row["checkpoint"], row["n"], row["m"], row["r"])
        if d not in seen:
            seen.append(d)
    for cp, n, m, r in seen:
        cells = []
        for alpha in ALPHAS:
            for rate in (0.0, 0.25, 0.40):
                x = key.get((cp, n, m, r, rate))
                cells.append("" if x is None else
                             f"{x[f'alone@{alpha}']:.2f} / {x[f'family@{alpha}']:.2f}")
        lines.append(f"| {cp} | {n} | {m} | {r} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
