//! Judged step scores in front of the rules (DESIGN §6).
//!
//! The judge answers one rubric prompt per metric of PLAN (completeness,
//! feasibility), TOOLSEL (selection accuracy, relevance), PARAMGEN
//! (correctness, completeness) and SYNTH (faithfulness, completeness,
//! coherence) before evaluation; [`JudgedScorer`] merges those answers with
//! the deterministic `rules` scorer:
//!
//! - where the rules find a certain defect (a failed EXEC, an invalid
//!   argument, an unknown tool, a wrong final answer), the rules' score
//!   stands: a judge never overrides it, and is not even asked;
//! - otherwise each metric takes the judge's score, or the lower of the
//!   judge's and the rules' where both scored it (a schema-valid call can
//!   still have a wrong value, but a judge cannot lift a rules score);
//! - the step's score is its lowest metric, as for the rules; `scored_by` is
//!   `judge:<provider>/<model>`, or `rules+judge:…` when both contributed;
//! - a metric the judge could not score (judge error, budget, cache miss)
//!   is left out, with its reason in the notes: it is never filled in.
//!
//! A step that fails on a judged metric gets the taxonomy label of that
//! metric: PLAN completeness → `incomplete_plan`, feasibility →
//! `infeasible_plan`; TOOLSEL → `wrong_tool`; PARAMGEN correctness →
//! `invalid_parameter_value`, completeness → `missing_required_parameter`;
//! SYNTH faithfulness and coherence → `unfaithful_output`, completeness →
//! `incomplete_output`.

use std::collections::BTreeMap;

use super::rules::RulesScorer;
use super::scorer::{Metric, StepInput, StepScore, StepScorer};
use super::taxonomy::Failure;
use crate::spec::model::StepType;

/// The judge's answer for one metric of one step.
#[derive(Debug, Clone, PartialEq)]
pub enum MetricJudgment {
    /// 1–5 with the judge's reasoning, and the judge that answered
    /// (`judge:<provider>/<model>`: the primary, or a fallback).
    Score {
        value: f64,
        notes: String,
        by: String,
    },
    /// No score, and why (`judge_error: …`, `budget exhausted`, …).
    NotAvailable(String),
}

/// The judge's answers for one case: (node id, metric) → answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepJudgments {
    /// `judge:<provider>/<model>` of the configured (primary) judge: named when
    /// no judge answered. A score names the judge that gave it.
    pub by: String,
    pub metrics: BTreeMap<(String, Metric), MetricJudgment>,
}

/// The rules, then the judge's answers where the rules are not certain.
pub(crate) struct JudgedScorer<'a> {
    rules: RulesScorer,
    judged: &'a StepJudgments,
    name: String,
}

impl<'a> JudgedScorer<'a> {
    pub(crate) fn new(judged: &'a StepJudgments) -> Self {
        Self {
            rules: RulesScorer,
            judged,
            name: format!("rules+{}", judged.by),
        }
    }
}

/// Whether the rules found a certain defect: their score stands.
pub(crate) fn rules_certain(score: &StepScore) -> bool {
    score.score.is_some() && score.failure.is_some()
}

/// The step types and metrics a judge scores.
pub(crate) fn judged_metrics(step_type: StepType) -> &'static [Metric] {
    match step_type {
        StepType::Exec => &[],
        other => Metric::for_type(other),
    }
}

fn failure_of(step_type: StepType, metric: Metric) -> Option<Failure> {
    Some(match (step_type, metric) {
        (StepType::Plan, Metric::Feasibility) => Failure::InfeasiblePlan,
        (StepType::Plan, _) => Failure::IncompletePlan,
        (StepType::ToolSel, _) => Failure::WrongTool,
        (StepType::ParamGen, Metric::Completeness) => Failure::MissingRequiredParameter,
        (StepType::ParamGen, _) => Failure::InvalidParameterValue,
        (StepType::Synth, Metric::Completeness) => Failure::IncompleteOutput,
        (StepType::Synth, _) => Failure::UnfaithfulOutput,
        (StepType::Exec, _) => return None,
    })
}

impl StepScorer for JudgedScorer<'_> {
    fn name(&self) -> &str {
        &self.name
    }

    fn score(&self, input: &StepInput<'_>) -> StepScore {
        let rules = self.rules.score(input);
        if rules_certain(&rules) {
            return rules;
        }
        let node = input.node;
        let mut judged: Vec<(Metric, f64, &str, &str)> = Vec::new();
        let mut missing: Vec<String> = Vec::new();
        for &m in judged_metrics(node.step_type) {
            match self.judged.metrics.get(&(node.id.to_string(), m)) {
                Some(MetricJudgment::Score { value, notes, by }) => {
                    judged.push((m, *value, notes, by));
                }
                Some(MetricJudgment::NotAvailable(why)) => {
                    missing.push(format!("{}: {why}", m.as_str()));
                }
                None => {}
            }
        }
        if judged.is_empty() {
            if missing.is_empty() {
                return rules;
            }
            let mut out = rules;
            out.judge_missing = true;
            let judge_note = format!("{} gave no score ({})", self.judged.by, missing.join("; "));
            out.notes = if out.notes.is_empty() {
                judge_note.into()
            } else {
                format!("{}; {judge_note}", out.notes).into()
            };
            return out;
        }
        let mut merged: BTreeMap<Metric, f64> = rules.metrics.iter().collect();
        let mut from_judge: BTreeMap<Metric, f64> = BTreeMap::new();
        for (m, v, _, _) in &judged {
            let e = merged.entry(*m).or_insert(*v);
            if *v <= *e {
                *e = *v;
                from_judge.insert(*m, *v);
            }
        }
        // Order metrics as the rubric does.
        let metrics: Vec<(Metric, f64)> = Metric::for_type(node.step_type)
            .iter()
            .filter_map(|m| merged.get(m).map(|v| (*m, *v)))
            .collect();
        let lowest = metrics.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1));
        let failure = lowest
            .filter(|(m, _)| from_judge.contains_key(m))
            .and_then(|(m, _)| failure_of(node.step_type, m))
            .or(rules.failure);
        // The judges whose scores the step took (a fallback answers when the primary
        // could not): each score is attributed to the judge that gave it.
        let mut by: Vec<&str> = judged.iter().map(|(_, _, _, b)| *b).collect();
        by.sort_unstable();
        by.dedup();
        let by = by.join("+");
        let mut notes: Vec<String> = judged
            .iter()
            .map(|(m, v, why, _)| {
                let why = crate::output::cap_chars(why, 160);
                if why.is_empty() {
                    format!("{} {v}", m.as_str())
                } else {
                    format!("{} {v}: {why}", m.as_str())
                }
            })
            .collect();
        notes.extend(missing.iter().map(|m| format!("no score for {m}")));
        let mut text = format!("{by}: {}", notes.join("; "));
        if !rules.metrics.is_empty() && !rules.notes.is_empty() {
            text = format!("rules: {}; {text}", rules.notes);
        }
        let scored_by = if rules.metrics.is_empty() {
            by
        } else {
            format!("rules+{by}")
        };
        let mut out = StepScore::from_metrics(scored_by, metrics, text, failure);
        out.judge_missing = !missing.is_empty();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dag::Node;
    use crate::eval::steps::catalog::ToolCatalog;

    fn input<'a>(node: &'a Node, catalog: &'a ToolCatalog) -> StepInput<'a> {
        StepInput {
            node,
            parents: Vec::new(),
            catalog,
            workflow_tools: None,
            expected_output: None,
            case_input: None,
        }
    }

    fn judgments(node: &str, scores: &[(Metric, f64)]) -> StepJudgments {
        StepJudgments {
            by: "judge:openai/m".into(),
            metrics: scores
                .iter()
                .map(|(m, v)| {
                    (
                        (node.to_owned(), *m),
                        MetricJudgment::Score {
                            value: *v,
                            notes: "why".into(),
                            by: "judge:openai/m".into(),
                        },
                    )
                })
                .collect(),
        }
    }

    #[test]
    fn a_failed_exec_stays_failed_whatever_the_judge_says() {
        let mut node = Node::new(StepType::Exec, "refund");
        node.id = "s3".into();
        node.set_error(Some("boom".into()));
        let catalog = ToolCatalog::empty();
        let j = judgments(
            "s3",
            &[(Metric::Success, 5.0), (Metric::ResultValidity, 5.0)],
        );
        let s = JudgedScorer::new(&j).score(&input(&node, &catalog));
        assert_eq!((s.score, s.scored_by.as_ref()), (Some(1.0), "rules"));
    }

    #[test]
    fn the_judge_scores_what_the_rules_cannot_and_never_lifts_them() {
        let mut plan = Node::new(StepType::Plan, "chat");
        plan.id = "s1".into();
        let catalog = ToolCatalog::empty();
        let j = judgments(
            "s1",
            &[(Metric::Completeness, 4.0), (Metric::Feasibility, 2.0)],
        );
        let s = JudgedScorer::new(&j).score(&input(&plan, &catalog));
        assert_eq!(s.score, Some(2.0));
        assert_eq!(s.scored_by, "judge:openai/m");
        assert_eq!(s.failure, Some(Failure::InfeasiblePlan));
        assert_eq!(
            s.metrics.iter().collect::<Vec<_>>(),
            [(Metric::Completeness, 4.0), (Metric::Feasibility, 2.0)]
        );
        // With nothing judged, the rules' N/A stands.
        // A score a fallback gave is the fallback's, whoever the primary is.
        let mut mixed = j.clone();
        mixed.by = "judge:anthropic/primary".into();
        if let Some(MetricJudgment::Score { by, .. }) =
            mixed.metrics.get_mut(&("s1".into(), Metric::Feasibility))
        {
            *by = "judge:openai/fallback".into();
        }
        let s = JudgedScorer::new(&mixed).score(&input(&plan, &catalog));
        assert_eq!(s.scored_by, "judge:openai/fallback+judge:openai/m");
        assert!(
            s.notes
                .starts_with("judge:openai/fallback+judge:openai/m: "),
            "{}",
            s.notes
        );
        let empty = StepJudgments::default();
        assert_eq!(
            JudgedScorer::new(&empty)
                .score(&input(&plan, &catalog))
                .score,
            None
        );
        // A judge error leaves the metric out and says why.
        let mut errs = StepJudgments {
            by: "judge:openai/m".into(),
            ..StepJudgments::default()
        };
        errs.metrics.insert(
            ("s1".into(), Metric::Completeness),
            MetricJudgment::NotAvailable("judge_error: timeout".into()),
        );
        let s = JudgedScorer::new(&errs).score(&input(&plan, &catalog));
        assert_eq!(s.score, None);
        assert!(
            s.notes.contains("completeness: judge_error: timeout"),
            "{}",
            s.notes
        );
    }
}
