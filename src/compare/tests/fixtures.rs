//! Synthetic reports for the compare tests: cases with a critical checkpoint `P1`,
//! compliance and cost, and the plumbing to compare two runs.

use std::collections::BTreeMap;

use crate::baseline::model::{BaselineMeta, HistoryLine};
use crate::compare::decide::{AlphaPlan, CompareOptions, compare};
use crate::compare::engine::SuiteInput;
use crate::eval::report::aggregate;
use crate::model::run::{
    CaseReport, CaseStatus, CheckpointInfo, CheckpointResult, CheckpointState, CheckpointSummary,
    EvaluatorAudit, JudgeSummary, Quartiles, RunMode, RunReport, Scores, StepResult, Tier,
};
use crate::spec::model::{FailOn, GatesSpec, Severity, StepType};

/// A case: compliance, whether checkpoint P1 passed, cost, and an optional root-cause step.
pub(super) fn case(
    id: &str,
    compliance: f64,
    p1_pass: bool,
    cost: f64,
    root: Option<&str>,
) -> CaseReport {
    let cp = CheckpointResult {
        id: "P1".into(),
        position_index: 1,
        tier: 2,
        severity: Severity::Critical,
        result: if p1_pass {
            CheckpointState::Pass
        } else {
            CheckpointState::Fail
        },
        earned_weight: Some(if p1_pass { 1.0 } else { 0.0 }),
        notes: if p1_pass {
            "ok".into()
        } else {
            "lookup skipped".into()
        },
        evaluated_by: "tier2".into(),
        matched_criterion: None,
        cited_spans: vec![],
        blocked_by: None,
        confidence: None,
        na_kind: None,
    };
    let steps = root
        .map(|name| {
            vec![StepResult {
                id: "s1".into(),
                step_type: StepType::Exec,
                name: name.into(),
                span_id: None,
                score: Some(1.0),
                scored_by: "rules".into(),
                failed: true,
                root_cause: true,
                notes: "".into(),
                metrics: crate::model::StepMetrics::default(),
                agent: None,
                extra: None,
            }]
        })
        .unwrap_or_default();
    CaseReport {
        id: id.into(),
        trial: 0,
        tags: vec![],
        status: CaseStatus::Ok,
        error: None,
        trace: None,
        scores: Scores {
            compliance_percent: Some(compliance),
            spec_health_percent: Some(100.0),
            task_success: Some(if p1_pass { 1.0 } else { 0.0 }),
            cost_usd: Some(cost),
            ..Scores::default()
        },
        summary: CheckpointSummary::default(),
        checkpoints: vec![cp],
        steps,
        dag: crate::model::run::DagInfo::default(),
        tool_use: crate::model::run::ToolUse::default(),
        cost: crate::model::run::Cost::default(),
        task: None,
        trace_judges: Vec::new(),
        position_dropout: Quartiles::default(),
        evaluator_audit: EvaluatorAudit::default(),
        warnings: vec![],
        root_cause: None,
    }
}

pub(super) fn report(cases: Vec<CaseReport>, instruction: &str) -> RunReport {
    RunReport {
        schema_version: 1,
        tool_version: "test".into(),
        suite: "s".into(),
        spec_version: "1".into(),
        spec_hash: "h".into(),
        tier: Tier::Full,
        mode: RunMode::Replay,
        seed: 42,
        config_tags: BTreeMap::new(),
        checkpoint_catalog: vec![CheckpointInfo {
            id: "P1".into(),
            tier: 2,
            severity: Severity::Critical,
            instruction: instruction.into(),
        }],
        evaluated_at: None,
        wall_time_ms: None,
        judge: JudgeSummary::default(),
        shard: None,
        adaptive: None,
        aggregate: aggregate(&cases, 1),
        cases,
        warnings: vec![],
    }
}

/// 20 cases with compliance 80 + (i mod 5), P1 passing, cost 0.01.
pub(super) fn base_cases() -> Vec<CaseReport> {
    (0..20)
        .map(|i| {
            case(
                &format!("c{i:02}"),
                80.0 + f64::from(i % 5),
                true,
                0.01,
                None,
            )
        })
        .collect()
}

pub(super) fn meta() -> BaselineMeta {
    BaselineMeta {
        name: "main".into(),
        suite: "s".into(),
        git_sha: Some("abc".into()),
        git_ref: None,
        updated_at: None,
        tool_version: "t".into(),
        spec_version: "1".into(),
        spec_hash: "h".into(),
        config_tags: BTreeMap::new(),
        update: None,
    }
}

pub(super) fn history(compliance: &[f64]) -> Vec<HistoryLine> {
    compliance
        .iter()
        .map(|c| HistoryLine {
            updated_at: None,
            git_sha: None,
            git_ref: None,
            spec_hash: "h".into(),
            cases: 20,
            config_tags: BTreeMap::new(),
            metrics: [("compliance_percent".to_owned(), *c)]
                .into_iter()
                .collect(),
            update: None,
            case_values: None,
        })
        .collect()
}

pub(super) fn options(fail_on: FailOn) -> CompareOptions {
    CompareOptions {
        baseline_name: "main".into(),
        resamples: 2000,
        seed: 42,
        fdr: true,
        fail_on,
        warn_only: false,
        alpha_plan: AlphaPlan::Whole,
    }
}

pub(super) fn run(
    head: &RunReport,
    base: &RunReport,
    hist: &[HistoryLine],
    gates: &GatesSpec,
    fail_on: FailOn,
) -> crate::model::compare::CompareReport {
    let meta = meta();
    let input = SuiteInput {
        suite: "s",
        head,
        base,
        history: hist,
        meta: &meta,
        gates,
        fail_on,
        checkpoint_severity: [("P1".to_owned(), Severity::Critical)]
            .into_iter()
            .collect(),
        use_sigma: true,
    };
    compare(&[input], &options(fail_on)).expect("compare")
}

pub(super) fn metric<'a>(
    r: &'a crate::model::compare::CompareReport,
    name: &str,
) -> &'a crate::model::compare::MetricComparison {
    r.metrics
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no metric {name}"))
}

/// A checkpoint result row (tier 2, severity from the argument).
pub(super) fn checkpoint(id: &str, severity: Severity, state: CheckpointState) -> CheckpointResult {
    CheckpointResult {
        id: id.into(),
        position_index: 1,
        tier: 2,
        severity,
        result: state,
        earned_weight: match state {
            CheckpointState::Pass => Some(1.0),
            CheckpointState::Fail => Some(0.0),
            _ => None,
        },
        notes: format!("{id} {state}"),
        evaluated_by: "tier2".into(),
        matched_criterion: None,
        cited_spans: vec![],
        blocked_by: None,
        confidence: None,
        na_kind: None,
    }
}

/// `n` cases whose only varying metric is checkpoint P1 (`p1(i)` = passes in case i), with
/// `extra` more checkpoints that always pass: every other metric is constant.
pub(super) fn flat_cases(n: usize, extra: usize, p1: impl Fn(usize) -> bool) -> Vec<CaseReport> {
    (0..n)
        .map(|i| {
            let mut c = case(&format!("c{i:02}"), 90.0, p1(i), 0.01, None);
            c.scores.task_success = Some(1.0);
            for k in 0..extra {
                c.checkpoints.push(checkpoint(
                    &format!("X{k:02}"),
                    Severity::Low,
                    CheckpointState::Pass,
                ));
            }
            c
        })
        .collect()
}

/// Compare with explicit options and severities.
pub(super) fn run_with(
    head: &RunReport,
    base: &RunReport,
    gates: &GatesSpec,
    options: &CompareOptions,
) -> Result<crate::model::compare::CompareReport, crate::compare::error::CompareError> {
    let meta = meta();
    let input = SuiteInput {
        suite: "s",
        head,
        base,
        history: &[],
        meta: &meta,
        gates,
        fail_on: options.fail_on,
        checkpoint_severity: [("P1".to_owned(), Severity::Critical)]
            .into_iter()
            .collect(),
        use_sigma: true,
    };
    compare(&[input], options)
}

/// A history line of `cases` cases `c00`, `c01`, … under config tag `model=m`: checkpoint P1's
/// trials of case `i` are `p1(i)`.
pub(super) fn p1_history_line(cases: usize, p1: impl Fn(usize) -> Vec<f64>) -> HistoryLine {
    let case_values = (0..cases)
        .map(|i| {
            let metrics: BTreeMap<String, Vec<f64>> = [("checkpoint:P1".to_owned(), p1(i))].into();
            (format!("c{i:02}"), metrics)
        })
        .collect();
    HistoryLine {
        updated_at: None,
        git_sha: None,
        git_ref: None,
        spec_hash: "h".into(),
        cases,
        config_tags: [("model".to_owned(), "m".to_owned())].into(),
        metrics: BTreeMap::new(),
        update: None,
        case_values: Some(case_values),
    }
}
