//! The confidence interval of the effect: a case-level (cluster) bootstrap.
//!
//! The effect is `mean over cases of (mean(head) − mean(base))`. Cases are the independent
//! units; each case's difference already carries its trials' noise, so the interval resamples
//! the cases' differences with replacement (the percentile interval of
//! [`crate::stats::paired_bootstrap`]), and does not resample trials within a case as well:
//! a second level adds the within-case variance twice and widens the interval (Davison &
//! Hinkley 1997, §3.8). It costs what a one-trial compare's interval costs.

use super::case::{canonical_cases, effect, max_abs};
use super::{StrataCi, Stratum};
use crate::stats::bootstrap::try_paired_bootstrap;
use crate::stats::bootstrap_config::BootstrapConfig;
use crate::stats::describe::mean;
use crate::stats::error::StatsError;

/// The case-level bootstrap confidence interval of the effect (percentile, numpy's linear
/// definition), `cfg.resamples` resamples at `cfg.confidence`, from the metric's own stream
/// under `cfg.seed`. Errors as [`super::stratified_test`], and an invalid `cfg`.
pub fn stratified_ci(
    strata: &[Stratum<'_>],
    metric: &str,
    cfg: &BootstrapConfig,
) -> Result<StrataCi, StatsError> {
    cfg.validate()?;
    let cases = canonical_cases(strata)?;
    let effect = effect(&cases)?;
    let overflow = || StatsError::Overflow {
        max_abs: max_abs(&cases),
        n: cases.len(),
    };
    let diffs = cases
        .iter()
        .map(|c| match (mean(&c.head), mean(&c.base)) {
            (Some(h), Some(b)) if (h - b).is_finite() => Ok(h - b),
            _ => Err(overflow()),
        })
        .collect::<Result<Vec<f64>, _>>()?;
    let boot = try_paired_bootstrap(&diffs, &format!("{metric}\0strata-ci"), cfg)?;
    Ok(StrataCi {
        effect,
        ci_low: boot.ci_low,
        ci_high: boot.ci_high,
    })
}
