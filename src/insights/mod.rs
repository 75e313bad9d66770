//! Recurring issues over many cases (Agentic CLEAR, issue 14 item 3): the
//! per-step critiques of a run (rules notes, judge rationales, taxonomy
//! labels of failed steps, failed checkpoints' notes, low trace-judge
//! scores) grouped deterministically by label × node × normalised message,
//! reported per node and system-wide, stored in the run report so a
//! baseline carries them, and diffed against the baseline's groups in
//! `compare` ("new since baseline", "grew", "gone").

pub(crate) mod collect;
pub(crate) mod diff;
pub(crate) mod normalize;
#[cfg(test)]
mod tests;

pub(crate) use crate::model::insights::{
    InsightStatus, Insights, IssueChange, IssueGroup, IssueSummary, SuiteInsights,
};
pub(crate) use collect::{collect_insights, critiques_of_case};
pub(crate) use diff::{GREW_MIN_CASES, GREW_MIN_SHARE, suite_insights};
pub(crate) use normalize::normalize_message;
