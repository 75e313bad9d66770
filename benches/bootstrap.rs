//! Statistics bench (DESIGN §12): 1,000 cases × 100 metrics × 10,000 resamples, timed over
//! several runs on all threads and on one; then a simulation of the false-alarm rate (size)
//! and power of the gate's test (the sign-flip test) next to the centered bootstrap p it
//! replaced, on the same simulated data.
//!
//! ```text
//! cargo bench --bench bootstrap                 # timing, then power
//! cargo bench --bench bootstrap -- timing       # timing only (also writes bench/out/)
//! cargo bench --bench bootstrap -- power        # size and power only
//! cargo bench --bench bootstrap -- timing --runs 11
//! ```
//!
//! Timing writes the exact inputs to `bench/out/diffs.npy` (float64, shape 100 × 1000) so
//! `bench/bootstrap_scipy.py` times scipy on the same data; `bench/bootstrap.sh` runs both.
//! The last line of the timing section is `MEDIAN_SECONDS <s>` for that script.
#![expect(
    clippy::print_stdout,
    clippy::expect_used,
    reason = "a bench harness reports on stdout and stops on impossible setup failures"
)]

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use agenteval_gate::stats::{
    BootstrapConfig, MetricRng, minimum_detectable_effect, paired_bootstrap, paired_bootstrap_many,
    paired_test_many, sign_flip_test,
};
use statrs::distribution::{ContinuousCDF, Normal};

const CASES: usize = 1_000;
const METRICS: usize = 100;
const SEED: u64 = 2024;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let only_power = args.iter().any(|a| a == "power");
    let only_timing = args.iter().any(|a| a == "timing");
    if !only_power {
        timing(runs);
    }
    if !only_timing {
        power();
    }
}

fn uniform(rng: &mut MetricRng) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 0.5) / (1_u64 << 53) as f64
}

fn normal(rng: &mut MetricRng) -> f64 {
    let (u, v) = (uniform(rng), uniform(rng));
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// 100 metrics over 1,000 cases: 70 continuous (scores, cost, latency-like, some shifted)
/// and 30 paired 0/1 checkpoints (differences in {-1, 0, 1}).
fn bench_data() -> Vec<(String, Vec<f64>)> {
    (0..METRICS)
        .map(|m| {
            let mut rng = MetricRng::new(SEED, &format!("bench-data:{m}"));
            let diffs: Vec<f64> = if m < 70 {
                let sd = 0.5 + (m % 7) as f64;
                let shift = if m % 5 == 0 { -0.1 * sd } else { 0.0 };
                (0..CASES).map(|_| shift + sd * normal(&mut rng)).collect()
            } else {
                let (base_rate, head_rate) = (0.8, if m % 3 == 0 { 0.75 } else { 0.8 });
                (0..CASES)
                    .map(|_| {
                        let base = f64::from(u8::from(uniform(&mut rng) < base_rate));
                        let head = f64::from(u8::from(uniform(&mut rng) < head_rate));
                        head - base
                    })
                    .collect()
            };
            (format!("metric_{m:03}"), diffs)
        })
        .collect()
}

/// Writes `rows` as a C-order float64 `.npy` (format version 1.0).
fn write_npy(path: &Path, rows: &[Vec<f64>]) -> std::io::Result<()> {
    let cols = rows.first().map_or(0, Vec::len);
    let mut header = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': ({}, {cols}), }}",
        rows.len()
    );
    // Magic (6) + version (2) + header length (2) + header, padded to a multiple of 64.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    let header_len = u16::try_from(header.len()).map_err(std::io::Error::other)?;
    bytes.extend_from_slice(&header_len.to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    for value in rows.iter().flatten() {
        bytes.extend_from_slice(&value.to_le_bytes());
    }
    fs::write(path, bytes)
}

/// CPU time (user + system) of this process so far, from `/proc/self/stat` (Linux; the
/// kernel reports it in `USER_HZ` = 100 ticks per second). `None` elsewhere.
fn cpu_seconds() -> Option<f64> {
    let stat = fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name: state is the first, utime the 12th.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn summary(times: &mut [Duration]) -> (f64, f64, f64) {
    times.sort();
    let secs = |d: Duration| d.as_secs_f64();
    (
        secs(times[times.len() / 2]),
        secs(times[0]),
        secs(times[times.len() - 1]),
    )
}

fn timing(runs: usize) {
    let data = bench_data();
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/out");
    let npy = out.join("diffs.npy");
    let rows: Vec<Vec<f64>> = data.iter().map(|(_, d)| d.clone()).collect();
    if let Err(err) = fs::create_dir_all(&out).and_then(|()| write_npy(&npy, &rows)) {
        println!("warning: cannot write {}: {err}", npy.display());
    }
    let items: Vec<(&str, &[f64])> = data
        .iter()
        .map(|(m, d)| (m.as_str(), d.as_slice()))
        .collect();
    let cfg = BootstrapConfig::new(10_000, 0.95, SEED).expect("valid bench config");
    let draws = (CASES * METRICS) as f64 * f64::from(cfg.resamples);
    println!(
        "bootstrap: {CASES} cases x {METRICS} metrics x {} resamples = {draws:.0} index draws, {} threads",
        cfg.resamples,
        rayon::current_num_threads()
    );

    // Warm-up, and the reference result every timed run must reproduce exactly.
    let reference = paired_bootstrap_many(&items, &cfg);
    let mut times = Vec::with_capacity(runs);
    let mut cpu = Vec::with_capacity(runs);
    for _ in 0..runs {
        let cpu_start = cpu_seconds();
        let start = Instant::now();
        let results = paired_bootstrap_many(&items, &cfg);
        times.push(start.elapsed());
        if let (Some(a), Some(b)) = (cpu_start, cpu_seconds()) {
            cpu.push(b - a);
        }
        assert_eq!(results, reference, "a run gave different numbers");
    }
    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("one-thread pool");
    let mut one_thread_times = Vec::with_capacity(runs);
    for _ in 0..runs.div_ceil(2) {
        let start = Instant::now();
        let one_thread = single.install(|| paired_bootstrap_many(&items, &cfg));
        one_thread_times.push(start.elapsed());
        assert_eq!(one_thread, reference, "thread count changed the numbers");
    }
    let (one_thread_secs, _, _) = summary(&mut one_thread_times);

    let alarms = reference
        .iter()
        .flatten()
        .filter(|r| r.p_value < 0.05)
        .count();
    println!(
        "  {alarms}/{METRICS} metrics with bootstrap p < 0.05 (20 continuous and 10 checkpoint metrics carry a true drop)"
    );
    let (median, min, max) = summary(&mut times);
    println!("  bootstrap CI, {runs} runs: median {median:.3} s, min {min:.3} s, max {max:.3} s");
    if cpu.len() == runs {
        cpu.sort_by(f64::total_cmp);
        let cpu_median = cpu[cpu.len() / 2];
        println!(
            "  CPU time per run: median {cpu_median:.2} s over all threads ({:.2} ns per draw); other processes on a busy machine inflate wall time, much less CPU time",
            cpu_median / draws * 1e9
        );
    }
    println!(
        "  per index draw: {:.2} ns wall, {:.2} ns on one thread",
        median / draws * 1e9,
        one_thread_secs / draws * 1e9
    );
    println!("ONE_THREAD_SECONDS {one_thread_secs:.6}");

    // The whole per-metric test of a compare: sign-flip p plus bootstrap CI.
    let full_reference = paired_test_many(&items, &cfg);
    let mut full_times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let results = paired_test_many(&items, &cfg);
        full_times.push(start.elapsed());
        assert_eq!(results, full_reference, "a run gave different numbers");
    }
    let (full_median, _, _) = summary(&mut full_times);
    let mut flip_times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        for (m, d) in &items {
            sign_flip_test(d, m, cfg.resamples, cfg.seed).expect("finite bench data");
        }
        flip_times.push(start.elapsed());
    }
    let (flip_median, _, _) = summary(&mut flip_times);
    let flips = full_reference
        .iter()
        .flatten()
        .filter(|r| r.p_value <= 0.05)
        .count();
    println!(
        "  the gate's test (sign-flip p + bootstrap CI), {runs} runs: median {full_median:.3} s; the sign-flip part alone, one thread: median {flip_median:.3} s; {flips}/{METRICS} metrics with p <= 0.05"
    );
    println!("SIGNFLIP_ONE_THREAD_SECONDS {flip_median:.6}");
    println!("  data: {}", npy.display());
    println!("MEDIAN_SECONDS {median:.6}");
}

/// Simulated paired differences: `compares` samples of `n`, shifted by `shift_sd` standard
/// deviations of one difference (negative = worse).
fn simulated(
    compares: usize,
    n: usize,
    shift_sd: f64,
    checkpoint: bool,
) -> Vec<(String, Vec<f64>)> {
    let mut rng = MetricRng::new(SEED, &format!("power:{n}:{shift_sd}:{checkpoint}"));
    (0..compares)
        .map(|i| {
            let diffs = if checkpoint {
                // Pass rate 0.7 before; after, lower by `shift_sd` standard deviations of one diff.
                let head_rate = 0.7 - shift_sd * (2.0_f64 * 0.7 * 0.3).sqrt();
                (0..n)
                    .map(|_| {
                        let base = f64::from(u8::from(uniform(&mut rng) < 0.7));
                        f64::from(u8::from(uniform(&mut rng) < head_rate)) - base
                    })
                    .collect()
            } else {
                (0..n).map(|_| normal(&mut rng) - shift_sd).collect()
            };
            (format!("sim:{i}"), diffs)
        })
        .collect()
}

/// Rejection rates at α of the centered bootstrap p (`p < α`, as the gate used to decide)
/// and of the sign-flip test (`p ≤ α`), on the same simulated data.
fn rejection_rates(data: &[(String, Vec<f64>)], cfg: &BootstrapConfig) -> (f64, f64) {
    let items: Vec<(&str, &[f64])> = data
        .iter()
        .map(|(m, d)| (m.as_str(), d.as_slice()))
        .collect();
    let boot = paired_bootstrap_many(&items, cfg)
        .iter()
        .flatten()
        .filter(|r| r.p_value < 0.05)
        .count();
    let flip = paired_test_many(&items, cfg)
        .iter()
        .flatten()
        .filter(|r| r.p_value <= 0.05)
        .count();
    let total = data.len() as f64;
    (boot as f64 / total, flip as f64 / total)
}

fn power() {
    const COMPARES: usize = 4_000;
    let cfg = BootstrapConfig::new(2_000, 0.95, SEED).expect("valid power config");
    let z = Normal::standard();
    println!(
        "\nsize and power at alpha = 0.05 ({COMPARES} simulated compares per cell, B = {}; shift in sd of one difference;",
        cfg.resamples
    );
    println!(
        "the MC standard error of a rate r is sqrt(r(1-r)/{COMPARES}): 0.0034 at 0.05, at most 0.008)"
    );
    println!(
        "{:>22} {:>5} {:>6} {:>14} {:>14} {:>12}",
        "data", "n", "shift", "old bootstrap", "sign-flip", "normal pred."
    );
    for (label, checkpoint) in [("normal", false), ("paired 0/1 (rate 0.7)", true)] {
        for n in [5, 8, 12, 20, 30, 100] {
            for shift in [0.0, 0.3, 0.5] {
                let data = simulated(COMPARES, n, shift, checkpoint);
                let (boot, flip) = rejection_rates(&data, &cfg);
                let predicted = z.cdf(shift * (n as f64).sqrt() - z.inverse_cdf(0.95));
                println!(
                    "{label:>22} {n:>5} {shift:>6.2} {boot:>14.4} {flip:>14.4} {predicted:>12.3}"
                );
            }
        }
    }
    // The MDE the PR comment reports for sd 1: its simulated power should be near 0.8.
    for n in [30, 100] {
        if let Some(mde) = minimum_detectable_effect(n, 1.0, 0.05) {
            let data = simulated(COMPARES, n, mde, false);
            let (_, flip) = rejection_rates(&data, &cfg);
            println!(
                "normal n = {n}: MDE (power 0.8 by normal approx.) = {mde:.3} sd, simulated power of the sign-flip test {flip:.3}"
            );
        }
    }
    let sanity = paired_bootstrap(&[0.0; 10], "sanity", &cfg).map(|r| r.p_value);
    println!("identical runs: p = {sanity:?}");
}
