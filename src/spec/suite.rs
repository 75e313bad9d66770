//! The validated suite: what evaluation runs on. Built by
//! [`crate::spec::validate`] from a [`crate::spec::load::LoadedSuite`]; every
//! regex, glob and operator is compiled once (matchers: [`crate::spec::matcher`]).

use std::collections::BTreeMap;
use std::path::PathBuf;

use regex::Regex;
use serde_json::Value;

use crate::spec::matcher::Matcher;
use crate::spec::model::{
    AgentSpec, ExpectedOutput, GatesSpec, JudgeSpec, PartialMode, PriceSpec, ScoringSpec, Severity,
    Since, SmokeTierSpec, StepType, ThresholdsSpec, ToolSpec, Until, WorkflowSpec,
};

#[derive(Debug, Clone)]
pub struct Suite {
    pub name: String,
    pub spec_version: String,
    pub description: Option<String>,
    /// `suite.yaml`.
    pub path: PathBuf,
    /// Directory that relative paths resolve against.
    pub dir: PathBuf,
    pub spec_hash: String,
    pub config_tags: BTreeMap<String, String>,
    pub traces_dir: Option<PathBuf>,
    pub evidence_dir: Option<PathBuf>,
    pub agent: Option<AgentSpec>,
    pub tools: Vec<ToolSpec>,
    pub workflow: Option<WorkflowSpec>,
    pub thresholds: ThresholdsSpec,
    pub constraints: Vec<Constraint>,
    pub checkpoints: Vec<Checkpoint>,
    pub smoke: SmokeTierSpec,
    pub gates: GatesSpec,
    pub partial_mode: PartialMode,
    pub scoring: ScoringSpec,
    pub pricing: BTreeMap<String, PriceSpec>,
    pub judge: JudgeSpec,
    /// The `judge.prompts` override files, read where the rules were (the
    /// pull request's base commit in a `pull_request` event).
    pub(crate) prompt_files: Vec<crate::spec::prompts::PromptFile>,
    /// `task.success`: task success from ground truth.
    pub task_success: Option<TaskSuccess>,
    pub cases: Vec<Case>,
}

impl Suite {
    /// Indices of the smoke cases, in suite order: cases carrying a smoke tag
    /// plus the first `first` cases, capped at `max_cases`.
    pub fn smoke_cases(&self) -> Vec<usize> {
        let spec = &self.smoke;
        let first = spec.first.unwrap_or(0);
        let mut picked: Vec<usize> = self
            .cases
            .iter()
            .enumerate()
            .filter(|(i, c)| *i < first || c.tags.iter().any(|t| spec.tags.contains(t)))
            .map(|(i, _)| i)
            .collect();
        if let Some(max) = spec.max_cases {
            picked.truncate(max);
        }
        picked
    }

    /// Pass threshold for a step type (suite value or `AgentEval`'s default).
    pub fn threshold(&self, step_type: StepType) -> f64 {
        let t = &self.thresholds;
        let value = match step_type {
            StepType::Plan => t.plan,
            StepType::ToolSel => t.toolsel,
            StepType::ParamGen => t.paramgen,
            StepType::Exec => t.exec,
            StepType::Synth => t.synth,
        };
        value.unwrap_or_else(|| step_type.default_threshold())
    }

    pub fn checkpoint(&self, id: &str) -> Option<&Checkpoint> {
        self.checkpoints.iter().find(|c| c.id == id)
    }
}

#[derive(Debug, Clone)]
pub struct Checkpoint {
    pub id: String,
    /// 1-based document order.
    pub position_index: usize,
    pub tier: u8,
    pub instruction: String,
    pub severity: Severity,
    pub evidence_sources: Vec<String>,
    /// `None` = every case.
    pub applies_to: Option<Scope>,
    pub check: Check,
}

/// `applies_to`: every selector given must hold.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// Any of these tags (empty = no tag condition).
    pub tags: Vec<String>,
    /// Any of these case ids (empty = no id condition).
    pub cases: Vec<String>,
    pub evidence: Option<StateAssert>,
    /// `where` over the case.
    pub where_: Option<std::sync::Arc<crate::spec::expr::Expr>>,
    pub any_of: Vec<Scope>,
    pub all_of: Vec<Scope>,
    pub not: Option<Box<Scope>>,
}

/// `task.success`: every source given must hold.
#[derive(Debug, Clone, Default)]
pub struct TaskSuccess {
    pub evidence: Option<StateAssert>,
    pub checkpoints: Vec<String>,
}

#[derive(Debug, Clone)]
#[expect(
    clippy::large_enum_variant,
    reason = "one per checkpoint, built once per suite"
)]
pub enum Check {
    /// Tier 1.
    State(StateAssert),
    /// Tier 2.
    Sequence(SequenceAssert),
    /// Tier 3: criteria earning partial credit, with their weights.
    Semantic {
        partial_criteria: Vec<(String, f64)>,
    },
}

/// A tier-1 assertion: every operator must hold for the value at `path`.
#[derive(Debug, Clone)]
pub struct StateAssert {
    /// JSON Pointer.
    pub path: String,
    pub ops: Vec<StateOp>,
}

#[derive(Debug, Clone)]
pub enum StateOp {
    Equals(Value),
    NotEquals(Value),
    Exists(bool),
    Contains(Value),
    Matches(Regex),
    In(Vec<Value>),
    Gte(f64),
    Lte(f64),
}

#[derive(Debug, Clone)]
pub enum SequenceAssert {
    /// First occurrence: an X before the first Y.
    BeforeThen {
        before: Matcher,
        then: Matcher,
    },
    Never(Matcher),
    /// No subsequence X, Y, … (captures compared).
    NeverOrder(Vec<Matcher>),
    Eventually(Matcher),
    Count {
        of: Matcher,
        min: Option<u32>,
        max: Option<u32>,
    },
    Order(Vec<Matcher>),
    /// Per occurrence: every `each` event has a matching `other` event on
    /// the given side.
    Each {
        each: Matcher,
        /// The steps to find, in order (one or more).
        other: Vec<Matcher>,
        side: Side,
        /// At most this many events away (1 = adjacent).
        within: Option<u32>,
        /// No event matching this between the `each` event and its match.
        none_between: Option<Matcher>,
    },
}

/// Where a per-occurrence form looks for its event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Before(Since),
    After(Until),
}

#[derive(Debug, Clone)]
#[expect(
    clippy::struct_field_names,
    reason = "`constraint` is the suite key's name (environment_constraints[].constraint)"
)]
pub struct Constraint {
    pub id: String,
    pub constraint: String,
    pub affects: Vec<String>,
    /// `None` = always active.
    pub active_when: Option<StateAssert>,
}

#[derive(Debug, Clone)]
pub struct Case {
    pub id: String,
    /// The case input; `Value::Null` when the suite gives none.
    pub input: Value,
    pub tags: Vec<String>,
    pub expected_output: Option<ExpectedOutput>,
    pub expected_tools: Vec<String>,
    pub difficulty: Option<String>,
    /// Trace path override (absolute, resolved against the suite directory).
    pub trace: Option<PathBuf>,
    /// Evidence path override.
    pub evidence: Option<PathBuf>,
    pub metadata: BTreeMap<String, Value>,
}
