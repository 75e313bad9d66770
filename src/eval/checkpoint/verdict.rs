//! One checkpoint's outcome before it becomes a report row.

use crate::report::model::{CheckpointState, Confidence};

#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub state: CheckpointState,
    /// Earned weight for PASS/PARTIAL/FAIL; `None` for N/A and BLOCKED.
    pub weight: Option<f64>,
    pub notes: String,
    pub evaluated_by: String,
    pub cited_spans: Vec<String>,
    pub matched_criterion: Option<String>,
    pub blocked_by: Option<String>,
    /// Tier-3 repeat confidence (`judge.runs > 1`).
    pub confidence: Option<Confidence>,
}

impl Verdict {
    fn new(
        state: CheckpointState,
        weight: Option<f64>,
        notes: impl Into<String>,
        by: &str,
    ) -> Self {
        Self {
            state,
            weight,
            notes: notes.into(),
            evaluated_by: by.to_owned(),
            cited_spans: Vec::new(),
            matched_criterion: None,
            blocked_by: None,
            confidence: None,
        }
    }

    pub fn pass(notes: impl Into<String>, by: &str) -> Self {
        Self::new(CheckpointState::Pass, Some(1.0), notes, by)
    }

    pub fn fail(notes: impl Into<String>, by: &str) -> Self {
        Self::new(CheckpointState::Fail, Some(0.0), notes, by)
    }

    pub fn partial(
        weight: f64,
        criterion: impl Into<String>,
        notes: impl Into<String>,
        by: &str,
    ) -> Self {
        let mut v = Self::new(CheckpointState::Partial, Some(weight), notes, by);
        v.matched_criterion = Some(criterion.into());
        v
    }

    /// N/A with its reason (required: N/A is never silent).
    pub fn not_applicable(reason: impl Into<String>, by: &str) -> Self {
        Self::new(CheckpointState::NotApplicable, None, reason, by)
    }

    pub fn blocked(constraint_id: &str, constraint: &str) -> Self {
        let mut v = Self::new(
            CheckpointState::Blocked,
            None,
            format!("blocked by environment constraint {constraint_id}: {constraint}"),
            "none",
        );
        v.blocked_by = Some(constraint_id.to_owned());
        v
    }

    #[must_use]
    pub fn citing(mut self, spans: impl IntoIterator<Item = String>) -> Self {
        self.cited_spans.extend(spans);
        self
    }
}
