//! How steps and checkpoints are scored: `AgentEval` step types and their
//! thresholds, root-cause options, and the PARTIAL mode.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub enum PartialMode {
    /// Strict: PARTIAL counts as FAIL.
    A,
    /// Default: PARTIAL earns the matched criterion's weight (0.5 unless set).
    #[default]
    B,
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
