//! The suite file as users write it (`suites/<suite>/suite.yaml`, DESIGN §13).
//!
//! These types are the schema: `serde-saphyr` deserializes YAML straight into
//! them (unknown keys are errors), `schemars` generates `suite.schema.json`
//! from them, and [`crate::spec::lint`] checks what types cannot express.
//! IDs carry their YAML location (`Spanned`) so lint can point at them.

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_saphyr::Spanned;

/// A string with its YAML location. In JSONL case files the location is
/// unknown and the loader supplies the line instead.
pub type SpannedString = Spanned<String>;

/// Top level of `suite.yaml`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "agenteval-gate suite",
    description = "A suite of agent test cases with checkpoints, an optional workflow schema and regression gates."
)]
pub struct SuiteFile {
    /// Suite name; also names the baseline file `baselines/<name>/<suite>.json`.
    #[schemars(with = "String")]
    pub suite: SpannedString,
    /// Version of this spec. Bump it when checkpoints change meaning.
    pub spec_version: String,
    #[serde(default)]
    pub description: Option<String>,
    /// Facts about the configuration under test (model, prompt version…);
    /// stored with every report and baseline. `--tag key=value` adds more.
    #[serde(default)]
    pub config_tags: BTreeMap<String, String>,
    /// Replay mode: directory of recorded traces, `<case_id>.<json|jsonl|traj>`.
    #[serde(default)]
    pub traces: Option<String>,
    /// Tier-1 evidence directory: `<case_id>.json` per case.
    #[serde(default)]
    pub evidence: Option<String>,
    /// Run mode: how to run the agent for one case.
    #[serde(default)]
    pub agent: Option<AgentSpec>,
    /// Tool catalog: PARAMGEN validation, unknown-tool checks, judge prompts.
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    /// Optional schema-defined workflow matched against every trace.
    #[serde(default)]
    pub workflow: Option<WorkflowSpec>,
    /// Per-step-type pass thresholds on the 1–5 step score.
    #[serde(default)]
    pub thresholds: Option<ThresholdsSpec>,
    #[serde(default)]
    pub environment_constraints: Vec<EnvConstraintSpec>,
    /// Checkpoints in document order (= `position_index` 1..N). IDs are
    /// immutable and append-only.
    #[serde(default)]
    pub checkpoints: Vec<CheckpointSpec>,
    #[serde(default)]
    pub tiers: Option<TiersSpec>,
    #[serde(default)]
    pub gates: Option<GatesSpec>,
    /// How PARTIAL is scored: `B` (default) earns the matched criterion's
    /// weight; `A` (strict) turns every PARTIAL into FAIL.
    #[serde(default)]
    pub partial_mode: Option<PartialMode>,
    /// Step scoring and root-cause options.
    #[serde(default)]
    pub scoring: Option<ScoringSpec>,
    /// Price table for cost: model name → USD per million tokens.
    #[serde(default)]
    pub pricing: BTreeMap<String, PriceSpec>,
    /// LLM judge settings for tier-3 checkpoints and step metrics.
    #[serde(default)]
    pub judge: Option<JudgeSpec>,
    /// Cases, inline or `- include: cases.jsonl` (one case object per line).
    #[serde(default)]
    pub cases: Vec<CaseEntry>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentSpec {
    /// argv; placeholders `{case_id} {input_file} {trace_file} {workdir}`.
    /// Never run through a shell unless you write `sh -c`.
    pub command: Vec<String>,
    /// Per-case timeout in seconds (default 300); kills the process group.
    #[serde(default)]
    pub timeout_s: Option<u64>,
    /// Cases run at once (default: number of CPUs).
    #[serde(default)]
    pub concurrency: Option<usize>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Working directory, relative to the suite directory (default: the suite directory).
    #[serde(default)]
    pub cwd: Option<String>,
    /// Retries when the process could not start (default 2). Agent failures are never retried.
    #[serde(default)]
    pub retries: Option<u32>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolSpec {
    #[schemars(with = "String")]
    pub name: SpannedString,
    #[serde(default)]
    pub description: Option<String>,
    /// JSON Schema of the tool's arguments.
    #[serde(default)]
    pub schema: Option<Value>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowSpec {
    pub steps: Vec<WorkflowStepSpec>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowStepSpec {
    #[schemars(with = "String")]
    pub id: SpannedString,
    #[serde(rename = "type")]
    pub step_type: StepType,
    /// For TOOLSEL/PARAMGEN/EXEC steps: the tool this step calls.
    #[serde(default)]
    pub tool: Option<String>,
    /// Steps that must come before this one.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub after: Vec<SpannedString>,
    /// A missing optional step is not a deviation.
    #[serde(default)]
    pub optional: bool,
    #[serde(default)]
    pub description: Option<String>,
}

/// `AgentEval` step types.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub enum StepType {
    #[serde(rename = "PLAN")]
    Plan,
    #[serde(rename = "TOOLSEL")]
    ToolSel,
    #[serde(rename = "PARAMGEN")]
    ParamGen,
    #[serde(rename = "EXEC")]
    Exec,
    #[serde(rename = "SYNTH")]
    Synth,
}

impl StepType {
    pub const ALL: [StepType; 5] = [
        Self::Plan,
        Self::ToolSel,
        Self::ParamGen,
        Self::Exec,
        Self::Synth,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Plan => "PLAN",
            Self::ToolSel => "TOOLSEL",
            Self::ParamGen => "PARAMGEN",
            Self::Exec => "EXEC",
            Self::Synth => "SYNTH",
        }
    }

    /// `AgentEval`'s default pass threshold on the 1–5 scale.
    pub fn default_threshold(self) -> f64 {
        match self {
            Self::ParamGen => 2.5,
            _ => 3.0,
        }
    }
}

impl fmt::Display for StepType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThresholdsSpec {
    #[serde(rename = "PLAN", default)]
    pub plan: Option<f64>,
    #[serde(rename = "TOOLSEL", default)]
    pub toolsel: Option<f64>,
    #[serde(rename = "PARAMGEN", default)]
    pub paramgen: Option<f64>,
    #[serde(rename = "EXEC", default)]
    pub exec: Option<f64>,
    #[serde(rename = "SYNTH", default)]
    pub synth: Option<f64>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvConstraintSpec {
    #[schemars(with = "String")]
    pub id: SpannedString,
    /// What the environment cannot do.
    pub constraint: String,
    /// Checkpoint IDs that become BLOCKED while the constraint is active.
    #[schemars(with = "Vec<String>")]
    pub affects: Vec<SpannedString>,
    /// Evaluated on the case's evidence; absent = always active.
    #[serde(default)]
    pub active_when: Option<AssertSpec>,
}

/// Checkpoint severity, also used for metric gates.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Low,
    Medium,
    High,
    Critical,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Critical => "critical",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckpointSpec {
    /// Immutable ID, e.g. `P1-01`.
    #[schemars(with = "String")]
    pub id: SpannedString,
    /// 1 = state assertion on evidence, 2 = sequence assertion on the trace,
    /// 3 = semantic (LLM judge).
    pub tier: u8,
    pub instruction: String,
    pub severity: Severity,
    /// Where the evidence comes from (`trace`, `final_answer`, or an evidence key).
    #[serde(default)]
    pub evidence_sources: Vec<String>,
    /// Tier 1: assertion on the evidence JSON.
    #[serde(default)]
    pub assert: Option<AssertSpec>,
    /// Tier 2: assertion on tool events in time order.
    #[serde(default)]
    pub sequence: Option<SequenceSpec>,
    /// Tier 3: conditions that earn partial credit.
    #[serde(default)]
    pub partial_criteria: Vec<PartialCriterionSpec>,
    #[serde(default)]
    pub tags: Vec<String>,
}

/// Tier-1 assertion: a JSON Pointer and one or more operators (all must hold).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AssertSpec {
    /// JSON Pointer into the evidence, e.g. `/ticket/status`.
    pub path: String,
    #[serde(default)]
    pub equals: Option<Value>,
    #[serde(default)]
    pub not_equals: Option<Value>,
    #[serde(default)]
    pub exists: Option<bool>,
    /// Substring of a string, element of an array, or key of an object.
    #[serde(default)]
    pub contains: Option<Value>,
    /// Regular expression the string value must match.
    #[serde(default)]
    pub matches: Option<String>,
    #[serde(default, rename = "in")]
    pub in_: Option<Vec<Value>>,
    #[serde(default)]
    pub gte: Option<f64>,
    #[serde(default)]
    pub lte: Option<f64>,
}

impl AssertSpec {
    /// Names of the operators present, in a fixed order.
    pub fn operators(&self) -> Vec<&'static str> {
        let mut ops = Vec::new();
        if self.equals.is_some() {
            ops.push("equals");
        }
        if self.not_equals.is_some() {
            ops.push("not_equals");
        }
        if self.exists.is_some() {
            ops.push("exists");
        }
        if self.contains.is_some() {
            ops.push("contains");
        }
        if self.matches.is_some() {
            ops.push("matches");
        }
        if self.in_.is_some() {
            ops.push("in");
        }
        if self.gte.is_some() {
            ops.push("gte");
        }
        if self.lte.is_some() {
            ops.push("lte");
        }
        ops
    }
}

/// Tier-2 sequence assertion; exactly one form.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SequenceSpec {
    /// `{before: X, then: Y}`: PASS if the first X precedes the first Y; N/A without a Y.
    #[serde(default)]
    pub before: Option<EventMatcher>,
    #[serde(default)]
    pub then: Option<EventMatcher>,
    #[serde(default)]
    pub never: Option<EventMatcher>,
    #[serde(default)]
    pub eventually: Option<EventMatcher>,
    #[serde(default)]
    pub count: Option<CountSpec>,
    /// PASS if the matchers occur as a subsequence in this order.
    #[serde(default)]
    pub order: Option<Vec<EventMatcher>>,
}

impl SequenceSpec {
    /// Names of the forms present.
    pub fn forms(&self) -> Vec<&'static str> {
        let mut forms = Vec::new();
        if self.before.is_some() || self.then.is_some() {
            forms.push("before/then");
        }
        if self.never.is_some() {
            forms.push("never");
        }
        if self.eventually.is_some() {
            forms.push("eventually");
        }
        if self.count.is_some() {
            forms.push("count");
        }
        if self.order.is_some() {
            forms.push("order");
        }
        forms
    }

    /// Every matcher in the assertion.
    pub fn matchers(&self) -> Vec<&EventMatcher> {
        let mut all: Vec<&EventMatcher> = Vec::new();
        all.extend(self.before.iter());
        all.extend(self.then.iter());
        all.extend(self.never.iter());
        all.extend(self.eventually.iter());
        all.extend(self.count.iter().map(|c| &c.of));
        if let Some(order) = &self.order {
            all.extend(order.iter());
        }
        all
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CountSpec {
    pub of: EventMatcher,
    #[serde(default)]
    pub min: Option<u32>,
    #[serde(default)]
    pub max: Option<u32>,
}

/// Matches trace events. All given fields must match.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventMatcher {
    /// Tool name, list of names, or glob (`lookup_*`).
    #[serde(default)]
    pub tool: Option<ToolPattern>,
    /// Object: every key/value must appear in the arguments (recursively);
    /// string: substring of the JSON-encoded arguments.
    #[serde(default)]
    pub args_contains: Option<Value>,
    /// Regular expression on the JSON-encoded arguments.
    #[serde(default)]
    pub args_match: Option<String>,
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(default)]
    pub kind: Option<EventKind>,
    #[serde(default)]
    pub status: Option<EventStatus>,
    /// The last LLM event of the root agent.
    #[serde(default, rename = "final")]
    pub is_final: Option<bool>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ToolPattern {
    One(String),
    Any(Vec<String>),
}

impl ToolPattern {
    pub fn patterns(&self) -> Vec<&str> {
        match self {
            Self::One(p) => vec![p.as_str()],
            Self::Any(ps) => ps.iter().map(String::as_str).collect(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    Llm,
    Tool,
    Agent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EventStatus {
    Ok,
    Error,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PartialCriterionSpec {
    pub condition: String,
    /// Weight earned when this criterion matches (0 < w < 1; default 0.5).
    #[serde(default)]
    pub weight: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub enum PartialMode {
    /// Strict: PARTIAL counts as FAIL.
    A,
    /// Default: PARTIAL earns the matched criterion's weight (0.5 unless set).
    #[default]
    B,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TiersSpec {
    #[serde(default)]
    pub smoke: Option<SmokeTierSpec>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SmokeTierSpec {
    /// Cases carrying any of these tags are smoke cases.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Also take the first N cases in suite order.
    #[serde(default)]
    pub first: Option<usize>,
    /// Cap on smoke cases (suite order).
    #[serde(default)]
    pub max_cases: Option<usize>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GatesSpec {
    /// Lowest severity that fails the gate (default `critical`); `--fail-on` overrides.
    #[serde(default)]
    pub fail_on: Option<FailOn>,
    /// Fewer paired cases than this → insufficient data (default 5).
    #[serde(default)]
    pub min_cases: Option<usize>,
    /// Significance level (default 0.05).
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Baseline history points used for the 2σ band (default 20).
    #[serde(default)]
    pub history_window: Option<usize>,
    #[serde(default)]
    pub metrics: BTreeMap<String, MetricGateSpec>,
    #[serde(default)]
    pub absolute: BTreeMap<String, AbsoluteGateSpec>,
    /// Share of judge calls that may fail before the gate fails (default 0.1).
    #[serde(default)]
    pub max_judge_error_rate: Option<f64>,
    /// A checkpoint at or above `fail_on` that no case could evaluate (N/A for want of a
    /// judge or evidence, or BLOCKED, everywhere): `fail` (default) fails the gate, `warn`
    /// only reports it.
    #[serde(default)]
    pub unevaluated: Option<UnevaluatedPolicy>,
}

/// What the gate does with a checkpoint at or above `fail_on` that no case could evaluate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum UnevaluatedPolicy {
    #[default]
    Fail,
    Warn,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    Low,
    Medium,
    High,
    Critical,
    Never,
}

impl FailOn {
    /// Whether a finding of `severity` fails the gate at this setting.
    pub fn fails(self, severity: Severity) -> bool {
        match self {
            Self::Never => false,
            Self::Low => true,
            Self::Medium => severity >= Severity::Medium,
            Self::High => severity >= Severity::High,
            Self::Critical => severity >= Severity::Critical,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Critical => "critical",
            Self::Never => "never",
        }
    }
}

impl fmt::Display for FailOn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MetricGateSpec {
    #[serde(default)]
    pub severity: Option<Severity>,
    /// Smallest |Δ| that may alert, in the metric's units.
    #[serde(default)]
    pub min_effect: Option<f64>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AbsoluteGateSpec {
    #[serde(default)]
    pub min: Option<f64>,
    #[serde(default)]
    pub max: Option<f64>,
    /// Severity of a breach (default critical).
    #[serde(default)]
    pub severity: Option<Severity>,
}

/// Root-cause attribution strategy (`AgentEval` Algorithm 1 and variants).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RootCauseMode {
    /// Greedy: follow the lowest-scoring failing parent.
    #[default]
    Greedy,
    /// Every failing ancestor path; the root cause is the deepest failing ancestor.
    FullPath,
    /// Parents weighted by (threshold − score) × descendants.
    Weighted,
    /// The judge reads the failed case's step DAG (or its messages) and names
    /// the decisive step and agent with a reason: one judge call per failed
    /// case. Step-level attribution walks as `greedy`.
    Judge,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScoringSpec {
    #[serde(default)]
    pub root_cause: Option<RootCauseMode>,
    /// Same tool + same arguments within this many tool calls is redundant (default 3).
    #[serde(default)]
    pub redundancy_window: Option<usize>,
    /// A tool called this many times in a row with the same arguments is a loop (default 3).
    #[serde(default)]
    pub loop_threshold: Option<usize>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PriceSpec {
    /// USD per million input tokens.
    pub input_per_mtok: f64,
    /// USD per million output tokens.
    pub output_per_mtok: f64,
}

/// The suite's `judge:` block lives with the other judge settings.
pub use crate::spec::judge::JudgeSpec;

/// One entry of `cases:`: an inline case or `include: file.jsonl`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseEntry {
    /// Path (relative to the suite) of a JSONL file of cases; no other key allowed.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub include: Option<SpannedString>,
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub id: Option<SpannedString>,
    /// The case input: a string or any JSON value.
    #[serde(default)]
    pub input: Option<Value>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub expected_output: Option<ExpectedOutput>,
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub expected_tools: Vec<SpannedString>,
    #[serde(default)]
    pub difficulty: Option<String>,
    /// Trace file override, relative to the suite directory.
    #[serde(default)]
    pub trace: Option<String>,
    /// Evidence file override, relative to the suite directory.
    #[serde(default)]
    pub evidence: Option<String>,
    #[serde(default)]
    pub metadata: BTreeMap<String, Value>,
}

/// Task-success matcher; exactly one field.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectedOutput {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<String>,
    /// Equal after lower-casing, trimming and collapsing whitespace and punctuation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalized: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<String>,
    /// The answer parses as a JSON object with these keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_keys: Option<Vec<String>>,
    /// Graded by the judge against this reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semantic: Option<String>,
}

impl ExpectedOutput {
    pub fn matchers(&self) -> Vec<&'static str> {
        let mut m = Vec::new();
        if self.exact.is_some() {
            m.push("exact");
        }
        if self.normalized.is_some() {
            m.push("normalized");
        }
        if self.contains.is_some() {
            m.push("contains");
        }
        if self.regex.is_some() {
            m.push("regex");
        }
        if self.json_keys.is_some() {
            m.push("json_keys");
        }
        if self.semantic.is_some() {
            m.push("semantic");
        }
        m
    }
}
