//! Recurring issues as the run report stores them (`aggregate.insights`)
//! and as the compare report diffs them (`insights[]`). Additive to both
//! reports' contracts: older reports without them still read.

use serde::{Deserialize, Serialize};

use crate::model::vocab::StepType;

/// The recurring issues of one run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Insights {
    /// Cases the critiques were collected over (shares are of these).
    pub cases: usize,
    /// Critiques collected (one per failed step, failed checkpoint, low trace-judge score).
    pub critiques: usize,
    /// Per node: most cases first, then most occurrences, then `id`.
    pub groups: Vec<IssueGroup>,
    /// System-wide: the same label and message over every node, in the same order.
    pub system: Vec<SystemIssue>,
}

/// Where a critique comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IssueSource {
    /// A failed step: the rules' note or the judge's rationale, with its taxonomy label.
    Step,
    /// A checkpoint that failed (FAIL or PARTIAL): its notes.
    Checkpoint,
    /// A trace-level judge dimension scored 0 or 1: its rationale.
    TraceJudge,
}

impl IssueSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Step => "step",
            Self::Checkpoint => "checkpoint",
            Self::TraceJudge => "trace_judge",
        }
    }
}

/// What kind of node an issue sits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// A tool step (TOOLSEL, PARAMGEN, EXEC) of a named tool.
    Tool,
    /// A model step (PLAN, SYNTH) of an agent.
    Step,
    /// A checkpoint of the suite.
    Checkpoint,
    /// A trace-level judge dimension (`gpa:<dim>`).
    Trace,
}

/// The node an issue recurs on: tool × step type × agent, a checkpoint, or a
/// trace-judge dimension.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct IssueNode {
    pub kind: NodeKind,
    #[serde(default, rename = "step_type", skip_serializing_if = "Option::is_none")]
    pub step_type: Option<StepType>,
    /// The tool, the checkpoint id or the dimension; empty for a model step.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The agent of the step; `None` for the top-level agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

impl IssueNode {
    /// `EXEC issue_refund`, `SYNTH @billing`, `checkpoint P2-02`, `gpa:tool_calling`.
    pub fn display(&self) -> String {
        let mut out = match (self.kind, self.step_type) {
            (NodeKind::Checkpoint, _) => format!("checkpoint {}", self.name),
            (_, Some(t)) if self.kind != NodeKind::Trace => {
                if self.name.is_empty() {
                    t.as_str().to_owned()
                } else {
                    format!("{t} {}", self.name)
                }
            }
            _ => self.name.clone(),
        };
        if let Some(agent) = &self.agent {
            out.push_str(" @");
            out.push_str(agent);
        }
        out
    }
}

/// One recurring issue on one node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IssueGroup {
    /// `I-` and 10 hex digits of sha256(source, label, node, message): the same
    /// issue has the same id in every run, so baselines and heads pair by it.
    pub id: String,
    pub source: IssueSource,
    /// Taxonomy `l1/l2/l3` of a step, the severity of a checkpoint, the judge of a dimension.
    pub label: String,
    pub node: IssueNode,
    /// The normalised message (see [`super::normalize`]).
    pub message: String,
    /// One original message (from the first example case), for reading.
    pub example_message: String,
    /// Occurrences over all cases.
    pub count: usize,
    /// Distinct cases it occurred in.
    pub cases: usize,
    /// `cases / Insights::cases`.
    pub share: f64,
    /// Up to [`super::collect::MAX_EXAMPLES`] occurrences, by case id.
    pub examples: Vec<IssueExample>,
    /// A name and summary given by the judge (opt-in, `judge.insight_summaries`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<IssueSummary>,
}

/// A judge's name for a recurring issue. The group is the same without it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssueSummary {
    pub name: String,
    pub summary: String,
    /// `judge:<provider>/<model>`.
    pub by: String,
}

/// Where an issue occurred.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct IssueExample {
    pub case: String,
    /// The DAG step id (`s4`), for step issues.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// The spans it points at (the step's span, the spans a verdict cites).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spans: Vec<String>,
}

/// One issue over every node it occurs on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemIssue {
    pub source: IssueSource,
    pub label: String,
    pub message: String,
    pub count: usize,
    pub cases: usize,
    pub share: f64,
    /// Node displays, most occurrences first.
    pub nodes: Vec<String>,
    /// The ids of the per-node groups it rolls up.
    pub groups: Vec<String>,
}

/// Recurring issues of one suite in a compare: what changed against the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteInsights {
    pub suite: String,
    pub status: InsightStatus,
    /// The runs hold different cases (a smoke tier, added or removed cases): both
    /// sides were regrouped over the paired cases only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub restricted_to_paired: bool,
    /// Issues in the head run whose id is not in the baseline's groups.
    pub new: Vec<IssueChange>,
    /// Issues in both whose case count and share rose past the "grew" rule.
    pub grew: Vec<IssueChange>,
    /// Issues in the baseline's groups and not in the head run.
    pub gone: Vec<IssueChange>,
    /// The head run's most widespread issues (at most [`super::diff::TOP_ISSUES`]).
    pub top: Vec<IssueGroup>,
    /// The head run's system-wide issues (at most [`super::diff::TOP_ISSUES`]).
    pub system: Vec<SystemIssue>,
    pub head_cases: usize,
    pub base_cases: usize,
}

/// Whether the baseline could be diffed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InsightStatus {
    Compared,
    /// The baseline report predates recurring issues: nothing is called new.
    BaselineWithoutInsights,
    /// The head report has no recurring-issue data.
    HeadWithoutInsights,
}

/// One issue's change against the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IssueChange {
    /// The head group (the baseline group for `gone`).
    pub group: IssueGroup,
    pub base_cases: usize,
    pub head_cases: usize,
    pub base_share: f64,
    pub head_share: f64,
}
