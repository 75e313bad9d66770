//! One case end to end: checkpoints, steps and metrics into a `CaseReport`.

use serde_json::Value;

use crate::eval::checkpoint::{CheckpointInputs, JudgeVerdicts, evaluate_checkpoints};
use crate::eval::compliance;
use crate::eval::metrics::task::{combine, evaluate_ground_truth};
use crate::model::run::{
    CaseError, CaseReport, CaseStatus, CheckpointResult, Cost, DagInfo, Scores, StepResult,
    TaskResult, ToolUse, TraceInfo,
};
use crate::spec::suite::{Case, Suite};
use crate::trace::Trace;

/// What the runner got for a case.
#[derive(Debug, Clone)]
pub enum TraceOutcome {
    Loaded {
        trace: Box<Trace>,
        info: TraceInfo,
    },
    /// No usable trace: the case counts as failed, never dropped.
    Failed {
        status: CaseStatus,
        error: CaseError,
        info: Option<TraceInfo>,
        /// Run mode: wall time until the agent failed or was killed, so a crashing head
        /// does not look faster (omitted with `--deterministic`).
        elapsed_ms: Option<f64>,
    },
}

/// Step-level results for a case (DAG, step scores, tool use, cost, task).
#[derive(Debug, Clone, Default)]
pub struct StepPart {
    pub steps: Vec<StepResult>,
    pub dag: DagInfo,
    pub tool_use: ToolUse,
    pub cost: Cost,
    pub workflow_quality: Option<f64>,
    pub task: Option<TaskResult>,
    pub root_cause: Option<crate::model::run::CaseRootCause>,
}

pub(crate) struct CaseContext<'a> {
    pub suite: &'a Suite,
    pub case: &'a Case,
    pub outcome: &'a TraceOutcome,
    pub evidence: Option<&'a Value>,
    pub judge: &'a JudgeVerdicts,
}

/// Workflow score given to a case that produced no trace: the bottom of the
/// 1–5 scale, so a crash can never raise the suite mean.
pub(crate) const FAILED_CASE_WORKFLOW_QUALITY: f64 = 1.0;

/// What a case's trace gives apart from its steps: its checkpoints, status
/// and warnings. Made before the step entries, so the runner can drop the
/// trace before it makes them (a large trace's spans and its report's
/// steps were in memory at once, issue 25).
pub(crate) struct CaseChecks {
    checkpoints: Vec<CheckpointResult>,
    status: CaseStatus,
    error: Option<CaseError>,
    info: Option<TraceInfo>,
    latency_ms: Option<f64>,
    trace_warnings: Vec<String>,
}

/// The checkpoints and status of the case in `cx`.
pub(crate) fn check_case(cx: &CaseContext<'_>) -> CaseChecks {
    let (trace, failure, status, error, info) = match cx.outcome {
        TraceOutcome::Loaded { trace, info } => (
            Some(trace.as_ref()),
            None,
            CaseStatus::Ok,
            None,
            Some(info.clone()),
        ),
        TraceOutcome::Failed {
            status,
            error,
            info,
            ..
        } => {
            let reason = format!("{status}: {}", error.message);
            (
                None,
                Some(reason),
                *status,
                Some(error.clone()),
                info.clone(),
            )
        }
    };
    let latency_ms = match cx.outcome {
        TraceOutcome::Failed {
            elapsed_ms: Some(ms),
            ..
        } => Some(*ms),
        _ => None,
    };
    let checkpoints = evaluate_checkpoints(&CheckpointInputs {
        suite: cx.suite,
        case: cx.case,
        trace,
        failure: failure.as_deref(),
        evidence: cx.evidence,
        judge: cx.judge,
    });
    CaseChecks {
        checkpoints,
        status,
        error,
        info,
        latency_ms,
        trace_warnings: trace.map(|t| t.warnings.clone()).unwrap_or_default(),
    }
}

/// The report of `case` from its checks and its steps.
pub(crate) fn finish_case(
    suite: &Suite,
    case: &Case,
    evidence: Option<&Value>,
    checks: CaseChecks,
    mut steps: StepPart,
) -> CaseReport {
    let CaseChecks {
        checkpoints,
        status,
        error,
        info,
        latency_ms,
        trace_warnings,
    } = checks;
    if latency_ms.is_some() {
        steps.cost.latency_ms = latency_ms;
    }
    let compliance_percent = compliance::compliance_percent(&checkpoints);
    let failed = status != CaseStatus::Ok;
    let ground_truth = suite
        .task_success
        .as_ref()
        .map(|spec| evaluate_ground_truth(spec, evidence, &checkpoints));
    let task = combine(ground_truth, steps.task.clone());
    let task_success = if failed {
        Some(0.0)
    } else {
        task.as_ref()
            .and_then(|t| t.success)
            .map(|ok| if ok { 1.0 } else { 0.0 })
    };
    let scores = Scores {
        compliance_percent,
        spec_health_percent: compliance::spec_health_percent(&checkpoints),
        rating: compliance::rating(compliance_percent),
        workflow_quality: if failed {
            Some(FAILED_CASE_WORKFLOW_QUALITY)
        } else {
            steps.workflow_quality
        },
        task_success,
        cost_usd: steps.cost.cost_usd,
        latency_ms: steps.cost.latency_ms,
    };
    let n = suite.checkpoints.len();
    CaseReport {
        id: case.id.clone(),
        tags: case.tags.clone(),
        trial: 0,
        status,
        error,
        trace: info,
        scores,
        summary: compliance::summarize(&checkpoints),
        position_dropout: compliance::position_dropout(&checkpoints, n),
        evaluator_audit: compliance::evaluator_audit(&checkpoints),
        checkpoints,
        steps: steps.steps,
        dag: steps.dag,
        tool_use: steps.tool_use,
        cost: steps.cost,
        task,
        trace_judges: Vec::new(),
        warnings: trace_warnings,
        root_cause: steps.root_cause,
    }
}
