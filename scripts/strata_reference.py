#!/usr/bin/env python3
"""Reference values for `src/stats/strata.rs`, the stratified permutation test of issue 20.

Usage (from the repository root; needs numpy and scipy, ~1 minute):

    python3 scripts/strata_reference.py        # rewrites tests/fixtures/stats/strata.json

Self-contained copy of the research code (research/stochastic/fixtures.py and the parts of
strat_test.py it uses), restricted to the statistics the gate ships: "mod" (moderated
studentized, nu0 = 2) for data sets whose values are all 0 or 1, "sz" (stratum-standardized)
otherwise. Every dataset is fixed below (the random ones from a seeded numpy
generator, MASTER_SEED), so a re-run rewrites an identical file on the same numpy/scipy versions;
the versions are recorded in the file.

The test. Case i (a stratum) has m_i >= 1 head and r_i >= 1 baseline trials of one metric,
oriented so that lower is worse. Under H0 every choice of which m_i of the N_i pooled values are
"head" is equally likely (C(N_i, m_i) arrangements, positions distinct even when values tie),
independently across cases. T = sum_i t_i with, for a head set H of stratum i,
    mod: t_i = D / sqrt(s2mod (1/m + 1/r)),  D = mean(head) - mean(base),
    s2mod = (nu s2res + nu0 f) / (nu + nu0),  nu = N - 2,
    s2res = within-group pooled variance of H and its complement (0 when nu = 0),
    f = median over informative strata of the pooled sample variance (N - 1);
    sz:  t_i = D / sqrt(v (1/m + 1/r)),  v = the stratum's pooled sample variance if N >= 3, else f.
Strata whose pooled values are all equal are uninformative and drop out. The one-sided p is
P(T* <= T_obs) ("head is worse"); min_p = P(T* = min T*), the smallest p the data could give.

How each value in the fixture is obtained:
* `p`, `min_p` (and their exact fractions): BRUTE FORCE, independent of the Rust code and of
  the fast reference below. Every head set of every informative stratum is listed
  (itertools.combinations), t is recomputed from the formula above for each (head mean, base
  mean, the two groups' sums of squares: no centering trick, no hypergeometric shortcut), equal
  t-values of a stratum are counted together (merged within 1e-12 relative, which only joins
  head sets with the same multiset of values), and the counts are multiplied out over every
  combination of the strata's values. Ties between T and T_obs count as <= within
  1e-9 * (1 + sum_i max|t_i|), as in strat_test.py.
* `fast_p`: the research's fast implementation (per-stratum tables convolved, Monte Carlo
  beyond 2^22 entries), copied from strat_test.py; the script stops if it disagrees with the
  brute force by more than 1e-10.
* `scipy_*`: independent cross-checks where scipy has the same test:
  scipy.stats.permutation_test (paired "samples" for one trial per side, "independent" for a
  single informative stratum) and scipy.stats.fisher_exact for one 0/1 stratum. The script
  stops on a disagreement.
* `ci` (some datasets): the 95% case-level percentile bootstrap CI of the effect (resample the
  cases' mean differences with replacement; numpy linear percentile) with B = 200,000, and the Monte Carlo standard
  deviation of each endpoint at the Rust default B = 10,000, from 20 independent runs.
"""

from __future__ import annotations

import itertools
import json
import math
import statistics
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import scipy
from scipy import stats as sst

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "stats" / "strata.json"
MASTER_SEED = 20251126
NU0 = 2.0
TOL = 1e-9
CI_B_REF = 200_000
CI_B_RUST = 10_000
CI_REPLICATES = 20


def versions() -> dict:
    return {"numpy": np.__version__, "scipy": scipy.__version__, "python": sys.version.split()[0]}


# ----------------------------------------------------------------------------- brute force

def _mean(v):
    return sum(v) / len(v)


def _var(v):  # sample variance, N - 1
    mu = _mean(v)
    return sum((x - mu) ** 2 for x in v) / (len(v) - 1)


def _informative(x):
    return max(x) > min(x)


def statistic_of(cases):
    """"mod" when every value is 0 or 1, "sz" otherwise (the gate's rule)."""
    return "mod" if all(x in (0, 1) for h, b in cases for x in list(h) + list(b)) else "sz"


def _sz_variance(x, f):
    return _var(x) if len(x) >= 3 else f


def term(head, base, f, stat):
    """t of one stratum for one head/base split, straight from the formula."""
    m, r = len(head), len(base)
    nu = m + r - 2
    d = _mean(head) - _mean(base)
    if stat == "sz":
        return d / math.sqrt(_sz_variance(list(head) + list(base), f) * (1 / m + 1 / r))
    ss = sum((x - _mean(head)) ** 2 for x in head) + sum((x - _mean(base)) ** 2 for x in base)
    s2res = ss / nu if nu > 0 else 0.0
    s2mod = (nu * s2res + NU0 * f) / (nu + NU0)
    return d / math.sqrt(s2mod * (1 / m + 1 / r))


def terms_all_head_sets(x, m, f, stat, chunk=50_000):
    """t for every head set of the pooled values x (head = m positions), from the formula."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    r = n - m
    nu = n - 2
    combos = np.array(list(itertools.combinations(range(n), m)), dtype=np.int64).reshape(-1, m)
    out = []
    for start in range(0, len(combos), chunk):
        rows = combos[start:start + chunk]
        mask = np.zeros((len(rows), n), dtype=bool)
        mask[np.arange(len(rows))[:, None], rows] = True
        xs = np.broadcast_to(x, mask.shape)
        mh = np.where(mask, xs, 0.0).sum(axis=1) / m
        mb = np.where(mask, 0.0, xs).sum(axis=1) / r
        ssh = np.where(mask, (xs - mh[:, None]) ** 2, 0.0).sum(axis=1)
        ssb = np.where(mask, 0.0, (xs - mb[:, None]) ** 2).sum(axis=1)
        if stat == "sz":
            out.append((mh - mb) / np.sqrt(_sz_variance(list(x), f) * (1 / m + 1 / r)))
            continue
        s2res = (ssh + ssb) / nu if nu > 0 else np.zeros(len(rows))
        s2mod = (nu * s2res + NU0 * f) / (nu + NU0)
        out.append((mh - mb) / np.sqrt(s2mod * (1 / m + 1 / r)))
    return np.concatenate(out)


def _count_values(t):
    """Distinct values of t (merged within 1e-12 relative) with their integer counts."""
    t = np.sort(np.asarray(t, dtype=float))
    values, counts = [], []
    for v in t:
        if values and v - values[-1] <= 1e-12 * (1 + abs(values[-1])):
            counts[-1] += 1
        else:
            values.append(float(v))
            counts.append(1)
    return values, counts


def brute(cases):
    """Exact p and min_p by listing every head set of every informative stratum."""
    pooled = [list(h) + list(b) for h, b in cases]
    ms = [len(h) for h, _ in cases]
    inf = [i for i, x in enumerate(pooled) if _informative(x)]
    if not inf:
        return dict(p=1.0, min_p=1.0, p_fraction="1", min_p_fraction="1", n_informative=0,
                    arrangements=1, T_obs=0.0)
    f = statistics.median([_var(pooled[i]) for i in inf])
    stat = statistic_of(cases)
    per = []
    obs = 0.0
    total = 1
    for i in inf:
        x, m = pooled[i], ms[i]
        per.append(_count_values(terms_all_head_sets(x, m, f, stat)))
        obs += term(x[:m], x[m:], f, stat)
        total *= math.comb(len(x), m)
    scale = 1 + sum(max(abs(v) for v in vals) for vals, _ in per)
    cnt = 0
    tmin = sum(min(vals) for vals, _ in per)
    cmin = 0
    for combo in itertools.product(*[list(zip(v, c)) for v, c in per]):
        T = sum(t for t, _ in combo)
        w = math.prod(c for _, c in combo)
        if T <= obs + TOL * scale:
            cnt += w
        if T <= tmin + TOL * scale:
            cmin += w
    p = Fraction(cnt, total)
    mp = Fraction(cmin, total)
    return dict(p=float(p), min_p=float(mp), p_fraction=f"{p.numerator}/{p.denominator}",
                min_p_fraction=f"{mp.numerator}/{mp.denominator}", n_informative=len(inf),
                arrangements=total, T_obs=float(obs))


# ----------------------------------------------------------------------------- fast reference
# strat_test.py (research/stochastic), statistics "mod" and "sz".

EXACT_WORK_MAX = 1 << 22
ENUM_MAX = 200_000


def _stratum_terms(x, m, heads, f, stat):
    x = np.asarray(x, dtype=float)
    n = len(x)
    r = n - m
    xc = x - x.mean()
    sh = xc[heads].sum(axis=1)
    qh = (xc[heads] ** 2).sum(axis=1)
    q = float((xc ** 2).sum())
    sb = -sh
    qb = q - qh
    d = sh / m - sb / r
    if q / (n - 1) <= 0:
        return np.zeros(len(heads))
    k = 1.0 / m + 1.0 / r
    if stat == "sz":
        v = q / (n - 1) if n >= 3 else f
        return d / np.sqrt(v * k)
    nu = n - 2
    s2res = np.maximum((qh - sh ** 2 / m) + (qb - sb ** 2 / r), 0.0) / nu if nu > 0 \
        else np.zeros(len(heads))
    s2mod = (nu * s2res + NU0 * f) / (nu + NU0)
    return d / np.sqrt(s2mod * k)


def _merge(v, p, tol):
    o = np.argsort(v, kind="stable")
    v = v[o]
    p = p[o]
    new = np.empty(len(v), dtype=bool)
    new[0] = True
    new[1:] = np.diff(v) > tol
    gid = np.cumsum(new) - 1
    return v[new], np.bincount(gid, weights=p)


def fast(cases, B=10_000, seed=0):
    strata = [(np.concatenate([np.asarray(h, float), np.asarray(b, float)]), len(h)) for h, b in cases]
    inf = [(x, m) for x, m in strata if x.max() > x.min()]
    if not inf:
        return dict(p=1.0, min_p=1.0, method="no_variation")
    f = float(np.median([float(((x - x.mean()) ** 2).sum() / (len(x) - 1)) for x, _ in inf]))
    stat = statistic_of(cases)
    tables, big = [], []
    for x, m in inf:
        if math.comb(len(x), m) > ENUM_MAX:
            big.append((x, m))
            continue
        heads = np.array(list(itertools.combinations(range(len(x)), m)), dtype=np.int64).reshape(-1, m)
        t = _stratum_terms(x, m, heads, f, stat)
        tables.append((t, np.full(len(t), 1.0 / len(t)), t[0]))
    t_obs = sum(tab[2] for tab in tables)
    scale = sum(np.abs(tab[0]).max() for tab in tables)
    for x, m in big:
        t_obs += float(_stratum_terms(x, m, np.arange(m)[None, :], f, stat)[0])
        scale += float(np.abs(x - x.mean()).sum()) * 10
    tol = 1e-9 * (1.0 + scale)
    n_inf = len(inf)
    min_p = 1.0
    for v, p, _ in tables:
        min_p *= float(p[v <= v.min() + 1e-9 * (1 + abs(v.min()))].sum())
    for x, m in big:
        min_p *= 1.0 / math.comb(len(x), m)
    if not big:
        order = sorted(range(len(tables)), key=lambda i: len(_merge(tables[i][0], tables[i][1], 1e-12)[0]))
        cv, cp = np.zeros(1), np.ones(1)
        ok = True
        for i in order:
            v, p = _merge(tables[i][0], tables[i][1], tol / (n_inf + 1))
            if len(cv) * len(v) > EXACT_WORK_MAX:
                ok = False
                break
            cv, cp = _merge((cv[:, None] + v[None, :]).ravel(), (cp[:, None] * p[None, :]).ravel(),
                            tol / (n_inf + 1))
        if ok:
            p_val = float(cp[cv <= t_obs + tol].sum())
            return dict(p=min(1.0, max(p_val, min_p)), min_p=min_p, method="exact")
    rng = np.random.default_rng(seed)
    tot = np.zeros(B)
    for v, p, _ in tables:
        tot += v[rng.choice(len(v), size=B, p=p)]
    for x, m in big:
        perm = np.argsort(rng.random((B, len(x))), axis=1)[:, :m]
        tot += _stratum_terms(x, m, perm, f, stat)
    p_val = (1 + int((tot <= t_obs + tol).sum())) / (B + 1)
    return dict(p=p_val, min_p=max(min_p, 1.0 / (B + 1)), method="monte_carlo")


# ----------------------------------------------------------------------------- scipy cross-checks

def scipy_checks(cases):
    out = {}
    pooled = [list(h) + list(b) for h, b in cases]
    binary = all(x in (0, 1) for p in pooled for x in p)
    if all(len(h) == 1 and len(b) == 1 for h, b in cases):
        h = np.array([c[0][0] for c in cases], float)
        b = np.array([c[1][0] for c in cases], float)
        res = sst.permutation_test((h, b), lambda x, y: np.mean(x - y), permutation_type="samples",
                                   alternative="less", n_resamples=np.inf)
        out["scipy_permutation_test_samples"] = float(res.pvalue)
    inf = [i for i, x in enumerate(pooled) if _informative(x)]
    if len(inf) == 1 and math.comb(len(pooled[inf[0]]), len(cases[inf[0]][0])) <= 20_000:
        i = inf[0]
        h, b = np.array(cases[i][0], float), np.array(cases[i][1], float)
        fval = _var(pooled[i])

        stat = statistic_of(cases)

        def fn(x, y):
            m, r = len(x), len(y)
            if stat == "sz":
                return (x.mean() - y.mean()) / math.sqrt(_sz_variance(pooled[i], fval) * (1 / m + 1 / r))
            nu = m + r - 2
            s2res = (((x - x.mean()) ** 2).sum() + ((y - y.mean()) ** 2).sum()) / nu if nu else 0.0
            return (x.mean() - y.mean()) / math.sqrt((nu * s2res + NU0 * fval) / (nu + NU0) * (1 / m + 1 / r))

        res = sst.permutation_test((h, b), fn, permutation_type="independent", alternative="less",
                                   n_resamples=np.inf, vectorized=False)
        out["scipy_permutation_test_independent"] = float(res.pvalue)
        if binary:
            s, m, r = int(h.sum()), len(h), len(b)
            tb = int(b.sum())
            out["scipy_fisher_exact_less"] = float(sst.fisher_exact([[s, m - s], [tb, r - tb]],
                                                                    alternative="less")[1])
    return out


# ----------------------------------------------------------------------------- CI

def bootstrap_ci(cases, B, rng, level=0.95):
    """Case-level (cluster) percentile bootstrap CI of mean_i (mean head_i - mean base_i): the
    cases' differences resampled with replacement (trials are not resampled within a case)."""
    d = np.array([np.mean(h) - np.mean(b) for h, b in cases], float)
    n = len(d)
    means = d[rng.integers(0, n, size=(B, n))].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


def ci_reference(cases, rng):
    lo, hi = bootstrap_ci(cases, CI_B_REF, rng)
    reps = np.array([bootstrap_ci(cases, CI_B_RUST, rng) for _ in range(CI_REPLICATES)])
    sd = reps.std(axis=0, ddof=1)
    return dict(low=lo, high=hi, low_sd_10k=float(sd[0]), high_sd_10k=float(sd[1]), level=0.95)


# ----------------------------------------------------------------------------- data sets

def datasets(rng):
    D = []

    def add(name, desc, cases, ci=False, monte_carlo=False):
        D.append(dict(name=name, description=desc, ci=ci, monte_carlo=monte_carlo,
                      cases=[dict(head=[float(v) for v in h], base=[float(v) for v in b]) for h, b in cases]))

    # The non-adaptive datasets of research/stochastic/fixtures.py.
    add("binary_1v1", "0/1, one trial per side: 4 cases got worse, 1 better, 3 unchanged "
        "(exact sign test: P(Bin(5,1/2) >= 4) = 6/32)",
        [([0], [1]), ([0], [1]), ([0], [1]), ([0], [1]), ([1], [0]), ([1], [1]), ([0], [0]), ([1], [1])])
    add("cont_1v1", "continuous, one trial per side: the new test is today's sign-flip of sum d_i",
        [([1.2], [2.0]), ([0.4], [0.9]), ([3.0], [2.5]), ([-0.7], [0.1]), ([2.2], [2.2]), ([0.05], [1.3])])
    add("binary_m1_r3", "0/1, 1 head trial, 3 history trials (tau-bench-like: stable, flaky, broken)",
        [([0], [1, 1, 1]), ([0], [1, 0, 1]), ([1], [1, 1, 1]), ([0], [0, 0, 0]), ([1], [0, 1, 0]),
         ([0], [1, 1, 0]), ([0], [1, 1, 1])])
    add("binary_m3_r3", "0/1, 3 head trials, 3 history trials",
        [([0, 0, 1], [1, 1, 1]), ([1, 0, 1], [1, 0, 1]), ([0, 0, 0], [0, 1, 0]), ([1, 1, 0], [1, 1, 1])])
    add("binary_ragged", "0/1, mixed stratum sizes (m 1..3, r 1..4), two uninformative strata",
        [([0], [1]), ([0, 1], [1, 1, 0, 1]), ([0, 0, 0], [1, 0]), ([1, 1], [1, 1, 1]), ([0], [0, 0, 0, 0]),
         ([1, 0, 0], [1, 1, 1, 0])])
    add("binary_stable_broken", "0/1: five always-passing cases all fail once on the head (1 vs 4): "
        "p = min_p = (1/5)^5",
        [([0], [1, 1, 1, 1])] * 5)
    add("cont_m1_r3", "continuous, 1 head trial vs 3 history trials, stable and noisy cases",
        [([0.80], [1.00, 1.02, 0.98]), ([2.1], [3.5, 1.2, 2.9]), ([10.4], [10.0, 10.5, 9.9]),
         ([4.9], [5.0, 5.3, 5.1])], ci=True)
    add("cont_m2_r2_ties", "continuous, 2 vs 2 with tied values",
        [([1.0, 1.0], [1.5, 1.0]), ([0.2, 0.3], [0.3, 0.3]), ([5.0, 4.0], [4.0, 6.0]), ([2.0, 2.0], [2.0, 2.0]),
         ([0.0, 0.5], [0.5, 1.0])])
    add("cont_ragged", "continuous, mixed stratum sizes including a 1-vs-1 stratum",
        [([0.3], [0.9]), ([1.1, 0.7], [1.2, 1.3, 1.25]), ([7.0, 6.5, 6.0], [6.8, 7.2]), ([0.0], [0.4, -0.1, 0.2, 0.1]),
         ([3.3, 3.1], [3.2])], ci=True)
    add("cont_single_stratum", "continuous, one case with 3 head and 5 history trials (scipy 'independent')",
        [([9.1, 8.7, 9.6], [10.2, 9.9, 10.8, 9.5, 10.1])])
    add("binary_single_stratum", "0/1, one case with 2 head and 6 history trials (Fisher's exact, one-sided)",
        [([0, 1], [1, 1, 1, 0, 1, 1])])
    add("all_uninformative", "every stratum constant: no test (p = 1, min_p = 1, no_variation)",
        [([1, 1], [1, 1, 1]), ([0], [0]), ([0.5], [0.5, 0.5])])
    add("head_better", "continuous, the head improved: p near 1",
        [([2.0, 2.1], [1.0, 1.1, 0.9]), ([3.0], [2.0, 2.2]), ([0.9, 1.0], [0.5, 0.4])])

    # Larger strata (new here): the Rust paths beyond per-head-set enumeration.
    def binary(n, rate):
        return (rng.uniform(0, 1, n) < rate).astype(int).tolist()

    add("binary_big", "0/1, 5 head vs 40 history trials per case (C(45,5) = 1,221,759 head sets "
        "each): hypergeometric tables in Rust, exact; one always-passing case",
        [(binary(5, 0.5), binary(40, 0.8)), (binary(5, 0.6), binary(40, 0.7)),
         (binary(5, 0.3), binary(40, 0.4)), ([1] * 5, [1] * 40)])
    add("ternary_big", "partial credit {0, 0.5, 1}, 5 head vs 25 history trials (C(30,5) = 142,506 "
        "head sets) next to a small continuous case: grouped (multivariate hypergeometric) table "
        "in Rust, exact",
        [(rng.choice([0.0, 0.5, 1.0], 5, p=[0.3, 0.3, 0.4]).tolist(),
          rng.choice([0.0, 0.5, 1.0], 25, p=[0.15, 0.25, 0.6]).tolist()),
         ([0.4, 0.35], [0.5, 0.45, 0.6])])
    add("continuous_big", "continuous, 4 head vs 30 history trials (C(34,4) = 46,376 head sets, "
        "more than Rust enumerates: sampled, so Monte Carlo) next to a 1 vs 3 case",
        [(np.round(rng.normal(9.6, 1.0, 4), 4).tolist(), np.round(rng.normal(10.0, 1.0, 30), 4).tolist()),
         ([0.7], [1.0, 1.2, 0.9])], monte_carlo=True)
    return D


def main() -> None:
    rng = np.random.default_rng(MASTER_SEED)
    out = dict(generated_by="scripts/strata_reference.py", versions=versions(), statistic="mod for 0/1 data sets, sz otherwise",
               nu0=NU0, f="median over informative strata of the pooled sample variance",
               tie_tolerance="1e-9 * (1 + sum_i max|t_i|)", datasets=[])
    bad = 0
    for d in datasets(rng):
        cases = [(c["head"], c["base"]) for c in d["cases"]]
        bf = brute(cases)
        fa = fast(cases)
        sc = scipy_checks(cases)
        effect = float(np.mean([np.mean(h) - np.mean(b) for h, b in cases]))
        if fa["method"] == "monte_carlo":
            # strata beyond its enumeration limit: a Monte Carlo p (B = 10,000), and a min_p
            # that ignores ties (1/C(N, m) per sampled stratum)
            agree = abs(fa["p"] - bf["p"]) < 4 * math.sqrt(bf["p"] * (1 - bf["p"]) / 10_000) + 1e-3
        else:
            agree = abs(fa["p"] - bf["p"]) < 1e-10 and abs(fa["min_p"] - bf["min_p"]) < 1e-10
        for v in sc.values():
            agree &= abs(v - bf["p"]) < 1e-10
        if not agree:
            bad += 1
            print("DISAGREE", d["name"], bf, fa, sc)
        entry = dict(name=d["name"], description=d["description"], cases=d["cases"],
                     monte_carlo=d["monte_carlo"], statistic=statistic_of(cases),
                     result=dict(p=bf["p"], p_fraction=bf["p_fraction"], min_p=bf["min_p"],
                                 min_p_fraction=bf["min_p_fraction"], n_informative=bf["n_informative"],
                                 arrangements=bf["arrangements"], T_obs=bf["T_obs"], effect=effect,
                                 fast_p=fa["p"], fast_method=fa["method"], **sc))
        if d["ci"]:
            entry["ci"] = ci_reference(cases, rng)
        out["datasets"].append(entry)
        print(d["name"], bf["p_fraction"], round(bf["p"], 6), "min_p", bf["min_p_fraction"])
    if bad:
        sys.exit(f"{bad} disagreements")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
