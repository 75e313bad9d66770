//! The small vocabulary every layer shares: checkpoint severity, the gate's
//! `fail_on` level, the unevaluated-checkpoint policy, `AgentEval` step types
//! and root-cause modes. Suites (`spec/`) deserialize them; reports carry them.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

/// What the gate does with a checkpoint at or above `fail_on` that no case could evaluate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum UnevaluatedPolicy {
    #[default]
    Fail,
    Warn,
}

/// What the gate does with an inconclusive gating metric: one that got worse in every case
/// that changed, but in too few cases for the test to reach α. The verdict is `inconclusive`
/// (never shown green) whatever the setting; it chooses the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InconclusivePolicy {
    /// Exit 2 when the suite could not decide the metric at any effect (fewer paired cases
    /// than the test needs, or than `min_cases`) or when most of its paired cases got worse;
    /// exit 0 when it could decide a larger change and a minority of cases flipped (a
    /// stochastic agent's single flips, measured on tau-bench).
    #[default]
    Auto,
    /// Exit 2: the change cannot merge unseen.
    Fail,
    /// Exit 0.
    Warn,
}

impl InconclusivePolicy {
    /// Whether an inconclusive metric fails the gate: `undecidable` when the suite could not
    /// have decided it even had every paired case got worse, `majority_worse` when more than
    /// half of its paired cases got worse.
    pub fn fails(self, undecidable: bool, majority_worse: bool) -> bool {
        match self {
            Self::Auto => undecidable || majority_worse,
            Self::Fail => true,
            Self::Warn => false,
        }
    }
}

/// Which baseline history lines a comparison pools into a case's baseline trials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HistoryPooling {
    /// Lines with the baseline's spec hash and the same, non-empty config tags.
    #[default]
    SameTags,
    /// Also lines with the baseline's spec hash whose trials of a metric pass a two-sided
    /// drift test against the baseline's own trials (per metric).
    DriftCheck,
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
