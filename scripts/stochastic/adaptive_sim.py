"""Adaptive confirmation: run each case once on the head, re-run (to k trials) only the cases
whose first head trial moved against their history, then test.  Size and power of

  fixed1      every case 1 head trial (stratified test vs history)
  fixedk      every case k head trials
  naive       adaptive data, plain stratified test that ignores how m_i was chosen (INVALID)
  selective   adaptive data, stratified test conditional on the re-run decisions (valid)
  split       reject if p(fixed1 on first trials) <= alpha/2 or p(selective) <= alpha/2 (valid)

Rules (per case, from the case's history and its first head value x1):
  below_mean   re-run iff x1 < mean(history)
  below_min    re-run iff x1 < min(history)            ("outside what history saw")
  nonconstant  re-run iff history + x1 not all equal    (symmetric in the stage-1 values)
  minority1    0/1: re-run iff exactly one of history + x1 differs from the rest (symmetric)

nice -n 19 python3 adaptive_sim.py [--quick]
Writes results/adaptive.json.  Monte Carlo p with B random (weighted) arrangements.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

import simlib
from null_power_sim import SEED, gen_binary, gen_cont, hash_str
from strat_test import combos

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "results")
K = 3


def fires(rule, hist, first):
    """hist: (..., r), first: (..., k') broadcastable -> bool (..., k')."""
    if rule == "below_mean":
        return first < hist.mean(axis=-1, keepdims=True)
    if rule == "below_min":
        return first < hist.min(axis=-1, keepdims=True)
    if rule == "nonconstant":
        return np.maximum(hist.max(axis=-1, keepdims=True), first) > np.minimum(hist.min(axis=-1, keepdims=True), first)
    if rule == "minority1":
        ones = hist.sum(axis=-1, keepdims=True) + first
        n1 = hist.shape[-1] + 1
        return np.minimum(ones, n1 - ones) == 1
    raise ValueError(rule)


def weights(X, m, rule, rerun):
    """(R, n, C) conditional weights of every head set (see strat_test.arrangement_weights)."""
    R, n, N = X.shape
    H = combos(N, m)
    comp = np.array([np.setdiff1d(np.arange(N), h) for h in H])
    xc = X[:, :, comp]  # (R, n, C, r)
    xj = X[:, :, H]  # (R, n, C, m)
    return (fires(rule, xc, xj) == rerun).sum(axis=3).astype(float)


def run(kind, model, tau, n, r, scen, rules, R, B, rng, chunk, stat):
    k = K
    acc = {"fixed1": np.zeros(2), "fixedk": np.zeros(2)}
    trials = {}
    for rule in rules:
        for v in ("naive", "selective", "split"):
            acc[f"{rule}|{v}"] = np.zeros(2)
        trials[rule] = 0.0
    done = 0
    while done < R:
        c = min(chunk, R - done)
        X = gen_binary(model, tau, c, n, k, r, scen, rng) if kind == "binary" else gen_cont(c, n, k, r, scen, rng)
        hist = X[:, :, k:]
        XB = np.concatenate([X[:, :, :1], hist], axis=2)  # first trial + history
        p1 = simlib.mc_pvalues([(XB, 1)], [stat], B, rng)[0][stat]
        pk = simlib.mc_pvalues([(X, k)], [stat], B, rng)[0][stat]
        for name, p in (("fixed1", p1), ("fixedk", pk)):
            acc[name] += [(p <= 0.05).sum(), (p <= 0.01).sum()]
        for rule in rules:
            rer = fires(rule, hist, X[:, :, :1])[:, :, 0]  # (c, n)
            trials[rule] += (1 + (k - 1) * rer).mean(axis=1).sum()
            groups = [(X, k), (XB, 1)]
            masks = [rer, ~rer]
            wA = weights(X, k, rule, True)
            wB = weights(XB, 1, rule, False)
            wA = np.where(rer[:, :, None], wA, 1.0)
            wB = np.where(~rer[:, :, None], wB, 1.0)
            pn = simlib.mc_pvalues(groups, [stat], B, rng, masks=masks)[0][stat]
            ps = simlib.mc_pvalues(groups, [stat], B, rng, masks=masks, weights=[wA, wB])[0][stat]
            acc[f"{rule}|naive"] += [(pn <= 0.05).sum(), (pn <= 0.01).sum()]
            acc[f"{rule}|selective"] += [(ps <= 0.05).sum(), (ps <= 0.01).sum()]
            acc[f"{rule}|split"] += [(np.minimum(p1, ps) <= 0.025).sum(), (np.minimum(p1, ps) <= 0.005).sum()]
        done += c
    return dict(R=R, rej={a: (v / R).tolist() for a, v in acc.items()},
                trials={a: v / R for a, v in trials.items()})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps-null", type=int, default=4000)
    ap.add_argument("--reps-power", type=int, default=1000)
    ap.add_argument("--B", type=int, default=999)
    ap.add_argument("--seed", type=int, default=SEED + 1)
    ap.add_argument("--reps-null-n100", type=int, default=2000)
    ap.add_argument("--resume", action="store_true", help="skip cells already in the output file")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.reps_null, args.reps_power, args.reps_null_n100 = 200, 100, 200
    tau = simlib.fit_tau_model()
    jobs = []
    R4 = ["below_mean", "below_min", "nonconstant", "minority1"]
    for n in (20, 50, 100):
        for r in (1, 3, 8):
            for scen in (["null", "mult25", "break20"] if n == 50 else ["null"]):
                jobs.append(("binary", "tau", n, r, scen, R4, "mod"))
            for scen in (["null", "mult25"] if n == 50 else ["null"]):
                jobs.append(("binary", "beta", n, r, scen, R4, "mod"))
            for scen in (["null", "shift03", "shift05"] if n == 50 else ["null"]):
                jobs.append(("cont", "mix", n, r, scen, ["below_mean", "below_min"], "sz"))
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "adaptive.json" if not args.quick else "adaptive_quick.json")
    res = {}
    if args.resume and os.path.exists(path):
        res = json.load(open(path))
    res["meta"] = dict(B=args.B, k=K, reps_null=args.reps_null, reps_power=args.reps_power, seed=args.seed,
                       reps_null_n100=args.reps_null_n100)
    t0 = time.time()
    for j, (kind, model, n, r, scen, rules, stat) in enumerate(jobs):
        key = f"{kind}|{model}|{n}|{r}|{scen}|{stat}"
        if key in res:
            continue
        R = args.reps_null if scen == "null" else args.reps_power
        if scen == "null" and n == 100:
            R = args.reps_null_n100
        rng = np.random.default_rng([args.seed, hash_str(key)])
        chunk = max(10, int(1.5e6 // (n * len(combos(K + r, K)))))
        res[key] = run(kind, model, tau, n, r, scen, rules, R, args.B, rng, chunk, stat)
        print(f"[{time.time() - t0:7.0f}s] {j + 1}/{len(jobs)} {key} {json.dumps(res[key]['rej'])} "
              f"{json.dumps(res[key]['trials'])}", flush=True)
        json.dump(res, open(path, "w"), indent=1)
    print(f"done in {time.time() - t0:.0f}s -> {path}")


if __name__ == "__main__":
    main()
