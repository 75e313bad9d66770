"""Cross-checks: simlib (vectorized) == strat_test (reference); 1-vs-1 == sign-flip test.

nice -n 19 python3 selfcheck.py
"""
import numpy as np

import simlib
import strat_test as st

rng = np.random.default_rng(20)
STATS = ("diff", "cmh", "zperm", "ivperm", "mod", "modiv", "sz")
bad = 0
for trial in range(60):
    binary = trial % 2 == 0
    m = [1, 2, 3][trial % 3]
    r = [1, 3, 8, 2][trial % 4]
    n = 6
    if binary:
        p = rng.beta(0.3, 0.3, size=n)
        X = (rng.random((1, n, m + r)) < p[None, :, None]).astype(float)
    else:
        X = rng.normal(size=(1, n, m + r)) * rng.choice([0.2, 1.5], size=(1, n, 1))
        X = np.round(X, 1)  # ties
    cases = [(X[0, i, :m], X[0, i, m:]) for i in range(n)]
    mo = simlib.moments(X, m)
    f = simlib.global_f([simlib.s2tot_of(mo)])
    for s in STATS:
        tab = simlib.tables(mo, s, f)
        ref = st.strat_perm_test(cases, stat=s)
        # exact p from the simlib table by brute force over the product of arrangements
        C = tab.shape[2]
        if C ** n <= 200_000:
            grids = np.meshgrid(*[tab[0, i] for i in range(n)], indexing="ij")
            tot = sum(g.ravel() for g in grids)
            tobs = tab[0, :, 0].sum()
            pe = (tot <= tobs + 1e-9 * (1 + np.abs(tab[0]).max(axis=1).sum())).mean()
            if ref["method"] == "exact" and abs(pe - ref["p"]) > 1e-9:
                bad += 1
                print("MISMATCH", trial, s, pe, ref)
        mc, _ = simlib.mc_pvalues([(X, m)], [s], 4000, rng)
        if ref["method"] == "exact" and abs(mc[s][0] - ref["p"]) > 4 * np.sqrt(ref["p"] * (1 - ref["p"]) / 4000) + 2e-3:
            bad += 1
            print("MC far", trial, s, mc[s][0], ref)
# one trial per side: 'mod' and 'diff' == sign flip (continuous), every stat == sign test (0/1)
for trial in range(40):
    n = 12
    if trial % 2:
        h, b = rng.normal(size=n), rng.normal(size=n)
        h[:2] = b[:2]
        stats = ("diff", "mod", "sz")
    else:
        h, b = (rng.random(n) < 0.5) * 1.0, (rng.random(n) < 0.6) * 1.0
        stats = STATS
    sf = st.sign_flip_1v1(h - b)
    for s in stats:
        r_ = st.strat_perm_test([([h[i]], [b[i]]) for i in range(n)], stat=s)
        if abs(r_["p"] - sf["p"]) > 1e-12 or abs(r_["min_p"] - sf["min_p"]) > 1e-12:
            bad += 1
            print("1v1 mismatch", s, r_, sf)
print("selfcheck:", "OK" if bad == 0 else f"{bad} problems")

# selective (adaptive) test: vectorized weights and weighted MC p == reference exact p
import adaptive_sim

bad2 = 0
for trial in range(32):
    rule = ["below_mean", "below_min", "nonconstant", "minority1"][trial % 4]
    binary = trial % 2 == 0 or rule == "minority1"
    n, k, r = 5, 3, [1, 3][trial % 2 if trial < 12 else 1]
    if binary:
        p = rng.beta(0.5, 0.5, size=n)
        X = (rng.random((1, n, k + r)) < p[None, :, None]).astype(float)
    else:
        X = np.round(rng.normal(size=(1, n, k + r)), 1)
    hist = X[:, :, k:]
    XB = np.concatenate([X[:, :, :1], hist], axis=2)
    rer = adaptive_sim.fires(rule, hist, X[:, :, :1])[:, :, 0]
    cases = []
    for i in range(n):
        if rer[0, i]:
            cases.append((X[0, i, :k], X[0, i, k:], True))
        else:
            cases.append((X[0, i, :1], X[0, i, k:], False))
    for s in ("cmh", "mod", "sz"):
        ref = st.strat_perm_test(cases, stat=s, rule=rule)
        wA = np.where(rer[:, :, None], adaptive_sim.weights(X, k, rule, True), 1.0)
        wB = np.where(~rer[:, :, None], adaptive_sim.weights(XB, 1, rule, False), 1.0)
        for i in range(n):
            x = X[0, i] if rer[0, i] else XB[0, i]
            m = k if rer[0, i] else 1
            w_ref = st.arrangement_weights(x, m, st.combos(len(x), m), rule, bool(rer[0, i]))
            w_vec = (wA if rer[0, i] else wB)[0, i]
            if not np.array_equal(w_ref, w_vec):
                bad2 += 1
                print("weights differ", rule, w_ref, w_vec)
        mc = simlib.mc_pvalues([(X, k), (XB, 1)], [s], 4000, rng, masks=[rer, ~rer], weights=[wA, wB])[0][s][0]
        if ref["method"] == "exact" and abs(mc - ref["p"]) > 4 * np.sqrt(ref["p"] * (1 - ref["p"]) / 4000) + 2e-3:
            bad2 += 1
            print("selective MC far", rule, s, mc, ref)
print("selfcheck selective:", "OK" if bad2 == 0 else f"{bad2} problems")
