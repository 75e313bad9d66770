//! Views of a scored DAG: a serializable JSON view (nodes, edges, scores,
//! statuses) for `agenteval-gate trace --format json`, and Mermaid flowcharts
//! (root cause red, propagated orange, compensated attempts dashed) for
//! `trace --format mermaid` and the PR comment. Output is deterministic:
//! nodes and edges come in id order and nothing depends on hashing.

use std::fmt::Write as _;

use crate::output::escape::{mermaid_id_ok, mermaid_label};

use serde::Serialize;
use serde_json::Value;

use super::graph::Dag;
use super::model::{Attempt, EdgeKind};
use crate::model::run::{CaseReport, DagStatus, Deviation, StepResult};

/// One node of the JSON view: the step's report entry plus what the DAG knows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeView {
    #[serde(flatten)]
    pub step: StepResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// The first 300 characters of what the step produced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_preview: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempt: Option<Attempt>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub final_answer: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub synthetic: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EdgeView {
    pub from: String,
    pub to: String,
    pub kind: EdgeKind,
}

/// The whole scored DAG, ready to serialize.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DagView {
    pub status: DagStatus,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub workflow_quality: Option<f64>,
    pub nodes: Vec<NodeView>,
    pub edges: Vec<EdgeView>,
    pub deviations: Vec<Deviation>,
}

impl DagView {
    /// Join the DAG with its scored steps (`steps[i]` is node `i`).
    pub fn new(
        dag: &Dag,
        steps: &[StepResult],
        deviations: &[Deviation],
        workflow_quality: Option<f64>,
    ) -> Self {
        let nodes = dag
            .nodes
            .iter()
            .zip(steps)
            .map(|(node, step)| NodeView {
                step: step.clone(),
                agent: node.agent.clone(),
                tool: node.tool.clone(),
                call_id: node.call_id.clone(),
                arguments: node.arguments.clone(),
                output_preview: node.output.as_ref().map(|v| preview(v, 300)),
                attempt: node.attempt,
                final_answer: node.final_answer,
                synthetic: node.synthetic,
            })
            .collect();
        let edges = dag
            .edges
            .iter()
            .map(|e| EdgeView {
                from: dag.nodes[e.from].id.clone(),
                to: dag.nodes[e.to].id.clone(),
                kind: e.kind,
            })
            .collect();
        Self {
            status: dag.status,
            notes: dag.notes.clone(),
            workflow_quality,
            nodes,
            edges,
            deviations: deviations.to_vec(),
        }
    }
}

fn preview(value: &Value, max: usize) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    truncate(&text, max)
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let cut: String = text.chars().take(max).collect();
        format!("{cut}…")
    }
}

/// Mermaid flowchart of a scored DAG (`steps[i]` is node `i`).
pub fn render_mermaid(dag: &Dag, steps: &[StepResult]) -> String {
    let edges: Vec<[String; 2]> = dag.edge_ids();
    mermaid(steps, &edges)
}

/// Mermaid flowchart of a saved case report (its `steps` and `dag.edges`),
/// for the PR comment.
pub fn render_mermaid_case(case: &CaseReport) -> String {
    mermaid(&case.steps, &case.dag.edges)
}

fn mermaid(steps: &[StepResult], edges: &[[String; 2]]) -> String {
    let ids = node_ids(steps);
    let index: std::collections::HashMap<&str, usize> = steps
        .iter()
        .enumerate()
        .rev()
        .map(|(i, s)| (s.id.as_str(), i))
        .collect();
    let id_of = |step: &str| index.get(step).map(|&i| ids[i].as_str());
    let mut out = String::from("flowchart TD\n");
    for (step, id) in steps.iter().zip(&ids) {
        let score = step
            .score
            .map_or_else(|| "N/A".to_owned(), |s| format!("{s:.1}"));
        let mut label = format!(
            "{} {} {}<br/>{score}",
            mermaid_label(&step.id),
            step.step_type,
            mermaid_label(&truncate(&step.name, 40))
        );
        if step.root_cause {
            label.push_str(" · root cause");
        } else if let Some(root) = &step.propagated_from {
            let _ = write!(label, " · from {}", mermaid_label(root));
        }
        if step.compensated {
            label.push_str(" · retried");
        }
        let _ = writeln!(out, "    {id}[\"{label}\"]");
    }
    let compensated: std::collections::BTreeSet<&str> = steps
        .iter()
        .filter(|s| s.compensated)
        .map(|s| s.id.as_str())
        .collect();
    for [from, to] in edges {
        let (Some(a), Some(b)) = (id_of(from), id_of(to)) else {
            continue;
        };
        let arrow = if compensated.contains(from.as_str()) {
            "-.->"
        } else {
            "-->"
        };
        let _ = writeln!(out, "    {a} {arrow} {b}");
    }
    out.push_str("    classDef root fill:#f8d7da,stroke:#c62828,stroke-width:2px,color:#000\n");
    out.push_str("    classDef propagated fill:#ffe0b2,stroke:#ef6c00,color:#000\n");
    out.push_str("    classDef compensated stroke-dasharray:5 5\n");
    for (class, pick) in [
        (
            "root",
            (|s: &StepResult| s.root_cause) as fn(&StepResult) -> bool,
        ),
        ("propagated", |s| s.propagated_from.is_some()),
        ("compensated", |s| s.compensated),
    ] {
        let picked: Vec<&str> = steps
            .iter()
            .zip(&ids)
            .filter(|(s, _)| pick(s))
            .map(|(_, id)| id.as_str())
            .collect();
        if !picked.is_empty() {
            let _ = writeln!(out, "    class {} {class}", picked.join(","));
        }
    }
    out
}

/// Mermaid node ids: a step id that is a safe Mermaid identifier as is
/// (`s3`, `lookup`), else `n<index>` (step ids in saved reports are
/// untrusted), never two alike.
fn node_ids(steps: &[StepResult]) -> Vec<String> {
    let mut used = std::collections::BTreeSet::new();
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut id = if mermaid_id_ok(&s.id) {
                s.id.clone()
            } else {
                format!("n{i}")
            };
            while used.contains(&id) {
                id.push('_');
            }
            used.insert(id.clone());
            id
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::model::StepType;

    fn step(id: &str, t: StepType, score: Option<f64>) -> StepResult {
        StepResult {
            id: id.into(),
            step_type: t,
            name: "get \"user\" #1".into(),
            span_id: None,
            score,
            scored_by: "rules".into(),
            failed: score.is_some_and(|s| s < 3.0),
            root_cause: false,
            propagated_from: None,
            taxonomy: None,
            workflow_step: None,
            notes: String::new(),
            compensated: false,
            metrics: std::collections::BTreeMap::new(),
            agent: None,
            attempt: None,
            judge_missing: false,
        }
    }

    #[test]
    fn mermaid_marks_roots_propagation_and_compensation() {
        let mut a = step("s1", StepType::Exec, Some(1.0));
        a.compensated = true;
        a.root_cause = true;
        let mut b = step("s2", StepType::Exec, Some(1.0));
        b.root_cause = true;
        let mut c = step("s3", StepType::Synth, Some(1.0));
        c.propagated_from = Some("s2".into());
        let d = step("s4", StepType::Plan, None);
        let edges = [
            ["s1".to_owned(), "s2".to_owned()],
            ["s2".to_owned(), "s3".to_owned()],
            ["s3".to_owned(), "s4".to_owned()],
        ];
        let text = mermaid(&[a, b, c, d], &edges);
        let expected = "flowchart TD
    s1[\"s1 EXEC get #quot;user#quot; #35;1<br/>1.0 · root cause · retried\"]
    s2[\"s2 EXEC get #quot;user#quot; #35;1<br/>1.0 · root cause\"]
    s3[\"s3 SYNTH get #quot;user#quot; #35;1<br/>1.0 · from s2\"]
    s4[\"s4 PLAN get #quot;user#quot; #35;1<br/>N/A\"]
    s1 -.-> s2
    s2 --> s3
    s3 --> s4
    classDef root fill:#f8d7da,stroke:#c62828,stroke-width:2px,color:#000
    classDef propagated fill:#ffe0b2,stroke:#ef6c00,color:#000
    classDef compensated stroke-dasharray:5 5
    class s1,s2 root
    class s3 propagated
    class s1 compensated
";
        assert_eq!(text, expected);
    }
}
