//! Judge coverage (issue 21): a judge-fed metric is compared only over the cases judged on
//! the same footing on both sides, and a gating one left without enough fails closed.

use super::fixtures::{case, metric, report, run};
use crate::model::compare::{MetricStatus, Verdict};
use crate::model::run::{CaseReport, CheckpointResult, CheckpointState, NaKind, StepResult};
use crate::spec::model::{
    FailOn, GatesSpec, MetricGateSpec, Severity, StepType, UnevaluatedPolicy,
};

/// A PLAN step scored `score` by `scored_by`, with `judge_missing`.
fn plan(score: f64, scored_by: &str, judge_missing: bool) -> StepResult {
    StepResult {
        id: "s1".into(),
        step_type: StepType::Plan,
        name: "plan".into(),
        span_id: None,
        score: Some(score),
        scored_by: scored_by.to_owned().into(),
        failed: false,
        root_cause: false,
        notes: "".into(),
        metrics: crate::model::StepMetrics::default(),
        agent: None,
        extra: crate::model::run::StepExtra {
            judge_missing,
            ..Default::default()
        }
        .boxed(),
    }
}

fn cases(step: impl Fn(usize) -> StepResult) -> Vec<CaseReport> {
    (0..12)
        .map(|i| {
            let mut c = case(&format!("c{i:02}"), 90.0, true, 0.01, None);
            c.steps = vec![step(i)];
            c
        })
        .collect()
}

fn gates(policy: UnevaluatedPolicy) -> GatesSpec {
    GatesSpec {
        metrics: [(
            "step_type:PLAN".to_owned(),
            MetricGateSpec {
                severity: Some(Severity::Critical),
                min_effect: None,
            },
        )]
        .into_iter()
        .collect(),
        unevaluated: Some(policy),
        ..GatesSpec::default()
    }
}

#[test]
fn missing_judge_answers_are_not_an_improvement_and_a_gating_metric_fails_closed() {
    // The baseline's judge scored every plan 2; the head's answers are missing and the
    // rules' 5 stands (the judge can only lower it).
    let base = report(cases(|_| plan(2.0, "judge:openai/m", false)), "x");
    let head = report(cases(|_| plan(5.0, "rules", true)), "x");
    let r = run(
        &head,
        &base,
        &[],
        &gates(UnevaluatedPolicy::Fail),
        FailOn::Critical,
    );
    let m = metric(&r, "step_type:PLAN");
    assert_eq!(m.status, MetricStatus::NotComparable, "{m:?}");
    assert_eq!(m.n, 0);
    assert!(
        m.judge_note.contains(
            "judge coverage differs in 12 paired cases (a judge answer missing in the head run: 12)"
        ),
        "{}",
        m.judge_note
    );
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(
        r.reasons
            .iter()
            .any(|l| l.starts_with("`s/step_type:PLAN` (critical severity) is not comparable")),
        "{:?}",
        r.reasons
    );
    // `gates.unevaluated: warn` says it without failing.
    let r = run(
        &head,
        &base,
        &[],
        &gates(UnevaluatedPolicy::Warn),
        FailOn::Critical,
    );
    assert_eq!(r.verdict, Verdict::Pass, "{:?}", r.reasons);
    assert!(
        r.reasons
            .iter()
            .any(|l| l.starts_with("warning: `s/step_type:PLAN`"))
    );

    // Half the head's answers there: compared over those cases only, where nothing moved.
    let head = report(
        cases(|i| {
            if i % 2 == 0 {
                plan(2.0, "judge:openai/m", false)
            } else {
                plan(5.0, "rules", true)
            }
        }),
        "x",
    );
    let r = run(
        &head,
        &base,
        &[],
        &gates(UnevaluatedPolicy::Fail),
        FailOn::Critical,
    );
    let m = metric(&r, "step_type:PLAN");
    assert_eq!((m.n, m.status), (6, MetricStatus::Unchanged), "{m:?}");
    assert_eq!(m.head_mean, Some(2.0));
    assert!(
        m.judge_note.contains("6 cases left out"),
        "{}",
        m.judge_note
    );
    assert_eq!(r.verdict, Verdict::Pass, "{:?}", r.reasons);
}

#[test]
fn the_same_judge_on_both_sides_changes_nothing() {
    let base = report(cases(|_| plan(4.0, "judge:openai/m", false)), "x");
    let head = report(
        cases(|i| plan(if i < 8 { 2.0 } else { 4.0 }, "judge:openai/m", false)),
        "x",
    );
    let r = run(
        &head,
        &base,
        &[],
        &gates(UnevaluatedPolicy::Fail),
        FailOn::Critical,
    );
    let m = metric(&r, "step_type:PLAN");
    assert_eq!((m.n, m.status), (12, MetricStatus::Regression), "{m:?}");
    assert!(m.judge_note.is_empty());
}

fn tier3(state: CheckpointState, by: &str, na: Option<NaKind>) -> CheckpointResult {
    CheckpointResult {
        id: "T3".into(),
        position_index: 2,
        tier: 3,
        severity: Severity::Low,
        result: state,
        earned_weight: match state {
            CheckpointState::Pass => Some(1.0),
            CheckpointState::Fail => Some(0.0),
            _ => None,
        },
        notes: String::new(),
        evaluated_by: by.into(),
        matched_criterion: None,
        cited_spans: vec![],
        blocked_by: None,
        confidence: None,
        na_kind: na,
    }
}

#[test]
fn compliance_leaves_out_tier3_verdicts_one_side_lacks() {
    // Baseline: P1 passes, the judged T3 fails (compliance 50). Head: T3 not in the judge
    // cache (compliance 100 over P1 alone): an improvement that is only missing answers.
    let with = |c: CaseReport, t3: CheckpointResult, compliance: f64| {
        let mut c = c;
        c.checkpoints.push(t3);
        c.scores.compliance_percent = Some(compliance);
        c
    };
    let base = report(
        (0..12)
            .map(|i| {
                with(
                    case(&format!("c{i:02}"), 0.0, true, 0.01, None),
                    tier3(CheckpointState::Fail, "judge:openai/m", None),
                    50.0,
                )
            })
            .collect(),
        "x",
    );
    let head = report(
        (0..12)
            .map(|i| {
                with(
                    case(&format!("c{i:02}"), 0.0, true, 0.01, None),
                    tier3(
                        CheckpointState::NotApplicable,
                        "none",
                        Some(NaKind::JudgeError),
                    ),
                    100.0,
                )
            })
            .collect(),
        "x",
    );
    let r = run(&head, &base, &[], &GatesSpec::default(), FailOn::Critical);
    let m = metric(&r, "compliance_percent");
    assert_eq!(
        (m.base_mean, m.head_mean),
        (Some(100.0), Some(100.0)),
        "{m:?}"
    );
    assert_ne!(m.status, MetricStatus::Improvement);
    assert!(m.judge_note.contains("in 12 cases"), "{}", m.judge_note);
    let t3 = metric(&r, "checkpoint:T3");
    assert_eq!(t3.status, MetricStatus::NotComparable, "{t3:?}");
}

/// The 2σ limit reads the head's mean over every case, and missing judged scores raise
/// it (the rules' 5 stands): with judge coverage narrowed, the paired test decides alone,
/// so a regression it finds is not softened to `suspected` by an inflated suite mean.
#[test]
fn the_two_sigma_leg_is_not_used_where_judge_coverage_differs() {
    let cases20 = |step: &dyn Fn(usize) -> StepResult| -> Vec<CaseReport> {
        (0..20)
            .map(|i| {
                let mut c = case(&format!("c{i:02}"), 90.0, true, 0.01, None);
                c.steps = vec![step(i)];
                c
            })
            .collect()
    };
    let base = report(cases20(&|_| plan(4.0, "judge:openai/m", false)), "x");
    // 14 judged plans fell from 4 to 3; 6 lost their judge answer and keep the rules' 5.
    let head = report(
        cases20(&|i| {
            if i < 14 {
                plan(3.0, "judge:openai/m", false)
            } else {
                plan(5.0, "rules", true)
            }
        }),
        "x",
    );
    // Earlier suite means around 3.7: the head's mean over every case (3.6) is inside
    // the band, while the 14 cases judged on both sides all got worse.
    let hist: Vec<_> = super::fixtures::history(&[90.0; 8])
        .into_iter()
        .zip([3.6, 3.7, 3.8, 3.65, 3.75, 3.7, 3.6, 3.8])
        .map(|(mut line, plan_mean)| {
            line.metrics.insert("step_type:PLAN".to_owned(), plan_mean);
            line
        })
        .collect();
    let r = run(
        &head,
        &base,
        &hist,
        &gates(UnevaluatedPolicy::Fail),
        FailOn::Critical,
    );
    let m = metric(&r, "step_type:PLAN");
    assert_eq!((m.n, m.status), (14, MetricStatus::Regression), "{m:?}");
    assert!(m.sigma_band.is_none(), "{m:?}");
    assert!(
        m.sigma_note.contains("judge coverage differs"),
        "{}",
        m.sigma_note
    );
    assert_eq!(r.verdict, Verdict::Fail, "{:?}", r.reasons);
}
