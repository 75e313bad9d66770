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

pub(crate) use crate::model::step_metric::Metric;

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
    pub metrics: SubScores,
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
            metrics: SubScores::default(),
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
        metrics: impl IntoIterator<Item = (Metric, f64)>,
        notes: impl Into<Cow<'static, str>>,
        failure: Option<Failure>,
    ) -> Self {
        let metrics: SubScores = metrics.into_iter().collect();
        let score = metrics.iter().map(|(_, s)| s).reduce(f64::min);
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

/// A step's sub-scores in the order given: one per metric of its step
/// type, so three at most ([`Metric::for_type`]), kept inline. A list on
/// the heap took an allocation per scored step, some 80 bytes a step on a
/// large trace (issue 25).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SubScores {
    metrics: [Option<Metric>; SubScores::MAX],
    values: [f64; SubScores::MAX],
}

impl SubScores {
    /// The most metrics a step type has.
    pub const MAX: usize = 3;

    /// Add `metric`'s sub-score. A step type has at most [`Self::MAX`]
    /// metrics, and a scorer gives each at most once.
    ///
    /// # Panics
    ///
    /// In debug builds, when the list is full.
    pub fn push(&mut self, metric: Metric, value: f64) {
        let len = self.len();
        debug_assert!(
            len < Self::MAX,
            "more sub-scores than a step type has metrics"
        );
        if let (Some(slot), Some(v)) = (self.metrics.get_mut(len), self.values.get_mut(len)) {
            *slot = Some(metric);
            *v = value;
        }
    }

    pub fn len(&self) -> usize {
        self.metrics.iter().take_while(|m| m.is_some()).count()
    }

    pub fn is_empty(&self) -> bool {
        self.metrics[0].is_none()
    }

    /// The sub-scores in the order they were given.
    pub fn iter(&self) -> impl Iterator<Item = (Metric, f64)> + '_ {
        self.metrics
            .iter()
            .map_while(|m| *m)
            .zip(self.values.iter().copied())
    }
}

impl FromIterator<(Metric, f64)> for SubScores {
    fn from_iter<I: IntoIterator<Item = (Metric, f64)>>(iter: I) -> Self {
        let mut out = Self::default();
        for (metric, value) in iter {
            out.push(metric, value);
        }
        out
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
            StepScore::from_metrics("rules", [], "why", None).scored_by,
            "none"
        );
    }

    #[test]
    fn sub_scores_keep_the_order_given() {
        let mut s = SubScores::default();
        assert!(s.is_empty());
        assert_eq!(s.iter().count(), 0);
        s.push(Metric::Faithfulness, 2.0);
        s.push(Metric::Completeness, 5.0);
        assert_eq!(s.len(), 2);
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            [(Metric::Faithfulness, 2.0), (Metric::Completeness, 5.0)]
        );
        s.push(Metric::Coherence, 1.0);
        let all: SubScores = s.iter().collect();
        assert_eq!(all, s);
        assert_eq!(all.len(), SubScores::MAX);
        assert_eq!(
            all.iter().map(|(m, _)| m).collect::<Vec<_>>(),
            Metric::for_type(StepType::Synth)
        );
    }
}
