//! The statistics settings of a suite's `gates:` block, validated once before anything is
//! compared (DESIGN §8 "Fail closed"): a value out of range is an error naming the key and
//! the allowed range, never a silently weaker test.

use crate::model::metric::metric_domain;
use crate::spec::model::GatesSpec;
use crate::stats::{DEFAULT_SIGMA_WINDOW, MIN_SIGMA_POINTS};

/// Significance level when `gates.alpha` is not set.
pub(crate) const DEFAULT_ALPHA: f64 = 0.05;
/// Largest `gates.alpha` accepted: a one-sided test at a higher level is not a gate.
pub(crate) const MAX_ALPHA: f64 = 0.5;
/// Paired cases needed before a metric is tested, when `gates.min_cases` is not set.
pub(crate) const DEFAULT_MIN_CASES: usize = 5;
/// History points used for the 2σ band when `gates.history_window` is not set.
pub(crate) const DEFAULT_HISTORY_WINDOW: usize = DEFAULT_SIGMA_WINDOW;
/// History lines a baseline keeps when `baseline update --history-cap` is not given.
pub(crate) const DEFAULT_HISTORY_CAP: usize = 50;
/// Largest window: the history file keeps at most this many points.
pub(crate) const MAX_HISTORY_WINDOW: usize = DEFAULT_HISTORY_CAP;
/// Share of judge calls that may fail when `gates.max_judge_error_rate` is not set.
pub(crate) const DEFAULT_MAX_JUDGE_ERROR_RATE: f64 = 0.1;

/// One out-of-range setting: the YAML key path and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GateProblem {
    /// e.g. `gates.metrics.task_success.min_effect`.
    pub key: String,
    pub message: String,
}

/// Every out-of-range setting in `gates`, in key order.
pub(crate) fn gate_problems(gates: &GatesSpec) -> Vec<GateProblem> {
    let mut problems = Vec::new();
    let mut bad = |key: String, message: String| problems.push(GateProblem { key, message });
    if let Some(alpha) = gates.alpha
        && !(alpha > 0.0 && alpha <= MAX_ALPHA)
    {
        bad(
            "gates.alpha".into(),
            format!("`{alpha}` is outside (0, {MAX_ALPHA}]; the usual value is 0.05"),
        );
    }
    if let Some(n) = gates.min_cases
        && n < 2
    {
        bad(
            "gates.min_cases".into(),
            format!("is {n}; a paired test needs at least 2 cases (default 5)"),
        );
    }
    if let Some(w) = gates.history_window
        && !(MIN_SIGMA_POINTS..=MAX_HISTORY_WINDOW).contains(&w)
    {
        bad(
            "gates.history_window".into(),
            format!(
                "`{w}` is outside {MIN_SIGMA_POINTS}..={MAX_HISTORY_WINDOW}: the band needs {MIN_SIGMA_POINTS} points and the history keeps {MAX_HISTORY_WINDOW}"
            ),
        );
    }
    if let Some(rate) = gates.max_judge_error_rate
        && !(0.0..=1.0).contains(&rate)
    {
        bad(
            "gates.max_judge_error_rate".into(),
            format!("`{rate}` is outside [0, 1]"),
        );
    }
    for (metric, gate) in &gates.metrics {
        let (lo, hi) = metric_domain(metric);
        if let Some(effect) = gate.min_effect {
            let width = hi - lo;
            if !(effect.is_finite() && effect >= 0.0 && (width.is_infinite() || effect < width)) {
                bad(
                    format!("gates.metrics.{metric}.min_effect"),
                    if width.is_finite() {
                        format!(
                            "`{effect}` can never be reached: `{metric}` ranges over [{lo}, {hi}], so a change is at most {width} (use a value in [0, {width}))"
                        )
                    } else {
                        format!("`{effect}` must be a finite number ≥ 0")
                    },
                );
            }
        }
    }
    for (metric, gate) in &gates.absolute {
        let (lo, hi) = metric_domain(metric);
        for (which, value) in [("min", gate.min), ("max", gate.max)] {
            if let Some(v) = value
                && !(v.is_finite() && v >= lo && v <= hi)
            {
                bad(
                    format!("gates.absolute.{metric}.{which}"),
                    format!("`{v}` is outside the range of `{metric}`, [{lo}, {hi}]"),
                );
            }
        }
        if let (Some(min), Some(max)) = (gate.min, gate.max)
            && min > max
        {
            bad(
                format!("gates.absolute.{metric}"),
                format!("`min` {min} is above `max` {max}: no value can pass"),
            );
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::model::{AbsoluteGateSpec, MetricGateSpec};

    #[test]
    fn defaults_are_valid_and_bad_values_are_named() {
        assert!(gate_problems(&GatesSpec::default()).is_empty());
        let mut gates = GatesSpec {
            alpha: Some(0.7),
            min_cases: Some(0),
            history_window: Some(3),
            max_judge_error_rate: Some(1.5),
            ..GatesSpec::default()
        };
        gates.metrics.insert(
            "task_success".into(),
            MetricGateSpec {
                severity: None,
                min_effect: Some(5.0),
            },
        );
        gates.metrics.insert(
            "compliance_percent".into(),
            MetricGateSpec {
                severity: None,
                min_effect: Some(5.0),
            },
        );
        gates.absolute.insert(
            "compliance_percent".into(),
            AbsoluteGateSpec {
                min: Some(80.0),
                max: Some(70.0),
                severity: None,
            },
        );
        gates.absolute.insert(
            "task_success".into(),
            AbsoluteGateSpec {
                min: Some(80.0),
                max: None,
                severity: None,
            },
        );
        let keys: Vec<String> = gate_problems(&gates).into_iter().map(|p| p.key).collect();
        assert_eq!(
            keys,
            [
                "gates.alpha",
                "gates.min_cases",
                "gates.history_window",
                "gates.max_judge_error_rate",
                "gates.metrics.task_success.min_effect",
                "gates.absolute.compliance_percent",
                "gates.absolute.task_success.min",
            ]
        );
    }

    #[test]
    fn min_effect_messages_give_the_range() {
        let mut gates = GatesSpec::default();
        gates.metrics.insert(
            "checkpoint:P1".into(),
            MetricGateSpec {
                severity: None,
                min_effect: Some(5.0),
            },
        );
        let p = gate_problems(&gates);
        assert!(p[0].message.contains("[0, 1]"), "{p:?}");
    }
}
