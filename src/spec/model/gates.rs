//! Regression gates and tiers: what fails the gate (`gates:`) and which
//! cases form the smoke tier (`tiers:`).

use crate::model::vocab::{FailOn, HistoryPooling, InconclusivePolicy, UnevaluatedPolicy};
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Severity;

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TiersSpec {
    #[serde(default)]
    pub smoke: Option<SmokeTierSpec>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SmokeTierSpec {
    /// Cases carrying any of these tags are smoke cases.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Also take the first N cases in suite order.
    #[serde(default)]
    pub first: Option<usize>,
    /// Cap on smoke cases (suite order).
    #[serde(default)]
    pub max_cases: Option<usize>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GatesSpec {
    /// Lowest severity that fails the gate (default `critical`); `--fail-on` overrides.
    #[serde(default)]
    pub fail_on: Option<FailOn>,
    /// Fewer paired cases than this → insufficient data (default 5).
    #[serde(default)]
    pub min_cases: Option<usize>,
    /// Significance level (default 0.05).
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Baseline history points used for the 2σ band (default 20).
    #[serde(default)]
    pub history_window: Option<usize>,
    /// Which history lines are pooled as the cases' baseline trials: `same_tags` (default:
    /// the baseline's spec hash and the same, non-empty config tags) or `drift_check` (also
    /// lines of the same spec hash that a two-sided drift test accepts, per metric).
    #[serde(default)]
    pub history_pooling: Option<HistoryPooling>,
    #[serde(default)]
    pub metrics: BTreeMap<String, MetricGateSpec>,
    #[serde(default)]
    pub absolute: BTreeMap<String, AbsoluteGateSpec>,
    /// Share of judge calls that may fail before the gate fails (default 0.1).
    #[serde(default)]
    pub max_judge_error_rate: Option<f64>,
    /// A checkpoint at or above `fail_on` that no case could evaluate (N/A for want of a
    /// judge or evidence, or BLOCKED, everywhere): `fail` (default) fails the gate, `warn`
    /// only reports it.
    #[serde(default)]
    pub unevaluated: Option<UnevaluatedPolicy>,
    /// A metric at or above `fail_on` that got worse in every case that changed, in too few
    /// cases for the test to reach α: `fail` (default) makes the verdict `inconclusive` and
    /// fails the gate (exit 2), `warn` reports `inconclusive` and exits 0. Never a green pass.
    #[serde(default)]
    pub inconclusive: Option<InconclusivePolicy>,
    /// Checkpoint ids that may be checked on one side of a comparison only: decided in the
    /// baseline and vacuous in every head case (or the reverse) is then reported, not failed.
    #[serde(default)]
    pub may_be_vacuous: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MetricGateSpec {
    #[serde(default)]
    pub severity: Option<Severity>,
    /// Smallest |Δ| that may alert, in the metric's units; it must be
    /// smaller than the metric's range (e.g. below 1 for `task_success`).
    #[serde(default)]
    pub min_effect: Option<f64>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AbsoluteGateSpec {
    #[serde(default)]
    pub min: Option<f64>,
    #[serde(default)]
    pub max: Option<f64>,
    /// Severity of a breach (default critical).
    #[serde(default)]
    pub severity: Option<Severity>,
}
