#!/usr/bin/env python3
"""Time scipy on the bench data written by `cargo bench --bench bootstrap`.

Loads bench/out/diffs.npy (float64, 100 metrics x 1,000 cases), and for each metric runs
`scipy.stats.bootstrap((d,), np.mean, n_resamples=10_000, method="percentile",
vectorized=True)`: the same 10^9 index draws as the Rust batch, vectorized by scipy. One
full pass over the 100 metrics is one run; prints each run, then `MEDIAN_SECONDS <s>`.
Then the same for the sign-flip test: `scipy.stats.permutation_test` with
`permutation_type="samples"` (pairs swapped = signs flipped), 10,000 resamples, one-sided,
vectorized; prints `SIGNFLIP_MEDIAN_SECONDS <s>`.

    python3 bench/bootstrap_scipy.py [--runs N]      (default 3: a run takes tens of seconds)
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import scipy
import scipy.stats as st


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parent / "out" / "diffs.npy")
    args = parser.parse_args()
    data = np.load(args.data)
    metrics, cases = data.shape
    print(f"scipy {scipy.__version__} / numpy {np.__version__}: {cases} cases x {metrics} metrics x 10000 resamples")
    rng = np.random.default_rng(2024)
    times, cpu = [], []
    for run in range(args.runs):
        cpu_start = time.process_time()
        start = time.perf_counter()
        for row in data:
            st.bootstrap((row,), np.mean, n_resamples=10_000, confidence_level=0.95,
                         method="percentile", vectorized=True, rng=rng)
        elapsed = time.perf_counter() - start
        times.append(elapsed)
        cpu.append(time.process_time() - cpu_start)
        print(f"  run {run + 1}: {elapsed:.2f} s wall, {cpu[-1]:.2f} s CPU")
    print(f"  {args.runs} runs: median {statistics.median(times):.2f} s, min {min(times):.2f} s, max {max(times):.2f} s")
    print(f"  CPU time per run: median {statistics.median(cpu):.2f} s")
    print(f"MEDIAN_SECONDS {statistics.median(times):.6f}")

    flip = []
    for run in range(args.runs):
        start = time.perf_counter()
        for row in data:
            st.permutation_test((row, np.zeros_like(row)), lambda a, b, axis: np.mean(a - b, axis=axis),
                                permutation_type="samples", alternative="less", n_resamples=10_000,
                                vectorized=True, rng=rng)
        flip.append(time.perf_counter() - start)
        print(f"  permutation_test run {run + 1}: {flip[-1]:.2f} s wall")
    print(f"SIGNFLIP_MEDIAN_SECONDS {statistics.median(flip):.6f}")


if __name__ == "__main__":
    main()
