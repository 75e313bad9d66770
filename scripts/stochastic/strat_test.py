"""Reference implementation of the stratified permutation test for stochastic agents (issue 20).

Data: one stratum per case i.  Case i has m_i >= 1 head trials and r_i >= 1 baseline (history)
trials of one metric, oriented so that LOWER IS WORSE.  H0: within each case the head's trials
are exchangeable with that case's history trials.  Under H0 every choice of which m_i of the
N_i = m_i + r_i pooled values carry the label "head" is equally likely (C(N_i, m_i) arrangements,
positions distinct even when values tie), independently across cases.

The statistic is a sum of per-stratum terms T = sum_i t_i(H_i), where H_i is the head set of
stratum i.  The one-sided p ("head is worse") is P(T* <= T_obs) under the permutation
distribution.  It is computed
  * exactly, by convolving the per-stratum distributions of t_i (values merged within a
    tolerance), when every intermediate outer sum of the convolution has <= 2^22 elements
    (always the case when prod_i (#distinct t-values of stratum i) <= 2^20);
  * otherwise by Monte Carlo: p = (1 + #{T*_b <= T_obs}) / (B + 1), B random arrangements.

Strata whose pooled values are all equal are uninformative (t_i is constant) and drop out.

Statistics (D_i(H) = mean(head) - mean(base) for head set H; s2tot_i = sample variance (N_i - 1
denominator) of the stratum's pooled values, invariant under relabelling):
  'diff'   t_i = D_i                                   (a) unweighted sum of differences
  'cmh'    t_i = S_i = sum of head values              (b) Cochran-Mantel-Haenszel; the reported
           statistic is (sum S_i - sum E_i)/sqrt(sum V_i), E_i = m_i*mean_i, V_i = m_i r_i/N_i*s2tot_i
  'zperm'  t_i = D_i / sqrt(s2tot_i (1/m_i + 1/r_i))   per-stratum permutation z (Stouffer)
  'ivperm' t_i = D_i / (s2tot_i (1/m_i + 1/r_i))       inverse permutation variance
  'mod'    t_i = D_i / sqrt(s2mod_i (1/m_i + 1/r_i))   moderated studentized (CHOSEN for 0/1 metrics)
  'sz'     t_i = D_i / sqrt(v_i (1/m_i + 1/r_i)), v_i = s2tot_i if N_i >= 3 else f
                                                        stratum-standardized (CHOSEN for continuous metrics)
  'modiv'  t_i = D_i / (s2mod_i (1/m_i + 1/r_i))       moderated inverse variance
  with s2mod_i = (nu_i s2res_i + nu0 f) / (nu_i + nu0), nu_i = N_i - 2,
       s2res_i = within-group pooled variance of H and its complement (0 when nu_i = 0),
       f = median of s2tot_i over informative strata (invariant), nu0 = 2 by default.
  With one trial per side (N_i = 2): nu_i = 0, s2mod_i = f for every stratum, so 'mod' (and 'sz')
  is sum_i d_i / sqrt(2 f): exactly today's paired sign-flip test.

Adaptive confirmation ("selective" test): when whether a case was re-run depended on its first
head trial and its history, the reference distribution of stratum i is restricted to the
arrangements that would have produced the same re-run decision (see arrangement_weights and
REPORT.md); the test is then exact conditional on the decisions.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

STATS = ("diff", "cmh", "zperm", "ivperm", "mod", "modiv", "sz")
EXACT_WORK_MAX = 1 << 22  # largest intermediate outer sum in the exact convolution
ENUM_MAX = 200_000  # largest C(N_i, m_i) enumerated per stratum (else sampled)
NU0 = 2.0


# ----------------------------------------------------------------------------- helpers

def combos(N: int, m: int) -> np.ndarray:
    """All head sets of size m among N positions, lexicographic (row 0 = positions 0..m-1)."""
    return np.array(list(itertools.combinations(range(N), m)), dtype=np.int64).reshape(-1, m)


def _center(x):
    x = np.asarray(x, dtype=float)
    return x - x.mean()


def stratum_s2tot(x) -> float:
    x = np.asarray(x, dtype=float)
    return float(((x - x.mean()) ** 2).sum() / (len(x) - 1))


def is_informative(x) -> bool:
    x = np.asarray(x, dtype=float)
    return bool(x.max() > x.min())


def global_f(strata) -> float:
    """f = median over informative strata of the pooled sample variance (relabelling-invariant)."""
    v = [stratum_s2tot(x) for x, _m in strata if is_informative(x)]
    return float(np.median(v)) if v else 0.0


def stratum_terms(x, m: int, heads: np.ndarray, stat: str, f: float, nu0: float = NU0):
    """t_i for each head set in `heads` (rows of positions into x)."""
    x = np.asarray(x, dtype=float)
    N = len(x)
    r = N - m
    xc = _center(x)
    Sh = xc[heads].sum(axis=1)
    Qh = (xc[heads] ** 2).sum(axis=1)
    Q = float((xc ** 2).sum())
    Sb = -Sh  # centered: total is 0
    Qb = Q - Qh
    D = Sh / m - Sb / r
    s2tot = Q / (N - 1)
    if s2tot <= 0:
        return np.zeros(len(heads))
    k = 1.0 / m + 1.0 / r
    if stat == "diff":
        return D
    if stat == "cmh":
        return np.asarray(x[heads].sum(axis=1), dtype=float)  # S_i (uncentered; integer for 0/1)
    if stat == "zperm":
        return D / math.sqrt(s2tot * k)
    if stat == "ivperm":
        return D / (s2tot * k)
    if stat == "sz":  # chosen for continuous metrics
        v = s2tot if N > 2 else f
        return D / math.sqrt(v * k)
    if stat in ("mod", "modiv"):
        nu = N - 2
        if nu > 0:
            ssres = np.maximum((Qh - Sh ** 2 / m) + (Qb - Sb ** 2 / r), 0.0)
            s2res = ssres / nu
        else:
            s2res = np.zeros(len(heads))
        s2mod = (nu * s2res + nu0 * f) / (nu + nu0)
        if stat == "mod":
            return D / np.sqrt(s2mod * k)
        return D / (s2mod * k)
    raise ValueError(stat)


# ----------------------------------------------------------------------------- adaptive rules

def rule_fires(rule: str, history, first) -> bool:
    """Re-run decision from the case's history values and its first head value."""
    h = np.asarray(history, dtype=float)
    if rule == "below_mean":  # first head value below the history mean
        return bool(first < h.mean())
    if rule == "below_min":  # first head value below everything history saw
        return bool(first < h.min())
    if rule == "nonconstant":  # the stage-1 stratum (history + first) is not constant (symmetric)
        return bool(max(h.max(), first) > min(h.min(), first))
    if rule == "minority1":  # 0/1: exactly one stage-1 value differs from the others
        ones = float(h.sum() + first)
        n1 = len(h) + 1
        return bool(min(ones, n1 - ones) == 1)
    raise ValueError(rule)


def arrangement_weights(x, m: int, heads: np.ndarray, rule: str, rerun: bool) -> np.ndarray:
    """Conditional reference weights of each head set given the observed re-run decision.

    Positions: x[0] is the first head trial, x[1:m] the re-runs (rerun=True) and x[m:] history.
    Under H0 the potential trials are i.i.d., so conditional on the pooled multiset and the
    decision, an assignment (head set H, first trial j in H) is uniform over the assignments
    with rule_fires(x[not H], x[j]) == rerun.  The weight of H is the number of such j.
    """
    x = np.asarray(x, dtype=float)
    N = len(x)
    w = np.zeros(len(heads))
    allpos = np.arange(N)
    for a, H in enumerate(heads):
        rest = np.setdiff1d(allpos, H, assume_unique=True)
        w[a] = sum(rule_fires(rule, x[rest], x[j]) == rerun for j in H)
    return w


# ----------------------------------------------------------------------------- the test

def _merge(v, p, tol):
    o = np.argsort(v, kind="stable")
    v = v[o]
    p = p[o]
    new = np.empty(len(v), dtype=bool)
    new[0] = True
    new[1:] = np.diff(v) > tol
    gid = np.cumsum(new) - 1
    return v[new], np.bincount(gid, weights=p)


def _stratum_table(x, m, stat, f, nu0, rule=None, rerun=None):
    """(values, probs) of t_i over all arrangements, plus the observed t_i; None if too big."""
    N = len(x)
    C = math.comb(N, m)
    if C > ENUM_MAX:
        return None
    heads = combos(N, m)
    t = stratum_terms(x, m, heads, stat, f, nu0)
    if rule is None:
        w = np.ones(len(heads))
    else:
        w = arrangement_weights(x, m, heads, rule, rerun)
    keep = w > 0
    return t[keep], w[keep] / w[keep].sum(), t[0]


def strat_perm_test(cases, stat="mod", B=10_000, seed=0, nu0=NU0, rule=None,
                    exact_work_max=EXACT_WORK_MAX, force_mc=False):
    """One-sided stratified permutation test ("head worse" = low values).

    cases: list of (head_values, base_values).  With `rule`, each case is
    (head_values, base_values, rerun) where head_values[0] is the first head trial and
    rerun says whether the case was re-run; the test is then conditional on the decisions.
    Returns dict(p, min_p, method, T, n_informative, effect).
    """
    strata, reruns = [], []
    for c in cases:
        h, b = np.asarray(c[0], float), np.asarray(c[1], float)
        strata.append((np.concatenate([h, b]), len(h)))
        reruns.append(c[2] if rule is not None else None)
    effect = float(np.mean([np.mean(c[0]) - np.mean(c[1]) for c in cases]))
    f = global_f(strata)
    tables, big = [], []
    sumV = 0.0
    for (x, m), rr in zip(strata, reruns):
        if not is_informative(x):
            continue
        N = len(x)
        sumV += m * (N - m) / N * stratum_s2tot(x)
        tab = _stratum_table(x, m, stat, f, nu0, rule, rr)
        if tab is None:
            if rule is not None:
                raise ValueError("selective test needs enumerable strata")
            big.append((x, m))
        else:
            tables.append(tab)
    n_inf = len(tables) + len(big)
    if n_inf == 0:
        return dict(p=1.0, min_p=1.0, method="no_variation", T=0.0, n_informative=0,
                    effect=effect)
    t_obs = sum(tab[2] for tab in tables)
    scale = sum(np.abs(tab[0]).max() for tab in tables)
    for x, m in big:
        t_obs += float(stratum_terms(x, m, np.arange(m)[None, :], stat, f, nu0)[0])
        scale += float(np.abs(x - x.mean()).sum()) * 10
    tol = 1e-9 * (1.0 + scale)
    # smallest achievable p: product over strata of P(t_i at its minimum)
    min_p = 1.0
    for v, p, _ in tables:
        min_p *= float(p[v <= v.min() + 1e-9 * (1 + abs(v.min()))].sum())
    for x, m in big:
        # rare path (huge strata): min over arrangements = m smallest values for linear stats
        min_p *= 1.0 / math.comb(len(x), m)
    if stat == "cmh":
        T_rep = (t_obs - sum(m * np.mean(x) for x, m in strata if is_informative(x))) / math.sqrt(sumV)
    else:
        T_rep = t_obs
    # exact?
    method = "monte_carlo"
    if not big and not force_mc:
        order = sorted(range(len(tables)), key=lambda i: len(_merge(tables[i][0], tables[i][1], 1e-12)[0]))
        cv, cp = np.zeros(1), np.ones(1)
        ok = True
        for i in order:
            v, p = _merge(tables[i][0], tables[i][1], tol / (n_inf + 1))
            if len(cv) * len(v) > exact_work_max:
                ok = False
                break
            cv, cp = _merge((cv[:, None] + v[None, :]).ravel(), (cp[:, None] * p[None, :]).ravel(),
                            tol / (n_inf + 1))
        if ok:
            p_val = float(cp[cv <= t_obs + tol].sum())
            return dict(p=min(1.0, max(p_val, min_p)), min_p=min_p, method="exact", T=float(T_rep),
                        n_informative=n_inf, effect=effect)
    rng = np.random.default_rng(seed)
    tot = np.zeros(B)
    for v, p, _ in tables:
        tot += v[rng.choice(len(v), size=B, p=p)]
    for x, m in big:
        N = len(x)
        perm = np.argsort(rng.random((B, N)), axis=1)[:, :m]
        tot += np.array([stratum_terms(x, m, perm[b:b + 1], stat, f, nu0)[0] for b in range(B)])
    p_val = (1 + int((tot <= t_obs + tol).sum())) / (B + 1)
    return dict(p=p_val, min_p=max(min_p, 1.0 / (B + 1)), method=method, T=float(T_rep),
                n_informative=n_inf, effect=effect)


# ----------------------------------------------------------------------------- old test

def sign_flip_1v1(d, B=10_000, seed=0):
    """Today's paired sign-flip test on d_i = head - base (one trial each); exact for k <= 20."""
    d = np.asarray(d, float)
    d = d[d != 0]
    k = len(d)
    if k == 0:
        return dict(p=1.0, min_p=1.0, method="no_variation")
    obs = d.sum()
    a = np.abs(d)
    tol = 4 * k * np.finfo(float).eps * a.sum()
    if np.all(a == a[0]):  # lattice (0/1): binomial tail
        from scipy.stats import binom
        neg = int((d < 0).sum())
        return dict(p=float(binom.sf(neg - 1, k, 0.5)), min_p=0.5 ** k, method="exact")
    if k <= 20:
        signs = ((np.arange(1 << k)[:, None] >> np.arange(k)) & 1) * 2 - 1
        s = signs @ a
        return dict(p=float((s <= obs + tol).mean()), min_p=0.5 ** k, method="exact")
    rng = np.random.default_rng(seed)
    s = (rng.integers(0, 2, size=(B, k)) * 2 - 1) @ a
    return dict(p=(1 + int((s <= obs + tol).sum())) / (B + 1), min_p=max(0.5 ** k, 1 / (B + 1)),
                method="monte_carlo")


# ----------------------------------------------------------------------------- CI

def bootstrap_ci(cases, B=10_000, seed=0, level=0.95, within=True):
    """Stratified (two-level) percentile bootstrap CI of effect = mean_i (mean head_i - mean base_i).

    Each resample draws n cases with replacement; within each drawn case, its m_i head values
    and r_i base values are each resampled with replacement (within=False: cases only).
    """
    rng = np.random.default_rng(seed)
    n = len(cases)
    d_case = np.array([np.mean(h) - np.mean(b) for h, b, *_ in cases])
    est = float(d_case.mean())
    out = np.zeros(B)
    pick = rng.integers(0, n, size=(B, n))
    if not within:
        out = d_case[pick].mean(axis=1)
    else:
        acc = np.zeros(B)
        for i, (h, b, *_) in enumerate(cases):
            h = np.asarray(h, float)
            b = np.asarray(b, float)
            cnt = (pick == i).sum(axis=1)  # how many times case i was drawn in each resample
            tot = int(cnt.sum())
            if tot == 0:
                continue
            hm = h[rng.integers(0, len(h), size=(tot, len(h)))].mean(axis=1)
            bm = b[rng.integers(0, len(b), size=(tot, len(b)))].mean(axis=1)
            rows = np.repeat(np.arange(B), cnt)
            acc += np.bincount(rows, weights=hm - bm, minlength=B)
        out = acc / n
    lo, hi = np.quantile(out, [(1 - level) / 2, (1 + level) / 2])
    return dict(effect=est, lo=float(lo), hi=float(hi))


if __name__ == "__main__":
    # tiny demo
    cases = [([0], [1, 1, 1]), ([0, 0], [1, 1, 0]), ([1], [1, 1, 1]), ([1], [0, 1, 0]),
             ([0], [1, 1])]
    for s in ("diff", "cmh", "zperm", "mod"):
        print(s, strat_perm_test(cases, stat=s))
    print(bootstrap_ci(cases, B=2000))
