//! Metric values of a case: the one definition used by the suite aggregate
//! and by `compare` (DESIGN §8, §13 metric names).

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::model::metric_id::MetricId;
use crate::model::run::{CaseReport, CheckpointState};

/// Whether higher values are better for `metric` (cost and latency are not).
pub(crate) fn higher_is_better(metric: &str) -> bool {
    MetricId::parse(metric).higher_is_better()
}

/// The range a metric's values can take (see [`MetricId::domain`]).
pub(crate) fn metric_domain(metric: &str) -> (f64, f64) {
    MetricId::parse(metric).domain()
}

/// Every metric defined for this case. Undefined metrics are absent (the
/// suite mean leaves the case out).
///
/// - suite metrics from `scores` (`compliance_percent`, …);
/// - `checkpoint:<id>`: earned weight 0–1 when decided (PASS/PARTIAL/FAIL);
/// - `step_type:<T>`: mean 1–5 score of the case's scored steps of type T;
/// - `step:<id>`: mean score of steps matched to workflow step `id`;
/// - `gpa:<dimension>`: the trace judge's 0–3 score, when scored.
pub(crate) fn case_metrics(case: &CaseReport) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    visit_case_metrics(case, |name, v| {
        m.insert(name.into_string(), v);
    });
    m
}

/// A metric's name as [`visit_case_metrics`] gives it, borrowed where it can be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MetricName<'a> {
    /// The name as written (`task_success`, `step_type:PLAN`, `gpa:goal_fulfillment`).
    Plain(Cow<'a, str>),
    /// `checkpoint:<id>`, given by the checkpoint's id.
    Checkpoint(&'a str),
}

impl MetricName<'_> {
    pub(crate) fn into_string(self) -> String {
        match self {
            Self::Plain(name) => name.into_owned(),
            Self::Checkpoint(id) => MetricId::Checkpoint(id.to_owned()).to_string(),
        }
    }
}

/// The metrics of [`case_metrics`] one by one, in the order it takes them: a name can come
/// twice (two checkpoints with one id, say), and then the last value is the case's.
pub(crate) fn visit_case_metrics<'a>(case: &'a CaseReport, mut f: impl FnMut(MetricName<'a>, f64)) {
    let s = &case.scores;
    for (name, value) in [
        ("compliance_percent", s.compliance_percent),
        ("spec_health_percent", s.spec_health_percent),
        ("workflow_quality", s.workflow_quality),
        ("task_success", s.task_success),
        ("cost_usd", s.cost_usd),
        ("latency_ms", s.latency_ms),
    ] {
        if let Some(v) = value.filter(|v| v.is_finite()) {
            f(MetricName::Plain(Cow::Borrowed(name)), v);
        }
    }
    for cp in &case.checkpoints {
        if matches!(
            cp.result,
            CheckpointState::Pass | CheckpointState::Partial | CheckpointState::Fail
        ) && let Some(w) = cp.earned_weight
        {
            f(MetricName::Checkpoint(&cp.id), w);
        }
    }
    let mut by_type: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    let mut by_step: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for step in &case.steps {
        let Some(score) = step.score.filter(|v| v.is_finite()) else {
            continue;
        };
        let e = by_type
            .entry(MetricId::StepType(step.step_type.to_string()).to_string())
            .or_default();
        e.0 += score;
        e.1 += 1;
        if let Some(wf) = step.workflow_step() {
            let e = by_step
                .entry(MetricId::Step(wf.to_string()).to_string())
                .or_default();
            e.0 += score;
            e.1 += 1;
        }
    }
    for (name, (sum, n)) in by_type.into_iter().chain(by_step) {
        f(MetricName::Plain(Cow::Owned(name)), sum / n as f64);
    }
    for t in &case.trace_judges {
        if let Some(v) = t.score.filter(|v| v.is_finite()) {
            f(MetricName::Plain(Cow::Owned(t.metric())), v);
        }
    }
}

/// Suite mean of each metric over the cases where it is defined. With
/// several trials of a case, the case's value is its mean over the trials
/// where the metric is defined, so every case weighs the same.
pub(crate) fn suite_means(cases: &[CaseReport]) -> BTreeMap<String, f64> {
    let mut acc: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for (name, v) in case_means(cases).into_iter().flat_map(|(_, m)| m) {
        let e = acc.entry(name).or_default();
        e.0 += v;
        e.1 += 1;
    }
    acc.into_iter()
        .map(|(k, (sum, n))| (k, sum / n as f64))
        .collect()
}

/// Per-trial values of every metric of every case: case id → metric →
/// one value per trial where it is defined (in trial order). Case ids come
/// in the report's order.
pub(crate) fn case_trial_values(cases: &[CaseReport]) -> Vec<(String, BTreeMap<String, Vec<f64>>)> {
    let mut order: Vec<String> = Vec::new();
    let mut by_case: BTreeMap<&str, Vec<&CaseReport>> = BTreeMap::new();
    for c in cases {
        let e = by_case.entry(c.id.as_str()).or_default();
        if e.is_empty() {
            order.push(c.id.clone());
        }
        e.push(c);
    }
    order
        .into_iter()
        .map(|id| {
            let mut trials = by_case.remove(id.as_str()).unwrap_or_default();
            trials.sort_by_key(|c| c.trial);
            let mut values: BTreeMap<String, Vec<f64>> = BTreeMap::new();
            for t in trials {
                for (name, v) in case_metrics(t) {
                    values.entry(name).or_default().push(v);
                }
            }
            (id, values)
        })
        .collect()
}

/// The mean of a case's trials of one metric (with one trial, that trial's
/// value exactly); `v` is never empty (a metric is listed only where defined).
pub(crate) fn trial_mean(v: &[f64]) -> f64 {
    if v.len() == 1 {
        v[0]
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Each case's value of every metric: its mean over trials (with one trial,
/// the trial's value). Case ids in the report's order.
pub(crate) fn case_means(cases: &[CaseReport]) -> Vec<(String, BTreeMap<String, f64>)> {
    case_trial_values(cases)
        .into_iter()
        .map(|(id, values)| {
            let means = values
                .into_iter()
                .map(|(k, v)| (k, trial_mean(&v)))
                .collect();
            (id, means)
        })
        .collect()
}
