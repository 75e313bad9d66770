//! DAG construction on hand-made traces whose DAG is known.

use agenteval_gate::dag::{EdgeKind, build_dag};
use agenteval_gate::model::DagStatus;
use agenteval_gate::spec::model::StepType::{Exec, ParamGen, Plan, Synth, ToolSel};
use agenteval_gate::trace::{Message, SpanKind, TraceFormat};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::{TraceBuilder, edges, shape};

fn s(t: agenteval_gate::spec::StepType, name: &str) -> (agenteval_gate::spec::StepType, String) {
    (t, name.to_owned())
}

#[test]
fn chat_trajectory_with_parallel_calls_branches_and_merges() {
    let mut t = TraceBuilder::chat();
    t.user("book a flight");
    t.llm("I'll need your user ID.", &[]);
    t.user("mia");
    t.llm("", &[("c1", "get_user", json!({"user_id": "mia"}))]);
    t.tool("c1", "get_user", None, json!("{\"name\": \"Mia\"}"));
    t.llm(
        "",
        &[
            ("c2", "search", json!({"from": "JFK"})),
            ("c3", "search", json!({"from": "EWR"})),
        ],
    );
    t.tool("c3", "search", None, json!("[]")); // executed out of order
    t.tool("c2", "search", None, json!("[1]"));
    t.llm("Flight HAT1 is booked.", &[]);
    t.user("thanks");
    let dag = build_dag(&t.build());

    assert_eq!(dag.status, DagStatus::Dag);
    assert_eq!(
        shape(&dag),
        [
            s(Synth, "assistant"),
            s(ToolSel, "get_user"),
            s(ParamGen, "get_user"),
            s(Exec, "get_user"),
            s(ToolSel, "search, search"),
            s(ParamGen, "search"),
            s(ParamGen, "search"),
            s(Exec, "search"),
            s(Exec, "search"),
            s(Synth, "assistant"),
        ]
    );
    assert_eq!(
        edges(&dag),
        [
            "s1>s2", "s2>s3", "s2>s5", "s3>s4", "s4>s5", "s5>s6", "s5>s7", "s5>s10", "s6>s9",
            "s7>s8", "s8>s10", "s9>s10"
        ]
    );
    // The EXEC of c3 ran first and hangs off c3's PARAMGEN (s7), not the first one.
    assert_eq!(dag.nodes[7].call_id.as_deref(), Some("c3"));
    assert_eq!(
        dag.nodes[7]
            .arguments
            .as_ref()
            .map(|a| a.value().into_owned()),
        Some(json!({"from": "EWR"})),
        "arguments come from the request"
    );
    assert!(dag.nodes[9].final_answer && !dag.nodes[0].final_answer);
    let kinds: Vec<EdgeKind> = dag.edges.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds[4],
        EdgeKind::Result,
        "s4>s5: the lookup result feeds the next model call"
    );
}

#[test]
fn reused_call_ids_match_the_open_call() {
    let mut t = TraceBuilder::chat();
    t.llm("", &[("X", "a", json!({}))]);
    t.tool("X", "a", None, json!("1"));
    t.llm("", &[("X", "b", json!({}))]);
    t.tool("X", "b", None, json!("2"));
    let dag = build_dag(&t.build());
    assert_eq!(
        edges(&dag),
        ["s1>s2", "s1>s4", "s2>s3", "s3>s4", "s4>s5", "s5>s6"]
    );
    assert_eq!(dag.nodes[5].tool(), Some("b"));
}

#[test]
fn input_messages_decide_which_results_a_model_call_read() {
    let mut t = TraceBuilder::new(TraceFormat::Otlp);
    t.llm("", &[("a1", "x", json!({})), ("a2", "y", json!({}))]);
    t.tool("a1", "x", None, json!("rx"));
    t.tool("a2", "y", None, json!("ry"));
    let read_a1 = Message {
        role: "tool".into(),
        tool_call_id: Some("a1".into()),
        ..Message::default()
    };
    t.llm("", &[("a3", "z", json!({}))])
        .input_messages
        .push(read_a1);
    t.tool("a3", "z", None, json!("rz"));
    let done = t.llm("done", &[]);
    for id in ["a2", "a3"] {
        done.input_messages.push(Message {
            role: "tool".into(),
            tool_call_id: Some(id.into()),
            ..Message::default()
        });
    }
    let dag = build_dag(&t.build());
    assert_eq!(
        edges(&dag),
        [
            "s1>s2", "s1>s3", "s1>s6", "s2>s4", "s3>s5", "s4>s6", "s5>s9", "s6>s7", "s6>s9",
            "s7>s8", "s8>s9"
        ]
    );
}

#[test]
fn sub_agent_gets_the_callers_input_and_feeds_its_next_step() {
    let mut t = TraceBuilder::new(TraceFormat::OtelSdk);
    let clock = |s: &mut agenteval_gate::trace::Span, at: u64| s.start = Some(at);
    let root = t.span(SpanKind::Agent, "invoke_agent main");
    root.agent = Some("main".into());
    clock(root, 0);
    let l1 = t.llm("", &[("c1", "delegate", json!({"q": "find"}))]);
    l1.parent = Some("m0".into());
    clock(l1, 1);
    let t1 = t.tool("c1", "delegate", None, json!("found it"));
    t1.parent = Some("m0".into());
    clock(t1, 2);
    let sub = t.span(SpanKind::Agent, "invoke_agent helper");
    sub.agent = Some("helper".into());
    sub.parent = Some("m2".into());
    clock(sub, 3);
    let l2 = t.llm("", &[("c2", "search", json!({}))]);
    l2.parent = Some("m3".into());
    clock(l2, 4);
    let t2 = t.tool("c2", "search", None, json!("hit"));
    t2.parent = Some("m3".into());
    clock(t2, 5);
    let l3 = t.llm("found it", &[]);
    l3.parent = Some("m3".into());
    clock(l3, 6);
    let l4 = t.llm("the answer", &[]);
    l4.parent = Some("m0".into());
    clock(l4, 7);
    let dag = build_dag(&t.build());
    assert_eq!(
        shape(&dag).into_iter().map(|(t, _)| t).collect::<Vec<_>>(),
        [
            ToolSel, ParamGen, Exec, ToolSel, ParamGen, Exec, Synth, Synth
        ]
    );
    assert_eq!(
        edges(&dag),
        [
            "s1>s2", "s1>s8", "s2>s3", "s3>s4", "s3>s8", "s4>s5", "s4>s7", "s5>s6", "s6>s7",
            "s7>s8"
        ]
    );
    assert_eq!(dag.nodes[3].agent.as_deref(), Some("helper"));
    assert!(
        dag.nodes[7].final_answer,
        "the top-level agent's answer is final"
    );
    assert!(!dag.nodes[6].final_answer, "the sub-agent's answer is not");
}

#[test]
fn stated_plans_and_final_answer_tools_are_typed() {
    let mut t = TraceBuilder::new(TraceFormat::OtelSdk);
    t.llm(
        "Plan: 1. look up the id 2. answer",
        &[("c1", "lookup", json!({"id": 1}))],
    );
    t.tool("c1", "lookup", None, json!({"v": 42}));
    t.llm("", &[("c2", "final_answer", json!({"answer": "42"}))]);
    t.tool(
        "c2",
        "final_answer",
        Some(json!({"answer": "42"})),
        json!("42"),
    );
    let dag = build_dag(&t.build());
    assert_eq!(
        shape(&dag),
        [
            s(Plan, "assistant"),
            s(ToolSel, "lookup"),
            s(ParamGen, "lookup"),
            s(Exec, "lookup"),
            s(Synth, "final_answer")
        ]
    );
    assert_eq!(edges(&dag), ["s1>s2", "s2>s3", "s2>s5", "s3>s4", "s4>s5"]);
    assert!(dag.nodes[4].final_answer);
    assert_eq!(dag.nodes[4].output, Some(json!("42").into()));
}

#[test]
fn intermediate_reasoning_is_plan_typed_and_chains() {
    let mut t = TraceBuilder::new(TraceFormat::OtelSdk);
    t.llm("Thinking about which tool fits.", &[]);
    t.llm("", &[("c1", "lookup", json!({}))]);
    t.tool("c1", "lookup", None, json!("v"));
    t.llm("v", &[]);
    let dag = build_dag(&t.build());
    assert_eq!(
        shape(&dag).into_iter().map(|(t, _)| t).collect::<Vec<_>>(),
        [Plan, ToolSel, ParamGen, Exec, Synth]
    );
    assert_eq!(edges(&dag), ["s1>s2", "s2>s3", "s2>s5", "s3>s4", "s4>s5"]);
}

#[test]
fn tool_spans_without_model_calls_get_synthetic_paramgen() {
    let mut t = TraceBuilder::new(TraceFormat::TelemetryJsonl);
    t.tool("", "read_file", Some(json!({"path": "a"})), json!("x"));
    t.tool("", "write_file", Some(json!({"path": "b"})), json!("ok"));
    let dag = build_dag(&t.build());
    assert_eq!(
        shape(&dag).into_iter().map(|(t, _)| t).collect::<Vec<_>>(),
        [ParamGen, Exec, ParamGen, Exec]
    );
    assert!(dag.nodes[0].synthetic && dag.nodes[2].synthetic);
    assert_eq!(dag.nodes[2].arguments, Some(json!({"path": "b"}).into()));
    assert_eq!(edges(&dag), ["s1>s2", "s2>s3", "s3>s4"]);
}

#[test]
fn retries_with_the_same_arguments_unroll_and_compensate() {
    let mut t = TraceBuilder::chat();
    t.llm("", &[("c1", "pay", json!({"amount": 5}))]);
    t.tool_error("c1", "pay", None, "503 service unavailable");
    t.llm("", &[("c2", "pay", json!({"amount": 5}))]);
    t.tool("c2", "pay", None, json!("paid"));
    t.llm("Paid.", &[]);
    let dag = build_dag(&t.build());
    assert_eq!(dag.status, DagStatus::Unrolled);
    assert_eq!(
        dag.notes,
        ["retry of `pay` unrolled into 2 attempts: s3 s6"]
    );
    assert!(dag.nodes[2].compensated && !dag.nodes[5].compensated);
    assert!(edges(&dag).contains(&"s3>s6".to_owned()));
    assert_eq!(
        dag.edges
            .iter()
            .find(|e| e.from() == 2 && e.to() == 5)
            .map(|e| e.kind),
        Some(EdgeKind::Retry)
    );
}

#[test]
fn unbuildable_traces_fall_back_to_flat_with_a_reason() {
    let mut t = TraceBuilder::chat();
    for i in 0..6 {
        t.llm("", &[(&format!("c{i}"), "flaky", json!({"x": 1}))]);
        t.tool_error(&format!("c{i}"), "flaky", None, "boom");
    }
    let dag = build_dag(&t.build());
    assert_eq!(dag.status, DagStatus::FlatFallback);
    assert!(dag.edges.is_empty() && dag.len() == 18);
    assert!(dag.notes[0].contains("6 times"), "{:?}", dag.notes);
    assert!(dag.nodes.iter().all(|n| !n.compensated));

    let mut t = TraceBuilder::chat();
    t.llm("a", &[]).parent = Some("m1".into());
    t.llm("b", &[]).parent = Some("m0".into());
    let dag = build_dag(&t.build());
    assert_eq!((dag.status, dag.len()), (DagStatus::FlatFallback, 2));
    assert!(dag.notes[0].contains("cycle"), "{:?}", dag.notes);

    let mut t = TraceBuilder::chat();
    t.user("hello?");
    let dag = build_dag(&t.build());
    assert_eq!((dag.status, dag.len()), (DagStatus::FlatFallback, 0));
    assert!(dag.notes[0].contains("no model or tool spans"));
}

#[test]
fn multi_agent_chat_steps_read_the_shared_transcript() {
    let mut t = TraceBuilder::new(TraceFormat::MultiAgentChat);
    t.llm("Plan: ask the web surfer, then answer.", &[]).agent = Some("Orchestrator".into());
    t.llm("I found X.", &[]).agent = Some("WebSurfer".into());
    t.llm("The answer is X.", &[]).agent = Some("Orchestrator".into());
    let dag = build_dag(&t.build());
    assert_eq!(
        shape(&dag).into_iter().map(|(t, _)| t).collect::<Vec<_>>(),
        [Plan, Synth, Synth]
    );
    assert_eq!(edges(&dag), ["s1>s2", "s1>s3", "s2>s3"]);
    assert!(dag.nodes[2].final_answer);
}

#[test]
fn a_schema_plan_step_makes_the_first_call_plan() {
    use agenteval_gate::dag::{BuildOptions, build_dag_with};
    let mut t = TraceBuilder::chat();
    t.llm("", &[("c1", "lookup", json!({}))]);
    t.tool("c1", "lookup", None, json!("v"));
    t.llm("done", &[]);
    let trace = t.build();
    let mapped = build_dag_with(
        &trace,
        BuildOptions {
            first_call_plans: true,
        },
    );
    assert_eq!(
        shape(&mapped)
            .into_iter()
            .map(|(t, _)| t)
            .collect::<Vec<_>>(),
        [Plan, ToolSel, ParamGen, Exec, Synth]
    );
    assert_eq!(
        edges(&mapped),
        ["s1>s2", "s2>s3", "s2>s5", "s3>s4", "s4>s5"]
    );
    assert_eq!(shape(&build_dag(&trace))[0].0, ToolSel);

    // A lone tool-free answer stays an answer.
    let mut t = TraceBuilder::chat();
    t.llm("42", &[]);
    let lone = build_dag_with(
        &t.build(),
        BuildOptions {
            first_call_plans: true,
        },
    );
    assert_eq!(shape(&lone), [s(Synth, "assistant")]);
}

#[test]
fn requested_by_attributes_disambiguate_reused_ids() {
    let mut t = TraceBuilder::chat();
    t.llm("", &[("X", "a", json!({"n": 1}))]);
    t.llm("", &[("X", "a", json!({"n": 2}))]);
    t.tool("X", "a", None, json!("second"))
        .attributes
        .insert("requested_by".into(), json!("m1").into());
    t.tool("X", "a", None, json!("first"))
        .attributes
        .insert("requested_by".into(), json!("m0").into());
    let dag = build_dag(&t.build());
    // s1 TOOLSEL, s2 PARAMGEN (m0), s3 TOOLSEL, s4 PARAMGEN (m1), s5 EXEC, s6 EXEC
    assert!(
        edges(&dag).contains(&"s4>s5".to_owned()),
        "{:?}",
        edges(&dag)
    );
    assert!(
        edges(&dag).contains(&"s2>s6".to_owned()),
        "{:?}",
        edges(&dag)
    );
    assert_eq!(dag.nodes[4].arguments, Some(json!({"n": 2}).into()));

    // Without the attribute the oldest open call with the id wins.
    let mut t = TraceBuilder::chat();
    t.llm("", &[("X", "a", json!({"n": 1}))]);
    t.llm("", &[("X", "a", json!({"n": 2}))]);
    t.tool("X", "a", None, json!("second"));
    let dag = build_dag(&t.build());
    assert!(
        edges(&dag).contains(&"s2>s5".to_owned()),
        "{:?}",
        edges(&dag)
    );
}
