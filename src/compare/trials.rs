//! The stratified leg of a comparison (issue 20): when a case has more than
//! one head trial, or the baseline has per-case history, each case is a
//! stratum of head trials against the case's baseline trials, and the
//! metric is tested with [`crate::stats::stratified_test`] instead of the
//! paired sign-flip test. One trial against one trial keeps today's test.
//!
//! Baseline trials of a case: the per-case outcomes of the last
//! `gates.history_window` history lines that describe the same setup as the
//! baseline (same spec hash and the same, non-empty config tags), else the
//! baseline report's own trials. Earlier versions of main that changed the
//! agent are not exchangeable with it (pooling them gave false-alarm rates
//! up to 0.15 in simulation), and only the config tags (`model`, `prompt`,
//! … via `config_tags:` or `--tag`) can say that the agent did not change:
//! without tags, history is not pooled.

use std::collections::BTreeMap;

use crate::baseline::model::CaseValues;
use crate::compare::engine::SuiteInput;
use crate::compare::pairing::Paired;
use crate::model::compare::{TestName, TrialsUsed};
use crate::model::metric::trial_mean;
use crate::stats::{
    BootstrapConfig, StatsError, StrataMethod, Stratum, stratified_ci, stratified_test,
};

/// Every baseline trial of every case and metric from the eligible history
/// lines, and how many lines those were; `None` without such lines.
pub(crate) fn history_trials(input: &SuiteInput<'_>) -> Option<(CaseValues, usize)> {
    let eligible: Vec<&CaseValues> = input
        .history
        .iter()
        .filter(|h| !input.meta.config_tags.is_empty() && h.same_setup(input.meta))
        .filter_map(|h| h.case_values.as_ref())
        .collect();
    let window = input.history_window().max(1);
    let used = &eligible[eligible.len().saturating_sub(window)..];
    if used.is_empty() {
        return None;
    }
    let mut out: CaseValues = BTreeMap::new();
    for line in used {
        for (case, metrics) in *line {
            let slot = out.entry(case.clone()).or_default();
            for (metric, values) in metrics {
                slot.entry(metric.clone())
                    .or_default()
                    .extend(values.iter().copied());
            }
        }
    }
    Some((out, used.len()))
}

/// The stratified test of one metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StratifiedLeg {
    pub test: TestName,
    pub p_value: f64,
    pub min_p: f64,
    /// Mean over cases of the case's head mean and baseline mean (unoriented).
    pub head_mean: f64,
    pub base_mean: f64,
    /// 95% CI of `head_mean − base_mean` (unoriented).
    pub ci: [f64; 2],
    pub used: TrialsUsed,
}

/// The stratified test of `name`, or `None` when every paired case has one
/// trial on each side (today's paired test then applies unchanged).
pub(crate) fn stratified_leg(
    paired: &Paired,
    history: Option<&(CaseValues, usize)>,
    name: &str,
    higher: bool,
    cfg: &BootstrapConfig,
    key: &str,
) -> Result<Option<StratifiedLeg>, StatsError> {
    let mut cases: Vec<(&[f64], &[f64])> = Vec::new();
    for case in &paired.cases {
        let Some(head) = paired.head_trials.get(case).and_then(|m| m.get(name)) else {
            continue;
        };
        let base = history
            .and_then(|(h, _)| h.get(case))
            .and_then(|m| m.get(name))
            .or_else(|| paired.base_trials.get(case).and_then(|m| m.get(name)));
        let Some(base) = base.filter(|b| !b.is_empty()) else {
            continue;
        };
        cases.push((head.as_slice(), base.as_slice()));
    }
    if cases.is_empty() || cases.iter().all(|(h, b)| h.len() == 1 && b.len() == 1) {
        return Ok(None);
    }
    let orient =
        |v: &[f64]| -> Vec<f64> { v.iter().map(|x| if higher { *x } else { -*x }).collect() };
    let oriented: Vec<(Vec<f64>, Vec<f64>)> =
        cases.iter().map(|(h, b)| (orient(h), orient(b))).collect();
    let strata: Vec<Stratum<'_>> = oriented
        .iter()
        .map(|(h, b)| Stratum {
            head: h,
            base: b,
            selection: None,
        })
        .collect();
    let test = stratified_test(&strata, key, cfg.resamples, cfg.seed)?;
    let ci = stratified_ci(&strata, key, cfg)?;
    let n = cases.len() as f64;
    let head_mean = cases.iter().map(|c| trial_mean(c.0)).sum::<f64>() / n;
    let base_mean = cases.iter().map(|c| trial_mean(c.1)).sum::<f64>() / n;
    let unorient = |v: f64| if higher { v } else { -v };
    let (lo, hi) = (unorient(ci.ci_low), unorient(ci.ci_high));
    Ok(Some(StratifiedLeg {
        test: match test.method {
            StrataMethod::Exact => TestName::ExactStratified,
            StrataMethod::MonteCarlo => TestName::MonteCarloStratified,
            StrataMethod::NoVariation => TestName::NoVariation,
        },
        p_value: test.p_value,
        min_p: test.min_p,
        head_mean,
        base_mean,
        ci: [lo.min(hi), lo.max(hi)],
        used: TrialsUsed {
            head: test.head_trials,
            base: test.base_trials,
            history_points: history.map_or(0, |(_, n)| *n),
            informative: test.informative,
        },
    }))
}
