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

use std::collections::{BTreeMap, HashMap};

use crate::baseline::model::{BaselineMeta, CaseValues, HistoryLine};
use crate::compare::columns::{Column, Columns};
use crate::compare::engine::metric_severity;
use crate::compare::history_pool::{Pooling, plan};
use crate::compare::pairing::Paired;
use crate::model::compare::{TestName, TrialsUsed};
use crate::model::metric::{case_trial_values, higher_is_better, trial_mean};
use crate::model::run::RunReport;
use crate::spec::model::{FailOn, GatesSpec, Severity};
use crate::stats::{
    BootstrapConfig, Selection, StatsError, StrataMethod, Stratum, rerun_rule, stratified_ci,
    stratified_test_until,
};

/// Every baseline trial of every case and metric: the pooled history lines' ([`plan`]) when
/// there are any, else the baseline report's own (per case and metric: history first), and how
/// many history lines were pooled. The runner's re-run decisions read it; compare reads the
/// same trials of its paired cases in columns ([`pooled_trials`]).
pub(crate) fn baseline_trials(
    base: &RunReport,
    history: &[HistoryLine],
    meta: &BaselineMeta,
    pooling: Pooling,
) -> (CaseValues, usize) {
    let mut out: CaseValues = case_trial_values(&base.cases).into_iter().collect();
    let plan = plan(history, meta, base, pooling);
    if plan.lines.is_empty() {
        return (out, 0);
    }
    let mut pooled: CaseValues = BTreeMap::new();
    for line in &plan.lines {
        for (case, metrics) in line.values {
            let slot = pooled.entry(case.clone()).or_default();
            for (metric, values) in metrics.iter().filter(|(m, _)| line.pools(m)) {
                slot.entry(metric.clone())
                    .or_default()
                    .extend(values.iter().copied());
            }
        }
    }
    for (case, metrics) in pooled {
        let slot = out.entry(case).or_default();
        for (metric, values) in metrics {
            slot.insert(metric, values);
        }
    }
    (out, plan.lines.len())
}

/// Every baseline trial of a list of cases, per metric ([`pooled_trials`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct BaselineTrials {
    /// Columns over the cases (a case without trials of a metric has none).
    pub columns: Columns,
    /// History lines pooled (for any metric).
    pub history_points: usize,
    /// Per metric: history lines pooled, and lines the drift check refused.
    pub per_metric: HashMap<String, (usize, usize)>,
}

impl BaselineTrials {
    /// History lines pooled for `metric`, and lines the drift check refused.
    pub(crate) fn points(&self, metric: &str) -> (usize, usize) {
        self.per_metric.get(metric).copied().unwrap_or((0, 0))
    }
}

/// [`baseline_trials`] of `cases`, whose own trials in the baseline report `base` are `own`
/// (columns over `cases`): per case and metric, the concatenated trials of the pooled history
/// lines that have the case and metric, else its own.
pub(crate) fn pooled_trials(
    own: Columns,
    cases: &[String],
    history: &[HistoryLine],
    meta: &BaselineMeta,
    base: &RunReport,
    pooling: Pooling,
) -> BaselineTrials {
    let plan = plan(history, meta, base, pooling);
    let mut per_metric: HashMap<String, (usize, usize)> = HashMap::new();
    for (metric, refused) in &plan.refused {
        per_metric.entry(metric.clone()).or_default().1 = *refused;
    }
    if plan.lines.is_empty() {
        return BaselineTrials {
            columns: own,
            history_points: 0,
            per_metric,
        };
    }
    // The columns in the making: the own metrics first (column `j` of `own` is slot `j`), then
    // each metric as first seen in the history. Case by case, in order: the case's trials of
    // every line that pools them, else its own.
    let mut slots: HashMap<&str, usize> = HashMap::new();
    let mut named: Vec<(&str, Column)> = Vec::new();
    for (name, _) in own.iter() {
        slots.insert(name, named.len());
        named.push((name, Column::empty()));
    }
    // Per slot, the last case whose trials came from the history.
    let mut pooled_at: Vec<usize> = vec![usize::MAX; named.len()];
    for (c, case) in cases.iter().enumerate() {
        for line in &plan.lines {
            let Some(metrics) = line.values.get(case) else {
                continue;
            };
            for (metric, values) in metrics.iter().filter(|(m, _)| line.pools(m)) {
                let slot = *slots.entry(metric.as_str()).or_insert_with(|| {
                    named.push((metric, Column::empty()));
                    pooled_at.push(usize::MAX);
                    named.len() - 1
                });
                pooled_at[slot] = c;
                named[slot].1.extend(c, values);
            }
        }
        for (j, (_, column)) in own.iter().enumerate() {
            if pooled_at[j] != c {
                named[j].1.extend(c, column.trials(c));
            }
        }
    }
    for (name, _) in &named {
        per_metric.entry((*name).to_owned()).or_default().0 = plan.points(name);
    }
    let named = named
        .into_iter()
        .map(|(name, mut column)| {
            column.finish(cases.len());
            (name.to_owned(), column)
        })
        .collect();
    BaselineTrials {
        columns: Columns::from_named(named),
        history_points: plan.lines.len(),
        per_metric,
    }
}

/// The metrics whose disagreement with the baseline makes an adaptive run re-run a case: task
/// success and the checkpoints whose regression can fail the gate (severity at or above
/// `fail_on`). A re-run buys trials for the gate's decision; a metric that cannot fail it is
/// tested on the first stage. Fixed by the suite and `fail_on` before any data is seen, so the
/// conditional test stays exact. (Every checkpoint drove re-runs before: on the real tau-bench
/// episodes, with 28 checkpoints, 43–47 of 50 cases were re-run.)
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RerunDrivers {
    metrics: std::collections::BTreeSet<String>,
}

impl RerunDrivers {
    /// Of task success and the suite's `checkpoints` (id and severity), those whose severity
    /// ([`metric_severity`]: `gates.metrics` overrides it) fails the gate at `fail_on`.
    pub(crate) fn new<'a>(
        gates: &GatesSpec,
        checkpoints: impl Iterator<Item = (&'a str, Severity)>,
        fail_on: FailOn,
    ) -> Self {
        let metrics = std::iter::once(("task_success".to_owned(), None))
            .chain(checkpoints.map(|(id, s)| (format!("checkpoint:{id}"), Some(s))))
            .filter(|(m, own)| fail_on.fails(metric_severity(gates, |_| *own, m)))
            .map(|(m, _)| m)
            .collect();
        Self { metrics }
    }

    /// Whether `metric` drives re-runs.
    pub(crate) fn drive(&self, metric: &str) -> bool {
        self.metrics.contains(metric)
    }
}

/// Orients a metric's values so that lower is worse.
fn oriented(values: &[f64], higher: bool) -> Vec<f64> {
    values
        .iter()
        .map(|x| if higher { *x } else { -*x })
        .collect()
}

/// Whether the first-stage trials and the baseline trials of metric `name` of a case are not
/// all equal ([`rerun_rule`]).
fn metric_wants_rerun(name: &str, first: &[f64], base: &[f64]) -> bool {
    let higher = higher_is_better(name);
    rerun_rule(&oriented(first, higher), &oriented(base, higher))
}

/// Whether an adaptive run re-runs a case: some metric that drives re-runs is not settled (its
/// first stage and baseline trials are not all equal).
pub(crate) fn case_wants_rerun(
    first: &BTreeMap<String, Vec<f64>>,
    base: Option<&BTreeMap<String, Vec<f64>>>,
    drivers: &RerunDrivers,
) -> bool {
    let Some(base) = base else {
        return false;
    };
    first.iter().any(|(name, values)| {
        drivers.drive(name)
            && base
                .get(name)
                .is_some_and(|b| metric_wants_rerun(name, values, b))
    })
}

/// The first-stage trials of every case of an adaptive head run.
pub(crate) struct FirstStage {
    pub trials: CaseValues,
}

impl FirstStage {
    pub(crate) fn of(head: &RunReport) -> Option<Self> {
        let adaptive = head.adaptive?;
        let first: Vec<_> = head
            .cases
            .iter()
            .filter(|c| c.trial < adaptive.min)
            .cloned()
            .collect();
        Some(Self {
            trials: case_trial_values(&first).into_iter().collect(),
        })
    }
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

/// The stratified test of `name`, or `None` when every paired case has one trial on each side
/// of a non-adaptive run (today's paired test then applies unchanged). The baseline trials are
/// [`Paired::baseline`]. In an adaptive run (`first`), a metric that drives re-runs is tested
/// conditionally on each case's decision (all its trials when it asked for the re-run, its
/// first stage otherwise); every other metric on the first stage only, since the re-runs were
/// chosen by other metrics of the same trials.
pub(crate) fn stratified_leg(
    paired: &Paired,
    first: Option<(&FirstStage, &RerunDrivers)>,
    name: &str,
    cfg: &BootstrapConfig,
    key: &str,
    alpha: f64,
) -> Result<Option<StratifiedLeg>, StatsError> {
    let higher = higher_is_better(name);
    let mut cases: Vec<(Vec<f64>, Vec<f64>, Option<Selection>)> = Vec::new();
    let (Some(metric), Some(baseline)) =
        (paired.metric_index(name), paired.baseline.columns.get(name))
    else {
        return Ok(None);
    };
    for (c, case) in paired.cases.iter().enumerate() {
        let head = paired.head_trials(metric, c);
        let base = baseline.trials(c);
        if head.is_empty() || base.is_empty() {
            continue;
        }
        let (head, selection) = match first {
            None => (head, None),
            Some((stage, drivers)) => {
                let Some(first) = stage
                    .trials
                    .get(case)
                    .and_then(|m| m.get(name))
                    .filter(|f| !f.is_empty())
                else {
                    continue;
                };
                if !drivers.drive(name) {
                    (first.as_slice(), None)
                } else if metric_wants_rerun(name, first, base) {
                    let selection = Selection {
                        first: first.len(),
                        rerun: true,
                    };
                    (head, Some(selection))
                } else {
                    let selection = Selection {
                        first: first.len(),
                        rerun: false,
                    };
                    (first.as_slice(), Some(selection))
                }
            }
        };
        cases.push((oriented(head, higher), oriented(base, higher), selection));
    }
    if cases.is_empty()
        || (first.is_none() && cases.iter().all(|(h, b, _)| h.len() == 1 && b.len() == 1))
    {
        return Ok(None);
    }
    let strata: Vec<Stratum<'_>> = cases
        .iter()
        .map(|(h, b, selection)| Stratum {
            head: h,
            base: b,
            selection: *selection,
        })
        .collect();
    // No decision looks at a p-value above α (q ≤ α needs p ≤ α), so Monte Carlo may stop
    // once p is certain to exceed it.
    let test = stratified_test_until(&strata, key, cfg.resamples, cfg.seed, alpha)?;
    let ci = stratified_ci(&strata, key, cfg)?;
    let n = cases.len() as f64;
    let unorient = |v: f64| if higher { v } else { -v };
    let head_mean = unorient(cases.iter().map(|c| trial_mean(&c.0)).sum::<f64>() / n);
    let base_mean = unorient(cases.iter().map(|c| trial_mean(&c.1)).sum::<f64>() / n);
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
            history_points: paired.baseline.points(name).0,
            history_refused: paired.baseline.points(name).1,
            informative: test.informative,
        },
    }))
}
