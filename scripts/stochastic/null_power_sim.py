"""Size (false-alarm rate) and power of the stratified permutation test vs today's 1-vs-1 test.

nice -n 19 python3 null_power_sim.py                 # full run (~1 h on 2 shared cores)
nice -n 19 python3 null_power_sim.py --quick         # smoke test
Writes results/null_power.json and results/null_power.md.

Design: n cases, m head trials and r history (baseline) trials per case, metric oriented so that
lower is worse.  Every test is the Monte Carlo permutation test with B random arrangements
(p = (1 + #{T* <= T_obs}) / (B + 1), a valid p-value at any B), the same random arrangements
for every statistic of a replicate.  "old" is today's test: head trial 1 vs baseline trial 1,
paired sign-flip (exact sign test for 0/1; Monte Carlo with the same B for continuous).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

import simlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "results")

CELLS = [(n, m, r) for n in (20, 50, 100) for m in (1, 2, 3) for r in (1, 3, 8)]
BIN_STATS = ["cmh", "zperm", "ivperm", "mod", "modiv"]
CONT_STATS = ["diff", "zperm", "ivperm", "mod", "mod8", "modiv", "sz"]
# 'sz' (chosen for continuous metrics) was added after the main run: in every cell with equal (m, r)
# it is the same permutation test as 'zperm' (N >= 3) or 'diff' (1-vs-1), see make_tables.py; the
# ragged cells were re-run with it (--only ragged).
BIN_SCEN = ["null", "mult10", "mult25", "break20"]
CONT_SCEN = ["null", "shift03", "shift05", "rel05"]
SEED = 20_2020


def gen_binary(model, tau, R, n, m, r, scen, rng):
    p = simlib.draw_p(model, R, n, rng, tau)
    ph = p.copy()
    if scen == "mult10":
        ph = 0.9 * p
    elif scen == "mult25":
        ph = 0.75 * p
    elif scen == "break20":
        ph = np.where(rng.random((R, n)) < 0.2, 0.0, p)
    X = np.empty((R, n, m + r))
    X[:, :, :m] = rng.random((R, n, m)) < ph[:, :, None]
    X[:, :, m:] = rng.random((R, n, r)) < p[:, :, None]
    return X


def gen_cont(R, n, m, r, scen, rng):
    mu = rng.normal(size=(R, n))
    sd = simlib.draw_sigma(R, n, rng)
    X = mu[:, :, None] + sd[:, :, None] * rng.normal(size=(R, n, m + r))
    if scen == "shift03":
        X[:, :, :m] -= 0.3 * simlib.SIGMA_RMS
    elif scen == "shift05":
        X[:, :, :m] -= 0.5 * simlib.SIGMA_RMS
    elif scen == "rel05":
        X[:, :, :m] -= 0.5 * sd[:, :, None]
    return X


def gen_groups(kind, model, tau, R, n, m, rs, scen, rng):
    """Ragged history: case i has r_i drawn from rs (equal shares); returns groups + old-test cols."""
    share = np.array_split(np.arange(n), len(rs))
    groups = []
    olds_h, olds_b = [], []
    for idx, r in zip(share, rs):
        if kind == "binary":
            X = gen_binary(model, tau, R, len(idx), m, r, scen, rng)
        else:
            X = gen_cont(R, len(idx), m, r, scen, rng)
        groups.append((X, m))
        olds_h.append(X[:, :, 0])
        olds_b.append(X[:, :, m])
    return groups, np.concatenate(olds_h, 1), np.concatenate(olds_b, 1)


def run_cell(kind, model, tau, n, m, r, scen, R, B, chunk, rng, stats):
    rej = {s: np.zeros(2) for s in stats + ["old"]}
    done = 0
    while done < R:
        c = min(chunk, R - done)
        if isinstance(r, tuple):
            groups, h, b = gen_groups(kind, model, tau, c, n, m, r, scen, rng)
        else:
            X = gen_binary(model, tau, c, n, m, r, scen, rng) if kind == "binary" else \
                gen_cont(c, n, m, r, scen, rng)
            groups, h, b = [(X, m)], X[:, :, 0], X[:, :, m]
        ps, _ = simlib.mc_pvalues(groups, stats, B, rng)
        ps["old"] = simlib.signflip01_exact(h, b) if kind == "binary" else simlib.signflip_mc(h, b, B, rng)
        for s in rej:
            rej[s] += [(ps[s] <= 0.05).sum(), (ps[s] <= 0.01).sum()]
        done += c
    return {s: (v / R).tolist() for s, v in rej.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps-null", type=int, default=4000)
    ap.add_argument("--reps-power", type=int, default=2000)
    ap.add_argument("--B", type=int, default=999)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="", help="binary|cont|ragged")
    ap.add_argument("--confirm", action="store_true",
                    help="re-run the largest null cells of the main run for 'mod' with 20,000 fresh replicates")
    args = ap.parse_args()
    if args.confirm:
        return confirm(args)
    if args.quick:
        args.reps_null, args.reps_power = 200, 100
    tau = simlib.fit_tau_model()
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "null_power.json" if not args.quick else "null_power_quick.json")
    res = json.load(open(path)) if os.path.exists(path) and args.only else {}
    res["meta"] = dict(B=args.B, reps_null=args.reps_null, reps_power=args.reps_power, seed=args.seed,
                       tau_model=tau, sigma_rms=simlib.SIGMA_RMS)
    jobs = []
    if args.only in ("", "binary"):
        for model in ("tau", "beta"):
            for (n, m, r) in CELLS:
                for scen in BIN_SCEN:
                    jobs.append(("binary", model, n, m, r, scen, BIN_STATS))
    if args.only in ("", "cont"):
        for (n, m, r) in CELLS:
            for scen in CONT_SCEN:
                jobs.append(("cont", "mix", n, m, r, scen, CONT_STATS))
    if args.only in ("", "ragged"):
        for m in (1, 3):
            for scen in BIN_SCEN:
                jobs.append(("binary", "tau", 50, m, (1, 3, 8), scen, ["diff"] + BIN_STATS))
            for scen in CONT_SCEN:
                jobs.append(("cont", "mix", 50, m, (1, 3, 8), scen, ["cmh"] + CONT_STATS))
    t0 = time.time()
    for j, (kind, model, n, m, r, scen, stats) in enumerate(jobs):
        key = f"{kind}|{model}|{n}|{m}|{r if not isinstance(r, tuple) else 'ragged'}|{scen}"
        R = args.reps_null if scen == "null" else args.reps_power
        rng = np.random.default_rng([args.seed, abs(hash_str(key))])
        chunk = max(20, int(3e6 // (n * max(1, len(simlib.combos(m + (max(r) if isinstance(r, tuple) else r), m))))))
        res[key] = dict(R=R, rej=run_cell(kind, model, tau, n, m, r, scen, R, args.B, chunk, rng, stats))
        if j % 10 == 0:
            print(f"[{time.time() - t0:7.0f}s] {j + 1}/{len(jobs)} {key} {res[key]['rej'].get('mod')}", flush=True)
            json.dump(res, open(path, "w"), indent=1)
    json.dump(res, open(path, "w"), indent=1)
    print(f"done in {time.time() - t0:.0f}s -> {path}")


def confirm(args):
    """Fresh-seed, 20,000-replicate re-runs of the null cells where 'mod' was highest in the main run."""
    main_res = json.load(open(os.path.join(OUT, "null_power.json")))
    tau = simlib.fit_tau_model()
    out = {"meta": dict(B=args.B, R=20000, seed=args.seed + 7)}
    for model in ("binary|tau", "binary|beta", "cont|mix"):
        st_ = "sz" if model == "cont|mix" else "mod"
        def rej_of(k, v):
            if st_ in v["rej"]:
                return v["rej"][st_]
            # 'sz' in equal-(m, r) cells == 'diff' at 1-vs-1, 'zperm' otherwise (see make_tables.derive_sz)
            return v["rej"]["diff"] if k.split("|")[3:5] == ["1", "1"] else v["rej"]["zperm"]

        cells = [(k, rej_of(k, v)) for k, v in main_res.items()
                 if k.startswith(model + "|") and k.endswith("|null") and "ragged" not in k]
        for crit in (0, 1):  # worst at alpha 0.05, worst at alpha 0.01
            key, rej = max(cells, key=lambda kv: kv[1][crit])
            if key in out:
                continue
            kind, mdl, n, m, r, _ = key.split("|")
            rng = np.random.default_rng([args.seed + 7, abs(hash_str(key))])
            chunk = max(20, int(3e6 // (int(n) * len(simlib.combos(int(m) + int(r), int(m))))))
            out[key] = dict(stat=st_, main_run=rej, confirm=run_cell(kind, mdl, tau, int(n), int(m), int(r), "null",
                                                                      20000, args.B, chunk, rng, [st_])[st_])
            print(key, out[key], flush=True)
    json.dump(out, open(os.path.join(OUT, "null_confirm.json"), "w"), indent=1)


def hash_str(s):
    """Stable (not Python's salted) hash of a string, for per-cell seeds."""
    h = 1469598103934665603
    for ch in s.encode():
        h = ((h ^ ch) * 1099511628211) % (1 << 63)
    return h


if __name__ == "__main__":
    main()
