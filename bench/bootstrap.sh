#!/usr/bin/env bash
# Bootstrap bench: Rust (agenteval-gate) vs scipy on identical data, then simulated power.
#
#   bench/bootstrap.sh [RUST_RUNS] [SCIPY_RUNS]        (defaults 7 and 3)
#
# The Rust bench writes bench/out/diffs.npy, which the scipy bench reads. Both print
# `MEDIAN_SECONDS`; this script prints both medians and their ratio. The machine load is
# printed too: on a shared 2-core box, other processes inflate both numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
rust_runs="${1:-7}"
scipy_runs="${2:-3}"
mkdir -p bench/out

echo "== load before: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min), $(nproc) cores"
cargo bench --bench bootstrap -- timing --runs "$rust_runs" 2>/dev/null | tee bench/out/rust.txt
echo
python3 bench/bootstrap_scipy.py --runs "$scipy_runs" | tee bench/out/scipy.txt
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"

rust=$(awk '/^MEDIAN_SECONDS/ {print $2}' bench/out/rust.txt)
scipy=$(awk '/^MEDIAN_SECONDS/ {print $2}' bench/out/scipy.txt)
echo
python3 - "$rust" "$scipy" <<'PY'
import sys
rust, scipy = map(float, sys.argv[1:])
print(f"median wall time, 1,000 cases x 100 metrics x 10,000 resamples:")
print(f"  agenteval-gate (Rust, rayon): {rust:8.3f} s")
print(f"  scipy.stats.bootstrap:        {scipy:8.3f} s")
print(f"  ratio scipy / Rust:           {scipy / rust:8.1f}x")
PY
echo
cargo bench --bench bootstrap -- power 2>/dev/null
