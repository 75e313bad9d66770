//! Flakiness (issue 20): which cases are stable and which flip between
//! trials, from each case's earlier trials: the per-case history that the
//! stratified test pools ([`pooled_trials`]: the same spec hash and config
//! tags, the last `gates.history_window` lines), else the baseline report's
//! own trials, the same choice per case and metric as
//! [`super::trials::stratified_leg`].
//!
//! Only pass/fail metrics have a flakiness: task success and every
//! checkpoint, a trial passing when its value is 1 (a checkpoint's PASS), as
//! pass^k counts them (`eval/trials.rs`). A case is flaky on a metric when
//! its earlier trials disagree. With one earlier trial per case nothing is
//! known, and nothing is added to the report.
//!
//! What this adds is information for the reader, never a decision: the
//! statuses and the verdict are [`super::decide`]'s.

use std::collections::BTreeMap;

use crate::baseline::model::{BaselineFile, HistoryLine};
use crate::compare::columns::{Column, RunColumns};
use crate::compare::engine::SuiteInput;
use crate::compare::history_pool::Pooling;
use crate::compare::localize::worse_cases;
use crate::compare::pairing::Paired;
use crate::compare::trials::{BaselineTrials, pooled_trials};
use crate::model::compare::{
    FlakyCase, MetricComparison, MetricOutcomes, Outcomes, SuiteFlakiness,
};
use crate::model::metric_id::{MetricId, SuiteMetric};
use crate::spec::model::GatesSpec;

/// Whether `metric` is pass/fail: task success or a checkpoint.
pub(crate) fn is_pass_fail(metric: &str) -> bool {
    matches!(
        MetricId::parse(metric),
        MetricId::Checkpoint(_) | MetricId::Suite(SuiteMetric::TaskSuccess)
    )
}

/// How `values` went, one value per trial.
fn outcomes(values: &[f64]) -> Outcomes {
    Outcomes {
        passed: values.iter().filter(|v| **v >= 1.0).count(),
        trials: values.len(),
    }
}

/// Every case's earlier outcomes on every pass/fail metric.
struct Earlier<'a> {
    /// The pass/fail metrics of the baseline trials, ascending.
    metrics: Vec<&'a str>,
    /// Per case, ascending by id: its outcomes on each metric of `metrics` it has trials of
    /// (index into `metrics`).
    by_case: Vec<(&'a str, Vec<(usize, Outcomes)>)>,
    history_points: usize,
}

impl<'a> Earlier<'a> {
    /// `cases` with their baseline trials ([`BaselineTrials`], columns over `cases`: the
    /// pooled history where there is one, else the baseline report's own trials).
    fn of(cases: &'a [String], baseline: &'a BaselineTrials) -> Self {
        let (metrics, columns): (Vec<&str>, Vec<&Column>) = baseline
            .columns
            .iter()
            .filter(|(name, _)| is_pass_fail(name))
            .unzip();
        let mut by_case: Vec<(&str, Vec<(usize, Outcomes)>)> = cases
            .iter()
            .enumerate()
            .map(|(c, case)| {
                let outcomes = columns
                    .iter()
                    .enumerate()
                    .filter_map(|(j, column)| {
                        let v = column.trials(c);
                        (!v.is_empty()).then(|| (j, outcomes(v)))
                    })
                    .collect();
                (case.as_str(), outcomes)
            })
            .collect();
        by_case.sort_by(|a, b| a.0.cmp(b.0));
        Self {
            metrics,
            by_case,
            history_points: baseline.history_points,
        }
    }

    /// A case's outcomes, `(metric, outcomes)` with metrics ascending.
    fn get(&self, case: &str) -> Option<impl Iterator<Item = (&'a str, Outcomes)> + '_> {
        let i = self.by_case.binary_search_by(|c| c.0.cmp(case)).ok()?;
        Some(self.by_case[i].1.iter().map(|&(j, o)| (self.metrics[j], o)))
    }

    /// The suite's flakiness; `None` when no case has more than one earlier trial.
    fn summary(&self, suite: &str) -> Option<SuiteFlakiness> {
        let max_trials = self
            .by_case
            .iter()
            .flat_map(|(_, m)| m.iter().map(|(_, o)| o.trials))
            .max()
            .unwrap_or(0);
        if max_trials < 2 {
            return None;
        }
        let cases = self
            .by_case
            .iter()
            .filter(|(_, m)| m.iter().any(|(_, o)| o.trials > 1))
            .count();
        let mut flaky: Vec<FlakyCase> = self
            .by_case
            .iter()
            .filter_map(|(case, metrics)| {
                let flaky = flaky_metrics(metrics.iter().map(|&(j, o)| (self.metrics[j], o)));
                (!flaky.is_empty()).then(|| FlakyCase {
                    case: (*case).to_owned(),
                    metrics: flaky,
                })
            })
            .collect();
        flaky.sort_by(|a, b| {
            b.flakiness()
                .total_cmp(&a.flakiness())
                .then_with(|| b.metrics.len().cmp(&a.metrics.len()))
                .then_with(|| a.case.cmp(&b.case))
        });
        Some(SuiteFlakiness {
            suite: suite.to_owned(),
            cases,
            history_points: self.history_points,
            max_trials,
            flaky,
        })
    }
}

/// The metrics whose outcomes disagree, flakiest first.
fn flaky_metrics<'a>(metrics: impl Iterator<Item = (&'a str, Outcomes)>) -> Vec<MetricOutcomes> {
    let mut out: Vec<MetricOutcomes> = metrics
        .filter(|(_, o)| o.is_flaky())
        .map(|(name, o)| MetricOutcomes {
            metric: name.to_owned(),
            outcomes: o,
        })
        .collect();
    out.sort_by(|a, b| {
        b.outcomes
            .flakiness()
            .total_cmp(&a.outcomes.flakiness())
            .then_with(|| a.metric.cmp(&b.metric))
    });
    out
}

/// Adds the history of each regressed or suspected metric's worse cases to
/// its localization (and whether only flaky cases carry it), and returns the
/// flakiness of every suite that has more than one earlier trial per case.
/// `suite_of[i]` is the index into `inputs` and `pairings` of `metrics[i]`.
pub(crate) fn annotate(
    inputs: &[SuiteInput<'_>],
    pairings: &[Paired],
    suite_of: &[usize],
    metrics: &mut [MetricComparison],
) -> Vec<SuiteFlakiness> {
    let mut out = Vec::new();
    for (s, (input, paired)) in inputs.iter().zip(pairings).enumerate() {
        let earlier = Earlier::of(&paired.cases, &paired.baseline);
        let Some(summary) = earlier.summary(input.suite) else {
            continue;
        };
        for (m, _) in metrics.iter_mut().zip(suite_of).filter(|(_, of)| **of == s) {
            annotate_metric(m, paired, &earlier);
        }
        out.push(summary);
    }
    out
}

fn annotate_metric(m: &mut MetricComparison, paired: &Paired, earlier: &Earlier) {
    let Some(loc) = &mut m.localization else {
        return;
    };
    let name = m.name.as_str();
    let pass_fail = is_pass_fail(name);
    // The case's history on this metric, or its flakiest metric when this one is not pass/fail.
    let history = |case: &str| -> Option<MetricOutcomes> {
        let mut metrics = earlier.get(case)?;
        if pass_fail {
            let (_, o) = metrics.find(|(m, o)| *m == name && o.trials > 1)?;
            Some(MetricOutcomes {
                metric: name.to_owned(),
                outcomes: o,
            })
        } else {
            flaky_metrics(metrics).into_iter().next()
        }
    };
    for c in &mut loc.flipped_cases {
        c.history = history(&c.case);
        if pass_fail {
            c.head_outcomes = paired
                .metric_index(name)
                .zip(paired.case_index(&c.case))
                .map(|(metric, case)| paired.head_trials(metric, case))
                .filter(|v| v.len() > 1)
                .map(outcomes);
        }
    }
    let worse: Vec<String> = worse_cases(paired, name).into_iter().map(|w| w.0).collect();
    if !worse.is_empty()
        && worse
            .iter()
            .all(|c| history(c).is_some_and(|h| h.outcomes.is_flaky()))
    {
        loc.carried_by_flaky = worse;
    }
}

/// The trials a compare against this baseline would use with these `gates` (its report's own,
/// and the history lines [`pooled_trials`] pools), over the report's cases: what `baseline
/// show` reports on, pooled once.
pub(crate) struct PooledBaseline {
    suite: String,
    ids: Vec<String>,
    trials: BaselineTrials,
}

impl PooledBaseline {
    pub(crate) fn of(file: &BaselineFile, history: &[HistoryLine], gates: &GatesSpec) -> Self {
        let run = RunColumns::of(&file.report.cases);
        let trials = pooled_trials(
            run.columns,
            &run.ids,
            history,
            &file.baseline,
            &file.report,
            Pooling::of(gates),
        );
        Self {
            suite: file.baseline.suite.clone(),
            ids: run.ids,
            trials,
        }
    }

    /// The flakiness of the baseline's cases over these trials; `None` when no case has more
    /// than one.
    pub(crate) fn flakiness(&self) -> Option<SuiteFlakiness> {
        Earlier::of(&self.ids, &self.trials).summary(&self.suite)
    }

    /// Each metric's mean over these trials (a case's mean over its trials, then the mean over
    /// the baseline's cases that have the metric; a compare's baseline column averages the
    /// cases the head has too), with the history lines pooled. `None` when none is (the
    /// report's own means are those).
    pub(crate) fn means(&self) -> Option<(usize, BTreeMap<String, f64>)> {
        if self.trials.history_points == 0 {
            return None;
        }
        let means = self
            .trials
            .columns
            .iter()
            .filter_map(|(name, column)| {
                let values: Vec<f64> = (0..self.ids.len()).filter_map(|c| column.mean(c)).collect();
                (!values.is_empty()).then(|| {
                    (
                        name.to_owned(),
                        values.iter().sum::<f64>() / values.len() as f64,
                    )
                })
            })
            .collect();
        Some((self.trials.history_points, means))
    }
}
