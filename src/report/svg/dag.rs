//! The evaluation DAG of one case as drawing geometry: boxes coloured by step
//! type, the score on each box, the root cause red, propagated failures
//! orange, retried attempts dashed, sub-agents as coloured stripes, and the
//! checkpoints that cite a step flagged beside it.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::model::StepEdge;
use crate::model::run::{CaseReport, CheckpointState, DagStatus, StepResult};

use super::layout::{LayoutInput, Point, layout};
use super::scale::round1;

const NODE_W: f64 = 196.0;
const NODE_H: f64 = 40.0;
const PAD: f64 = 12.0;
/// Room right of the graph for the notes beside the nodes.
const NOTE_W: f64 = 190.0;
const NAME_CHARS: usize = 24;
const NOTE_CHARS: usize = 30;
/// Colours of sub-agents, in order of first appearance.
const AGENT_COLORS: [&str; 6] = [
    "#6f42c1", "#0969da", "#bf8700", "#1a7f37", "#cf222e", "#57606a",
];

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct DagDrawing {
    pub width: f64,
    pub height: f64,
    pub nodes: Vec<NodeShape>,
    pub edges: Vec<EdgeShape>,
    /// Sub-agents and their stripe colours, when the run has more than one agent.
    pub agents: Vec<AgentKey>,
    pub status: DagStatus,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct NodeShape {
    pub id: String,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    /// Text anchors: left text x, score x (right-aligned), header and name baselines.
    pub tx: f64,
    pub sx: f64,
    pub hy: f64,
    pub ny: f64,
    /// `plan`, `toolsel`, `paramgen`, `exec`, `synth`: the fill.
    pub kind: String,
    /// `root`, `propagated`, `failed`, `ok` or `unscored`: the border.
    pub state: String,
    pub header: String,
    pub name: String,
    pub score: String,
    pub compensated: bool,
    pub agent_color: Option<String>,
    /// Short notes drawn right of the node (root cause, cited by a checkpoint…).
    pub notes: Vec<NodeNote>,
    /// Full text for the hover title.
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct NodeNote {
    pub x: f64,
    pub y: f64,
    pub text: String,
    /// `root`, `propagated`, `flag` or `info`.
    pub tone: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct EdgeShape {
    pub from: String,
    pub to: String,
    /// SVG path data (numbers and commands only).
    pub d: String,
    /// `flow`, `retry`, `agent` or `failure` (both ends failing: the propagation path).
    pub kind: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct AgentKey {
    pub name: String,
    pub color: String,
}

/// Draw a case's DAG. `flags` maps step span ids to the checkpoints whose
/// verdict cites them (e.g. the failing `P2-02`).
pub(crate) fn draw_case(case: &CaseReport) -> DagDrawing {
    let flags = cited_by_failures(case);
    draw(&case.steps, &case.dag.edges, case.dag.status, &flags)
}

/// Span id → the ids of FAIL/PARTIAL checkpoints citing it.
fn cited_by_failures(case: &CaseReport) -> BTreeMap<String, Vec<String>> {
    let mut flags: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for cp in &case.checkpoints {
        if matches!(cp.result, CheckpointState::Fail | CheckpointState::Partial) {
            for span in &cp.cited_spans {
                flags.entry(span.clone()).or_default().push(cp.id.clone());
            }
        }
    }
    flags
}

pub(crate) fn draw(
    steps: &[StepResult],
    edges: &[StepEdge],
    status: DagStatus,
    flags: &BTreeMap<String, Vec<String>>,
) -> DagDrawing {
    let index: BTreeMap<&str, usize> = steps
        .iter()
        .enumerate()
        .map(|(i, s)| (s.id.as_str(), i))
        .collect();
    let pairs: Vec<(usize, usize)> = edges
        .iter()
        .filter_map(|e| Some((*index.get(e.from().as_str())?, *index.get(e.to().as_str())?)))
        .collect();
    let lay = layout(&LayoutInput {
        widths: vec![NODE_W; steps.len()],
        node_height: NODE_H,
        edges: pairs.clone(),
        gap_x: 36.0,
        gap_y: 20.0,
        dummy_width: 14.0,
    });

    let agent_names: Vec<Option<&str>> = {
        let mut seen: Vec<Option<&str>> = Vec::new();
        for s in steps {
            if !seen.contains(&s.agent.as_deref()) {
                seen.push(s.agent.as_deref());
            }
        }
        seen
    };
    let multi_agent = agent_names.len() > 1;
    let color_of = |agent: Option<&str>| -> Option<String> {
        if !multi_agent {
            return None;
        }
        let i = agent_names.iter().position(|a| *a == agent).unwrap_or(0);
        Some(AGENT_COLORS[i % AGENT_COLORS.len()].to_owned())
    };
    let agents = if multi_agent {
        agent_names
            .iter()
            .map(|a| AgentKey {
                name: a.unwrap_or("(top level)").to_owned(),
                color: color_of(*a).unwrap_or_default(),
            })
            .collect()
    } else {
        Vec::new()
    };

    let any_notes = steps.iter().any(|s| {
        s.root_cause
            || s.propagated_from().is_some()
            || s.compensated()
            || s.span_id
                .as_ref()
                .is_some_and(|id| flags.contains_key(id.as_str()))
    });
    // One model call yields several steps with the same span id: flag the first only.
    let mut flagged: BTreeSet<&str> = BTreeSet::new();
    let nodes: Vec<NodeShape> = steps
        .iter()
        .zip(&lay.centers)
        .map(|(s, c)| {
            let first = s.span_id.as_deref().is_some_and(|id| flagged.insert(id));
            let none = BTreeMap::new();
            node(
                s,
                *c,
                if first { flags } else { &none },
                color_of(s.agent.as_deref()),
            )
        })
        .collect();
    let failing: BTreeSet<usize> = steps
        .iter()
        .enumerate()
        .filter(|(_, s)| s.failed && !s.compensated())
        .map(|(i, _)| i)
        .collect();
    let edges: Vec<EdgeShape> = lay
        .routes
        .iter()
        .map(|(i, pts)| {
            let (a, b) = pairs[*i];
            let (sa, sb) = (&steps[a], &steps[b]);
            let kind = if sa.compensated() && sa.attempt().is_some() && sb.attempt().is_some() {
                "retry"
            } else if failing.contains(&a) && failing.contains(&b) {
                "failure"
            } else if sa.agent != sb.agent {
                "agent"
            } else {
                "flow"
            };
            EdgeShape {
                from: sa.id.to_string(),
                to: sb.id.to_string(),
                d: path(pts),
                kind: kind.to_owned(),
            }
        })
        .collect();
    // Shift everything by the padding.
    let mut drawing = DagDrawing {
        width: round1(lay.width + 2.0 * PAD + if any_notes { NOTE_W } else { 0.0 }),
        height: round1(lay.height + 2.0 * PAD),
        nodes,
        edges,
        agents,
        status,
    };
    for n in &mut drawing.nodes {
        n.x = round1(n.x + PAD);
        n.y = round1(n.y + PAD);
        n.tx = round1(n.x + 11.0);
        n.sx = round1(n.x + n.w - 8.0);
        n.hy = round1(n.y + 15.0);
        n.ny = round1(n.y + 32.0);
        for (i, note) in n.notes.iter_mut().enumerate() {
            note.x = round1(n.x + n.w + 8.0);
            note.y = round1(n.y + 15.0 + 14.0 * i as f64);
        }
    }
    for e in &mut drawing.edges {
        e.d = shift_path(&e.d, PAD);
    }
    drawing
}

fn node(
    s: &StepResult,
    c: Point,
    flags: &BTreeMap<String, Vec<String>>,
    agent_color: Option<String>,
) -> NodeShape {
    let state = if s.root_cause {
        "root"
    } else if s.propagated_from().is_some() {
        "propagated"
    } else if s.failed {
        "failed"
    } else if s.score.is_none() {
        "unscored"
    } else {
        "ok"
    };
    let mut header = format!("{} · {}", s.id, s.step_type);
    if let Some(a) = s.attempt() {
        header.push_str(&format!(" · try {}/{}", a.number, a.of));
    }
    let mut notes = Vec::new();
    if s.root_cause {
        let what = s
            .taxonomy()
            .map_or_else(String::new, |t| format!(": {}", t.l3));
        notes.push(NodeNote {
            x: 0.0,
            y: 0.0,
            text: clip(&format!("◀ root cause{what}"), NOTE_CHARS),
            tone: "root".into(),
        });
    } else if let Some(root) = s.propagated_from() {
        notes.push(NodeNote {
            x: 0.0,
            y: 0.0,
            text: clip(&format!("◀ propagated from {root}"), NOTE_CHARS),
            tone: "propagated".into(),
        });
    }
    if let Some(ids) = s.span_id.as_ref().and_then(|id| flags.get(id.as_str())) {
        notes.push(NodeNote {
            x: 0.0,
            y: 0.0,
            text: clip(&format!("⚑ cited by {}", ids.join(", ")), NOTE_CHARS),
            tone: "flag".into(),
        });
    }
    if s.compensated() {
        notes.push(NodeNote {
            x: 0.0,
            y: 0.0,
            text: "↻ failed attempt, retried".into(),
            tone: "info".into(),
        });
    }
    let mut title = format!("{} {} {}", s.id, s.step_type, s.name);
    if let Some(a) = &s.agent {
        title.push_str(&format!("\nagent: {a}"));
    }
    title.push_str(&format!("\nscore: {} ({})", score(s.score), s.scored_by));
    if let Some(t) = s.taxonomy() {
        title.push_str(&format!("\nfailure: {} / {} / {}", t.l1, t.l2, t.l3));
    }
    if let Some(w) = s.workflow_step() {
        title.push_str(&format!("\nworkflow step: {w}"));
    }
    if !s.notes.is_empty() {
        title.push_str(&format!("\n{}", s.notes));
    }
    NodeShape {
        id: s.id.to_string(),
        x: round1(c.x - NODE_W / 2.0),
        y: round1(c.y - NODE_H / 2.0),
        w: NODE_W,
        h: NODE_H,
        tx: 0.0,
        sx: 0.0,
        hy: 0.0,
        ny: 0.0,
        kind: s.step_type.as_str().to_ascii_lowercase(),
        state: state.into(),
        header: clip(&header, 34),
        name: clip(&s.name, NAME_CHARS),
        score: score(s.score),
        compensated: s.compensated(),
        agent_color,
        notes,
        title,
    }
}

fn score(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite())
        .map_or_else(|| "N/A".to_owned(), |v| format!("{v:.1}"))
}

/// At most `max` characters, with an ellipsis when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if one_line.chars().count() <= max {
        one_line
    } else {
        let mut s: String = one_line.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// A smooth path through the route: vertical cubic curves between points.
fn path(pts: &[Point]) -> String {
    let Some(first) = pts.first() else {
        return String::new();
    };
    let mut d = format!("M{} {}", round1(first.x), round1(first.y));
    for w in pts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let dy = (b.y - a.y) / 2.0;
        d.push_str(&format!(
            " C{} {} {} {} {} {}",
            round1(a.x),
            round1(a.y + dy),
            round1(b.x),
            round1(b.y - dy),
            round1(b.x),
            round1(b.y)
        ));
    }
    d
}

/// Add `by` to every number of a path made by [`path`].
fn shift_path(d: &str, by: f64) -> String {
    d.split(' ')
        .map(|tok| {
            let (cmd, num) = tok
                .strip_prefix('M')
                .map(|n| ("M", n))
                .or_else(|| tok.strip_prefix('C').map(|n| ("C", n)))
                .unwrap_or(("", tok));
            num.parse::<f64>()
                .map_or_else(|_| tok.to_owned(), |v| format!("{cmd}{}", round1(v + by)))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::run::StepAttempt;
    use crate::spec::model::StepType;

    fn step(id: &str, t: StepType) -> StepResult {
        StepResult {
            id: id.into(),
            step_type: t,
            name: compact_str::format_compact!("{id} name"),
            span_id: Some(compact_str::format_compact!("span-{id}")),
            score: Some(5.0),
            scored_by: "rules".into(),
            failed: false,
            root_cause: false,
            notes: "".into(),
            metrics: crate::model::StepMetrics::default(),
            agent: None,
            extra: None,
        }
    }

    fn e(a: &str, b: &str) -> StepEdge {
        StepEdge::new(a, b)
    }

    #[test]
    fn one_shape_per_step_and_per_known_edge() {
        let steps = vec![
            step("s1", StepType::Plan),
            step("s2", StepType::ToolSel),
            step("s3", StepType::Synth),
        ];
        let edges = vec![e("s1", "s2"), e("s2", "s3"), e("s1", "nope")];
        let d = draw(&steps, &edges, DagStatus::Dag, &BTreeMap::new());
        assert_eq!(d.nodes.len(), 3);
        assert_eq!(d.edges.len(), 2, "the edge to an unknown step is not drawn");
        assert_eq!(d.nodes[0].kind, "plan");
        assert!(d.nodes.iter().all(|n| n.x >= PAD && n.y >= PAD));
        assert!(d.edges[0].d.starts_with('M'));
    }

    #[test]
    fn failures_retries_agents_and_citations_are_marked() {
        let mut a = step("s1", StepType::Exec);
        a.edit_extra(|x| x.compensated = true);
        a.failed = true;
        a.edit_extra(|x| x.attempt = Some(StepAttempt { number: 1, of: 2 }));
        let mut b = step("s2", StepType::Exec);
        b.edit_extra(|x| x.attempt = Some(StepAttempt { number: 2, of: 2 }));
        b.root_cause = true;
        b.failed = true;
        let mut c = step("s3", StepType::Synth);
        c.edit_extra(|x| x.propagated_from = Some("s2".into()));
        c.failed = true;
        c.agent = Some("writer".into());
        let flags = BTreeMap::from([("span-s2".to_owned(), vec!["P2-02".to_owned()])]);
        let d = draw(
            &[a, b, c],
            &[e("s1", "s2"), e("s2", "s3")],
            DagStatus::Unrolled,
            &flags,
        );
        assert_eq!(d.nodes[1].state, "root");
        assert_eq!(d.nodes[2].state, "propagated");
        assert!(d.nodes[0].compensated);
        assert!(d.nodes[0].header.contains("try 1/2"));
        assert_eq!(d.edges[0].kind, "retry");
        assert_eq!(d.edges[1].kind, "failure");
        assert!(d.nodes[1].notes.iter().any(|n| n.text.contains("P2-02")));
        assert_eq!(d.agents.len(), 2, "top level and `writer`");
        assert_ne!(d.nodes[2].agent_color, d.nodes[0].agent_color);
    }

    #[test]
    fn a_cited_model_call_is_flagged_once() {
        let a = step("s1", StepType::Plan);
        let mut b = step("s2", StepType::ToolSel);
        b.span_id.clone_from(&a.span_id);
        let flags = BTreeMap::from([("span-s1".to_owned(), vec!["P2-04".to_owned()])]);
        let d = draw(&[a, b], &[e("s1", "s2")], DagStatus::Dag, &flags);
        assert_eq!(d.nodes[0].notes.len(), 1);
        assert!(d.nodes[1].notes.is_empty());
    }

    #[test]
    fn labels_are_clipped_to_one_line() {
        assert_eq!(clip("a\nb", 10), "a b");
        assert_eq!(clip("abcdef", 4), "abc…");
    }
}
