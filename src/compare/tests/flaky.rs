//! Flakiness in the compare report (issue 20): each regressed case's
//! history, the suite's flaky cases, a regression carried only by flaky
//! cases, and nothing at all with one trial and no per-case history.

use crate::baseline::model::{BaselineFile, HistoryLine};
use crate::compare::flaky::PooledBaseline;
use crate::model::compare::{MetricStatus, Outcomes, Verdict};
use crate::model::run::CaseReport;
use crate::spec::model::{FailOn, GatesSpec};

use super::fixtures::{case, meta, metric, p1_history_line, report, run};

/// `n` cases × `trials` trials; `p1(case, trial)` says whether P1 (and task
/// success) passed. Compliance and cost are constant.
fn trials(n: usize, k: u32, p1: impl Fn(usize, u32) -> bool) -> Vec<CaseReport> {
    let mut out = Vec::new();
    for i in 0..n {
        for t in 0..k {
            let mut c = case(&format!("c{i:02}"), 90.0, p1(i, t), 0.01, None);
            c.trial = t;
            out.push(c);
        }
    }
    out
}

/// Cases c00–c09 pass P1 in 2 of 3 baseline trials (flaky), the rest in all 3.
fn flaky_base() -> crate::model::run::RunReport {
    report(trials(20, 3, |i, t| i >= 10 || t != 2), "Look up first")
}

#[test]
fn regressed_cases_carry_their_history_and_the_suite_lists_its_flaky_cases() {
    let base = flaky_base();
    // The ten stable cases now fail P1 in every head trial.
    let head = report(trials(20, 3, |i, t| i < 10 && t != 2), "Look up first");
    let r = run(&head, &base, &[], &GatesSpec::default(), FailOn::Critical);
    let p1 = metric(&r, "checkpoint:P1");
    assert_eq!(p1.status, MetricStatus::Regression, "{p1:?}");
    let loc = p1.localization.as_ref().expect("localized");
    let c = loc
        .flipped_cases
        .iter()
        .find(|c| c.case == "c15")
        .expect("c15 got worse");
    assert_eq!(
        c.head_outcomes,
        Some(Outcomes {
            passed: 0,
            trials: 3
        })
    );
    let h = c.history.as_ref().expect("history");
    assert_eq!(h.metric, "checkpoint:P1");
    assert_eq!(
        h.outcomes,
        Outcomes {
            passed: 3,
            trials: 3
        }
    );
    assert!(loc.carried_by_flaky.is_empty(), "stable cases carry it");

    assert_eq!(r.flakiness.len(), 1);
    let f = &r.flakiness[0];
    assert_eq!((f.cases, f.max_trials, f.history_points), (20, 3, 0));
    let ids: Vec<&str> = f.flaky.iter().map(|c| c.case.as_str()).collect();
    assert_eq!(ids, (0..10).map(|i| format!("c{i:02}")).collect::<Vec<_>>());
    let names: Vec<&str> = f.flaky[0]
        .metrics
        .iter()
        .map(|m| m.metric.as_str())
        .collect();
    assert_eq!(names, ["checkpoint:P1", "task_success"]);
    assert_eq!(
        f.flaky[0].metrics[0].outcomes,
        Outcomes {
            passed: 2,
            trials: 3
        }
    );
}

#[test]
fn a_regression_carried_only_by_flaky_cases_says_so_and_keeps_its_status() {
    let base = flaky_base();
    // The ten flaky cases fail every head trial; the stable ones still pass.
    let head = report(trials(20, 3, |i, _| i >= 10), "Look up first");
    let r = run(&head, &base, &[], &GatesSpec::default(), FailOn::Critical);
    let p1 = metric(&r, "checkpoint:P1");
    assert_eq!(p1.status, MetricStatus::Regression, "{p1:?}");
    assert_eq!(
        r.verdict,
        Verdict::Fail,
        "information only: the verdict stands"
    );
    let loc = p1.localization.as_ref().expect("localized");
    let expected: Vec<String> = (0..10).map(|i| format!("c{i:02}")).collect();
    let mut carried = loc.carried_by_flaky.clone();
    carried.sort();
    assert_eq!(carried, expected);
    let c = &loc.flipped_cases[0];
    assert!(c.history.as_ref().is_some_and(|h| h.outcomes.is_flaky()));
}

#[test]
fn one_trial_without_per_case_history_adds_nothing() {
    let base = report(trials(20, 1, |_, _| true), "Look up first");
    let head = report(trials(20, 1, |i, _| i >= 8), "Look up first");
    let r = run(&head, &base, &[], &GatesSpec::default(), FailOn::Critical);
    assert!(r.flakiness.is_empty());
    let json = serde_json::to_string(&r).expect("serializes");
    for key in [
        "flakiness",
        "carried_by_flaky",
        "head_outcomes",
        "\"history\"",
    ] {
        assert!(!json.contains(key), "{key} in {json}");
    }
    let p1 = metric(&r, "checkpoint:P1");
    let loc = p1.localization.as_ref().expect("localized");
    assert!(loc.flipped_cases.iter().all(|c| c.history.is_none()));
}

#[test]
fn baseline_show_pools_the_history_compare_would_pool() {
    let mut file = BaselineFile {
        schema_version: 1,
        baseline: meta(),
        report: report(trials(20, 1, |_, _| true), "Look up first"),
    };
    file.baseline.config_tags = [("model".to_owned(), "m".to_owned())].into();
    // Four updates of one trial each: c03 failed once.
    let mut history: Vec<HistoryLine> = (0..4)
        .map(|u| p1_history_line(20, move |i| vec![if i == 3 && u == 1 { 0.0 } else { 1.0 }]))
        .collect();
    let f = PooledBaseline::of(&file, &history, &GatesSpec::default())
        .flakiness()
        .expect("4 trials");
    assert_eq!((f.history_points, f.max_trials), (4, 4));
    // The means over those trials: c03 passed 3 of 4, the 19 others 4 of 4.
    let (points, means) = PooledBaseline::of(&file, &history, &GatesSpec::default())
        .means()
        .expect("pooled");
    assert_eq!(points, 4);
    assert!((means["checkpoint:P1"] - (19.0 + 0.75) / 20.0).abs() < 1e-12);
    assert!(
        (file.report.aggregate.metrics["checkpoint:P1"] - 1.0).abs() < 1e-12,
        "the report's own"
    );
    assert_eq!(f.flaky.len(), 1);
    assert_eq!(f.flaky[0].case, "c03");
    assert_eq!(
        f.flaky[0].metrics[0].outcomes,
        Outcomes {
            passed: 3,
            trials: 4
        }
    );
    // A window of 2 leaves c03's failure out; other tags are not pooled at all.
    let gates = GatesSpec {
        history_window: Some(2),
        ..GatesSpec::default()
    };
    let f = PooledBaseline::of(&file, &history, &gates)
        .flakiness()
        .expect("2 trials");
    assert!(f.flaky.is_empty());
    for h in &mut history {
        h.config_tags = [("model".to_owned(), "other".to_owned())].into();
    }
    assert!(
        PooledBaseline::of(&file, &history, &GatesSpec::default())
            .flakiness()
            .is_none()
    );
    assert!(
        PooledBaseline::of(&file, &history, &GatesSpec::default())
            .means()
            .is_none()
    );
}
