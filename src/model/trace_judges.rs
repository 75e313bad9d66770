//! Trace-level judge scores of a case (`cases[].trace_judges[]`): one entry
//! per judge dimension, e.g. GPA's `tool_calling`. Each becomes the metric
//! `<judge>:<dimension>` (see [`crate::model::metric::case_metrics`]).

use serde::{Deserialize, Serialize};

/// One dimension of a trace judge for one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceJudgeScore {
    /// The trace judge, e.g. `gpa`.
    pub judge: String,
    /// e.g. `goal_fulfillment`.
    pub dimension: String,
    /// 0–`max`; `None` = N/A (see `na_reason`), left out of means, never a pass.
    pub score: Option<f64>,
    pub max: f64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rationale: String,
    /// Span ids the judge cited.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cited_spans: Vec<String>,
    /// Cited ids that are not spans of the trace (flagged, counted).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invalid_citations: Vec<String>,
    /// `judge:<provider>/<model>`, or `none`.
    pub evaluated_by: String,
    /// Why there is no score: `no judge configured`, `judge_error: <class>`,
    /// `not in judge cache`, `budget exhausted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub na_reason: Option<String>,
}

impl TraceJudgeScore {
    /// The metric name: `<judge>:<dimension>`.
    pub fn metric(&self) -> String {
        format!("{}:{}", self.judge, self.dimension)
    }
}

/// The seven dimensions, in report order, with the question each answers.
pub(crate) const GPA_DIMENSIONS: [(&str, &str); 7] = [
    (
        "goal_fulfillment",
        "Did the run achieve what the user asked for, completely and correctly?",
    ),
    (
        "logical_consistency",
        "Are the agent's statements and decisions consistent with each other and with the tool results it saw (no contradictions, no claims the trace does not support)?",
    ),
    (
        "execution_efficiency",
        "Did the agent reach its result without redundant, repeated or needless steps and calls?",
    ),
    (
        "plan_quality",
        "Was the agent's plan (stated or implied by its first steps) sound, complete and feasible for the task?",
    ),
    (
        "plan_adherence",
        "Did the agent carry out its own plan, or deviate from it without reason?",
    ),
    (
        "tool_selection",
        "Did the agent choose the right tools for each step (and avoid tools it should not use)?",
    ),
    (
        "tool_calling",
        "Were the tool calls well formed: correct arguments, valid values, results used correctly?",
    ),
];
