#!/usr/bin/env python3
"""Reference values for `src/stats/` computed independently with numpy and scipy.

Usage (from the repository root; needs numpy and scipy, ~1 minute):

    python3 scripts/stats_reference.py            # rewrites tests/fixtures/stats/*.json
    python3 scripts/stats_reference.py sigma signflip   # only these files

Everything is seeded (MASTER_SEED below), so a re-run rewrites identical files on the same
numpy/scipy versions; the versions used are recorded in every file. Output:

* bootstrap_reference.json - datasets of paired differences (small n, n = 30, n = 200,
  skewed, discrete 0/1 checkpoint-like; with and without a true shift). For each:
  - `p_ref`: the one-sided centered-bootstrap p of DESIGN section 8,
    p = (1 + #{mean(c*) <= D}) / (B + 1) with c = d - D, from numpy with B = 200,000.
    Exact ties (common with 0/1 data) count as <=; a tolerance far below the data's
    resolution keeps rounding noise from deciding them (see TIE_TOLERANCE).
  - `ci_low_ref`, `ci_high_ref`: the 95% interval from
    `scipy.stats.bootstrap(method="percentile")` with B = 200,000.
  - `ci_low_sd_10k`, `ci_high_sd_10k`: the Monte Carlo standard deviation of those endpoints
    when estimated with B = 10,000 (the Rust default), measured from 40 independent scipy
    runs. The Rust tests use it to set a justified tolerance.
* bh.json - Benjamini-Hochberg q-values from `scipy.stats.false_discovery_control`.
* sigma.json - 2-sigma bands from numpy (`mean`, `std(ddof=1)`) over the last `window` points,
  with sigma = max(sd, se_floor), unavailable when sigma = 0 or fewer than 5 points, clipped to
  the metric's domain.
* signflip.json - one-sided paired sign-flip p-values: exact from
  `scipy.stats.permutation_test(permutation_type="samples", n_resamples=inf)` (small n), from
  `scipy.stats.binomtest` (0/1 differences, any n), from an independent numpy convolution of
  the sign distribution (lattice data), and Monte Carlo from scipy with 200,000 resamples
  (large n, with its standard error).
* mde.json - minimum detectable effects from `scipy.stats.norm.ppf`.
* outlier.json - modified z-scores (median / MAD, mean-absolute-deviation fallback).
* exact_stream.json - NOT an independent statistic: a from-scratch Python re-implementation of
  the Rust algorithm (SHA-256 seeding, xoshiro256++, the multi-digit Lemire index stream, the
  lane order of the sums, the percentile) so the tests can demand bit-for-bit agreement and
  catch any platform or refactoring drift in the stream.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

import numpy as np
import scipy
import scipy.stats as st

MASTER_SEED = 20240611
B_REF = 200_000
B_RUST = 10_000
REPLICATES = 40
CONFIDENCE = 0.95
OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "stats"


def versions() -> dict:
    return {"numpy": np.__version__, "scipy": scipy.__version__, "python": sys.version.split()[0]}


def write(name: str, payload: dict) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    payload = {"generated_by": "scripts/stats_reference.py", "versions": versions(), **payload}
    (OUT / name).write_text(json.dumps(payload, indent=1) + "\n")
    print(f"wrote {OUT / name}")


# --------------------------------------------------------------------------- datasets


def datasets(rng: np.random.Generator) -> list[dict]:
    def cont(x) -> list[float]:
        return [float(v) for v in np.round(x, 6)]

    def checkpoint_diffs(n: int, base_rate: float, head_rate: float) -> list[float]:
        # Paired 0/1 outcomes that share a per-case difficulty, like real checkpoints.
        difficulty = rng.uniform(0, 1, n)
        base = (difficulty < base_rate).astype(float)
        flip = rng.uniform(0, 1, n)
        head = np.where(flip < 0.85, (difficulty < head_rate), rng.uniform(0, 1, n) < head_rate)
        return [float(v) for v in head.astype(float) - base]

    return [
        {"name": "small_n8_shift", "about": "n = 8, normal, true shift -0.4 sd",
         "diffs": cont(rng.normal(-0.4, 1.0, 8))},
        {"name": "n30_null", "about": "n = 30, normal, no shift",
         "diffs": cont(rng.normal(0.0, 1.0, 30))},
        {"name": "n30_shift", "about": "n = 30, normal, true shift -0.5 sd",
         "diffs": cont(rng.normal(-0.5, 1.0, 30))},
        {"name": "n200_null", "about": "n = 200, normal sd 5, no shift",
         "diffs": cont(rng.normal(0.0, 5.0, 200))},
        {"name": "n200_small_shift", "about": "n = 200, normal sd 5, true shift -0.6",
         "diffs": cont(rng.normal(-0.6, 5.0, 200))},
        {"name": "skewed_n50", "about": "n = 50, centered exponential (latency-like), shift -0.2",
         "diffs": cont(rng.exponential(1.0, 50) - 1.0 - 0.2)},
        {"name": "skewed_lognormal_n40_null", "about": "n = 40, lognormal minus its mean, no shift",
         "diffs": cont(rng.lognormal(0.0, 1.0, 40) - math.exp(0.5))},
        {"name": "checkpoint_n40_drop", "about": "n = 40 paired 0/1 checkpoints, pass rate 0.8 -> 0.65",
         "diffs": checkpoint_diffs(40, 0.8, 0.65)},
        {"name": "checkpoint_n60_null", "about": "n = 60 paired 0/1 checkpoints, pass rate 0.7 both",
         "diffs": checkpoint_diffs(60, 0.7, 0.7)},
        {"name": "checkpoint_n25_sparse", "about": "n = 25, mostly unchanged 0/1 checkpoints",
         "diffs": [0.0] * 19 + [-1.0, -1.0, -1.0, 1.0, -1.0, 0.0]},
    ]


def tie_tolerance(d: np.ndarray) -> float:
    # Rounding error of a mean of n values is at most about n * eps * max|value|; 64 times that
    # is still orders of magnitude below any real gap for 0/1 or 6-decimal data.
    return 64 * len(d) * np.finfo(float).eps * float(np.max(np.abs(d)))


def reference_p(d: np.ndarray, rng: np.random.Generator) -> float:
    n = len(d)
    big_d = d.mean()
    c = d - big_d
    tol = tie_tolerance(d)
    count = 0
    chunk = max(1, 4_000_000 // n)
    done = 0
    while done < B_REF:
        b = min(chunk, B_REF - done)
        idx = rng.integers(0, n, size=(b, n))
        count += int(np.count_nonzero(c[idx].mean(axis=1) <= big_d + tol))
        done += b
    return (1 + count) / (B_REF + 1)


def scipy_ci(d: np.ndarray, resamples: int, rng: np.random.Generator) -> tuple[float, float]:
    res = st.bootstrap((d,), np.mean, n_resamples=resamples, confidence_level=CONFIDENCE,
                       method="percentile", vectorized=True, batch=20_000, rng=rng)
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def bootstrap_reference(rng: np.random.Generator) -> None:
    out = []
    for ds in datasets(rng):
        d = np.array(ds["diffs"])
        p = reference_p(d, rng)
        low, high = scipy_ci(d, B_REF, rng)
        reps = np.array([scipy_ci(d, B_RUST, rng) for _ in range(REPLICATES)])
        out.append({
            **ds,
            "n": len(d),
            "mean_diff": float(d.mean()),
            "sd_diff": float(d.std(ddof=1)),
            "p_ref": p,
            "ci_low_ref": low,
            "ci_high_ref": high,
            "ci_low_sd_10k": float(reps[:, 0].std(ddof=1)),
            "ci_high_sd_10k": float(reps[:, 1].std(ddof=1)),
        })
        print(f"  {ds['name']:28} n={len(d):3} D={d.mean():+.4f} p={p:.5f} ci=[{low:+.4f}, {high:+.4f}]")
    write("bootstrap_reference.json", {
        "b_ref": B_REF, "b_replicates": B_RUST, "replicates": REPLICATES,
        "confidence": CONFIDENCE, "datasets": out,
    })


# --------------------------------------------------------------------------- BH, sigma, MDE, outliers


def bh_reference(rng: np.random.Generator) -> None:
    cases = [
        [0.01, 0.04, 0.03, 0.2],
        [0.5],
        [1.0, 1.0, 0.9],
        [0.0, 0.0, 0.01, 0.5],
        [0.02, 0.02, 0.02, 0.02, 0.3],
        [float(v) for v in rng.uniform(0, 1, 40)],
        [float(v) for v in np.concatenate([rng.uniform(0, 0.01, 10), rng.uniform(0, 1, 90)])],
        [1 / 10001, 0.2, 1 / 10001, 0.049, 0.051, 0.75, 1.0, 0.0049],
    ]
    write("bh.json", {"cases": [{"p": ps, "q": [float(q) for q in st.false_discovery_control(ps)]}
                                for ps in cases]})


def sigma_reference(rng: np.random.Generator) -> None:
    cases = []
    inf = float("inf")
    histories = [
        ([float(v) for v in np.round(rng.normal(80, 3, 30), 4)], 20, 2.0, 0.0, (0.0, 100.0)),
        ([float(v) for v in np.round(rng.normal(0.9, 0.02, 12), 5)], 20, 2.0, 0.05, (0.0, 1.0)),
        ([float(v) for v in np.round(rng.normal(1500, 200, 8), 1)], 5, 3.0, 10.0, (0.0, inf)),
        ([0.75] * 9, 20, 2.0, 0.0, (0.0, 1.0)),
        ([70.0, 71.0, 69.0, 72.0], 20, 2.0, 1.0, (0.0, 100.0)),
        ([float(v) for v in np.round(rng.normal(50, 10, 25), 3)], 3, 2.0, 0.0, (-inf, inf)),
        ([0.75] * 9, 20, 2.0, 0.08, (0.0, 1.0)),
        ([99.0, 100.0, 99.5, 98.5, 100.0, 99.0], 20, 2.0, 0.0, (0.0, 100.0)),
    ]
    for history, window, k, se_floor, (lo, hi) in histories:
        recent = np.array(history[-window:])
        case = {"history": history, "window": window, "k_sigma": k, "points": len(recent),
                "se_floor": se_floor, "domain": [lo if math.isfinite(lo) else None,
                                                 hi if math.isfinite(hi) else None]}
        sd = max(float(recent.std(ddof=1)), se_floor) if len(recent) >= 2 else 0.0
        if len(recent) >= 5 and sd > 0.0:
            mean = float(recent.mean())
            case.update(available=True, mean=mean, sd=sd, lower=max(mean - k * sd, lo),
                        upper=min(mean + k * sd, hi))
        else:
            case.update(available=False)
        cases.append(case)
    write("sigma.json", {"cases": cases})


def mde_reference() -> None:
    cases = []
    for n, sd, alpha, power in [(100, 1.0, 0.05, 0.8), (30, 0.45, 0.05, 0.8), (1000, 12.5, 0.05, 0.8),
                                (8, 2.0, 0.01, 0.8), (50, 0.3, 0.1, 0.9)]:
        mde = (st.norm.ppf(1 - alpha) + st.norm.ppf(power)) * sd / math.sqrt(n)
        cases.append({"n": n, "sd": sd, "alpha": alpha, "power": power, "mde": float(mde)})
    write("mde.json", {"cases": cases})


def modified_z(x: np.ndarray) -> list[float]:
    med = np.median(x)
    dev = np.abs(x - med)
    mad = np.median(dev)
    if mad > 0:
        return [float(v) for v in st.norm.ppf(0.75) * (x - med) / mad]
    mean_ad = dev.mean()
    if mean_ad > 0:
        return [float(v) for v in (x - med) / (math.sqrt(math.pi / 2) * mean_ad)]
    return [0.0] * len(x)


def outlier_reference(rng: np.random.Generator) -> None:
    samples = [
        [float(v) for v in np.round(np.concatenate([rng.normal(1200, 80, 30), [4800.0, 95.0]]), 2)],
        [1.0, 1.0, 1.0, 1.0, 6.0, 1.0, -3.0],
        [2.0, 2.0, 2.0],
        [float(v) for v in np.round(rng.lognormal(0, 1, 21), 4)],
    ]
    write("outlier.json", {"cases": [{"values": s, "z": modified_z(np.array(s))} for s in samples]})


# --------------------------------------------------------------------------- exact replica of the Rust stream

MASK = (1 << 64) - 1
SEED_DOMAIN = b"agenteval-gate/bootstrap/v1\0"


class Xoshiro256pp:
    def __init__(self, seed: int, metric: str):
        name = metric.encode()
        digest = hashlib.sha256(SEED_DOMAIN + seed.to_bytes(8, "little")
                                + len(name).to_bytes(8, "little") + name).digest()
        self.s = [int.from_bytes(digest[i:i + 8], "little") for i in range(0, 32, 8)]

    def next(self) -> int:
        s = self.s
        rotl = lambda x, k: ((x << k) | (x >> (64 - k))) & MASK  # noqa: E731
        result = (rotl((s[0] + s[3]) & MASK, 23) + s[0]) & MASK
        t = (s[1] << 17) & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result


class IndexStream:
    """Indices in 0..n: k base-n digits per accepted word (see src/stats/sampler.rs)."""

    def __init__(self, n: int, rng: Xoshiro256pp):
        self.n, self.rng = n, rng
        k, span = 1, n
        while k < 8 and span * n <= 1 << 54:
            span *= n
            k += 1
        self.k, self.span = k, span
        self.threshold = (1 << 64) % span
        self.word, self.lane = 0, k

    def next(self) -> tuple[int, int]:
        if self.lane == self.k:
            while True:
                x = self.rng.next()
                if (x * self.span) & MASK >= self.threshold:
                    break
            self.word, self.lane = x, 0
        m = self.word * self.n
        self.word = m & MASK
        lane = self.lane
        self.lane += 1
        return m >> 64, lane


def seq_sum(values) -> float:
    total = 0.0  # Python's sum() compensates since 3.12; the Rust code adds left to right.
    for v in values:
        total += v
    return total


def lerp_percentile(sorted_values: list[float], q: float) -> float:
    h = (len(sorted_values) - 1) * q
    i = math.floor(h)
    g = h - i
    a = sorted_values[i]
    if g == 0.0:
        return a
    b = sorted_values[i + 1]
    diff = b - a
    return b - diff * (1.0 - g) if g >= 0.5 else a + diff * g


def replica_bootstrap(diffs: list[float], metric: str, resamples: int, confidence: float, seed: int) -> dict:
    d = sorted(diffs)
    n = len(d)
    max_abs = max(abs(d[0]), abs(d[-1]))
    total = seq_sum(d)
    mean_diff = total / n + 0.0
    stream = IndexStream(n, Xoshiro256pp(seed, metric))
    slack = 2.0 * float(n) * float(n) * sys.float_info.epsilon * max_abs
    bound = 2.0 * total + slack
    means, count = [], 0
    for _ in range(resamples):
        acc = [0.0] * stream.k
        for _ in range(n):
            index, lane = stream.next()
            acc[lane] += d[index]
        s = seq_sum(acc)
        count += s <= bound
        means.append(s / n)
    tail = (1.0 - confidence) / 2.0
    means.sort()
    return {"p_value": (1.0 + count) / (resamples + 1.0), "mean_diff": mean_diff,
            "ci_low": lerp_percentile(means, tail), "ci_high": lerp_percentile(means, 1.0 - tail)}


def exact_stream() -> None:
    streams = []
    for seed, metric, n in [(0, "task_success", 1000), (42, "checkpoint:c1", 7), (7, "step_type:TOOLSEL", 30),
                            (2**64 - 1, "latency_ms", 2), (123, "judge:goal_fulfillment", 99_991)]:
        s = IndexStream(n, Xoshiro256pp(seed, metric))
        pairs = [s.next() for _ in range(40)]
        streams.append({"seed": seed, "metric": metric, "n": n, "digits": s.k,
                        "indices": [i for i, _ in pairs], "lanes": [lane for _, lane in pairs]})
    boots = []
    for seed, metric, diffs, b in [
        (42, "checkpoint:c1", [-1.0, 0.0, 0.0, 1.0, -1.0, -1.0, 0.0], 64),
        (2024, "task_success", [0.25, -0.5, 0.125, -0.75, 0.0, -0.375, 0.5, -0.125, -0.25, 0.0, 0.375, -0.5,
                                -0.0625], 300),
        (9, "compliance_percent", [3.1, -7.25, 0.4, -12.0, 5.5, -2.2, -0.9, 1.7, -4.4, 0.3, -6.6, 2.9, -3.3,
                                   -1.1, 0.8, -9.9, 4.2, -0.6, -2.8, 1.1, -5.0, 0.0, 2.2, -3.7, -1.9, 0.6, -0.2,
                                   3.3, -8.1, 1.4], 500),
    ]:
        boots.append({"seed": seed, "metric": metric, "diffs": diffs, "resamples": b, "confidence": 0.95,
                      **replica_bootstrap(diffs, metric, b, 0.95, seed)})
    write("exact_stream.json", {"streams": streams, "bootstraps": boots})


# --------------------------------------------------------------------------- sign-flip test


def lattice_p(diffs: list[float], unit: float) -> float:
    """Exact one-sided sign-flip p for magnitudes on a lattice, by numpy convolution."""
    mags = [round(abs(d) / unit) for d in diffs if d != 0.0]
    observed = sum(round(d / unit) for d in diffs if d != 0.0)
    dist = np.zeros(1, dtype=np.float64)
    dist[0] = 1.0
    offset = 0
    for m in mags:
        # Each magnitude contributes -m or +m with probability 1/2.
        new = np.zeros(len(dist) + 2 * m)
        new[: len(dist)] += 0.5 * dist
        new[2 * m:] += 0.5 * dist
        dist, offset = new, offset + m
    return float(dist[: observed + offset + 1].sum())


def signflip_reference() -> None:
    rng = np.random.default_rng(MASTER_SEED + 7)
    cases = []

    def exact_scipy(name: str, diffs: list[float]) -> None:
        x = np.array(diffs)
        res = st.permutation_test((x, np.zeros_like(x)), lambda a, b, axis: np.mean(a - b, axis=axis),
                                  permutation_type="samples", alternative="less", n_resamples=np.inf,
                                  vectorized=True)
        cases.append({"name": name, "diffs": diffs, "p": float(res.pvalue), "method": "exact",
                      "reference": "scipy.stats.permutation_test(samples, exact)"})

    exact_scipy("3 of 5 flipped (issue 9)", [-1.0, -1.0, -1.0, 0.0, 0.0])
    exact_scipy("continuous n=12, shift -0.4", [float(v) for v in np.round(rng.normal(-0.4, 1, 12), 6)])
    exact_scipy("ties on a 0.5 grid n=16", [float(v) for v in np.round(rng.normal(-0.3, 1, 16) * 2) / 2])
    exact_scipy("compliance steps of 100/12, n=14",
                [float(v) * 100.0 / 12.0 for v in rng.integers(-3, 3, 14)])
    exact_scipy("continuous n=18, no shift", [float(v) for v in np.round(rng.normal(0, 2, 18), 5)])
    for worse, better, zeros in [(7, 0, 22), (12, 2, 15), (28, 12, 20), (40, 25, 35)]:
        diffs = [-1.0] * worse + [1.0] * better + [0.0] * zeros
        p = st.binomtest(better, worse + better, 0.5, alternative="less").pvalue
        cases.append({"name": f"binary {worse} worse / {better} better", "diffs": diffs, "p": float(p),
                      "method": "exact", "reference": "scipy.stats.binomtest"})
    diffs = [float(v) * 0.5 for v in rng.integers(-2, 2, 60)]
    cases.append({"name": "partial weights (0.5 grid), n=60", "diffs": diffs, "p": lattice_p(diffs, 0.5),
                  "method": "exact", "reference": "numpy convolution"})
    for name, diffs in [("continuous n=40, shift -0.3",
                         [float(v) for v in np.round(rng.normal(-0.3, 1, 40), 6)]),
                        ("lognormal cost n=100, slight increase",
                         [float(v) for v in np.round(rng.lognormal(0, 1, 100) - rng.lognormal(0.1, 1, 100), 6)]),
                        ("continuous n=50, shift -0.35",
                         [float(v) for v in np.round(rng.normal(-0.35, 1, 50), 6)])]:
        x = np.array(diffs)
        res = st.permutation_test((x, np.zeros_like(x)), lambda a, b, axis: np.mean(a - b, axis=axis),
                                  permutation_type="samples", alternative="less", n_resamples=B_REF,
                                  vectorized=True, random_state=rng)
        p = float(res.pvalue)
        cases.append({"name": name, "diffs": diffs, "p": p, "method": "monte_carlo",
                      "mc_se": math.sqrt(p * (1 - p) / B_REF),
                      "reference": f"scipy.stats.permutation_test(samples, {B_REF} resamples)"})
    write("signflip.json", {"cases": cases})


def main() -> None:
    only = set(sys.argv[1:])
    rng = np.random.default_rng(MASTER_SEED)
    # The shared generator is consumed in this order; a subset still draws the same data.
    steps = [
        ("stream", lambda: exact_stream()),
        ("bh", lambda: bh_reference(rng)),
        ("sigma", lambda: sigma_reference(rng)),
        ("mde", lambda: mde_reference()),
        ("outlier", lambda: outlier_reference(rng)),
        ("bootstrap", lambda: bootstrap_reference(rng)),
        ("signflip", lambda: signflip_reference()),
    ]
    for name, step in steps:
        if only and name not in only and name not in ("bh", "sigma", "outlier"):
            continue
        if only and name not in only:
            # Draw the same numbers without writing, so later steps see the same stream.
            global write
            saved, write = write, (lambda *_a, **_k: None)
            step()
            write = saved
            continue
        step()


if __name__ == "__main__":
    main()
