#!/usr/bin/env bash
# Statistics bench: Rust (agenteval-gate) vs scipy on identical data (the bootstrap CI on all
# threads and on one; the sign-flip test on one thread vs scipy.stats.permutation_test), then
# the simulated size and power of the gate's test next to the old centered bootstrap p.
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
rust1=$(awk '/^ONE_THREAD_SECONDS/ {print $2}' bench/out/rust.txt)
flip1=$(awk '/^SIGNFLIP_ONE_THREAD_SECONDS/ {print $2}' bench/out/rust.txt)
scipy=$(awk '/^MEDIAN_SECONDS/ {print $2}' bench/out/scipy.txt)
scipyflip=$(awk '/^SIGNFLIP_MEDIAN_SECONDS/ {print $2}' bench/out/scipy.txt)
echo
python3 - "$rust" "$rust1" "$scipy" "$flip1" "$scipyflip" "$(nproc)" <<'PY'
import sys
rust, rust1, scipy, flip1, scipyflip = map(float, sys.argv[1:6])
threads = sys.argv[6]
print("median wall time, 1,000 cases x 100 metrics x 10,000 resamples (scipy is single-threaded):")
print(f"  bootstrap CI, agenteval-gate on {threads} threads: {rust:8.3f} s   scipy / Rust = {scipy / rust:6.1f}x")
print(f"  bootstrap CI, agenteval-gate on 1 thread:  {rust1:8.3f} s   scipy / Rust = {scipy / rust1:6.1f}x")
print(f"  scipy.stats.bootstrap:                     {scipy:8.3f} s")
print(f"  sign-flip test, agenteval-gate on 1 thread:{flip1:8.3f} s   scipy / Rust = {scipyflip / flip1:6.1f}x")
print(f"  scipy.stats.permutation_test:              {scipyflip:8.3f} s")
PY
echo
cargo bench --bench bootstrap -- power 2>/dev/null
