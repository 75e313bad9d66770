//! Property tests: built DAGs are acyclic with forward edges; every
//! propagated step points to a failing ancestor that is a root cause; Q lies
//! between the smallest and the largest step score.

use agenteval_gate::dag::{
    Attribution, Dag, Edge, EdgeKind, NodeVerdict, attribute_root_causes, build_dag,
    workflow_quality,
};
use agenteval_gate::eval::{RulesScorer, StepContext, StepSettings, ToolCatalog, evaluate_steps};
use agenteval_gate::model::DagStatus;
use agenteval_gate::spec::{RootCauseMode, StepType};
use agenteval_gate::trace::{SpanKind, TraceFormat};
use proptest::prelude::*;
use serde_json::json;

use super::support::{TraceBuilder, nodes, tools};

/// One event of a random trace.
#[derive(Debug, Clone)]
enum Event {
    User,
    /// Agent index, text kind, calls as (call-id index, tool index, args index).
    Llm(u8, u8, Vec<(u8, u8, u8)>),
    /// Call-id index (0 = none), tool index, args index, outcome (0 ok, 1 error status, 2 error text).
    Tool(u8, u8, u8, u8),
    /// An agent span, nesting the following spans when `nest` is set.
    Agent(u8),
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        1 => Just(Event::User),
        4 => (0..3u8, 0..3u8, prop::collection::vec((0..4u8, 0..3u8, 0..2u8), 0..3)).prop_map(|(a, t, c)| Event::Llm(a, t, c)),
        4 => (0..4u8, 0..3u8, 0..2u8, 0..3u8).prop_map(|(i, t, a, o)| Event::Tool(i, t, a, o)),
        1 => (0..3u8).prop_map(Event::Agent),
    ]
}

const TOOLS: [&str; 3] = ["lookup", "book", "final_answer"];
const TEXTS: [&str; 3] = ["", "Plan: 1. look 2. book", "Done, booked."];

fn trace(events: &[Event], format: TraceFormat, nested: bool) -> agenteval_gate::trace::Trace {
    let mut t = TraceBuilder::new(format);
    let mut current_agent_span: Option<String> = None;
    for (i, e) in events.iter().enumerate() {
        let parent = current_agent_span.clone();
        let span = match e {
            Event::User => t.user("hi"),
            Event::Llm(agent, text, calls) => {
                let calls: Vec<(String, &str, serde_json::Value)> = calls
                    .iter()
                    .map(|(id, tool, args)| {
                        (format!("c{id}"), TOOLS[*tool as usize], json!({"id": args}))
                    })
                    .collect();
                let borrowed: Vec<(&str, &str, serde_json::Value)> = calls
                    .iter()
                    .map(|(a, b, c)| (a.as_str(), *b, c.clone()))
                    .collect();
                let s = t.llm(TEXTS[*text as usize], &borrowed);
                if format == TraceFormat::MultiAgentChat {
                    s.agent = Some(format!("agent{agent}").into());
                }
                s
            }
            Event::Tool(id, tool, args, outcome) => {
                let id = if *id == 0 {
                    String::new()
                } else {
                    format!("c{id}")
                };
                let args = Some(json!({"id": args}));
                match outcome {
                    0 => t.tool(&id, TOOLS[*tool as usize], args, json!("ok")),
                    1 => t.tool_error(&id, TOOLS[*tool as usize], args, "boom"),
                    _ => t.tool(&id, TOOLS[*tool as usize], args, json!("Error: nope")),
                }
            }
            Event::Agent(a) => {
                let s = t.span(SpanKind::Agent, "invoke_agent");
                s.agent = Some(format!("agent{a}").into());
                if nested {
                    current_agent_span = Some(format!("m{i}"));
                }
                s
            }
        };
        if span.parent.is_none() && span.id != parent.clone().unwrap_or_default() {
            span.parent = parent.as_deref().map(Into::into);
        }
    }
    t.build()
}

fn formats() -> impl Strategy<Value = TraceFormat> {
    prop_oneof![
        Just(TraceFormat::ChatMessages),
        Just(TraceFormat::MultiAgentChat),
        Just(TraceFormat::OtelSdk)
    ]
}

/// A random DAG with forward edges, random scores and compensation flags.
fn scored_dag() -> impl Strategy<Value = (Dag, Vec<Option<f64>>)> {
    (2..24usize).prop_flat_map(|n| {
        (
            prop::collection::vec((0..n, 0..n), 0..n * 2),
            prop::collection::vec(
                prop::option::weighted(0.8, (2..=10u8).prop_map(|h| f64::from(h) / 2.0)),
                n,
            ),
            prop::collection::vec(prop::bool::weighted(0.15), n),
            prop::collection::vec(0..5usize, n),
        )
            .prop_map(move |(pairs, scores, compensated, types)| {
                let types: Vec<StepType> = types.iter().map(|&t| StepType::ALL[t]).collect();
                let mut ns = nodes(&types);
                for (node, c) in ns.iter_mut().zip(&compensated) {
                    node.compensated = *c;
                }
                let edges = pairs
                    .into_iter()
                    .filter(|(a, b)| a < b)
                    .map(|(a, b)| Edge::new(a, b, EdgeKind::Flow))
                    .collect();
                (
                    Dag::new(DagStatus::Dag, ns, edges, Vec::new()).unwrap(),
                    scores,
                )
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn built_dags_are_acyclic_with_forward_edges_and_stable_ids(
        events in prop::collection::vec(event(), 0..40),
        format in formats(),
        nested in any::<bool>(),
    ) {
        let trace = trace(&events, format, nested);
        let dag = build_dag(&trace);
        prop_assert_eq!(dag.topological_order().len(), dag.len());
        for e in &dag.edges {
            prop_assert!(e.from() < e.to(), "edge {:?} points backward", e);
        }
        for (i, n) in dag.nodes.iter().enumerate() {
            prop_assert_eq!(&n.id, &format!("s{}", i + 1));
            if n.compensated {
                prop_assert_eq!(n.step_type, StepType::Exec);
                prop_assert!(n.attempt.is_some_and(|a| a.number < a.of));
            }
        }
        if dag.status == DagStatus::FlatFallback {
            prop_assert!(dag.edges.is_empty());
            prop_assert!(!dag.notes.is_empty());
        }
        prop_assert!(dag.nodes.iter().filter(|n| n.final_answer).count() <= 1);
        // Same input, same DAG.
        prop_assert_eq!(build_dag(&trace), dag);
    }

    #[test]
    fn propagated_steps_point_to_failing_ancestor_root_causes((dag, scores) in scored_dag()) {
        let verdicts: Vec<NodeVerdict> =
            dag.nodes.iter().zip(&scores).map(|(n, s)| NodeVerdict::new(*s, n.step_type.default_threshold())).collect();
        for mode in [RootCauseMode::Greedy, RootCauseMode::FullPath, RootCauseMode::Weighted] {
            let a = attribute_root_causes(&dag, &verdicts, mode);
            for (v, at) in a.iter().enumerate() {
                match *at {
                    Attribution::Pass => prop_assert!(!verdicts[v].failed),
                    Attribution::RootCause => prop_assert!(verdicts[v].failed),
                    Attribution::Propagated { root } => {
                        prop_assert!(verdicts[v].failed);
                        prop_assert!(verdicts[root].failed);
                        prop_assert_eq!(a[root], Attribution::RootCause);
                        prop_assert!(dag.is_ancestor(root, v), "{:?}: s{} is not an ancestor of s{}", mode, root + 1, v + 1);
                        prop_assert!(!dag.nodes[root].compensated);
                    }
                }
            }
        }
    }

    #[test]
    fn q_lies_between_the_smallest_and_largest_step_score((dag, scores) in scored_dag()) {
        let scored: Vec<f64> = scores.iter().flatten().copied().collect();
        match workflow_quality(&dag, scores.iter().copied()) {
            None => prop_assert!(scored.is_empty()),
            Some(q) => {
                let lo = scored.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = scored.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                prop_assert!(q >= lo - 1e-9 && q <= hi + 1e-9, "Q {} outside [{}, {}]", q, lo, hi);
            }
        }
    }

    #[test]
    fn evaluated_reports_are_consistent(events in prop::collection::vec(event(), 0..40), format in formats()) {
        let catalog = ToolCatalog::new(&tools("- {name: lookup, schema: {type: object, properties: {id: {type: integer}}}}\n- {name: book}\n")).unwrap();
        let settings = StepSettings::default();
        let eval = evaluate_steps(&trace(&events, format, true), &StepContext::new(&catalog, &settings, &RulesScorer));
        prop_assert_eq!(eval.steps().len(), eval.dag_info().nodes);
        for s in &eval.steps() {
            prop_assert_eq!(s.failed, s.root_cause || s.propagated_from().is_some());
            prop_assert!(!(s.root_cause && s.propagated_from().is_some()));
            if let Some(root) = s.propagated_from() {
                let r = eval.steps().into_iter().find(|x| x.id == *root).unwrap();
                prop_assert!(r.root_cause && r.failed);
            }
            prop_assert_eq!(s.score.is_none(), s.scored_by == "none");
            prop_assert_eq!(s.taxonomy().is_some(), s.failed);
        }
    }
}
