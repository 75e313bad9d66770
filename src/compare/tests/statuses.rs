//! Known-answer tests of the status rules on synthetic reports.

use crate::model::compare::{Direction, MetricStatus, Verdict};
use crate::model::run::CaseReport;
use crate::spec::model::{AbsoluteGateSpec, FailOn, GatesSpec, MetricGateSpec, Severity};

use super::fixtures::{base_cases, case, history, metric, report, run};

#[test]
fn identical_runs_never_regress() {
    let base = report(base_cases(), "Look up first");
    let r = run(
        &base.clone(),
        &base,
        &[],
        &GatesSpec::default(),
        FailOn::Low,
    );
    assert_eq!(r.verdict, Verdict::Pass);
    for m in &r.metrics {
        assert_eq!(m.status, MetricStatus::Unchanged, "{}", m.name);
        assert_eq!(m.p_value, Some(1.0), "{}", m.name);
        assert_eq!(m.delta, Some(0.0));
    }
    assert_eq!(r.suites[0].paired_cases, 20);
}

#[test]
fn a_real_drop_is_a_localized_critical_regression() {
    let base = report(base_cases(), "Look up first");
    // 8 of 20 cases now skip the lookup: P1 fails there, compliance drops 30 points.
    let head_cases: Vec<CaseReport> = base_cases()
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            if i % 5 < 2 {
                case(&c.id, 50.0, false, 0.01, Some("lookup_account"))
            } else {
                c
            }
        })
        .collect();
    let head = report(head_cases, "Look up first");
    let r = run(&head, &base, &[], &GatesSpec::default(), FailOn::Critical);
    let p1 = metric(&r, "checkpoint:P1");
    assert_eq!(p1.status, MetricStatus::Regression, "{p1:?}");
    assert_eq!(p1.severity, Severity::Critical);
    assert!((p1.delta.unwrap() + 0.4).abs() < 1e-12, "8/20 flipped");
    let [lo, hi] = p1.ci95.unwrap();
    assert!(lo < -0.4 && hi > -0.4 && hi < 0.0, "{lo} {hi}");
    assert!(p1.q_value.unwrap() < 0.05);
    assert!(p1.sigma_band.is_none() && p1.sigma_note.contains("unavailable"));
    let loc = p1.localization.as_ref().unwrap();
    assert_eq!(
        loc.checkpoint.as_ref().unwrap().instruction,
        "Look up first"
    );
    assert_eq!(loc.flipped_cases.len(), 8);
    assert_eq!(loc.flipped_cases[0].note, "FAIL: lookup skipped");
    let root = loc.root_cause.as_ref().unwrap();
    assert_eq!((root.step.as_str(), root.cases), ("EXEC lookup_account", 8));
    assert_eq!(r.verdict, Verdict::Fail);
    assert_eq!(r.regressions[0], "s/checkpoint:P1");
    assert_eq!(
        r.metrics[0].name, "checkpoint:P1",
        "critical regressions sort first"
    );
    // Compliance (high by default) also regressed; it names the checkpoint that moved.
    let c = metric(&r, "compliance_percent");
    assert_eq!(c.status, MetricStatus::Regression);
    assert_eq!(
        c.localization.as_ref().unwrap().checkpoints_moved[0].metric,
        "checkpoint:P1"
    );
    // The same drop with fail_on never is tolerated.
    let tolerated = run(&head, &base, &[], &GatesSpec::default(), FailOn::Never);
    assert_eq!(tolerated.verdict, Verdict::Pass);
    assert!(
        tolerated
            .reasons
            .iter()
            .any(|r| r.starts_with("tolerated regression"))
    );
}

#[test]
fn two_legs_make_regression_one_leg_suspected() {
    let base = report(base_cases(), "x");
    // Every case loses 2 points: the paired test is sure.
    let head = report(
        base_cases()
            .into_iter()
            .map(|mut c| {
                c.scores.compliance_percent = c.scores.compliance_percent.map(|v| v - 2.0);
                c
            })
            .collect(),
        "x",
    );
    // History: wide band around 81 → head mean 80 stays inside → only one leg.
    let wide = history(&[76.0, 86.0, 78.0, 84.0, 82.0, 80.0]);
    let r = run(&head, &base, &wide, &GatesSpec::default(), FailOn::Low);
    let c = metric(&r, "compliance_percent");
    let band = c.sigma_band.as_ref().unwrap();
    assert!(!band.fired && band.points == 6);
    assert_eq!(c.status, MetricStatus::Suspected);
    // Tight band → both legs fire.
    let tight = history(&[82.0, 82.1, 81.9, 82.0, 82.05, 81.95]);
    let r = run(&head, &base, &tight, &GatesSpec::default(), FailOn::Low);
    assert_eq!(
        metric(&r, "compliance_percent").status,
        MetricStatus::Regression
    );
    // min_effect above |Δ| silences both.
    let mut gates = GatesSpec::default();
    gates.metrics.insert(
        "compliance_percent".into(),
        MetricGateSpec {
            severity: None,
            min_effect: Some(3.0),
        },
    );
    let r = run(&head, &base, &tight, &gates, FailOn::Low);
    assert_eq!(
        metric(&r, "compliance_percent").status,
        MetricStatus::Unchanged
    );
}

#[test]
fn lower_is_better_metrics_are_oriented_and_improvements_detected() {
    let base = report(base_cases(), "x");
    let head = report(
        base_cases()
            .into_iter()
            .enumerate()
            .map(|(i, mut c)| {
                c.scores.cost_usd = Some(0.02 + 0.001 * (i % 3) as f64);
                c.scores.compliance_percent = c.scores.compliance_percent.map(|v| v + 5.0);
                c
            })
            .collect(),
        "x",
    );
    let r = run(&head, &base, &[], &GatesSpec::default(), FailOn::Low);
    let cost = metric(&r, "cost_usd");
    assert_eq!(cost.direction, Direction::Lower);
    assert!(cost.delta.unwrap() > 0.0, "cost went up");
    assert!(cost.ci95.unwrap()[0] > 0.0);
    assert_eq!(cost.status, MetricStatus::Regression);
    assert_eq!(
        metric(&r, "compliance_percent").status,
        MetricStatus::Improvement
    );
}

#[test]
fn few_pairs_changed_checkpoints_and_absolute_gates() {
    let base = report(base_cases().into_iter().take(4).collect(), "old wording");
    let head = report(
        base_cases()
            .into_iter()
            .take(4)
            .map(|mut c| {
                c.scores.compliance_percent = Some(10.0);
                c
            })
            .collect(),
        "new wording",
    );
    let mut gates = GatesSpec::default();
    gates.absolute.insert(
        "compliance_percent".into(),
        AbsoluteGateSpec {
            min: Some(70.0),
            max: None,
            severity: None,
        },
    );
    let r = run(&head, &base, &[], &gates, FailOn::Critical);
    assert_eq!(
        metric(&r, "compliance_percent").status,
        MetricStatus::InsufficientData
    );
    assert!(metric(&r, "compliance_percent").p_value.is_none());
    assert!(
        !r.metrics.iter().any(|m| m.name == "checkpoint:P1"),
        "changed instruction is not compared"
    );
    assert_eq!(r.suites[0].changed_checkpoints, ["P1"]);
    assert_eq!(r.absolute_breaches.len(), 1);
    assert!(r.absolute_breaches[0].fails);
    assert_eq!(r.verdict, Verdict::Fail);
}

#[test]
fn reports_are_deterministic_for_a_seed() {
    let base = report(base_cases(), "x");
    let head = report(
        base_cases()
            .into_iter()
            .enumerate()
            .map(|(i, mut c)| {
                c.scores.compliance_percent =
                    c.scores.compliance_percent.map(|v| v - (i % 3) as f64);
                c
            })
            .collect(),
        "x",
    );
    let a = crate::output::to_json(&run(&head, &base, &[], &GatesSpec::default(), FailOn::Low));
    let b = crate::output::to_json(&run(&head, &base, &[], &GatesSpec::default(), FailOn::Low));
    assert_eq!(a, b);
}
