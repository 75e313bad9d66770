//! A step evaluation's report entries: one `StepResult` per DAG node, made
//! when a report needs them, from the node, its score, its verdict and its
//! attribution.

use std::borrow::Cow;
use std::collections::HashMap;

use super::evaluate::StepEvaluation;
use super::scorer::StepScore;
use crate::dag::{Attribution, Node};
use crate::eval::case::StepPart;
use crate::model::ShortText;
use crate::model::run::{StepAttempt, StepExtra, StepResult};

/// Lists shorter than this are not shrunk as they are emptied.
const GIVE_BACK_FROM: usize = 4096;

impl StepEvaluation {
    /// Split into the case evaluator's step part and the warnings for the
    /// case report.
    ///
    /// The entries are made from the last step to the first, and the
    /// nodes and scores are given back to the allocator as they are used:
    /// the whole DAG beside every entry was the peak of `run` on a large
    /// trace (issue 25). The entries are the ones [`Self::step`] makes.
    pub fn into_part(self) -> (StepPart, Vec<String>) {
        let Self {
            mut scores,
            failed,
            attributions,
            workflow_steps,
            deviations,
            tool_use,
            cost,
            workflow_quality,
            task,
            root_cause,
            graph,
            warnings,
        } = self;
        let dag = graph.info(deviations);
        // The steps others' failures are propagated from, by index: few, and
        // still named once their nodes are gone.
        let root_ids: HashMap<usize, ShortText> = attributions
            .iter()
            .filter_map(|a| match a {
                Attribution::Propagated { root } => Some(*root),
                Attribution::Pass | Attribution::RootCause => None,
            })
            .map(|root| (root, graph.nodes[root].id.clone()))
            .collect();
        let mut nodes = graph.into_nodes();
        debug_assert_eq!(nodes.len(), scores.len(), "a score per node");
        let mut steps = Vec::with_capacity(nodes.len());
        while let (Some(node), Some(mut score)) = (nodes.pop(), scores.pop()) {
            let i = nodes.len();
            let standing = Standing::new(failed[i], attributions[i], |root| {
                root_ids.get(&root).cloned()
            });
            let scored_by = std::mem::take(&mut score.scored_by);
            let notes = std::mem::take(&mut score.notes);
            steps.push(entry(
                &node,
                &score,
                (scored_by, notes),
                standing,
                workflow_step(&workflow_steps, i),
            ));
            give_back(&mut nodes);
            give_back(&mut scores);
        }
        steps.reverse();
        let part = StepPart {
            steps,
            dag,
            tool_use,
            cost,
            workflow_quality,
            task,
            root_cause,
        };
        (part, warnings)
    }

    /// The report entries of all steps, in node order.
    pub fn steps(&self) -> Vec<StepResult> {
        (0..self.scores.len()).map(|i| self.step(i)).collect()
    }

    /// The report entry of step `i` (node `i` of [`Self::graph`]).
    ///
    /// # Panics
    /// When `i` is not a node of the DAG.
    pub fn step(&self, i: usize) -> StepResult {
        let s = &self.scores[i];
        let standing = Standing::new(self.failed[i], self.attributions[i], |root| {
            Some(self.graph.nodes[root].id.clone())
        });
        entry(
            &self.graph.nodes[i],
            s,
            (s.scored_by.clone(), s.notes.clone()),
            standing,
            workflow_step(&self.workflow_steps, i),
        )
    }
}

/// A step's verdict and attribution as its entry states them.
struct Standing {
    failed: bool,
    root_cause: bool,
    propagated_from: Option<ShortText>,
}

impl Standing {
    /// `root_id` names the step a failure is propagated from.
    fn new(
        failed: bool,
        attribution: Attribution,
        root_id: impl FnOnce(usize) -> Option<ShortText>,
    ) -> Self {
        let (root_cause, propagated_from) = match attribution {
            Attribution::Pass => (false, None),
            Attribution::RootCause => (true, None),
            Attribution::Propagated { root } => (false, root_id(root)),
        };
        Self {
            failed,
            root_cause,
            propagated_from,
        }
    }
}

/// The schema step node `i` matched, if any.
fn workflow_step(workflow_steps: &[Option<String>], i: usize) -> Option<ShortText> {
    workflow_steps
        .get(i)
        .and_then(|w| w.as_deref().map(ShortText::from))
}

/// A step's entry: its node, its score with these `scored_by` and notes,
/// its standing and its schema step.
fn entry(
    node: &Node,
    s: &StepScore,
    (scored_by, notes): (Cow<'static, str>, Cow<'static, str>),
    standing: Standing,
    workflow_step: Option<ShortText>,
) -> StepResult {
    let failed = standing.failed;
    StepResult {
        id: node.id.clone(),
        step_type: node.step_type,
        name: node.name.clone(),
        span_id: node.span_id.clone(),
        score: s.score,
        scored_by,
        failed,
        root_cause: standing.root_cause,
        notes,
        metrics: s.metrics.iter().collect(),
        agent: node.agent.clone(),
        extra: StepExtra {
            propagated_from: standing.propagated_from,
            taxonomy: s
                .failure
                .filter(|_| failed)
                .map(super::taxonomy::Failure::label),
            workflow_step,
            compensated: node.compensated,
            attempt: node.attempt.map(|a| StepAttempt {
                number: a.number,
                of: a.of,
            }),
            judge_missing: s.judge_missing,
        }
        .boxed(),
    }
}

/// Shrink a large list once an eighth of it is unused, so that its pages
/// go back to the system while it is emptied from the end.
fn give_back<T>(list: &mut Vec<T>) {
    let capacity = list.capacity();
    if capacity >= GIVE_BACK_FROM && list.len() < capacity - capacity / 8 {
        list.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dag::{Attempt, Dag, Edge, EdgeKind};
    use crate::eval::steps::scorer::Metric;
    use crate::eval::steps::taxonomy::Failure;
    use crate::model::run::DagStatus;
    use crate::spec::model::StepType;

    /// An evaluation of a chain of `n` steps: every third fails, as a root
    /// cause or propagated from the one three before it; some have notes,
    /// sub-scores, a retry attempt and a schema step.
    fn evaluation(n: usize) -> StepEvaluation {
        let nodes = (0..n)
            .map(|i| {
                let mut node = Node::new(StepType::Exec, format!("tool_{i}"));
                node.agent = (i % 2 == 0).then(|| "agent".into());
                node.span_id = Some(format!("{i:016x}").into());
                node.attempt = (i % 7 == 0).then_some(Attempt { number: 1, of: 2 });
                node.compensated = i % 7 == 0;
                node
            })
            .collect();
        let edges = (1..n)
            .map(|i| Edge::new(i - 1, i, EdgeKind::Flow))
            .collect();
        let graph = Dag::new(DagStatus::Dag, nodes, edges, Vec::new()).unwrap();
        let scores = (0..n)
            .map(|i| {
                let value = if i % 3 == 0 { 1.0 } else { 4.5 };
                let notes = if i % 5 == 0 {
                    format!("note {i}")
                } else {
                    String::new()
                };
                StepScore::from_metrics(
                    "rules",
                    [(Metric::Success, value)],
                    notes,
                    (i % 3 == 0).then_some(Failure::UnknownTool),
                )
            })
            .collect();
        let attributions = (0..n)
            .map(|i| match i % 6 {
                0 => Attribution::RootCause,
                3 => Attribution::Propagated { root: i - 3 },
                _ => Attribution::Pass,
            })
            .collect();
        StepEvaluation {
            scores,
            failed: (0..n).map(|i| i % 3 == 0).collect(),
            attributions,
            workflow_steps: (0..n)
                .map(|i| (i % 4 == 0).then(|| format!("step-{i}")))
                .collect(),
            deviations: Vec::new(),
            tool_use: crate::model::run::ToolUse::default(),
            cost: crate::model::run::Cost::default(),
            workflow_quality: Some(3.0),
            task: None,
            root_cause: None,
            graph,
            warnings: vec!["a warning".to_owned()],
        }
    }

    /// The entries `into_part` makes from the end, giving the nodes back as
    /// it goes, are the ones `step` makes of each node, in node order.
    #[test]
    fn into_part_makes_each_steps_entry_in_node_order() {
        for n in [0, 1, 7, GIVE_BACK_FROM * 3 + 5] {
            let evaluation = evaluation(n);
            let expected = evaluation.steps();
            let dag = evaluation.dag_info();
            let (part, warnings) = evaluation.into_part();
            assert_eq!(part.steps, expected, "{n} steps");
            assert_eq!(part.dag, dag);
            assert_eq!(warnings, ["a warning"]);
            if n > 3 {
                assert_eq!(part.steps[3].propagated_from(), Some("s1"));
                assert!(part.steps[0].root_cause && part.steps[0].taxonomy().is_some());
                assert_eq!(part.steps[4].workflow_step(), Some("step-4"));
            }
        }
    }
}
