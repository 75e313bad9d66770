//! The confidence interval of the effect: a case-level (cluster) bootstrap.
//!
//! The effect is `mean over cases of (mean(head) − mean(base))`. Cases are the independent
//! units; each case's difference already carries its trials' noise, so the interval resamples
//! the cases' differences with replacement (the percentile interval of
//! [`crate::stats::paired_bootstrap`]), and does not resample trials within a case as well:
//! a second level adds the within-case variance twice and widens the interval (Davison &
//! Hinkley 1997, §3.8). It costs what a one-trial compare's interval costs.

use super::case::{canonical_cases, case_diffs, effect};
use super::{StrataCi, Stratum};
use crate::stats::bootstrap::try_paired_bootstrap;
use crate::stats::bootstrap_config::BootstrapConfig;
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
    let diffs = case_diffs(&cases)?;
    let boot = try_paired_bootstrap(&diffs, &format!("{metric}\0strata-ci"), cfg)?;
    Ok(StrataCi {
        effect,
        ci_low: boot.ci_low,
        ci_high: boot.ci_high,
    })
}
