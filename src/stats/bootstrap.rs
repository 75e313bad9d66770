//! The one-sided paired bootstrap of DESIGN §8: is the head run worse than the baseline?
//!
//! Input is the paired differences `dᵢ = head − base`, already oriented so that negative is
//! worse. With `D = mean(d)`, the null distribution of `D` is approximated by resampling the
//! centered differences `cᵢ = dᵢ − D` (`n` draws with replacement, `B` times), and
//! `p = (1 + #{mean*(c) ≤ D}) / (B + 1)`. The confidence interval of `D` is the percentile
//! interval of the uncentered resample means (numpy's linear percentile, as
//! `scipy.stats.bootstrap(method="percentile")`).
//!
//! # One pass
//!
//! Each resample sum `S* = Σ d*` serves both: the uncentered mean is `S*/n`, and the centered
//! mean is `S*/n − D`, so the event `mean*(c) ≤ D` is `S* ≤ 2·S` with `S = Σ d`. The
//! comparison allows `2·n²·ε·max|d|` of slack (ε = 2⁻⁵²), a bound on the rounding error of
//! either sum, so exact ties count as `≤` whatever order the additions ran in. Ties are
//! frequent with 0/1 checkpoint data, where a resample often reproduces the observed sum; data
//! on any coarser grid than the slack are either tied or far apart, and for continuous data
//! the chance of landing inside the slack without a tie is of order slack / spread (~10⁻¹⁰
//! at n = 1,000). Resampling indices come from [`super::sampler`]: several exact draws per
//! random word, no division per draw.
//!
//! # Determinism
//!
//! The differences are sorted first, so the result depends only on the multiset of
//! differences, `cfg`, and the metric name (which, with `cfg.seed`, seeds the metric's own
//! stream: see [`super::rng`]). Permuting the cases or adding another metric changes nothing,
//! bit for bit, and [`paired_bootstrap_many`] equals calling [`paired_bootstrap`] per metric.
//!
//! # All-equal differences
//!
//! When every `dᵢ` is the same value `d` (identical runs give `d = 0`), every resample mean
//! is `d`; the result is computed directly: `CI = [d, d]`, `p = 1` when `d ≥ 0`, and
//! `p = 1/(B + 1)` (the smallest possible) when `d < 0`, because a drop on every single
//! case is the strongest evidence of a regression the test can see. That is what the formula
//! gives in exact arithmetic; the shortcut only keeps rounding out of it.

use rayon::prelude::*;

use super::bootstrap_config::BootstrapConfig;
use super::describe::{all_equal, check_finite, sample_sd};
use super::error::StatsError;
use super::percentile::percentile_pair;
use super::rng::MetricRng;
use super::sampler::{DigitPlan, resample_sums};

/// Result of a paired bootstrap on one metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedBootstrap {
    /// Number of paired cases.
    pub n: usize,
    /// Observed mean difference `D` (head − base, negative is worse).
    pub mean_diff: f64,
    /// One-sided p-value for "head is worse": in `[1/(B+1), 1]`.
    pub p_value: f64,
    /// Lower end of the percentile confidence interval of `D`.
    pub ci_low: f64,
    /// Upper end of the percentile confidence interval of `D`.
    pub ci_high: f64,
    /// Sample standard deviation of the differences; `None` for `n < 2`.
    pub sd_diff: Option<f64>,
}

/// The paired bootstrap of `diffs` for `metric`; `None` when there is nothing to estimate
/// (no differences, a non-finite one, values too large to sum, or an invalid `cfg`).
/// [`try_paired_bootstrap`] says which.
pub fn paired_bootstrap(
    diffs: &[f64],
    metric: &str,
    cfg: &BootstrapConfig,
) -> Option<PairedBootstrap> {
    try_paired_bootstrap(diffs, metric, cfg).ok()
}

/// [`paired_bootstrap`] with the reason when no estimate can be made.
pub fn try_paired_bootstrap(
    diffs: &[f64],
    metric: &str,
    cfg: &BootstrapConfig,
) -> Result<PairedBootstrap, StatsError> {
    cfg.validate()?;
    if diffs.is_empty() {
        return Err(StatsError::Empty);
    }
    check_finite(diffs)?;
    let n = diffs.len();
    let mut sorted = diffs.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let (first, last) = (sorted[0], sorted[n - 1]);
    let max_abs = first.abs().max(last.abs());
    // Keeps every sum below (resamples, 2·S, slack) finite.
    if !(max_abs * n as f64 * 4.0).is_finite() {
        return Err(StatsError::Overflow { max_abs, n });
    }
    let sd_diff = sample_sd(&sorted);
    let resamples = cfg.resamples as usize;

    if all_equal(&[first, last]) {
        // `+ 0.0` turns a -0.0 into 0.0.
        let d = first + 0.0;
        let p_value = if d >= 0.0 {
            1.0
        } else {
            1.0 / (resamples as f64 + 1.0)
        };
        return Ok(PairedBootstrap {
            n,
            mean_diff: d,
            p_value,
            ci_low: d,
            ci_high: d,
            sd_diff,
        });
    }

    let sum: f64 = sorted.iter().sum();
    let mean_diff = sum / n as f64 + 0.0;
    let Some(plan) = DigitPlan::new(n) else {
        return Err(StatsError::Empty);
    };
    let mut rng = MetricRng::new(cfg.seed, metric);
    let mut means = Vec::with_capacity(resamples);
    resample_sums(&sorted, &plan, &mut rng, resamples, &mut means);

    let n_f = n as f64;
    let slack = 2.0 * n_f * n_f * f64::EPSILON * max_abs;
    let bound = 2.0 * sum + slack;
    let mut at_or_below = 0_usize;
    for s in &mut means {
        at_or_below += usize::from(*s <= bound);
        *s /= n_f;
    }
    let p_value = (1.0 + at_or_below as f64) / (resamples as f64 + 1.0);

    let tail = (1.0 - cfg.confidence) / 2.0;
    let (ci_low, ci_high) = percentile_pair(&mut means, tail, 1.0 - tail);
    Ok(PairedBootstrap {
        n,
        mean_diff,
        p_value,
        ci_low,
        ci_high,
        sd_diff,
    })
}

/// [`paired_bootstrap`] for many metrics at once, in parallel (rayon), in input order.
/// Identical, bit for bit, to calling [`paired_bootstrap`] on each item.
pub fn paired_bootstrap_many(
    items: &[(&str, &[f64])],
    cfg: &BootstrapConfig,
) -> Vec<Option<PairedBootstrap>> {
    items
        .par_iter()
        .map(|&(metric, diffs)| paired_bootstrap(diffs, metric, cfg))
        .collect()
}

/// [`paired_bootstrap_many`] with the reason for every missing estimate.
pub fn try_paired_bootstrap_many(
    items: &[(&str, &[f64])],
    cfg: &BootstrapConfig,
) -> Vec<Result<PairedBootstrap, StatsError>> {
    items
        .par_iter()
        .map(|&(metric, diffs)| try_paired_bootstrap(diffs, metric, cfg))
        .collect()
}

#[cfg(test)]
#[expect(
    clippy::float_cmp,
    reason = "the tests assert exact, reproducible results"
)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn cfg(resamples: u32) -> BootstrapConfig {
        BootstrapConfig::new(resamples, 0.95, 42).unwrap()
    }

    /// Deterministic pseudo-normal noise (sum of uniforms) for test data.
    fn noise(seed: u64, n: usize) -> Vec<f64> {
        let mut rng = MetricRng::new(seed, "test-noise");
        (0..n)
            .map(|_| {
                (0..4)
                    .map(|_| (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64 - 0.5)
                    .sum()
            })
            .collect()
    }

    #[test]
    fn invalid_input_gives_none_with_a_reason() {
        assert_eq!(paired_bootstrap(&[], "m", &cfg(100)), None);
        assert_eq!(
            try_paired_bootstrap(&[], "m", &cfg(100)),
            Err(StatsError::Empty)
        );
        let err = try_paired_bootstrap(&[0.0, f64::NAN, 1.0], "m", &cfg(100)).unwrap_err();
        assert!(
            matches!(err, StatsError::NonFinite { index: 1, .. }),
            "{err:?}"
        );
        let err = try_paired_bootstrap(&[f64::MAX, -f64::MAX], "m", &cfg(100)).unwrap_err();
        assert!(matches!(err, StatsError::Overflow { n: 2, .. }), "{err:?}");
    }

    #[test]
    fn identical_runs_never_regress() {
        let r = paired_bootstrap(&[0.0; 40], "task_success", &cfg(10_000)).unwrap();
        assert_eq!(
            (r.p_value, r.mean_diff, r.ci_low, r.ci_high),
            (1.0, 0.0, 0.0, 0.0)
        );
        assert_eq!(r.sd_diff, Some(0.0));
        assert_eq!(r.n, 40);
        // -0.0 from e.g. 0.3 - 0.3 with a sign is still reported as 0.
        let r = paired_bootstrap(&[-0.0, 0.0, -0.0], "m", &cfg(100)).unwrap();
        assert_eq!(r.mean_diff.to_bits(), 0.0_f64.to_bits());
    }

    #[test]
    fn all_equal_differences_follow_the_formula_exactly() {
        // 0.1 summed ten times is not 1.0: the shortcut keeps the CI exactly at the value.
        let up = paired_bootstrap(&[0.1; 10], "m", &cfg(999)).unwrap();
        assert_eq!(
            (up.p_value, up.mean_diff, up.ci_low, up.ci_high),
            (1.0, 0.1, 0.1, 0.1)
        );
        let down = paired_bootstrap(&[-0.1; 10], "m", &cfg(999)).unwrap();
        assert_eq!(
            down.p_value,
            1.0 / 1000.0,
            "a drop on every case is maximal evidence"
        );
        assert_eq!((down.ci_low, down.ci_high), (-0.1, -0.1));
        let single = paired_bootstrap(&[-2.0], "m", &cfg(999)).unwrap();
        assert_eq!(
            (single.n, single.p_value, single.sd_diff),
            (1, 1.0 / 1000.0, None)
        );
    }

    #[test]
    fn a_clear_drop_has_the_smallest_p_and_a_negative_ci() {
        let diffs: Vec<f64> = noise(1, 30).iter().map(|e| e - 1.0).collect();
        let r = paired_bootstrap(&diffs, "m", &cfg(10_000)).unwrap();
        assert_eq!(r.p_value, 1.0 / 10_001.0);
        assert!(
            r.ci_low < r.mean_diff && r.mean_diff < r.ci_high && r.ci_high < 0.0,
            "{r:?}"
        );
    }

    #[test]
    fn a_clear_gain_has_p_one() {
        let diffs: Vec<f64> = noise(2, 30).iter().map(|e| e + 1.0).collect();
        let r = paired_bootstrap(&diffs, "m", &cfg(10_000)).unwrap();
        assert_eq!(r.p_value, 1.0);
        assert!(r.ci_low > 0.0, "{r:?}");
    }

    #[test]
    fn exact_ties_count_as_at_or_below() {
        // D = 0 with 0/±1 differences: a resample sum of exactly 0 is a tie and must count.
        // Simulated with numpy (200,000 resamples): P(S* < 0) = 0.398, P(S* = 0) = 0.203.
        // Counting ties gives p ≈ 0.60; dropping them would give ≈ 0.40. At B = 20,000 one
        // standard error is 0.0035, so the window below is > 10 SE from either failure.
        let mut diffs = vec![0.0; 16];
        diffs.extend([1.0, -1.0, 1.0, -1.0]);
        let r = paired_bootstrap(&diffs, "m", &cfg(20_000)).unwrap();
        assert!(r.p_value > 0.56 && r.p_value < 0.64, "{r:?}");
    }

    #[test]
    fn same_inputs_same_numbers_and_metrics_are_independent() {
        let diffs = noise(3, 50);
        let a = paired_bootstrap(&diffs, "checkpoint:c1", &cfg(2000)).unwrap();
        let b = paired_bootstrap(&diffs, "checkpoint:c1", &cfg(2000)).unwrap();
        let c = paired_bootstrap(&diffs, "checkpoint:c2", &cfg(2000)).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.mean_diff, c.mean_diff);
        assert_ne!(
            (a.p_value, a.ci_low, a.ci_high),
            (c.p_value, c.ci_low, c.ci_high)
        );
    }

    #[test]
    fn many_equals_one_by_one() {
        let data: Vec<(String, Vec<f64>)> = (0..12)
            .map(|i| (format!("metric_{i}"), noise(i, 5 + 7 * i as usize)))
            .collect();
        let mut items: Vec<(&str, &[f64])> = data
            .iter()
            .map(|(m, d)| (m.as_str(), d.as_slice()))
            .collect();
        items.push(("empty", &[]));
        let batch = paired_bootstrap_many(&items, &cfg(3000));
        let single: Vec<_> = items
            .iter()
            .map(|(m, d)| paired_bootstrap(d, m, &cfg(3000)))
            .collect();
        assert_eq!(batch, single);
        assert_eq!(batch.last(), Some(&None));
        let reasons = try_paired_bootstrap_many(&items, &cfg(3000));
        assert_eq!(reasons.last(), Some(&Err(StatsError::Empty)));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn identical_runs_never_regress_for_any_scores(scores in prop::collection::vec(-1e6_f64..1e6, 1..60)) {
            let diffs: Vec<f64> = scores.iter().map(|s| s - s).collect();
            let r = paired_bootstrap(&diffs, "m", &cfg(500)).unwrap();
            prop_assert_eq!(r.p_value, 1.0);
            prop_assert_eq!(r.mean_diff, 0.0);
            prop_assert_eq!((r.ci_low, r.ci_high), (0.0, 0.0));
        }

        #[test]
        fn case_order_does_not_matter(
            diffs in prop::collection::vec(-100.0_f64..100.0, 1..80),
            shuffle_seed in any::<u64>(),
        ) {
            let mut permuted = diffs.clone();
            let mut rng = MetricRng::new(shuffle_seed, "shuffle");
            for i in (1..permuted.len()).rev() {
                permuted.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
            }
            let a = paired_bootstrap(&diffs, "m", &cfg(300)).unwrap();
            let b = paired_bootstrap(&permuted, "m", &cfg(300)).unwrap();
            prop_assert_eq!(a, b);
        }

        #[test]
        fn p_and_ci_are_well_formed(diffs in prop::collection::vec(-1e3_f64..1e3, 1..50), b in 1_u32..400) {
            let r = paired_bootstrap(&diffs, "m", &cfg(b)).unwrap();
            prop_assert!(r.p_value >= 1.0 / (f64::from(b) + 1.0) && r.p_value <= 1.0);
            prop_assert!(r.ci_low <= r.ci_high);
            prop_assert!(r.ci_low.is_finite() && r.ci_high.is_finite() && r.mean_diff.is_finite());
        }
    }
}
