//! Recurring issues over many cases (Agentic CLEAR, issue 14 item 3): the
//! per-step critiques of a run (rules notes, judge rationales, taxonomy
//! labels of failed steps, failed checkpoints' notes, low trace-judge
//! scores) grouped deterministically by label × node × normalised message,
//! reported per node and system-wide, stored in the run report so a
//! baseline carries them, and diffed against the baseline's groups in
//! `compare` ("new since baseline", "grew", "gone").

pub mod collect;
pub mod diff;
pub mod normalize;
#[cfg(test)]
mod tests;

pub use crate::model::insights::{
    InsightStatus, Insights, IssueChange, IssueExample, IssueGroup, IssueNode, IssueSource,
    IssueSummary, NodeKind, SuiteInsights, SystemIssue,
};
pub use collect::{Critique, collect_insights, collect_insights_of, critiques_of_case};
pub use diff::{GREW_MIN_CASES, GREW_MIN_SHARE, suite_insights};
pub use normalize::normalize_message;
