//! With per-case history pooled, a metric's cases, its missing counts, the means and the cases
//! that got worse are those of the trials the test uses, not only the baseline report's own
//! (found on tau-bench: three updates of one trial each gave the same p-values as one update
//! of three trials, but a smaller `n`, other `missing` counts and, below `min_cases`, no test).

use crate::baseline::model::HistoryLine;
use crate::compare::decide::compare;
use crate::compare::engine::SuiteInput;
use crate::model::compare::{CompareReport, MetricStatus, Missing};
use crate::model::run::{CaseReport, CheckpointState};
use crate::spec::model::{FailOn, GatesSpec, Severity};

use super::fixtures::{case, meta, metric, options, p1_history_line, report};

/// 12 cases; P1 passes where `applies(i)` says it applied, and is N/A elsewhere.
fn cases(pass: impl Fn(usize) -> bool, applies: impl Fn(usize) -> bool) -> Vec<CaseReport> {
    (0..12)
        .map(|i| {
            let mut c = case(&format!("c{i:02}"), 90.0, pass(i), 0.01, None);
            if !applies(i) {
                c.checkpoints[0].result = CheckpointState::NotApplicable;
                c.checkpoints[0].earned_weight = None;
            }
            c
        })
        .collect()
}

fn compare_with(history: &[HistoryLine]) -> CompareReport {
    // The latest baseline trial: P1 applied (and passed) in c00–c03 only.
    let base = report(cases(|_| true, |i| i < 4), "Look up first");
    // The head: P1 applies everywhere and fails in c00–c07.
    let head = report(cases(|i| i >= 8, |_| true), "Look up first");
    let mut meta = meta();
    meta.config_tags = [("model".to_owned(), "m".to_owned())].into();
    let gates = GatesSpec::default();
    let input = SuiteInput {
        suite: "s",
        head: &head,
        base: &base,
        history,
        meta: &meta,
        gates: &gates,
        fail_on: FailOn::Critical,
        checkpoint_severity: [("P1".to_owned(), Severity::Critical)]
            .into_iter()
            .collect(),
        use_sigma: true,
    };
    compare(&[input], &options(FailOn::Critical)).expect("compare")
}

#[test]
fn pooled_history_counts_the_cases_the_test_uses() {
    // Alone, the report's 4 cases are below min_cases (5): no test.
    let r = compare_with(&[]);
    let p1 = metric(&r, "checkpoint:P1");
    assert_eq!(p1.n, 4);
    assert_eq!(p1.status, MetricStatus::InsufficientData);
    assert_eq!(p1.missing, Missing { head: 0, base: 8 });

    // Three earlier updates saw P1 in every case: 12 cases, 3 baseline trials each.
    let history: Vec<HistoryLine> = (0..3).map(|_| p1_history_line(12, |_| vec![1.0])).collect();
    let r = compare_with(&history);
    let p1 = metric(&r, "checkpoint:P1");
    assert_eq!(p1.n, 12, "{p1:?}");
    assert_eq!(p1.missing, Missing::default());
    let used = p1.trials.as_ref().expect("the stratified test");
    assert_eq!((used.head, used.base, used.history_points), (12, 36, 3));
    assert_eq!(p1.base_mean, Some(1.0));
    assert_eq!(p1.head_mean, Some(4.0 / 12.0));
    assert_eq!(p1.status, MetricStatus::Regression, "{p1:?}");
    let loc = p1.localization.as_ref().expect("localized");
    let worse: Vec<&str> = loc.flipped_cases.iter().map(|c| c.case.as_str()).collect();
    assert_eq!(
        worse.len(),
        8,
        "c00–c07 got worse against their history: {worse:?}"
    );
    assert!(
        worse.contains(&"c07"),
        "c07 had no baseline value in the report: {worse:?}"
    );
}
