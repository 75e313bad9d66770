//! One checkpoint's outcome before it becomes a report row.

use crate::model::run::{CheckpointState, Confidence, NaKind};

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
    /// For N/A: the category of the reason.
    pub na_kind: Option<NaKind>,
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
            na_kind: None,
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

    /// N/A of a known kind.
    pub fn not_applicable_because(kind: NaKind, reason: impl Into<String>, by: &str) -> Self {
        let mut v = Self::not_applicable(reason, by);
        v.na_kind = Some(kind);
        v
    }

    /// A tier-2 verdict whose N/A means "the trigger did not occur" (nothing to check).
    #[must_use]
    pub fn vacuous_if_na(mut self) -> Self {
        if self.state == CheckpointState::NotApplicable && self.na_kind.is_none() {
            self.na_kind = Some(NaKind::NotTriggered);
        }
        self
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
