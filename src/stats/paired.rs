//! The paired comparison of one metric: the sign-flip p-value of [`super::signflip`] and the
//! bootstrap confidence interval of [`super::bootstrap`], computed together (DESIGN §8).

use rayon::prelude::*;

use super::bootstrap::try_paired_bootstrap;
use super::bootstrap_config::BootstrapConfig;
use super::error::StatsError;
use super::signflip::{SignFlipMethod, sign_flip_test};

/// Which test produced the p-value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairedTestKind {
    /// Every paired difference is zero: nothing to test.
    NoVariation,
    /// All `2ᵏ` sign patterns counted.
    ExactSignFlip,
    /// `B` random sign patterns.
    MonteCarloSignFlip,
}

/// The paired test of one metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedTest {
    pub n: usize,
    /// Mean of the differences (oriented: negative is worse).
    pub mean_diff: f64,
    /// Differences that are not zero.
    pub nonzero: usize,
    /// One-sided p for "head is worse".
    pub p_value: f64,
    /// Smallest p-value these `|dᵢ|` could give (Tarone's rule uses it).
    pub min_p: f64,
    pub kind: PairedTestKind,
    /// Percentile bootstrap 95% CI of the mean difference (uncentered resampling).
    pub ci_low: f64,
    pub ci_high: f64,
    /// Sample standard deviation of the differences; `None` for `n < 2`.
    pub sd_diff: Option<f64>,
}

/// The sign-flip test and the bootstrap CI of `diffs` (oriented), seeded by `cfg.seed` and
/// `metric`. Any invalid input or setting is an error, never a silent "no change".
pub fn paired_test(
    diffs: &[f64],
    metric: &str,
    cfg: &BootstrapConfig,
) -> Result<PairedTest, StatsError> {
    cfg.validate()?;
    let boot = try_paired_bootstrap(diffs, metric, cfg)?;
    let flip = sign_flip_test(diffs, metric, cfg.resamples, cfg.seed)?;
    let kind = match (flip.nonzero, flip.method) {
        (0, _) => PairedTestKind::NoVariation,
        (_, SignFlipMethod::Exact) => PairedTestKind::ExactSignFlip,
        (_, SignFlipMethod::MonteCarlo) => PairedTestKind::MonteCarloSignFlip,
    };
    Ok(PairedTest {
        n: boot.n,
        mean_diff: boot.mean_diff,
        nonzero: flip.nonzero,
        p_value: flip.p_value,
        min_p: flip.min_p,
        kind,
        ci_low: boot.ci_low,
        ci_high: boot.ci_high,
        sd_diff: boot.sd_diff,
    })
}

/// [`paired_test`] for many metrics in parallel, in input order; identical to one by one.
pub fn paired_test_many(
    items: &[(&str, &[f64])],
    cfg: &BootstrapConfig,
) -> Vec<Result<PairedTest, StatsError>> {
    items
        .par_iter()
        .map(|&(metric, diffs)| paired_test(diffs, metric, cfg))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> BootstrapConfig {
        BootstrapConfig::new(2_000, 0.95, 1).unwrap()
    }

    #[test]
    fn kinds_and_fields() {
        let t = paired_test(&[0.0; 8], "m", &cfg()).unwrap();
        assert_eq!(
            (t.kind, t.p_value, t.min_p, t.nonzero),
            (PairedTestKind::NoVariation, 1.0, 1.0, 0)
        );
        let t = paired_test(&[-1.0, -1.0, 0.0, -1.0, 0.0], "m", &cfg()).unwrap();
        assert_eq!(
            (t.kind, t.p_value, t.nonzero),
            (PairedTestKind::ExactSignFlip, 0.125, 3)
        );
        // The bootstrap's 97.5th percentile: five zeros in a resample has probability 0.4^5 = 0.01.
        assert_eq!((t.ci_low, t.ci_high, t.n), (-1.0, -0.2, 5));
        let d: Vec<f64> = (0..50).map(|i| f64::from(i).sin()).collect();
        let t = paired_test(&d, "m", &cfg()).unwrap();
        assert_eq!(t.kind, PairedTestKind::MonteCarloSignFlip);
        assert!(t.ci_low < t.mean_diff && t.mean_diff < t.ci_high);
    }

    #[test]
    fn settings_out_of_range_are_errors() {
        let bad = BootstrapConfig {
            resamples: 0,
            confidence: 0.95,
            seed: 0,
        };
        assert!(matches!(
            paired_test(&[1.0, -1.0], "m", &bad),
            Err(StatsError::Resamples { .. })
        ));
        let many = paired_test_many(&[("a", &[1.0][..]), ("b", &[][..])], &cfg());
        assert!(many[0].is_ok() && many[1] == Err(StatsError::Empty));
    }
}
