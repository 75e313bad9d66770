//! Match a suite's schema workflow (`workflow.steps`) to a trace's DAG and
//! report deviations (DESIGN §5).
//!
//! A schema step matches a node of the same type whose tool is the step's
//! `tool`, or one of its alternatives (for TOOLSEL: among the selected tools); a step without `tool`
//! matches any node of its type. Each node takes at most one schema step,
//! preferring, in order: a step naming its tool that nothing matched yet, a
//! tool-less step nothing matched yet, an already matched step naming its
//! tool, an already matched tool-less step (schema order breaks ties).
//!
//! Deviations:
//! - `missing_step`: a non-optional schema step no node matched;
//! - `unexpected_step`: in an `exhaustive` workflow, an EXEC of a tool no
//!   schema step matched, one per tool (otherwise other tools may be called);
//! - `order_violation`: a step's first match comes before the first match of
//!   a step it must come `after` (time order, i.e. node order).

use std::collections::BTreeMap;

use super::graph::Dag;
use crate::model::run::Deviation;
use crate::spec::model::{StepType, WorkflowSpec, WorkflowStepSpec};

/// The result of matching one DAG against a schema workflow.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WorkflowMatch {
    /// Per node: the id of the schema step it matched.
    pub assignments: Vec<Option<String>>,
    pub deviations: Vec<Deviation>,
}

fn matches(step: &WorkflowStepSpec, node: &super::model::Node) -> bool {
    if step.step_type != node.step_type {
        return false;
    }
    match &step.tool {
        None => true,
        Some(tool) if node.step_type == StepType::ToolSel => {
            node.tools.iter().any(|t| tool.contains(t))
        }
        Some(tool) => node.tool().is_some_and(|t| tool.contains(t)),
    }
}

/// Match `workflow` against `dag`.
pub fn match_workflow(dag: &Dag, workflow: &WorkflowSpec) -> WorkflowMatch {
    let steps = &workflow.steps;
    let mut first_match: Vec<Option<usize>> = vec![None; steps.len()];
    let mut assignments = vec![None; dag.len()];
    for (i, node) in dag.nodes.iter().enumerate() {
        let best = steps
            .iter()
            .enumerate()
            .filter(|(_, s)| matches(s, node))
            .min_by_key(|(k, s)| (first_match[*k].is_some(), s.tool.is_none(), *k))
            .map(|(k, _)| k);
        if let Some(k) = best {
            first_match[k].get_or_insert(i);
            assignments[i] = Some(steps[k].id.value.clone());
        }
    }

    let mut deviations = Vec::new();
    for (k, step) in steps.iter().enumerate() {
        if first_match[k].is_none() && !step.optional {
            let what = step.tool.as_ref().map_or_else(
                || step.step_type.to_string(),
                |t| format!("{} {}", step.step_type, t.quoted()),
            );
            deviations.push(Deviation {
                kind: "missing_step".into(),
                step: step.id.value.clone(),
                detail: format!("no {what} step in the trace"),
            });
        }
    }

    // Only an exhaustive workflow says which tools may not be called.
    let mut unexpected: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, node) in dag.nodes.iter().enumerate() {
        if workflow.is_exhaustive() && node.step_type == StepType::Exec && assignments[i].is_none()
        {
            unexpected
                .entry(node.tool().unwrap_or(&node.name).to_owned())
                .or_default()
                .push(i);
        }
    }
    let mut unexpected: Vec<(String, Vec<usize>)> = unexpected.into_iter().collect();
    unexpected.sort_by_key(|(_, ids)| ids[0]);
    for (tool, ids) in unexpected {
        let list: Vec<&str> = ids.iter().map(|&i| dag.nodes[i].id.as_str()).collect();
        deviations.push(Deviation {
            kind: "unexpected_step".into(),
            step: dag.nodes[ids[0]].id.to_string(),
            detail: format!(
                "tool `{tool}` is not in the workflow schema ({} call{}: {})",
                ids.len(),
                if ids.len() == 1 { "" } else { "s" },
                list.join(", ")
            ),
        });
    }

    let index: BTreeMap<&str, usize> = steps
        .iter()
        .enumerate()
        .map(|(k, s)| (s.id.value.as_str(), k))
        .collect();
    for (k, step) in steps.iter().enumerate() {
        let Some(at) = first_match[k] else { continue };
        for before in &step.after {
            let Some(&b) = index.get(before.value.as_str()) else {
                continue;
            };
            if let Some(b_at) = first_match[b]
                && b_at > at
            {
                deviations.push(Deviation {
                    kind: "order_violation".into(),
                    step: step.id.value.clone(),
                    detail: format!(
                        "`{}` ({}) ran before `{}` ({}), which it must follow",
                        step.id.value, dag.nodes[at].id, before.value, dag.nodes[b_at].id
                    ),
                });
            }
        }
    }
    WorkflowMatch {
        assignments,
        deviations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dag::model::{Edge, EdgeKind, Node};
    use crate::model::run::DagStatus;

    fn node(t: StepType, tool: Option<&str>) -> Node {
        let mut n = Node::new(t, tool.unwrap_or("llm"));
        n.tools = tool
            .map(|t| thin_vec::thin_vec![t.into()])
            .unwrap_or_default();
        n
    }

    fn workflow(yaml: &str) -> WorkflowSpec {
        serde_saphyr::from_str(yaml).unwrap()
    }

    #[test]
    fn missing_unexpected_and_out_of_order_steps_are_reported() {
        // s1 EXEC answer_tool, s2 EXEC lookup, s3 EXEC search, s4 SYNTH
        let nodes = vec![
            node(StepType::Exec, Some("answer_tool")),
            node(StepType::Exec, Some("lookup")),
            node(StepType::Exec, Some("search")),
            node(StepType::Synth, None),
        ];
        let edges = (0..3)
            .map(|i| Edge::new(i, i + 1, EdgeKind::Flow))
            .collect();
        let dag = Dag::new(DagStatus::Dag, nodes, edges, Vec::new()).unwrap();
        let steps = "steps:\n  - {id: plan, type: PLAN}\n  - {id: lookup, type: EXEC, tool: lookup}\n  - {id: write, type: EXEC, tool: answer_tool, after: [lookup]}\n  - {id: answer, type: SYNTH, after: [write]}\n  - {id: audit, type: EXEC, tool: audit, optional: true}\n";
        // Not exhaustive (the default): `search` is allowed.
        let m = match_workflow(&dag, &workflow(steps));
        let kinds: Vec<&str> = m.deviations.iter().map(|d| d.kind.as_str()).collect();
        assert_eq!(kinds, ["missing_step", "order_violation"]);
        let wf = workflow(&format!("exhaustive: true\n{steps}"));
        let m = match_workflow(&dag, &wf);
        assert_eq!(
            m.assignments,
            [
                Some("write".into()),
                Some("lookup".into()),
                None,
                Some("answer".into())
            ]
        );
        let kinds: Vec<(&str, &str)> = m
            .deviations
            .iter()
            .map(|d| (d.kind.as_str(), d.step.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("missing_step", "plan"),
                ("unexpected_step", "s3"),
                ("order_violation", "write")
            ]
        );
        assert!(m.deviations[1].detail.contains("`search`"));
    }
}
