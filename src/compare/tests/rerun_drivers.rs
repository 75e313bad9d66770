//! Which metrics drive an adaptive run's re-runs: task success and the checkpoints that can
//! fail the gate, with the same severities as the comparison.

use std::collections::BTreeMap;

use crate::compare::trials::{RerunDrivers, case_wants_rerun};
use crate::spec::model::{FailOn, GatesSpec, MetricGateSpec, Severity};

fn drivers(gates: &GatesSpec, fail_on: FailOn) -> RerunDrivers {
    let checkpoints = [
        ("C", Severity::Critical),
        ("H", Severity::High),
        ("L", Severity::Low),
    ];
    RerunDrivers::new(gates, checkpoints.into_iter(), fail_on)
}

#[test]
fn only_metrics_that_can_fail_the_gate_drive_reruns() {
    let gates = GatesSpec::default();
    let critical = drivers(&gates, FailOn::Critical);
    assert!(critical.drive("checkpoint:C"));
    assert!(!critical.drive("checkpoint:H"));
    // Task success is high by default: below `fail_on: critical`.
    assert!(!critical.drive("task_success"));
    // Other metrics never drive re-runs, whatever their severity.
    assert!(!critical.drive("compliance_percent"));

    let high = drivers(&gates, FailOn::High);
    assert!(high.drive("checkpoint:C") && high.drive("checkpoint:H") && high.drive("task_success"));
    assert!(!high.drive("checkpoint:L") && !high.drive("compliance_percent"));
    assert_eq!(drivers(&gates, FailOn::Never), RerunDrivers::default());

    // `gates.metrics` raises a metric's severity, as it does in the comparison.
    let critical = || MetricGateSpec {
        severity: Some(Severity::Critical),
        min_effect: None,
    };
    let raised = GatesSpec {
        metrics: BTreeMap::from([
            ("task_success".to_owned(), critical()),
            ("checkpoint:L".to_owned(), critical()),
        ]),
        ..GatesSpec::default()
    };
    let raised = drivers(&raised, FailOn::Critical);
    assert!(raised.drive("task_success") && raised.drive("checkpoint:L"));
}

#[test]
fn a_case_is_rerun_only_for_a_driving_metric() {
    let d = drivers(&GatesSpec::default(), FailOn::Critical);
    let values = |pairs: &[(&str, &[f64])]| -> BTreeMap<String, Vec<f64>> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.to_vec()))
            .collect()
    };
    let base = values(&[("checkpoint:C", &[1.0, 1.0]), ("checkpoint:H", &[1.0, 1.0])]);
    // H flipped: it cannot fail the gate, so the case is settled.
    let first = values(&[("checkpoint:C", &[1.0]), ("checkpoint:H", &[0.0])]);
    assert!(!case_wants_rerun(&first, Some(&base), &d));
    // C flipped: re-run.
    let first = values(&[("checkpoint:C", &[0.0]), ("checkpoint:H", &[1.0])]);
    assert!(case_wants_rerun(&first, Some(&base), &d));
    assert!(!case_wants_rerun(&first, None, &d));
}
