//! Views of a scored DAG: a serializable JSON view (nodes, edges, scores,
//! statuses) for `agenteval-gate trace --format json`, and Mermaid flowcharts
//! (root cause red, propagated orange, compensated attempts dashed) for
//! `trace --format mermaid` and the PR comment. Output is deterministic:
//! nodes and edges come in id order and nothing depends on hashing.

use std::fmt::Write as _;

use crate::model::{ShortText, StepEdge};
use crate::output::escape::{mermaid_id_ok, mermaid_label};

use serde::Serialize;

use super::graph::Dag;
use super::model::{Attempt, EdgeKind};
use crate::model::run::{CaseReport, DagStatus, Deviation, StepResult};
use crate::trace::SharedValue;

/// One node of the JSON view: the step's report entry plus what the DAG
/// knows. It borrows from the DAG, and its report entry is made for it:
/// `trace --format json` of a large trace writes each view as it goes, and
/// no step's entry outlives its own line of JSON (issue 22/25).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeView<'a> {
    #[serde(flatten)]
    pub step: StepResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<&'a SharedValue>,
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
struct EdgeView<'a> {
    from: &'a str,
    to: &'a str,
    kind: EdgeKind,
}

/// The whole scored DAG, ready to serialize. Its nodes and edges are
/// written from the DAG as they are serialized: a view of a trace with
/// 100,000 steps holds no list of them, and no step's output preview
/// outlives its own line of JSON (issue 25).
#[derive(Debug, Clone, Serialize)]
pub struct DagView<'a> {
    pub status: DagStatus,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub notes: &'a [String],
    pub workflow_quality: Option<f64>,
    pub nodes: NodeViews<'a>,
    pub edges: EdgeViews<'a>,
    pub deviations: &'a [Deviation],
}

/// The scored steps a [`DagView`] joins with its DAG's nodes (step `i` is
/// node `i`'s), each made when the view writes it.
pub trait ScoredSteps {
    /// How many steps there are.
    fn step_count(&self) -> usize;
    /// The report entry of step `i`, for `i` below [`Self::step_count`].
    fn step(&self, i: usize) -> StepResult;
}

/// The nodes of a [`DagView`]: node `i` joined with step `i`.
#[derive(Clone, Copy)]
pub struct NodeViews<'a> {
    dag: &'a Dag,
    steps: &'a dyn ScoredSteps,
}

impl std::fmt::Debug for NodeViews<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeViews")
            .field("nodes", &self.dag.nodes.len())
            .field("steps", &self.steps.step_count())
            .finish()
    }
}

impl<'a> NodeViews<'a> {
    /// The views in node order (as many as there are both nodes and steps).
    pub fn iter(&self) -> impl Iterator<Item = NodeView<'a>> + 'a {
        let steps = self.steps;
        self.dag
            .nodes
            .iter()
            .take(steps.step_count())
            .enumerate()
            .map(move |(i, node)| NodeView {
                step: steps.step(i),
                agent: node.agent.as_deref(),
                tool: node.tool(),
                call_id: node.call_id.as_deref(),
                arguments: node.arguments.as_ref(),
                output_preview: node.output.as_ref().map(|v| preview(v, 300)),
                attempt: node.attempt,
                final_answer: node.final_answer,
                synthetic: node.synthetic,
            })
    }
}

impl Serialize for NodeViews<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq as _;
        let mut seq =
            serializer.serialize_seq(Some(self.dag.nodes.len().min(self.steps.step_count())))?;
        for view in self.iter() {
            seq.serialize_element(&view)?;
        }
        seq.end()
    }
}

/// The edges of a [`DagView`], by step id.
#[derive(Debug, Clone, Copy)]
pub struct EdgeViews<'a> {
    dag: &'a Dag,
}

impl Serialize for EdgeViews<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq as _;
        let nodes = &self.dag.nodes;
        let mut seq = serializer.serialize_seq(Some(self.dag.edges.len()))?;
        for e in &self.dag.edges {
            seq.serialize_element(&EdgeView {
                from: &nodes[e.from()].id,
                to: &nodes[e.to()].id,
                kind: e.kind,
            })?;
        }
        seq.end()
    }
}

impl<'a> DagView<'a> {
    /// Join the DAG with its scored steps (step `i` is node `i`'s).
    pub fn new(
        dag: &'a Dag,
        steps: &'a dyn ScoredSteps,
        deviations: &'a [Deviation],
        workflow_quality: Option<f64>,
    ) -> Self {
        Self {
            status: dag.status,
            notes: &dag.notes,
            workflow_quality,
            nodes: NodeViews { dag, steps },
            edges: EdgeViews { dag },
            deviations,
        }
    }
}

/// The first `max` characters of a value's text (a string as is, anything
/// else as compact JSON), with `…` when cut. Objects and arrays are held as
/// their compact text already, so nothing is serialized to preview them.
fn preview(value: &SharedValue, max: usize) -> String {
    match value.as_str() {
        Some(s) => truncate(s, max),
        None => truncate(&value.compact(), max),
    }
}

/// The first `max` characters of `text`, with `…` when there are more.
fn truncate(text: &str, max: usize) -> String {
    // A text of at most `max` bytes has at most `max` characters.
    let cut = if text.len() <= max {
        None
    } else {
        text.char_indices().nth(max).map(|(end, _)| end)
    };
    match cut {
        Some(end) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// Mermaid flowchart of a scored DAG (`steps[i]` is node `i`).
pub fn render_mermaid(dag: &Dag, steps: &[StepResult]) -> String {
    let edges: Vec<[ShortText; 2]> = dag.edge_ids();
    mermaid(steps, &edges)
}

/// Mermaid flowchart of a saved case report (its `steps` and `dag.edges`),
/// for the PR comment.
pub fn render_mermaid_case(case: &CaseReport) -> String {
    let edges: Vec<[ShortText; 2]> = case.dag.edges.iter().map(StepEdge::ids).collect();
    mermaid(&case.steps, &edges)
}

fn mermaid(steps: &[StepResult], edges: &[[ShortText; 2]]) -> String {
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
        } else if let Some(root) = step.propagated_from() {
            let _ = write!(label, " · from {}", mermaid_label(root));
        }
        if step.compensated() {
            label.push_str(" · retried");
        }
        let _ = writeln!(out, "    {id}[\"{label}\"]");
    }
    let compensated: std::collections::BTreeSet<&str> = steps
        .iter()
        .filter(|s| s.compensated())
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
        ("propagated", |s| s.propagated_from().is_some()),
        ("compensated", |s| s.compensated()),
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
                s.id.to_string()
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
            notes: "".into(),
            metrics: crate::model::StepMetrics::default(),
            agent: None,
            extra: None,
        }
    }

    #[test]
    fn mermaid_marks_roots_propagation_and_compensation() {
        let mut a = step("s1", StepType::Exec, Some(1.0));
        a.edit_extra(|x| x.compensated = true);
        a.root_cause = true;
        let mut b = step("s2", StepType::Exec, Some(1.0));
        b.root_cause = true;
        let mut c = step("s3", StepType::Synth, Some(1.0));
        c.edit_extra(|x| x.propagated_from = Some("s2".into()));
        let d = step("s4", StepType::Plan, None);
        let edges: [[ShortText; 2]; 3] = [
            ["s1".into(), "s2".into()],
            ["s2".into(), "s3".into()],
            ["s3".into(), "s4".into()],
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

    /// The bounded preview is what serializing the whole value and cutting
    /// it gave, for strings, short and long values and multi-byte text.
    #[test]
    fn preview_equals_the_cut_of_the_whole_text() {
        let long: Vec<serde_json::Value> = (0..200)
            .map(|i| serde_json::json!({"id": format!("inv-{i}"), "note": "été ✓ \"q\"\n", "n": i}))
            .collect();
        let values = [
            serde_json::json!("short"),
            serde_json::json!("é".repeat(400)),
            serde_json::json!({"a": 1}),
            serde_json::json!(long),
            serde_json::json!([null, true, 1.5, "x"]),
            serde_json::json!({"k": "ü".repeat(299)}),
            serde_json::json!({"k": "ü".repeat(300)}),
            // A long write cut inside a 4-byte character.
            serde_json::json!({"k": "aé😀".repeat(100)}),
            serde_json::json!([1, "aé😀".repeat(100)]),
        ];
        for v in &values {
            let whole = match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            for max in [0, 1, 5, 10, 11, 12, 13, 299, 300, 301, 5000] {
                // The cut counted the plain way: characters, then `…` if any are left.
                let expected = if whole.chars().count() <= max {
                    whole.clone()
                } else {
                    format!("{}…", whole.chars().take(max).collect::<String>())
                };
                assert_eq!(
                    preview(&v.clone().into(), max),
                    expected,
                    "{max}: {whole:.60}"
                );
                assert_eq!(truncate(&whole, max), expected, "{max}: {whole:.60}");
            }
        }
        assert!(preview(&serde_json::json!(long).into(), 300).ends_with('…'));
    }
}
