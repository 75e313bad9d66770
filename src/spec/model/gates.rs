//! Regression gates and tiers: what fails the gate (`gates:`) and which
//! cases form the smoke tier (`tiers:`).

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
}

/// What the gate does with a checkpoint at or above `fail_on` that no case could evaluate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum UnevaluatedPolicy {
    #[default]
    Fail,
    Warn,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    Low,
    Medium,
    High,
    Critical,
    Never,
}

impl FailOn {
    /// Whether a finding of `severity` fails the gate at this setting.
    pub fn fails(self, severity: Severity) -> bool {
        match self {
            Self::Never => false,
            Self::Low => true,
            Self::Medium => severity >= Severity::Medium,
            Self::High => severity >= Severity::High,
            Self::Critical => severity >= Severity::Critical,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Critical => "critical",
            Self::Never => "never",
        }
    }
}

impl fmt::Display for FailOn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
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
