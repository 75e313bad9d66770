//! The paired sign-flip permutation test of DESIGN §8: is the head run worse than the baseline?
//!
//! Input is the paired differences `dᵢ = head − base`, oriented so that negative is worse.
//! Under the null hypothesis "head and base are exchangeable within each case", every `dᵢ`
//! is as likely to be `+|dᵢ|` as `−|dᵢ|`, so the observed sum is one draw from the `2ᵏ`
//! equally likely sign patterns of the `k` non-zero differences (zeros carry no sign).
//! The one-sided p-value is the share of patterns whose sum is at or below the observed one.
//! Writing the sum as `2·P − A` (`P` the sum of the positive `|dᵢ|`, `A` of all of them), it
//! is the same to count patterns with `P* ≤ P`.
//!
//! # Exact where it is cheap, Monte Carlo otherwise
//!
//! - **Lattice** (0/1 checkpoints, partial weights, compliance steps of one case size): when
//!   every `|dᵢ|` is an integer multiple of a common unit and the integer total is small, the
//!   distribution of `P*` is computed exactly by dynamic programming over the sums
//!   (Streitberg & Röhmel's shift algorithm), for any `k`. For 0/1 metrics this is exactly
//!   the one-sided sign test (`McNemar`'s exact test on the discordant pairs).
//! - **Meet in the middle** for other values with `k ≤` [`EXACT_MAX_K`]: the subset sums of
//!   each half are listed (`2^(k/2)` each) and sorted, and the pairs at or below the observed
//!   sum counted in one merge-like sweep: all `2ᵏ` patterns, in `O(2^(k/2)·k)`.
//! - **Monte Carlo** beyond that: `B` uniformly random sign patterns,
//!   `p = (1 + #{P* ≤ P}) / (B + 1)`, which is a valid p-value at every `n` (the observed
//!   pattern is one of the equally likely ones). Signs come 64 to a random word and sums from
//!   per-byte tables of partial sums (`k/8` lookups per pattern); the observed sum is looked
//!   up through the same tables so that an exact tie rounds the same way.
//!
//! Floating-point ties: two patterns with the same exact sum can round differently, so
//! comparisons allow `4·k·ε·A` of slack (a bound on the rounding error of any subset sum),
//! exactly as the bootstrap does.
//!
//! # Why not the centered bootstrap's p
//!
//! The centered bootstrap approximates the null distribution by resampling `dᵢ − D`; with few
//! cases it is anti-conservative (false-alarm rate ≈ 0.11 at n = 5 and 0.06–0.08 up to
//! n = 30 at α = 0.05, measured by `cargo bench --bench bootstrap`), and with 0/1 data it gives
//! its smallest p when 3 of 5 cases flip, where the exact sign test gives 0.125. The sign-flip
//! test holds its level at every `n`; the bootstrap still gives the confidence interval.
//!
//! # Smallest achievable p (Tarone)
//!
//! The all-negative pattern is the unique minimum of the `2ᵏ` sums, so no data with `k`
//! non-zero differences can give a p-value below `2⁻ᵏ` (nor below `1/(B+1)` by Monte Carlo).
//! A metric whose smallest achievable p exceeds α cannot reach significance and is left out of
//! the multiple-comparison family ([`SignFlip::min_p`]).

use super::describe::check_finite;
use super::error::StatsError;
use super::rng::MetricRng;

/// Largest number of non-zero differences enumerated exactly (meet in the middle:
/// `2 · 2^13` subset sums, well under a millisecond); more use the lattice or Monte Carlo.
pub const EXACT_MAX_K: usize = 26;

/// Largest `k × (integer total)` for which the lattice recursion runs (~16 M updates).
const LATTICE_BUDGET: u64 = 1 << 24;

/// Units tried for the lattice: the smallest `|dᵢ|` divided by 1…this.
const LATTICE_MAX_DIVISOR: u32 = 12;

/// How the p-value was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignFlipMethod {
    /// Every sign pattern counted (lattice recursion or meet in the middle).
    Exact,
    /// `B` random sign patterns.
    MonteCarlo,
}

/// Result of the sign-flip test on one metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignFlip {
    /// One-sided p for "head is worse". 1 when no difference is non-zero.
    pub p_value: f64,
    /// Number of non-zero differences `k`.
    pub nonzero: usize,
    /// Smallest p-value any data with these `|dᵢ|` could give: `2⁻ᵏ`, or `1/(B+1)` if larger
    /// and the test is Monte Carlo. 1 when `k = 0`.
    pub min_p: f64,
    pub method: SignFlipMethod,
}

/// The one-sided paired sign-flip test of `diffs` (oriented: negative is worse). `resamples`
/// and `seed` are used only when the test is Monte Carlo; the stream is the metric's own
/// ([`MetricRng`] of `seed` and `metric`), so results depend only on the multiset of
/// differences, the seed and the name.
pub fn sign_flip_test(
    diffs: &[f64],
    metric: &str,
    resamples: u32,
    seed: u64,
) -> Result<SignFlip, StatsError> {
    if diffs.is_empty() {
        return Err(StatsError::Empty);
    }
    if resamples == 0 {
        return Err(StatsError::Resamples {
            resamples,
            max: u32::MAX,
        });
    }
    check_finite(diffs)?;
    let mut sorted: Vec<f64> = diffs.iter().copied().filter(|d| *d != 0.0).collect();
    sorted.sort_unstable_by(f64::total_cmp);
    let k = sorted.len();
    if k == 0 {
        return Ok(SignFlip {
            p_value: 1.0,
            nonzero: 0,
            min_p: 1.0,
            method: SignFlipMethod::Exact,
        });
    }
    let magnitudes: Vec<f64> = sorted.iter().map(|d| d.abs()).collect();
    let positive: Vec<bool> = sorted.iter().map(|d| *d > 0.0).collect();
    let total: f64 = magnitudes.iter().sum();
    if !total.is_finite() {
        return Err(StatsError::Overflow {
            max_abs: magnitudes.iter().fold(0.0, |m: f64, v| m.max(*v)),
            n: k,
        });
    }
    // 2^-k; 0 only past k = 1074, where any p is below every α anyway.
    let exact_min = 0.5_f64.powi(i32::try_from(k).unwrap_or(i32::MAX));
    if let Some(units) = lattice(&magnitudes) {
        let p = lattice_p(&units, &positive);
        return Ok(SignFlip {
            p_value: p.max(exact_min),
            nonzero: k,
            min_p: exact_min,
            method: SignFlipMethod::Exact,
        });
    }
    let slack = 4.0 * k as f64 * f64::EPSILON * total;
    if k <= EXACT_MAX_K {
        return Ok(SignFlip {
            p_value: meet_in_the_middle_p(&magnitudes, &positive, slack),
            nonzero: k,
            min_p: exact_min,
            method: SignFlipMethod::Exact,
        });
    }
    let p_value = monte_carlo_p(&magnitudes, &positive, slack, resamples, seed, metric);
    Ok(SignFlip {
        p_value,
        nonzero: k,
        min_p: exact_min.max(1.0 / (f64::from(resamples) + 1.0)),
        method: SignFlipMethod::MonteCarlo,
    })
}

/// The magnitudes as integer multiples of a common unit, when there is one and the exact
/// recursion over their sums is affordable.
fn lattice(magnitudes: &[f64]) -> Option<Vec<u64>> {
    let smallest = magnitudes.iter().copied().fold(f64::INFINITY, f64::min);
    let k = magnitudes.len() as u64;
    (1..=LATTICE_MAX_DIVISOR).find_map(|divisor| {
        let unit = smallest / f64::from(divisor);
        let mut total = 0_u64;
        let mut units = Vec::with_capacity(magnitudes.len());
        for &a in magnitudes {
            let r = (a / unit).round();
            if !(r >= 1.0 && (a - r * unit).abs() <= 1e-9 * a) || r > 1e9 {
                return None;
            }
            let r = r as u64;
            total += r;
            if total.saturating_mul(k) > LATTICE_BUDGET {
                return None;
            }
            units.push(r);
        }
        Some(units)
    })
}

/// Exact `P(P* ≤ P)` for integer magnitudes: the distribution of the positive subset sum,
/// built one difference at a time (each enters the sum with probability ½).
fn lattice_p(units: &[u64], positive: &[bool]) -> f64 {
    let total: u64 = units.iter().sum();
    let observed: u64 = units
        .iter()
        .zip(positive)
        .filter(|(_, p)| **p)
        .map(|(u, _)| *u)
        .sum();
    let len = usize::try_from(total)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    let mut dist = vec![0.0_f64; len];
    dist[0] = 1.0;
    let mut reach = 0_usize;
    for &u in units {
        let u = u as usize;
        reach += u;
        for s in (0..=reach).rev() {
            let without = dist[s];
            let with = if s >= u { dist[s - u] } else { 0.0 };
            dist[s] = 0.5 * (without + with);
        }
    }
    let p: f64 = dist[..=observed as usize].iter().sum();
    p.min(1.0)
}

/// Subset sums of `values`: entry `mask` is the sum of the values whose bit is set.
fn subset_sums(values: &[f64]) -> Vec<f64> {
    let mut sums = vec![0.0_f64; 1 << values.len()];
    for mask in 1..sums.len() {
        let low = mask.trailing_zeros() as usize;
        sums[mask] = sums[mask & (mask - 1)] + values[low];
    }
    sums
}

/// Exact `P(P* ≤ P)` by listing both halves' subset sums.
fn meet_in_the_middle_p(magnitudes: &[f64], positive: &[bool], slack: f64) -> f64 {
    let half = magnitudes.len() / 2;
    let (left, right) = magnitudes.split_at(half);
    let mask_of = |signs: &[bool]| {
        signs
            .iter()
            .enumerate()
            .filter(|(_, p)| **p)
            .fold(0_usize, |m, (i, _)| m | (1 << i))
    };
    let mut left_sums = subset_sums(left);
    let mut right_sums = subset_sums(right);
    let observed =
        left_sums[mask_of(&positive[..half])] + right_sums[mask_of(&positive[half..])] + slack;
    left_sums.sort_unstable_by(f64::total_cmp);
    right_sums.sort_unstable_by(f64::total_cmp);
    // Left ascending, so the count of right sums that fit only shrinks: one sweep.
    let mut fit = right_sums.len();
    let mut count = 0_u64;
    for l in &left_sums {
        while fit > 0 && l + right_sums[fit - 1] > observed {
            fit -= 1;
        }
        count += fit as u64;
    }
    let patterns = (left_sums.len() * right_sums.len()) as f64;
    count as f64 / patterns
}

/// Monte Carlo `(1 + #{P* ≤ P}) / (B + 1)` over `resamples` random sign patterns.
fn monte_carlo_p(
    magnitudes: &[f64],
    positive: &[bool],
    slack: f64,
    resamples: u32,
    seed: u64,
    metric: &str,
) -> f64 {
    // tables[g][byte] = sum of magnitudes 8g..8g+8 whose bit is set in `byte`.
    let tables: Vec<[f64; 256]> = magnitudes
        .chunks(8)
        .map(|chunk| {
            let mut t = [0.0_f64; 256];
            for byte in 1..256_usize {
                let low = byte.trailing_zeros() as usize;
                t[byte] = t[byte & (byte - 1)] + chunk.get(low).copied().unwrap_or(0.0);
            }
            t
        })
        .collect();
    let observed_bytes: Vec<u8> = positive
        .chunks(8)
        .map(|chunk| {
            chunk
                .iter()
                .enumerate()
                .filter(|(_, p)| **p)
                .fold(0_u8, |b, (i, _)| b | (1 << i))
        })
        .collect();
    let sum_of = |bytes: &[u8]| -> f64 {
        tables
            .iter()
            .zip(bytes)
            .fold(0.0, |s, (t, b)| s + t[usize::from(*b)])
    };
    let bound = sum_of(&observed_bytes) + slack;
    let mut rng = MetricRng::new(seed, &format!("{metric}\0sign-flip"));
    let mut buffer = vec![0_u8; tables.len().div_ceil(8) * 8];
    let mut at_or_below = 0_u64;
    for _ in 0..resamples {
        for chunk in buffer.chunks_exact_mut(8) {
            chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
        }
        at_or_below += u64::from(sum_of(&buffer) <= bound);
    }
    (1.0 + at_or_below as f64) / (f64::from(resamples) + 1.0)
}

/// Changed cases, all in the same direction, that the one-sided sign-flip test needs for
/// its smallest p-value, `2⁻ᵏ`, to reach `alpha`: `⌈log₂(1/α)⌉` (5 at α = 0.05).
pub fn needed_changed(alpha: f64) -> usize {
    if !(alpha > 0.0 && alpha < 1.0) {
        return 1;
    }
    let mut k = 1;
    while 0.5_f64.powi(i32::try_from(k).unwrap_or(i32::MAX)) > alpha * (1.0 + 1e-12) {
        k += 1;
    }
    k
}

#[cfg(test)]
#[expect(
    clippy::float_cmp,
    reason = "exact tests give exact binomial probabilities"
)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn p(diffs: &[f64]) -> SignFlip {
        sign_flip_test(diffs, "m", 10_000, 42).unwrap()
    }

    /// Brute force over all 2^k patterns, for checking the fast paths.
    fn brute(diffs: &[f64]) -> f64 {
        let nz: Vec<f64> = diffs.iter().copied().filter(|d| *d != 0.0).collect();
        let observed: f64 = nz.iter().sum();
        let k = nz.len();
        let mut count = 0_u64;
        for mask in 0..(1_u64 << k) {
            let s: f64 = nz
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    if mask >> i & 1 == 1 {
                        d.abs()
                    } else {
                        -d.abs()
                    }
                })
                .sum();
            count += u64::from(s <= observed + 1e-9);
        }
        count as f64 / (1_u64 << k) as f64
    }

    #[test]
    fn three_of_five_flips_is_the_exact_sign_test() {
        // 3 discordant pairs, all worse: P = (1/2)^3 = 0.125 (the example).
        let r = p(&[-1.0, -1.0, -1.0, 0.0, 0.0]);
        assert_eq!(
            (r.p_value, r.nonzero, r.min_p, r.method),
            (0.125, 3, 0.125, SignFlipMethod::Exact)
        );
    }

    #[test]
    fn binary_data_gives_the_binomial_tail_at_any_k() {
        // 10 worse, 2 better of 12 discordant: P(X <= 2), X ~ Bin(12, 1/2) = 79/4096.
        let mut d = vec![-1.0; 10];
        d.extend([1.0, 1.0]);
        d.extend([0.0; 17]);
        let r = p(&d);
        assert!((r.p_value - 79.0 / 4096.0).abs() < 1e-15, "{r:?}");
        // 40 discordant (beyond meet in the middle), 28 worse: P(X <= 12), X ~ Bin(40, 1/2);
        // scipy.stats.binom.cdf(12, 40, 0.5) = 0.008294501687487355.
        let mut d = vec![-1.0; 28];
        d.extend([1.0; 12]);
        let r = p(&d);
        assert_eq!(r.method, SignFlipMethod::Exact);
        assert!(
            (r.p_value - 0.008_294_501_687_487_355).abs() < 1e-15,
            "{r:?}"
        );
    }

    #[test]
    fn the_93_to_69_percent_example_is_significant() {
        // Issue 9: a checkpoint that passed in 27 of 29 cases passes in 20: 7 cases flipped
        // to FAIL, none back: (1/2)^7. With one case flipping back (8 down, 1 up) it is
        // P(X <= 1), X ~ Bin(9, 1/2) = 10/512.
        let mut d = vec![-1.0; 7];
        d.extend([0.0; 22]);
        assert_eq!(p(&d).p_value, 1.0 / 128.0);
        let mut d = vec![-1.0; 8];
        d.push(1.0);
        d.extend([0.0; 20]);
        let r = p(&d);
        assert!((r.p_value - 10.0 / 512.0).abs() < 1e-15, "{r:?}");
    }

    #[test]
    fn all_paths_agree_with_brute_force() {
        let cases: [&[f64]; 5] = [
            &[-0.3, 0.1, -0.7, 0.25, -0.05, 1.5, -2.0],
            &[-0.5, -1.0, 0.5, -0.5, 0.0, 1.0],
            &[0.1, 0.2, -0.3, -0.1, -0.2, 0.3],
            &[
                -8.333_333_333_333_334,
                16.666_666_666_666_668,
                -25.0,
                -8.333_333_333_333_334,
            ],
            &[
                -1.234, -0.001, 3.0, -0.5, 0.75, -0.25, -1.0, 0.3, -0.9, 0.11, -0.2, 0.4,
            ],
        ];
        for d in cases {
            let r = p(d);
            assert!(
                (r.p_value - brute(d)).abs() < 1e-12,
                "{d:?}: {r:?} vs {}",
                brute(d)
            );
        }
    }

    #[test]
    fn meet_in_the_middle_handles_ties_and_odd_k() {
        // Irrational-looking magnitudes (no small lattice) with exact ties among them.
        let d = [
            0.1,
            0.2,
            0.3,
            -0.1,
            -0.2,
            -0.3,
            0.7_f64.sqrt(),
            -(0.7_f64.sqrt()),
            0.05,
        ];
        assert!(lattice(&d.map(f64::abs)).is_none());
        assert!((p(&d).p_value - brute(&d)).abs() < 1e-12);
    }

    #[test]
    fn monte_carlo_is_close_to_exact_and_deterministic() {
        // 40 magnitudes 1000 + √i·10⁻⁶ (no common unit, so Monte Carlo) against the exact
        // lattice value of the integers 1000 with the same signs. The perturbations never
        // reorder patterns with different numbers of positive signs, and the observed
        // positives are the 13 largest, so every pattern with 13 positives is at or below it.
        let sign = |i: u32| if i > 27 { 1.0 } else { -1.0 };
        let d: Vec<f64> = (1..=40)
            .map(|i| sign(i) * (1000.0 + f64::from(i).sqrt() * 1e-6))
            .collect();
        let mc = sign_flip_test(&d, "m", 20_000, 7).unwrap();
        assert_eq!(mc.method, SignFlipMethod::MonteCarlo);
        let ints: Vec<f64> = (1..=40).map(|i| sign(i) * 1000.0).collect();
        let exact = p(&ints);
        assert_eq!(exact.method, SignFlipMethod::Exact);
        let se = (exact.p_value * (1.0 - exact.p_value) / 20_000.0).sqrt();
        assert!(
            (mc.p_value - exact.p_value).abs() < 4.0 * se + 1e-4,
            "{mc:?} vs {exact:?}"
        );
        assert_eq!(mc, sign_flip_test(&d, "m", 20_000, 7).unwrap());
        assert_ne!(
            mc.p_value,
            sign_flip_test(&d, "m", 20_000, 8).unwrap().p_value
        );
        assert_eq!(mc.min_p, 1.0 / 20_001.0);
    }

    #[test]
    fn no_variation_and_bad_input() {
        let r = p(&[0.0; 12]);
        assert_eq!((r.p_value, r.nonzero, r.min_p), (1.0, 0, 1.0));
        assert_eq!(sign_flip_test(&[], "m", 100, 0), Err(StatsError::Empty));
        assert!(sign_flip_test(&[1.0, f64::NAN], "m", 100, 0).is_err());
        assert!(sign_flip_test(&[1.0], "m", 0, 0).is_err());
        assert!(sign_flip_test(&[f64::MAX, f64::MAX], "m", 100, 0).is_err());
    }

    #[test]
    fn a_drop_on_every_case_gives_the_smallest_p() {
        let r = p(&[-1.0; 6]);
        assert_eq!((r.p_value, r.min_p), (1.0 / 64.0, 1.0 / 64.0));
        let r = p(&[2.0; 6]);
        assert_eq!(r.p_value, 1.0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn exact_paths_match_brute_force(d in prop::collection::vec(
            prop_oneof![Just(0.0), -3.0_f64..3.0, (-4_i32..=4).prop_map(|i| f64::from(i) * 0.5)],
            1..13,
        )) {
            let r = p(&d);
            prop_assert!((r.p_value - brute(&d)).abs() < 1e-9, "{:?} {:?}", d, r);
            prop_assert!(r.p_value >= r.min_p && r.p_value <= 1.0);
        }

        #[test]
        fn case_order_does_not_matter(d in prop::collection::vec(-10.0_f64..10.0, 31..60), seed in any::<u64>()) {
            let mut rev = d.clone();
            rev.reverse();
            prop_assert_eq!(
                sign_flip_test(&d, "m", 500, seed).unwrap(),
                sign_flip_test(&rev, "m", 500, seed).unwrap()
            );
        }
    }

    #[test]
    fn the_changed_cases_the_sign_flip_test_needs() {
        // 2^-k ≤ α: 5 at 0.05 (1/32 = 0.031), 7 at 0.01 (1/128), 1 at 0.5.
        assert_eq!(needed_changed(0.05), 5);
        assert_eq!(needed_changed(0.01), 7);
        assert_eq!(needed_changed(0.5), 1);
        assert_eq!(needed_changed(1.0 / 32.0), 5, "on the boundary");
        assert_eq!(needed_changed(0.0), 1, "out of range: no loop");
        // The test's own smallest p agrees: k changed cases give 2^-k.
        for k in 1..=8_usize {
            let diffs = vec![-1.0; k];
            let r = sign_flip_test(&diffs, "m", 1_000, 7).unwrap();
            assert_eq!(needed_changed(r.min_p), k, "k = {k}: min p {}", r.min_p);
        }
    }
}
