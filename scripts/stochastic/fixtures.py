"""Hand-picked data sets with exact p-values, for testing the Rust implementation.

nice -n 19 python3 fixtures.py      -> reference_values.json

Every exact p here is computed by BRUTE FORCE, independently of strat_test.py's convolution:
plain Python (no numpy), itertools over every within-stratum head set of every informative
stratum (and, for the selective test, every choice of the first head trial), the statistic
recomputed from its formula for each full arrangement.  0/1 'cmh' and 'diff' use exact
fractions.  The script then checks strat_test.py against it, and cross-checks with scipy where
scipy has the same test: scipy.stats.permutation_test (paired 'samples' for one trial per side;
'independent' for a single stratum), scipy.stats.fisher_exact for one 0/1 stratum, and the
convolution of scipy.stats.hypergeom pmfs for 0/1 'cmh' over several strata.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import statistics
from fractions import Fraction

import numpy as np
from scipy import stats as sst

import strat_test as st

HERE = os.path.dirname(os.path.abspath(__file__))
NU0 = 2.0
TOL = 1e-9


# ----------------------------------------------------------------------------- brute force

def _mean(v):
    return sum(v) / len(v)


def _var(v):  # sample variance, N - 1
    mu = _mean(v)
    return sum((x - mu) ** 2 for x in v) / (len(v) - 1)


def _informative(x):
    return max(x) > min(x)


def term(stat, head, base, f):
    """t_i of one stratum for one head/base split, straight from the formulas."""
    m, r = len(head), len(base)
    N = m + r
    pooled = list(head) + list(base)
    if not _informative(pooled):
        return 0
    if stat == "cmh":
        return sum(Fraction(x).limit_denominator() for x in head) if all(x in (0, 1) for x in pooled) \
            else sum(head)
    if stat == "diff":
        if all(x in (0, 1) for x in pooled):
            return Fraction(int(sum(head)), m) - Fraction(int(sum(base)), r)
        return _mean(head) - _mean(base)
    d = _mean(head) - _mean(base)
    s2tot = _var(pooled)
    k = 1 / m + 1 / r
    if stat == "zperm":
        return d / math.sqrt(s2tot * k)
    if stat == "sz":
        v = s2tot if N > 2 else f
        return d / math.sqrt(v * k)
    if stat == "mod":
        nu = N - 2
        ss = (sum((x - _mean(head)) ** 2 for x in head) + sum((x - _mean(base)) ** 2 for x in base))
        s2res = ss / nu if nu > 0 else 0.0
        s2mod = (nu * s2res + NU0 * f) / (nu + NU0)
        return d / math.sqrt(s2mod * k)
    raise ValueError(stat)


def fires(rule, hist, first):
    if rule == "below_mean":
        return first < _mean(hist)
    if rule == "nonconstant":
        return max(max(hist), first) > min(min(hist), first)
    if rule == "minority1":
        ones = sum(hist) + first
        return min(ones, len(hist) + 1 - ones) == 1
    raise ValueError(rule)


def brute(cases, stat, rule=None):
    """Exact p and min_p by listing every arrangement (weighted by first-trial choices if rule)."""
    pooled = [list(c[0]) + list(c[1]) for c in cases]
    ms = [len(c[0]) for c in cases]
    inf = [i for i, x in enumerate(pooled) if _informative(x)]
    if not inf:
        return dict(p=1.0, min_p=1.0, p_fraction="1", min_p_fraction="1", n_informative=0,
                    arrangements=1)
    f = statistics.median([_var(pooled[i]) for i in inf])
    per = []  # per informative stratum: list of (t, weight)
    obs = 0
    for i in inf:
        x, m = pooled[i], ms[i]
        opts = []
        for H in itertools.combinations(range(len(x)), m):
            rest = [j for j in range(len(x)) if j not in H]
            head = [x[j] for j in H]
            base = [x[j] for j in rest]
            if rule is None:
                w = 1
            else:
                w = sum(fires(rule, base, x[j]) == cases[i][2] for j in H)
            if w:
                opts.append((term(stat, head, base, f), w))
        per.append(opts)
        obs = obs + term(stat, x[:m], x[m:], f)
    exact = isinstance(obs, Fraction) or all(isinstance(t, Fraction) for o in per for t, _ in o)
    scale = 1 + sum(max(abs(float(t)) for t, _ in o) for o in per)
    tot_w = 0
    cnt = 0
    values = []
    for combo in itertools.product(*per):
        T = sum(t for t, _ in combo)
        w = math.prod(wt for _, wt in combo)
        tot_w += w
        values.append((T, w))
        if (T <= obs) if exact else (float(T) <= float(obs) + TOL * scale):
            cnt += w
    tmin = min(T for T, _ in values)
    cmin = sum(w for T, w in values if ((T <= tmin) if exact else float(T) <= float(tmin) + TOL * scale))
    p = Fraction(cnt, tot_w)
    mp = Fraction(cmin, tot_w)
    return dict(p=float(p), min_p=float(mp), p_fraction=f"{p.numerator}/{p.denominator}",
                min_p_fraction=f"{mp.numerator}/{mp.denominator}", n_informative=len(inf),
                arrangements=len(values), T_obs=float(obs))


# ----------------------------------------------------------------------------- scipy cross-checks

def scipy_checks(cases, stat, rule):
    out = {}
    if rule is not None:
        return out
    ms = [len(c[0]) for c in cases]
    rs = [len(c[1]) for c in cases]
    pooled = [list(c[0]) + list(c[1]) for c in cases]
    binary = all(x in (0, 1) for p in pooled for x in p)
    if all(m == 1 for m in ms) and all(r == 1 for r in rs) and stat in ("diff", "mod", "cmh", "sz"):
        h = np.array([c[0][0] for c in cases], float)
        b = np.array([c[1][0] for c in cases], float)
        res = sst.permutation_test((h, b), lambda x, y: np.mean(x - y), permutation_type="samples",
                                   alternative="less", n_resamples=np.inf)
        # scipy flips zero differences too; they do not change the sum, so the p is the same
        out["scipy_permutation_test_samples"] = float(res.pvalue)
    inf = [i for i, x in enumerate(pooled) if max(x) > min(x)]
    if len(inf) == 1:
        i = inf[0]
        h, b = np.array(cases[i][0], float), np.array(cases[i][1], float)
        if stat in ("diff", "cmh"):
            fn = lambda x, y: np.mean(x) - np.mean(y)  # noqa: E731
        elif stat == "sz" and len(pooled[i]) > 2:
            fn = lambda x, y: np.mean(x) - np.mean(y)  # noqa: E731  (s2tot is invariant: same ordering)
        elif stat == "mod":
            fval = _var(pooled[i])

            def fn(x, y):
                m, r = len(x), len(y)
                nu = m + r - 2
                s2res = (((x - x.mean()) ** 2).sum() + ((y - y.mean()) ** 2).sum()) / nu if nu else 0.0
                return (x.mean() - y.mean()) / math.sqrt((nu * s2res + NU0 * fval) / (nu + NU0) * (1 / m + 1 / r))
        else:
            fn = None
        if fn is not None:
            res = sst.permutation_test((h, b), fn, permutation_type="independent", alternative="less",
                                       n_resamples=np.inf, vectorized=False)
            out["scipy_permutation_test_independent"] = float(res.pvalue)
        if binary:
            S, m, r = int(h.sum()), len(h), len(b)
            Tb = int(b.sum())
            out["scipy_fisher_exact_less"] = float(sst.fisher_exact([[S, m - S], [Tb, r - Tb]], alternative="less")[1])
    if binary and stat == "cmh" and inf:
        pmf = np.array([1.0])
        for i in inf:
            N, m, Tot = len(pooled[i]), ms[i], int(sum(pooled[i]))
            pmf = np.convolve(pmf, sst.hypergeom.pmf(np.arange(m + 1), N, Tot, m))
        obs = int(sum(sum(cases[i][0]) for i in inf))
        out["scipy_hypergeom_convolution"] = float(pmf[: obs + 1].sum())
    return out


# ----------------------------------------------------------------------------- data sets

def datasets():
    D = []

    def add(name, desc, cases, stats, rule=None):
        D.append(dict(name=name, description=desc, rule=rule,
                      cases=[dict(head=list(map(float, c[0])), base=list(map(float, c[1])),
                                  **({"rerun": bool(c[2])} if rule else {})) for c in cases],
                      stats=stats))

    add("binary_1v1", "0/1, one trial per side: 4 cases got worse, 1 better, 3 unchanged "
        "(exact sign test: P(Bin(5,1/2) >= 4) = 6/32)",
        [([0], [1]), ([0], [1]), ([0], [1]), ([0], [1]), ([1], [0]), ([1], [1]), ([0], [0]), ([1], [1])],
        ["mod", "cmh", "sz", "diff", "zperm"])
    add("cont_1v1", "continuous, one trial per side: the new test is today's sign-flip of sum d_i",
        [([1.2], [2.0]), ([0.4], [0.9]), ([3.0], [2.5]), ([-0.7], [0.1]), ([2.2], [2.2]), ([0.05], [1.3])],
        ["mod", "sz", "diff"])
    add("binary_m1_r3", "0/1, 1 head trial, 3 history trials (tau-bench-like: stable, flaky, broken)",
        [([0], [1, 1, 1]), ([0], [1, 0, 1]), ([1], [1, 1, 1]), ([0], [0, 0, 0]), ([1], [0, 1, 0]),
         ([0], [1, 1, 0]), ([0], [1, 1, 1])],
        ["mod", "cmh", "sz", "diff", "zperm"])
    add("binary_m3_r3", "0/1, 3 head trials, 3 history trials",
        [([0, 0, 1], [1, 1, 1]), ([1, 0, 1], [1, 0, 1]), ([0, 0, 0], [0, 1, 0]), ([1, 1, 0], [1, 1, 1])],
        ["mod", "cmh", "sz", "diff", "zperm"])
    add("binary_ragged", "0/1, mixed stratum sizes (m 1..3, r 1..4), two uninformative strata",
        [([0], [1]), ([0, 1], [1, 1, 0, 1]), ([0, 0, 0], [1, 0]), ([1, 1], [1, 1, 1]), ([0], [0, 0, 0, 0]),
         ([1, 0, 0], [1, 1, 1, 0])],
        ["mod", "cmh", "sz", "diff", "zperm"])
    add("binary_stable_broken", "0/1: five always-passing cases all fail once on the head (1 vs 4): "
        "p = min_p = (1/5)^5",
        [([0], [1, 1, 1, 1])] * 5,
        ["cmh", "mod"])
    add("cont_m1_r3", "continuous, 1 head trial vs 3 history trials, stable and noisy cases",
        [([0.80], [1.00, 1.02, 0.98]), ([2.1], [3.5, 1.2, 2.9]), ([10.4], [10.0, 10.5, 9.9]),
         ([4.9], [5.0, 5.3, 5.1])],
        ["mod", "sz", "diff"])
    add("cont_m2_r2_ties", "continuous, 2 vs 2 with tied values",
        [([1.0, 1.0], [1.5, 1.0]), ([0.2, 0.3], [0.3, 0.3]), ([5.0, 4.0], [4.0, 6.0]), ([2.0, 2.0], [2.0, 2.0]),
         ([0.0, 0.5], [0.5, 1.0])],
        ["mod", "sz", "diff"])
    add("cont_ragged", "continuous, mixed stratum sizes including a 1-vs-1 stratum",
        [([0.3], [0.9]), ([1.1, 0.7], [1.2, 1.3, 1.25]), ([7.0, 6.5, 6.0], [6.8, 7.2]), ([0.0], [0.4, -0.1, 0.2, 0.1]),
         ([3.3, 3.1], [3.2])],
        ["mod", "sz", "diff"])
    add("cont_single_stratum", "continuous, one case with 3 head and 5 history trials (scipy 'independent')",
        [([9.1, 8.7, 9.6], [10.2, 9.9, 10.8, 9.5, 10.1])],
        ["mod", "sz", "diff"])
    add("binary_single_stratum", "0/1, one case with 2 head and 6 history trials (Fisher's exact, one-sided)",
        [([0, 1], [1, 1, 1, 0, 1, 1])],
        ["mod", "cmh", "sz", "diff"])
    add("all_uninformative", "every stratum constant: no test (p = 1, min_p = 1, no_variation)",
        [([1, 1], [1, 1, 1]), ([0], [0]), ([0.5], [0.5, 0.5])],
        ["mod", "cmh", "sz", "diff"])
    add("head_better", "continuous, the head improved: p near 1",
        [([2.0, 2.1], [1.0, 1.1, 0.9]), ([3.0], [2.0, 2.2]), ([0.9, 1.0], [0.5, 0.4])],
        ["mod", "sz", "diff"])
    add("selective_binary_nonconstant", "adaptive (rule nonconstant, k = 3): re-run cases have 3 head "
        "trials, the others 1; head[0] is the first trial",
        [([0, 0, 1], [1, 1, 1], True), ([1], [1, 1, 1], False), ([1, 0, 0], [1, 0, 1], True),
         ([0, 0, 0], [1, 1, 0], True), ([0], [0, 0, 0], False)],
        ["cmh", "mod"], rule="nonconstant")
    add("selective_cont_below_mean", "adaptive (rule below_mean, k = 3), continuous",
        [([0.5, 0.7, 0.6], [1.0, 0.9, 1.1], True), ([2.0], [1.5, 1.9, 2.1], False),
         ([3.0, 3.4, 2.9], [3.5, 3.6, 3.2], True), ([0.1], [0.0, 0.05, 0.2], False)],
        ["mod", "sz"], rule="below_mean")
    return D


def main():
    out = dict(
        description="Exact stratified permutation p-values (one-sided: head worse = lower). See REPORT.md "
                    "for the statistics. p/min_p by brute-force enumeration (fixtures.py); "
                    "fast = strat_test.py; scipy_* = independent scipy cross-checks.",
        nu0=NU0, f="median over informative strata of the pooled sample variance", datasets=[])
    bad = 0
    for d in datasets():
        cases = [(c["head"], c["base"], c.get("rerun")) for c in d["cases"]]
        entry = dict(d, results={})
        for s in d["stats"]:
            bf = brute(cases, s, d["rule"])
            fast = st.strat_perm_test([c if d["rule"] else c[:2] for c in cases], stat=s, rule=d["rule"])
            sc = scipy_checks(cases, s, d["rule"])
            agree = abs(fast["p"] - bf["p"]) < 1e-10 and abs(fast["min_p"] - bf["min_p"]) < 1e-10
            for k, v in sc.items():
                agree &= abs(v - bf["p"]) < 1e-10
            if not agree:
                bad += 1
                print("DISAGREE", d["name"], s, bf, fast, sc)
            entry["results"][s] = dict(p=bf["p"], p_fraction=bf["p_fraction"], min_p=bf["min_p"],
                                       min_p_fraction=bf["min_p_fraction"], n_informative=bf["n_informative"],
                                       arrangements=bf["arrangements"], fast_p=fast["p"], fast_method=fast["method"],
                                       effect=fast["effect"], **sc)
        out["datasets"].append(entry)
        print(d["name"], {s: (r["p_fraction"], round(r["p"], 6)) for s, r in entry["results"].items()})
    with open(os.path.join(HERE, "reference_values.json"), "w") as fh:
        json.dump(out, fh, indent=1)
    print("all agree" if bad == 0 else f"{bad} disagreements")


if __name__ == "__main__":
    main()
