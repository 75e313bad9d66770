//! Gate rules beyond the statistics: unevaluated checkpoints and infrastructure failures.

use crate::compare::decide::no_baseline_report;
use crate::model::compare::Verdict;
use crate::model::run::{CaseError, CaseStatus, CheckpointState, NaKind, RunReport};
use crate::spec::model::{FailOn, GatesSpec, Severity, UnevaluatedPolicy};

use super::fixtures::{checkpoint, flat_cases, options, report, run_with};

/// Head and base where checkpoint `J` (critical, tier 3) is N/A of `kind` in every case.
fn with_na(kind: Option<NaKind>, severity: Severity) -> (RunReport, RunReport) {
    let cases = |(): ()| {
        flat_cases(10, 0, |_| true)
            .into_iter()
            .map(|mut c| {
                let mut j = checkpoint("J", severity, CheckpointState::NotApplicable);
                j.notes = "no judge configured".into();
                j.na_kind = kind;
                c.checkpoints.push(j);
                c
            })
            .collect()
    };
    let mut head = report(cases(()), "x");
    head.checkpoint_catalog
        .push(crate::model::run::CheckpointInfo {
            id: "J".into(),
            tier: 3,
            severity,
            instruction: "judged".into(),
        });
    let base = head.clone();
    (head, base)
}

#[test]
fn a_critical_checkpoint_no_case_could_evaluate_fails_the_gate() {
    let (head, base) = with_na(Some(NaKind::NoJudge), Severity::Critical);
    let r = run_with(
        &head,
        &base,
        &GatesSpec::default(),
        &options(FailOn::Critical),
    )
    .unwrap();
    assert_eq!(r.verdict, Verdict::Fail);
    let j = r.coverage.iter().find(|c| c.id == "J").unwrap();
    assert_eq!((j.decided, j.not_evaluated, j.unevaluated), (0, 10, true));
    assert_eq!(j.reason, "N/A: no judge configured (10 of 10)");
    assert!(
        r.reasons
            .iter()
            .any(|x| x.contains("`s/J` (critical severity) was evaluated in no case")),
        "{:?}",
        r.reasons
    );
    // `gates.unevaluated: warn` reports it without failing.
    let warn = GatesSpec {
        unevaluated: Some(UnevaluatedPolicy::Warn),
        ..GatesSpec::default()
    };
    let r = run_with(&head, &base, &warn, &options(FailOn::Critical)).unwrap();
    assert_eq!(r.verdict, Verdict::Pass);
    assert!(
        r.reasons
            .iter()
            .any(|x| x.starts_with("warning: checkpoint `s/J`"))
    );
}

#[test]
fn unknown_na_reasons_fail_closed_and_vacuous_ones_do_not_fail() {
    // An N/A without a known kind is treated as "could not evaluate".
    let (head, base) = with_na(None, Severity::Critical);
    let r = run_with(
        &head,
        &base,
        &GatesSpec::default(),
        &options(FailOn::Critical),
    )
    .unwrap();
    assert_eq!(r.verdict, Verdict::Fail);
    // The trigger never occurred (nothing to check) or the case is out of scope: fine.
    for kind in [NaKind::NotTriggered, NaKind::NotApplicable] {
        let (head, base) = with_na(Some(kind), Severity::Critical);
        let r = run_with(
            &head,
            &base,
            &GatesSpec::default(),
            &options(FailOn::Critical),
        )
        .unwrap();
        assert_eq!(r.verdict, Verdict::Pass, "{kind:?}");
    }
    // Below `fail_on`, an unevaluated checkpoint is only shown in the coverage.
    let (head, base) = with_na(Some(NaKind::NoJudge), Severity::Medium);
    let r = run_with(
        &head,
        &base,
        &GatesSpec::default(),
        &options(FailOn::Critical),
    )
    .unwrap();
    assert_eq!(r.verdict, Verdict::Pass);
    assert!(!r.coverage.iter().any(|c| c.unevaluated));
}

#[test]
fn most_cases_failing_for_one_cause_is_could_not_evaluate() {
    let base = report(flat_cases(10, 0, |_| true), "x");
    let mut cases = flat_cases(10, 0, |_| true);
    for c in cases.iter_mut().take(7) {
        c.status = CaseStatus::AgentError;
        c.error = Some(CaseError {
            message: "the agent exited with code 1".into(),
            exit_code: Some(1),
            stdout_tail: None,
            stderr_tail: Some("Traceback …\nKeyError: 'OPENAI_API_KEY'\n".into()),
        });
    }
    let head = report(cases.clone(), "x");
    let r = run_with(
        &head,
        &base,
        &GatesSpec::default(),
        &options(FailOn::Critical),
    )
    .unwrap();
    assert_eq!(r.verdict, Verdict::CouldNotEvaluate);
    assert!(
        r.reasons.iter().any(|x| x.contains(
            "7 of 10 cases failed the same way before producing a trace (agent_error: the agent exited with code 1: KeyError: 'OPENAI_API_KEY')"
        )),
        "{:?}",
        r.reasons
    );
    // Different causes, or only a minority failing, are not an infrastructure failure.
    for (i, c) in cases.iter_mut().enumerate().take(7) {
        if let Some(e) = c.error.as_mut() {
            e.stderr_tail = Some(format!("ValueError: case {i}"));
        }
    }
    let head = report(cases, "x");
    let r = run_with(
        &head,
        &base,
        &GatesSpec::default(),
        &options(FailOn::Critical),
    )
    .unwrap();
    assert_ne!(r.verdict, Verdict::CouldNotEvaluate);
}

#[test]
fn no_baseline_yet_passes_and_says_how_to_create_it() {
    let r = no_baseline_report("main", FailOn::Critical, &["support-bot".to_owned()]);
    assert_eq!(r.verdict, Verdict::Pass);
    assert_eq!(r.missing_baselines, ["support-bot"]);
    assert!(
        r.reasons[0].contains("baseline update --name main"),
        "{:?}",
        r.reasons
    );
}
