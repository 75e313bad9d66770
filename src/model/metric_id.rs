//! A metric's identity, typed. The wire format (`compliance_percent`,
//! `checkpoint:P2-02`, `step_type:PLAN`, `step:lookup`, `gpa:goal_fulfillment`)
//! is unchanged; what a name means — which way is better, the range its
//! values take, the unit it is shown in, the severity it gets when the suite
//! does not say — is decided here once, not re-derived from prefixes by
//! every layer.

use std::fmt;

use crate::model::vocab::Severity;

/// The suite-level metrics every case has (DESIGN §13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum SuiteMetric {
    CompliancePercent,
    SpecHealthPercent,
    WorkflowQuality,
    TaskSuccess,
    CostUsd,
    LatencyMs,
}

impl SuiteMetric {
    pub(crate) const ALL: [SuiteMetric; 6] = [
        Self::CompliancePercent,
        Self::SpecHealthPercent,
        Self::WorkflowQuality,
        Self::TaskSuccess,
        Self::CostUsd,
        Self::LatencyMs,
    ];

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Self::CompliancePercent => "compliance_percent",
            Self::SpecHealthPercent => "spec_health_percent",
            Self::WorkflowQuality => "workflow_quality",
            Self::TaskSuccess => "task_success",
            Self::CostUsd => "cost_usd",
            Self::LatencyMs => "latency_ms",
        }
    }
}

/// The names of the suite metrics, in report order.
pub(crate) const SUITE_METRIC_NAMES: [&str; 6] = [
    SuiteMetric::CompliancePercent.as_str(),
    SuiteMetric::SpecHealthPercent.as_str(),
    SuiteMetric::WorkflowQuality.as_str(),
    SuiteMetric::TaskSuccess.as_str(),
    SuiteMetric::CostUsd.as_str(),
    SuiteMetric::LatencyMs.as_str(),
];

/// Which way is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Better {
    Higher,
    Lower,
}

/// How a metric's values are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    /// Already in percent (`compliance_percent`): `81.2%`, deltas in pp.
    Percent,
    /// A 0–1 rate shown in percent (task success, a checkpoint's earned weight).
    Rate,
    /// US dollars.
    Usd,
    /// Milliseconds.
    Ms,
    /// A score or any other number (step scores 1–5, GPA 0–3).
    Score,
}

impl Unit {
    /// Factor from stored values to displayed ones.
    pub(crate) fn display_factor(self) -> f64 {
        if self == Self::Rate { 100.0 } else { 1.0 }
    }
}

/// A metric name, parsed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum MetricId {
    Suite(SuiteMetric),
    /// `checkpoint:<id>`: the checkpoint's earned weight (0–1).
    Checkpoint(String),
    /// `step_type:<TYPE>`: mean 1–5 score of the case's steps of that type.
    StepType(String),
    /// `step:<id>`: mean 1–5 score of the steps matched to a workflow step.
    Step(String),
    /// `gpa:<dimension>`: a GPA trace judge's 0–3 score.
    Gpa(String),
    /// Any other name (kept as written).
    Other(String),
}

impl MetricId {
    /// Parse a metric name; never fails (unknown names are `Other`).
    pub(crate) fn parse(name: &str) -> Self {
        if let Some(m) = SuiteMetric::ALL.iter().find(|m| m.as_str() == name) {
            return Self::Suite(*m);
        }
        let prefixed = [
            ("checkpoint:", Self::Checkpoint as fn(String) -> Self),
            ("step_type:", Self::StepType),
            ("step:", Self::Step),
            ("gpa:", Self::Gpa),
        ];
        for (prefix, make) in prefixed {
            if let Some(rest) = name.strip_prefix(prefix) {
                return make(rest.to_owned());
            }
        }
        Self::Other(name.to_owned())
    }

    /// Which way is better: lower for cost and latency, higher for the rest.
    pub(crate) fn better(&self) -> Better {
        match self {
            Self::Suite(SuiteMetric::CostUsd | SuiteMetric::LatencyMs) => Better::Lower,
            _ => Better::Higher,
        }
    }

    pub(crate) fn higher_is_better(&self) -> bool {
        self.better() == Better::Higher
    }

    /// The range a metric's per-case values (and so its means) can take:
    /// `[lo, hi]`, with infinite ends where there is no bound. Used to clip
    /// 2σ bands and to validate gate settings.
    pub(crate) fn domain(&self) -> (f64, f64) {
        match self {
            Self::Suite(SuiteMetric::CompliancePercent | SuiteMetric::SpecHealthPercent) => {
                (0.0, 100.0)
            }
            Self::Suite(SuiteMetric::TaskSuccess) | Self::Checkpoint(_) => (0.0, 1.0),
            Self::Suite(SuiteMetric::WorkflowQuality) | Self::StepType(_) | Self::Step(_) => {
                (1.0, 5.0)
            }
            Self::Suite(SuiteMetric::CostUsd | SuiteMetric::LatencyMs) => (0.0, f64::INFINITY),
            Self::Gpa(_) => (0.0, 3.0),
            Self::Other(_) => (f64::NEG_INFINITY, f64::INFINITY),
        }
    }

    /// The unit values are shown in.
    pub(crate) fn unit(&self) -> Unit {
        match self {
            Self::Suite(SuiteMetric::CompliancePercent | SuiteMetric::SpecHealthPercent) => {
                Unit::Percent
            }
            Self::Other(name) if name.ends_with("_percent") => Unit::Percent,
            Self::Suite(SuiteMetric::TaskSuccess) | Self::Checkpoint(_) => Unit::Rate,
            Self::Suite(SuiteMetric::CostUsd) => Unit::Usd,
            Self::Suite(SuiteMetric::LatencyMs) => Unit::Ms,
            _ => Unit::Score,
        }
    }

    /// The severity of a metric the suite's `gates.metrics` does not name
    /// (a checkpoint takes its own severity; see `compare::engine`).
    pub(crate) fn default_severity(&self) -> Severity {
        match self {
            Self::Suite(SuiteMetric::CompliancePercent | SuiteMetric::TaskSuccess) => {
                Severity::High
            }
            Self::Suite(SuiteMetric::WorkflowQuality) | Self::StepType(_) | Self::Step(_) => {
                Severity::Medium
            }
            _ => Severity::Low,
        }
    }

    /// The checkpoint id of `checkpoint:<id>`.
    pub(crate) fn checkpoint_id(&self) -> Option<&str> {
        match self {
            Self::Checkpoint(id) => Some(id),
            _ => None,
        }
    }

    /// Whether this is a step metric (`step_type:` or `step:`).
    pub(crate) fn is_step(&self) -> bool {
        matches!(self, Self::StepType(_) | Self::Step(_))
    }
}

impl fmt::Display for MetricId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Suite(m) => f.write_str(m.as_str()),
            Self::Checkpoint(id) => write!(f, "checkpoint:{id}"),
            Self::StepType(t) => write!(f, "step_type:{t}"),
            Self::Step(id) => write!(f, "step:{id}"),
            Self::Gpa(d) => write!(f, "gpa:{d}"),
            Self::Other(name) => f.write_str(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_carry_their_facts() {
        for name in [
            "compliance_percent",
            "spec_health_percent",
            "workflow_quality",
            "task_success",
            "cost_usd",
            "latency_ms",
            "checkpoint:P2-02",
            "step_type:PLAN",
            "step:lookup",
            "gpa:goal_fulfillment",
            "custom_metric",
        ] {
            assert_eq!(MetricId::parse(name).to_string(), name);
        }
        let cp = MetricId::parse("checkpoint:A:1");
        assert_eq!(cp.checkpoint_id(), Some("A:1"));
        assert_eq!(cp.domain(), (0.0, 1.0));
        assert_eq!(cp.unit(), Unit::Rate);
        assert!(!MetricId::parse("cost_usd").higher_is_better());
        assert!(!MetricId::parse("latency_ms").higher_is_better());
        assert!(MetricId::parse("step:x").higher_is_better());
        assert_eq!(MetricId::parse("gpa:lc").domain(), (0.0, 3.0));
        assert_eq!(MetricId::parse("step_type:PLAN").domain(), (1.0, 5.0));
        assert_eq!(
            MetricId::parse("step:x").default_severity(),
            Severity::Medium
        );
        assert_eq!(
            MetricId::parse("task_success").default_severity(),
            Severity::High
        );
        assert_eq!(
            MetricId::parse("cost_usd").default_severity(),
            Severity::Low
        );
        assert_eq!(MetricId::parse("my_percent").unit(), Unit::Percent);
        assert_eq!(
            MetricId::parse("anything").domain(),
            (f64::NEG_INFINITY, f64::INFINITY)
        );
    }
}
