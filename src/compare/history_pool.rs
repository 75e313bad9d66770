//! Which baseline history lines a comparison pools into a case's baseline trials (issue 20).
//!
//! A history line is an earlier `baseline update` of the same suite with its per-case trials.
//! Its trials are exchangeable with the head's under "no change" only if main did not change the
//! agent between that update and the baseline. Two ways to know it (`gates.history_pooling`):
//!
//! - `same_tags` (default): the line has the baseline's spec hash and the same, non-empty config
//!   tags (`config_tags:` / `--tag`). Without tags nothing is pooled.
//! - `drift_check`: also the lines of the same spec hash whose trials of a metric the drift check
//!   accepts: the stratified permutation test of the line's trials against the baseline report's
//!   own trials, two-sided, pools the line for that metric when `p ≥` [`DRIFT_GAMMA`]. The check
//!   has limited power, so an older agent that was better by a little can still be pooled and
//!   raise the false-alarm rate a little (measured in `scripts/stochastic/drift_check_sim.py`,
//!   docs/statistics.md); it is off by default for that reason.
//!
//! The runner's adaptive re-run decisions and the compare read the same plan (same inputs, same
//! seeds), so the conditional test sees the decisions the runner took.

use std::collections::{BTreeMap, BTreeSet};

use crate::baseline::model::{BaselineMeta, CaseValues, HistoryLine};
use crate::model::metric::{case_trial_values, higher_is_better};
use crate::model::run::RunReport;
use crate::model::vocab::HistoryPooling;
use crate::spec::gates::DEFAULT_HISTORY_WINDOW;
use crate::spec::model::GatesSpec;
use crate::stats::{Stratum, stratified_test_until};

/// Two-sided level below which the drift check refuses a line: high, so that a line is pooled
/// only when it looks like the baseline (a low level would pool lines of a changed agent that
/// the check cannot tell apart).
pub(crate) const DRIFT_GAMMA: f64 = 0.5;

/// Monte Carlo draws of each one-sided drift test (it stops early once `p > γ/2` is certain).
const DRIFT_RESAMPLES: u32 = 2_000;

/// Seed of the drift tests (each test also hashes its metric and line into its stream).
const DRIFT_SEED: u64 = 0x0d71_f7c4_ec4b;

/// How history is pooled: the window and the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pooling {
    /// The last this many eligible lines.
    pub window: usize,
    pub mode: HistoryPooling,
}

impl Pooling {
    pub(crate) fn of(gates: &GatesSpec) -> Self {
        Self {
            window: gates.history_window.unwrap_or(DEFAULT_HISTORY_WINDOW),
            mode: gates.history_pooling.unwrap_or_default(),
        }
    }
}

/// One history line a comparison pools.
#[derive(Debug, Clone)]
pub(crate) struct PooledLine<'a> {
    pub values: &'a CaseValues,
    /// The metrics whose trials are pooled: `None` is every metric (a line of the same setup),
    /// else those the drift check accepted.
    pub metrics: Option<BTreeSet<String>>,
}

impl PooledLine<'_> {
    pub(crate) fn pools(&self, metric: &str) -> bool {
        self.metrics.as_ref().is_none_or(|m| m.contains(metric))
    }
}

/// The lines pooled, oldest first, and per metric how many lines the drift check refused.
#[derive(Debug, Clone, Default)]
pub(crate) struct PoolPlan<'a> {
    pub lines: Vec<PooledLine<'a>>,
    pub refused: BTreeMap<String, usize>,
}

impl PoolPlan<'_> {
    /// Lines pooled for `metric`.
    pub(crate) fn points(&self, metric: &str) -> usize {
        self.lines.iter().filter(|l| l.pools(metric)).count()
    }
}

/// The plan for `history` against the baseline `meta` whose report is `base`.
pub(crate) fn plan<'a>(
    history: &'a [HistoryLine],
    meta: &BaselineMeta,
    base: &RunReport,
    pooling: Pooling,
) -> PoolPlan<'a> {
    let same_setup = |h: &HistoryLine| !meta.config_tags.is_empty() && h.same_setup(meta);
    let eligible: Vec<&HistoryLine> = history
        .iter()
        .filter(|h| match pooling.mode {
            HistoryPooling::SameTags => same_setup(h),
            HistoryPooling::DriftCheck => h.spec_hash == meta.spec_hash,
        })
        .filter(|h| h.case_values.is_some())
        .collect();
    let window = pooling.window.max(1);
    let eligible = &eligible[eligible.len().saturating_sub(window)..];
    let mut out = PoolPlan::default();
    let own = (pooling.mode == HistoryPooling::DriftCheck
        && eligible.iter().any(|h| !same_setup(h)))
    .then(|| {
        case_trial_values(&base.cases)
            .into_iter()
            .collect::<CaseValues>()
    });
    for (i, line) in eligible.iter().enumerate() {
        let Some(values) = line.case_values.as_ref() else {
            continue;
        };
        let metrics = match &own {
            Some(own) if !same_setup(line) => {
                let age = eligible.len() - i;
                let mut accepted = BTreeSet::new();
                for metric in metrics_of(values) {
                    match drift_accepts(own, values, metric, age) {
                        Some(true) => {
                            accepted.insert(metric.to_owned());
                        }
                        Some(false) => *out.refused.entry(metric.to_owned()).or_default() += 1,
                        None => {}
                    }
                }
                Some(accepted)
            }
            _ => None,
        };
        out.lines.push(PooledLine { values, metrics });
    }
    out
}

fn metrics_of(values: &CaseValues) -> BTreeSet<&str> {
    values
        .values()
        .flat_map(|m| m.keys().map(String::as_str))
        .collect()
}

/// Whether the drift check pools `line`'s trials of `metric` (the line `age` updates back):
/// `None` when no case has trials of it on both sides (nothing to pool).
fn drift_accepts(own: &CaseValues, line: &CaseValues, metric: &str, age: usize) -> Option<bool> {
    let sign = if higher_is_better(metric) { 1.0 } else { -1.0 };
    let mut sides: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
    for (case, metrics) in own {
        let (Some(base), Some(old)) = (
            metrics.get(metric),
            line.get(case).and_then(|m| m.get(metric)),
        ) else {
            continue;
        };
        if base.is_empty() || old.is_empty() {
            continue;
        }
        sides.push((
            old.iter().map(|v| sign * v).collect(),
            base.iter().map(|v| sign * v).collect(),
        ));
    }
    if sides.is_empty() {
        return None;
    }
    let flipped: Vec<(Vec<f64>, Vec<f64>)> = sides
        .iter()
        .map(|(o, b)| {
            (
                o.iter().map(|v| -v).collect(),
                b.iter().map(|v| -v).collect(),
            )
        })
        .collect();
    let tail = |cases: &[(Vec<f64>, Vec<f64>)], side: &str| {
        let strata: Vec<Stratum<'_>> = cases
            .iter()
            .map(|(head, base)| Stratum {
                head,
                base,
                selection: None,
            })
            .collect();
        let key = format!("drift/{metric}/{age}/{side}");
        // An error (a non-finite trial) refuses the line: not pooling is today's behaviour.
        stratified_test_until(
            &strata,
            &key,
            DRIFT_RESAMPLES,
            DRIFT_SEED,
            DRIFT_GAMMA / 2.0,
        )
        .map_or(0.0, |t| t.p_value)
    };
    let worse = tail(&sides, "worse");
    let better = tail(&flipped, "better");
    Some(2.0 * worse.min(better) >= DRIFT_GAMMA)
}
