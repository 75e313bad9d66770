//! The `StepScorer` trait: how any scorer (the deterministic rules today, an
//! LLM judge's precomputed verdicts later) scores one DAG node.
//!
//! A scorer sees the node and its context — its parents' *outputs*, never
//! their scores, so one step's grade cannot leak into the next — plus the
//! suite's tool catalog, the schema workflow's tools and the case's
//! expected output. It returns a 1–5 score or N/A, per-metric sub-scores,
//! who scored, notes and an optional taxonomy label. The trait is
//! synchronous and object-safe: an async judge resolves its verdicts first
//! and then answers from memory through this same interface.

use std::borrow::Cow;
use std::collections::BTreeSet;

use serde_json::Value;

use super::catalog::ToolCatalog;
use super::taxonomy::Failure;
use crate::dag::Node;
use crate::spec::model::{ExpectedOutput, StepType};

/// The metrics of each step type (DESIGN §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Metric {
    /// PLAN, PARAMGEN, SYNTH.
    Completeness,
    /// PLAN.
    Feasibility,
    /// TOOLSEL.
    SelectionAccuracy,
    /// TOOLSEL.
    Relevance,
    /// PARAMGEN.
    Correctness,
    /// EXEC.
    Success,
    /// EXEC.
    ResultValidity,
    /// SYNTH.
    Faithfulness,
    /// SYNTH.
    Coherence,
}

impl Metric {
    /// The metrics scored for a step type, in rubric order.
    pub fn for_type(step_type: StepType) -> &'static [Metric] {
        match step_type {
            StepType::Plan => &[Self::Completeness, Self::Feasibility],
            StepType::ToolSel => &[Self::SelectionAccuracy, Self::Relevance],
            StepType::ParamGen => &[Self::Correctness, Self::Completeness],
            StepType::Exec => &[Self::Success, Self::ResultValidity],
            StepType::Synth => &[Self::Faithfulness, Self::Completeness, Self::Coherence],
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Completeness => "completeness",
            Self::Feasibility => "feasibility",
            Self::SelectionAccuracy => "selection_accuracy",
            Self::Relevance => "relevance",
            Self::Correctness => "correctness",
            Self::Success => "success",
            Self::ResultValidity => "result_validity",
            Self::Faithfulness => "faithfulness",
            Self::Coherence => "coherence",
        }
    }
}

/// A parent's output as a scorer may see it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParentOutput<'a> {
    pub id: &'a str,
    pub step_type: StepType,
    pub name: &'a str,
    pub output: Option<&'a crate::trace::SharedValue>,
}

/// Everything a scorer may read about one node.
#[derive(Debug, Clone)]
pub struct StepInput<'a> {
    pub node: &'a Node,
    /// Parents in id order, outputs only.
    pub parents: Vec<ParentOutput<'a>>,
    /// The suite's tools; empty when the suite lists none.
    pub catalog: &'a ToolCatalog,
    /// Tools the schema workflow names, when it names any.
    pub workflow_tools: Option<&'a BTreeSet<String>>,
    /// The case's expected output, for the SYNTH that answers the run.
    pub expected_output: Option<&'a ExpectedOutput>,
    /// The case's input, for judges.
    pub case_input: Option<&'a Value>,
}

/// A scorer's verdict on one node.
#[derive(Debug, Clone, PartialEq)]
pub struct StepScore {
    /// 1–5; `None` = N/A (the reason goes in `notes`).
    pub score: Option<f64>,
    /// Sub-scores the scorer could give, a subset of [`Metric::for_type`].
    pub metrics: Vec<(Metric, f64)>,
    /// `rules`, `judge:<model>`, …; `none` for N/A.
    pub scored_by: Cow<'static, str>,
    pub notes: Cow<'static, str>,
    /// The failure subcategory, when the scorer can name it.
    pub failure: Option<Failure>,
    /// A judge was asked for some metric of this step and gave no score (an error, the
    /// budget, a replay miss): the score stands on fewer metrics than a judged one, so a
    /// compare does not weigh it against a fully judged step (issue 21).
    pub judge_missing: bool,
}

impl StepScore {
    /// Not scored, with the reason.
    pub fn not_applicable(reason: impl Into<Cow<'static, str>>) -> Self {
        Self {
            score: None,
            metrics: Vec::new(),
            scored_by: "none".into(),
            notes: reason.into(),
            failure: None,
            judge_missing: false,
        }
    }

    /// Scored from sub-scores: the overall score is the lowest sub-score
    /// (a certain defect in any metric is a defect of the step).
    pub fn from_metrics(
        scored_by: impl Into<Cow<'static, str>>,
        metrics: Vec<(Metric, f64)>,
        notes: impl Into<Cow<'static, str>>,
        failure: Option<Failure>,
    ) -> Self {
        let score = metrics.iter().map(|(_, s)| *s).reduce(f64::min);
        let scored_by = if score.is_some() {
            scored_by.into()
        } else {
            Cow::Borrowed("none")
        };
        Self {
            score,
            metrics,
            scored_by,
            notes: notes.into(),
            failure,
            judge_missing: false,
        }
    }
}

/// Scores one node. Implementations must be deterministic for the same input.
pub trait StepScorer: Send + Sync {
    /// Recorded as `scored_by` on the steps this scorer scores.
    fn name(&self) -> &str;

    fn score(&self, input: &StepInput<'_>) -> StepScore;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overall_score_is_the_lowest_sub_score() {
        let s = StepScore::from_metrics(
            "rules",
            vec![(Metric::Success, 5.0), (Metric::ResultValidity, 1.0)],
            "",
            None,
        );
        assert_eq!(s.score, Some(1.0));
        assert_eq!(
            StepScore::from_metrics("rules", Vec::new(), "why", None).scored_by,
            "none"
        );
    }
}
