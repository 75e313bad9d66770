//! The validated suite: what evaluation runs on. Built by
//! [`crate::spec::validate`] from a [`crate::spec::load::LoadedSuite`]; every
//! regex, glob and operator is compiled once here.

use std::collections::BTreeMap;
use std::path::PathBuf;

use regex::Regex;
use serde_json::Value;

use crate::spec::model::{
    AgentSpec, EventKind, EventStatus, ExpectedOutput, GatesSpec, JudgeSpec, PartialMode,
    PriceSpec, ScoringSpec, Severity, SmokeTierSpec, StepType, ThresholdsSpec, ToolSpec,
    WorkflowSpec,
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
    pub cases: Vec<Case>,
}

impl Suite {
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
    pub check: Check,
}

#[derive(Debug, Clone)]
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
    BeforeThen {
        before: Matcher,
        then: Matcher,
    },
    Never(Matcher),
    Eventually(Matcher),
    Count {
        of: Matcher,
        min: Option<u32>,
        max: Option<u32>,
    },
    Order(Vec<Matcher>),
}

/// A compiled tier-2 event matcher; all set fields must match.
#[derive(Debug, Clone, Default)]
pub struct Matcher {
    /// Any of these patterns matches the tool name; empty = any tool (or no tool constraint).
    pub tools: Vec<Glob>,
    pub args_contains: Option<Value>,
    pub args_match: Option<Regex>,
    pub agent: Option<String>,
    pub kind: Option<EventKind>,
    pub status: Option<EventStatus>,
    pub is_final: Option<bool>,
}

#[derive(Debug, Clone)]
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

/// A shell-style glob over tool names: `*` any run, `?` one character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob(String);

impl Glob {
    pub fn new(pattern: impl Into<String>) -> Self {
        Self(pattern.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_literal(&self) -> bool {
        !self.0.contains(['*', '?'])
    }

    pub fn matches(&self, text: &str) -> bool {
        glob_match(self.0.as_bytes(), text.as_bytes())
    }
}

/// Iterative wildcard match with single-star backtracking (linear in practice).
fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == b'?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matches_like_a_shell() {
        assert!(Glob::new("lookup_*").matches("lookup_account"));
        assert!(Glob::new("*_refund").matches("issue_refund"));
        assert!(Glob::new("a?c").matches("abc"));
        assert!(!Glob::new("a?c").matches("ac"));
        assert!(Glob::new("*").matches(""));
        assert!(Glob::new("a*b*c").matches("axxbyyc"));
        assert!(!Glob::new("a*b*c").matches("axxbyy"));
        assert!(Glob::new("exact").is_literal());
        assert!(!Glob::new("ex*").is_literal());
    }
}
