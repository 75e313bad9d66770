//! The run report: what `run --out` writes, what baselines store and what
//! `compare` pairs (DESIGN §13). It is a public contract: extend it freely,
//! but renaming or re-typing a field needs a [`RUN_REPORT_SCHEMA_VERSION`] bump.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::step_edge::StepEdge;
use crate::model::vocab::Severity;

/// Version of the run report JSON.
pub(crate) const RUN_REPORT_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    pub schema_version: u32,
    pub tool_version: String,
    pub suite: String,
    pub spec_version: String,
    /// sha256 of `suite.yaml` and every included case file.
    pub spec_hash: String,
    pub tier: Tier,
    pub mode: RunMode,
    pub seed: u64,
    pub config_tags: BTreeMap<String, String>,
    /// The suite's checkpoints at evaluation time: lets `lint` and `compare`
    /// detect changed instructions and name what moved.
    pub checkpoint_catalog: Vec<CheckpointInfo>,
    /// RFC 3339; omitted with `--deterministic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluated_at: Option<String>,
    /// Wall time of the evaluation; omitted with `--deterministic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_time_ms: Option<u64>,
    pub judge: JudgeSummary,
    /// Set when this report covers one shard (`run --shard i/n`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardInfo>,
    /// Adaptive confirmation (`agent.trials: {min, max}`) against a baseline: the first
    /// `min` trials of every case, then re-runs; a compare tests conditionally on them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<AdaptiveTrials>,
    pub cases: Vec<CaseReport>,
    pub aggregate: Aggregate,
    /// Suite-level warnings (e.g. trace ingestion oddities), never dropped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl RunReport {
    /// How many cases the report holds: `cases` has one entry per trial of each case.
    pub fn case_count(&self) -> usize {
        self.cases
            .iter()
            .map(|c| c.id.as_str())
            .collect::<std::collections::HashSet<_>>()
            .len()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointInfo {
    pub id: String,
    pub tier: u8,
    pub severity: Severity,
    pub instruction: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    Smoke,
    Full,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Smoke => "smoke",
            Self::Full => "full",
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunMode {
    /// Recorded traces were read.
    Replay,
    /// The suite's agent command was run.
    Run,
}

/// How an adaptive run was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdaptiveTrials {
    /// Trials of every case (trials `0 … min−1`).
    pub min: u32,
    /// Most trials of a re-run case.
    pub max: u32,
    /// Cases that were re-run.
    pub rerun_cases: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardInfo {
    /// 1-based shard index.
    pub index: u32,
    pub count: u32,
}

/// The run report's `judge` section. Counts are of questions (one per
/// tier-3 checkpoint and repeat, judged step metric, semantic task), except
/// `calls` (HTTP requests, retries included). Fields past `cost_usd` are
/// omitted while zero, so reports without a judge keep their shape.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JudgeSummary {
    /// `none`, `openai`, `anthropic` or `replay`.
    pub provider: String,
    pub calls: u64,
    pub cache_hits: u64,
    /// Questions no judge answered usably (N/A `judge_error`).
    pub errors: u64,
    /// Actual cost of the calls made (cache hits cost nothing).
    pub cost_usd: f64,
    /// `provider/model` answers were looked up under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Questions asked of the judge pipeline.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub questions: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_misses: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_in_cache: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub budget_exhausted: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retries: u64,
    /// Questions answered by a fallback provider.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fallbacks: u64,
    /// Questions asked once more because the first answer did not parse.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasked: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub input_tokens: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub output_tokens: u64,
    /// Root-cause questions (`scoring.root_cause: judge`): one per failed case.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub root_cause_questions: u64,
    /// `(errors + not_in_cache) / (questions − budget_exhausted)`: a replay miss counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_rate: Option<f64>,
    /// Error class → questions.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub error_classes: BTreeMap<String, u64>,
    /// Verdicts that cited span ids not in the trace (flagged in their notes).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub invalid_citations: u64,
    /// Questions per case of each opt-in judge feature, stated up front
    /// (`gpa`: 1, all seven dimensions in one question).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub per_case: BTreeMap<String, u64>,
    /// Some call was made by a judge without a price: `cost_usd` is a lower bound.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cost_incomplete: bool,
    /// The first failed question, in question order, with the provider's message
    /// (untrusted text: escaped wherever it is shown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_error: Option<String>,
    /// What the provider made the run change: a sampling parameter it rejected, with its
    /// message, and that the question was asked again without it (issue 21).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseStatus {
    Ok,
    /// The agent process failed (non-zero exit, crash).
    AgentError,
    Timeout,
    /// No trace file, or an empty one.
    TraceMissing,
    /// The trace could not be parsed.
    ParseError,
}

impl CaseStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::AgentError => "agent_error",
            Self::Timeout => "timeout",
            Self::TraceMissing => "trace_missing",
            Self::ParseError => "parse_error",
        }
    }
}

impl fmt::Display for CaseStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseReport {
    pub id: String,
    pub tags: Vec<String>,
    /// 0-based trial index: a case run `k` times has one report per trial
    /// (`agent.trials`, `--trials`, or a replay layout of `trial-<i>/`
    /// directories). Absent (0) with one trial.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub trial: u32,
    pub status: CaseStatus,
    /// Why a case is not `ok`: message and, in run mode, output tails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<CaseError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceInfo>,
    pub scores: Scores,
    pub summary: CheckpointSummary,
    pub checkpoints: Vec<CheckpointResult>,
    #[serde(default)]
    pub steps: Vec<StepResult>,
    #[serde(default)]
    pub dag: DagInfo,
    #[serde(default)]
    pub tool_use: ToolUse,
    #[serde(default)]
    pub cost: Cost,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskResult>,
    /// Trace-level judge dimensions (`trace_judges: [gpa]`), when asked for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trace_judges: Vec<crate::model::trace_judges::TraceJudgeScore>,
    pub position_dropout: Quartiles,
    pub evaluator_audit: EvaluatorAudit,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The case's decisive error: the earliest root-cause step, or the one
    /// the judge named (`scoring.root_cause: judge`). Absent when nothing failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_cause: Option<CaseRootCause>,
}

/// Which step and agent a failed case is blamed on, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseRootCause {
    /// `greedy`, `full_path`, `weighted` or `judge`.
    pub method: crate::model::vocab::RootCauseMode,
    /// `named`, or `not_available` (with the reason in `reason`).
    pub status: RootCauseStatus,
    /// The step id (`s7`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// The span the step was read from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Why this step, or why none could be named.
    pub reason: String,
    /// `rules`, or the judge's `provider/model`.
    pub by: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RootCauseStatus {
    Named,
    NotAvailable,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseError {
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout_tail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceInfo {
    /// Path relative to the suite directory when possible.
    pub path: String,
    pub format: String,
    pub spans: usize,
}

/// Per-case scores. `None` = undefined for this case (left out of means).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Scores {
    pub compliance_percent: Option<f64>,
    pub spec_health_percent: Option<f64>,
    pub rating: Option<Rating>,
    /// `AgentEval` workflow score Q on the 1–5 scale.
    pub workflow_quality: Option<f64>,
    /// 1 = success, 0 = failure.
    pub task_success: Option<f64>,
    pub cost_usd: Option<f64>,
    pub latency_ms: Option<f64>,
}

/// Compliance rating bands (workflow framework).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Rating {
    /// compliance < 50
    Poor,
    /// 50 ≤ compliance < 70
    NeedsImprovement,
    /// 70 ≤ compliance < 90
    Good,
    /// compliance ≥ 90
    Excellent,
}

impl Rating {
    pub fn from_compliance(percent: f64) -> Self {
        if percent >= 90.0 {
            Self::Excellent
        } else if percent >= 70.0 {
            Self::Good
        } else if percent >= 50.0 {
            Self::NeedsImprovement
        } else {
            Self::Poor
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Poor => "POOR",
            Self::NeedsImprovement => "NEEDS_IMPROVEMENT",
            Self::Good => "GOOD",
            Self::Excellent => "EXCELLENT",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CheckpointSummary {
    pub total_checkpoints: usize,
    pub passed: usize,
    pub partial: usize,
    pub failed: usize,
    pub na: usize,
    pub blocked: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum CheckpointState {
    #[serde(rename = "PASS")]
    Pass,
    #[serde(rename = "PARTIAL")]
    Partial,
    #[serde(rename = "FAIL")]
    Fail,
    #[serde(rename = "N/A")]
    NotApplicable,
    #[serde(rename = "BLOCKED")]
    Blocked,
}

impl CheckpointState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pass => "PASS",
            Self::Partial => "PARTIAL",
            Self::Fail => "FAIL",
            Self::NotApplicable => "N/A",
            Self::Blocked => "BLOCKED",
        }
    }
}

impl fmt::Display for CheckpointState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckpointResult {
    pub id: String,
    /// 1-based position in the suite's checkpoint list.
    pub position_index: usize,
    pub tier: u8,
    pub severity: Severity,
    pub result: CheckpointState,
    /// 1 for PASS, the criterion weight for PARTIAL, 0 for FAIL; `None` for
    /// N/A and BLOCKED (excluded from the possible weight).
    pub earned_weight: Option<f64>,
    /// Why: the value found, the event that broke the sequence, the N/A reason.
    pub notes: String,
    /// Who decided: `tier1`, `tier2`, `judge:<model>`, or `none`.
    pub evaluated_by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_criterion: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cited_spans: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_by: Option<String>,
    /// Tier-3 repeat confidence when `judge.runs > 1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Confidence>,
    /// For N/A: why, as a category (the notes say it in words). `None` on an N/A means the
    /// reason is not known to be harmless, so the gate treats it as "could not evaluate".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub na_kind: Option<NaKind>,
}

/// Why a checkpoint is N/A. The first two mean "nothing to check in this case"; the others
/// mean "could not be checked", which the gate refuses to vouch for (DESIGN §8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NaKind {
    /// The checkpoint's trigger did not occur (e.g. no `then` event for `before/then`).
    NotTriggered,
    /// The checkpoint is scoped to other cases (`applies_to`).
    NotApplicable,
    /// No evidence file for a tier-1 checkpoint.
    NoEvidence,
    /// No trace for a tier-2 checkpoint.
    NoTrace,
    /// A tier-3 checkpoint without a judge.
    NoJudge,
    /// The judge failed, ran out of budget, or had no cached verdict.
    JudgeError,
    /// A `where` expression could not be evaluated (an error, or over its
    /// cost cap): the checkpoint could not be checked.
    ExprError,
    /// A capture search (ordered steps that bind captures) ran out of its
    /// budget of match attempts before an answer.
    SearchLimit,
}

impl NaKind {
    /// Whether an N/A of this kind means the checkpoint was evaluated and had nothing to check.
    pub fn is_vacuous(self) -> bool {
        matches!(self, Self::NotTriggered | Self::NotApplicable)
    }

    /// Whether the evaluation itself broke down (a `where` error or cost cap, a search out
    /// of budget): the case had something to check and it might have failed, so the gate
    /// counts the checkpoint unevaluated even when other cases decided it.
    pub fn broke_down(self) -> bool {
        matches!(self, Self::ExprError | Self::SearchLimit)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Confidence {
    pub runs: u32,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub variance: f64,
    /// HIGH when all runs agree on the state, else LOW.
    pub level: String,
}

pub use crate::model::step_result::StepResult;
pub(crate) use crate::model::step_result::{StepAttempt, StepExtra, TaxonomyLabel};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DagStatus {
    /// No DAG was built (case did not produce a trace).
    #[default]
    None,
    Dag,
    /// Retry loops were unrolled.
    Unrolled,
    FlatFallback,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DagInfo {
    pub status: DagStatus,
    pub nodes: usize,
    /// `[from, to]` step ids (a pair of heap strings cost some 110 bytes
    /// an edge in a report and in a baseline read for a compare, two inline
    /// short texts 48, issue 25).
    pub edges: Vec<StepEdge>,
    pub deviations: Vec<Deviation>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deviation {
    /// `missing_step`, `unexpected_step` or `order_violation`.
    pub kind: String,
    pub step: String,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ToolUse {
    pub tool_calls: usize,
    pub failed_calls: usize,
    pub redundant_calls: usize,
    pub invalid_args: usize,
    pub missing_expected_tools: Vec<String>,
    #[serde(default)]
    pub unknown_tools: Vec<String>,
    #[serde(default)]
    pub loops: usize,
    #[serde(default)]
    pub steps: usize,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[expect(
    clippy::struct_field_names,
    reason = "`cost_usd` is the run report's field name (DESIGN §13)"
)]
pub struct Cost {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: Option<f64>,
    pub latency_ms: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskResult {
    /// `exact`, `normalized`, `contains`, `regex`, `json_keys`, `semantic`.
    pub matcher: String,
    /// `None` when it could not be decided (e.g. semantic without a judge).
    pub success: Option<bool>,
    pub detail: String,
}

/// Compliance per quartile of checkpoint positions (context decay).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Quartiles {
    pub quartile_1: Option<f64>,
    pub quartile_2: Option<f64>,
    pub quartile_3: Option<f64>,
    pub quartile_4: Option<f64>,
}

/// Who evaluated what: the share of deterministic verdicts and why items were N/A.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EvaluatorAudit {
    pub tier1_evaluated: usize,
    pub tier2_evaluated: usize,
    pub tier3_evaluated: usize,
    pub not_applicable: usize,
    pub blocked: usize,
    /// Share (%) of decided checkpoints decided by code, not a judge.
    pub deterministic_percent: Option<f64>,
    /// N/A reason → count.
    pub na_reasons: BTreeMap<String, usize>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Aggregate {
    pub cases: usize,
    pub cases_ok: usize,
    /// Cases whose status is not `ok`; they count as failed.
    pub cases_failed: usize,
    /// Suite-level value of every metric: the mean over cases where defined.
    pub metrics: BTreeMap<String, f64>,
    pub position_dropout_analysis: Quartiles,
    pub evaluator_audit: EvaluatorAudit,
    /// Checkpoint id → result counts.
    pub checkpoints: BTreeMap<String, CheckpointSummary>,
    #[serde(default)]
    pub propagation: Propagation,
    #[serde(default)]
    pub tool_use: ToolUse,
    #[serde(default)]
    pub cost: Cost,
    /// Recurring issues over the cases (`None` in reports written before them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insights: Option<crate::model::insights::Insights>,
    /// With more than one trial of a case: pass^k, pass@k and flakiness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials: Option<TrialStats>,
}

/// What several trials per case say (tau-bench's pass^k and pass@k: the
/// unbiased estimators from n trials of which c succeeded, averaged over
/// cases: pass^k = C(c,k)/C(n,k), pass@k = 1 − C(n−c,k)/C(n,k)).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TrialStats {
    /// Distinct cases (the report has one entry per case and trial).
    pub cases: usize,
    /// Trials per case: the fewest and the most.
    pub min_trials: u32,
    pub max_trials: u32,
    /// The k of pass^k / pass@k: the fewest trials of any case.
    pub k: u32,
    /// `task_success` and `checkpoint:<id>` → pass^k (every one of k trials succeeds).
    pub pass_hat_k: BTreeMap<String, f64>,
    /// The same metrics → pass@k (at least one of k trials succeeds).
    pub pass_at_k: BTreeMap<String, f64>,
    /// Cases whose trials disagree on task success or on a checkpoint, with
    /// what flipped: case id → metrics.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub flaky: BTreeMap<String, Vec<String>>,
}

/// Root-cause propagation statistics over the suite.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Propagation {
    pub failing_steps: usize,
    pub root_causes: usize,
    pub propagated: usize,
    pub mean_chain_length: Option<f64>,
    /// `l1/l2/l3` → count.
    pub taxonomy: BTreeMap<String, usize>,
    /// DAG status → count of cases.
    pub dag_status: BTreeMap<String, usize>,
}
