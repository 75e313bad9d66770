//! How steps and checkpoints are scored: `AgentEval` step types and their
//! thresholds, root-cause options, and the PARTIAL mode.

use crate::model::vocab::RootCauseMode;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
