//! One real (or realistic) file of every trace format, read by the trace
//! adapters and built into a DAG: node types and edges are asserted.

use agenteval_gate::dag::{Dag, build_dag};
use agenteval_gate::model::DagStatus;
use agenteval_gate::spec::model::StepType::{self, Exec, ParamGen, Plan, Synth, ToolSel};
use agenteval_gate::trace::TraceFormat;
use agenteval_gate::trace::read_traces;
use pretty_assertions::assert_eq;

use super::support::edges;

fn dags(rel: &str, format: TraceFormat) -> Vec<Dag> {
    let traces = read_traces(&crate::common::fixture(&format!("traces/{rel}"))).unwrap();
    assert!(traces.iter().all(|t| t.format == format), "{rel}");
    traces.iter().map(build_dag).collect()
}

fn types(dag: &Dag) -> Vec<StepType> {
    dag.nodes.iter().map(|n| n.step_type).collect()
}

/// Model call → tool → model call → tool → answer, the shape of most agent SDK traces.
const TWO_TOOLS_THEN_ANSWER: [StepType; 7] =
    [ToolSel, ParamGen, Exec, ToolSel, ParamGen, Exec, Synth];
const TWO_TOOLS_EDGES: [&str; 8] = [
    "s1>s2", "s1>s4", "s2>s3", "s3>s4", "s4>s5", "s4>s7", "s5>s6", "s6>s7",
];

#[test]
fn otlp_genai_batches() {
    let [dag] = dags("synthetic/otlp_genai_batches.jsonl", TraceFormat::Otlp)
        .try_into()
        .unwrap();
    assert_eq!(dag.status, DagStatus::Dag);
    assert_eq!(types(&dag), TWO_TOOLS_THEN_ANSWER);
    assert_eq!(edges(&dag), TWO_TOOLS_EDGES);
    assert_eq!(dag.nodes[2].call_id.as_deref(), Some("call_1"));
    assert_eq!(dag.nodes[5].call_id.as_deref(), Some("call_2"));
    assert!(dag.nodes[6].final_answer);
    assert_eq!(dag.nodes[0].agent.as_deref(), Some("support-agent"));
}

#[test]
fn otel_sdk_any_agent_with_and_without_a_final_answer_tool() {
    let [openai] = dags(
        "otel-genai-any-agent/OPENAI_trace.json",
        TraceFormat::OtelSdk,
    )
    .try_into()
    .unwrap();
    assert_eq!(types(&openai), TWO_TOOLS_THEN_ANSWER);
    assert_eq!(edges(&openai), TWO_TOOLS_EDGES);
    assert_eq!(openai.nodes[3].tool(), Some("write_file"));

    // smolagents answers through `final_answer`: a SYNTH, and its execution adds no EXEC.
    let [smol] = dags(
        "otel-genai-any-agent/SMOLAGENTS_trace.json",
        TraceFormat::OtelSdk,
    )
    .try_into()
    .unwrap();
    assert_eq!(types(&smol), TWO_TOOLS_THEN_ANSWER);
    assert_eq!(edges(&smol), TWO_TOOLS_EDGES);
    assert_eq!(smol.nodes[6].name, "final_answer");
    assert!(smol.nodes[6].final_answer);
}

#[test]
fn openinference_nested_smolagents() {
    let [dag] = dags(
        "synthetic/smolagents_nested_openinference.json",
        TraceFormat::OpenInference,
    )
    .try_into()
    .unwrap();
    assert_eq!(types(&dag), TWO_TOOLS_THEN_ANSWER);
    assert_eq!(edges(&dag), TWO_TOOLS_EDGES);
    assert_eq!(dag.nodes[1].call_id.as_deref(), Some("call_7Qd1"));
    assert_eq!(dag.nodes[6].name, "final_answer");
    assert!(
        dag.nodes
            .iter()
            .all(|n| n.agent.as_deref() == Some("research_agent"))
    );
}

#[test]
fn attribute_map_single_model_call() {
    let [dag] = dags(
        "openinference/openinference_client_span_tool_calls.json",
        TraceFormat::AttributeMap,
    )
    .try_into()
    .unwrap();
    assert_eq!(types(&dag), [Synth]);
    assert!(dag.edges.is_empty() && dag.nodes[0].final_answer);
}

#[test]
fn telemetry_jsonl_with_a_sub_agent() {
    let [dag] = dags(
        "synthetic/workflow_telemetry_subagent.jsonl",
        TraceFormat::TelemetryJsonl,
    )
    .try_into()
    .unwrap();
    assert_eq!(types(&dag), [ParamGen, Exec].repeat(7));
    assert!(
        dag.nodes
            .iter()
            .filter(|n| n.step_type == ParamGen)
            .all(|n| n.synthetic)
    );
    let agents: Vec<&str> = dag
        .nodes
        .iter()
        .skip(1)
        .step_by(2)
        .map(|n| n.agent.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(
        agents,
        [
            "main",
            "main",
            "main",
            "test-runner",
            "test-runner",
            "main",
            "main"
        ]
    );
    // The `Task` EXEC (s6) hands off to the sub-agent (s7); the sub-agent's last
    // step (s10) feeds the caller's next step (s11) once.
    assert_eq!(
        edges(&dag),
        [
            "s1>s2", "s2>s3", "s3>s4", "s4>s5", "s5>s6", "s6>s7", "s6>s11", "s7>s8", "s8>s9",
            "s9>s10", "s10>s11", "s11>s12", "s12>s13", "s13>s14"
        ]
    );
}

#[test]
fn chat_messages_tau_bench_episode() {
    let all = dags(
        "tau-bench/gpt-4o-airline.subset.json",
        TraceFormat::ChatMessages,
    );
    let dag = &all[0];
    assert_eq!(
        types(dag)[..12],
        [
            Synth, Synth, ToolSel, ParamGen, Exec, ToolSel, ParamGen, Exec, Synth, ToolSel,
            ParamGen, Exec
        ]
    );
    assert_eq!(dag.len(), 31);
    assert_eq!(
        edges(dag)[..12],
        [
            "s1>s2", "s2>s3", "s3>s4", "s3>s6", "s4>s5", "s5>s6", "s6>s7", "s6>s9", "s7>s8",
            "s8>s9", "s9>s10", "s10>s11"
        ]
    );
    // The reused id `call_HGn16…` (m8 and m12) is matched to each request in turn.
    assert_eq!(dag.nodes[7].tool(), Some("search_direct_flight"));
    assert_eq!(dag.nodes[11].tool(), Some("search_onestop_flight"));
    assert!(dag.nodes[30].final_answer);
}

#[test]
fn swe_agent_trajectory() {
    let [dag] = dags(
        "swe-agent/marshmallow-code__marshmallow-1867.function_calling_replace.traj",
        TraceFormat::SweAgent,
    )
    .try_into()
    .unwrap();
    assert_eq!(types(&dag), [ToolSel, ParamGen, Exec].repeat(11));
    // Each step: TOOLSEL → PARAMGEN → EXEC → next TOOLSEL, and TOOLSEL → next TOOLSEL.
    let mut expected = Vec::new();
    for k in 0..11 {
        let t = 3 * k + 1;
        expected.push((t, t + 1));
        if k < 10 {
            expected.push((t, t + 3));
        }
        expected.push((t + 1, t + 2));
        if k < 10 {
            expected.push((t + 2, t + 3));
        }
    }
    let expected: Vec<String> = expected
        .into_iter()
        .map(|(a, b)| format!("s{a}>s{b}"))
        .collect();
    assert_eq!(edges(&dag), expected);
    assert_eq!(dag.nodes[32].tool(), Some("submit"));
}

#[test]
fn multi_agent_chat_who_and_when() {
    let [dag] = dags(
        "who-and-when/algorithm-generated_103.json",
        TraceFormat::MultiAgentChat,
    )
    .try_into()
    .unwrap();
    assert_eq!(
        dag.status,
        DagStatus::Dag,
        "terminal runs without recorded arguments are not retries"
    );
    assert_eq!(
        types(&dag),
        [
            Synth, Plan, ParamGen, Exec, Plan, ParamGen, Exec, Synth, ParamGen, Exec, Synth,
            ParamGen, Exec, Synth
        ]
    );
    // Each terminal run's PARAMGEN is the code of the turn before it
    // (`requested_by`), so it hangs from that turn's step only: the
    // terminal's previous run reaches it through the sender, not directly.
    assert_eq!(
        edges(&dag),
        [
            "s1>s2", "s1>s11", "s2>s3", "s3>s4", "s4>s5", "s5>s6", "s5>s8", "s6>s7", "s7>s8",
            "s8>s9", "s8>s14", "s9>s10", "s10>s11", "s11>s12", "s12>s13", "s13>s14"
        ]
    );
    // The failed run (m4) ran the code of m3: its PARAMGEN is m3's, by the agent who wrote it.
    let (pg, exec) = (&dag.nodes[5], &dag.nodes[6]);
    assert_eq!(
        (pg.span_id.as_deref(), pg.agent.as_deref()),
        (Some("m3"), Some("DataVerification_Expert"))
    );
    assert_eq!(
        (exec.span_id.as_deref(), exec.agent.as_deref()),
        (Some("m4"), Some("Computer_terminal"))
    );
    assert!(
        pg.arguments
            .as_ref()
            .and_then(|a| a.value()["code"].as_str().map(str::to_owned))
            .is_some_and(|c| c.contains("perform_web_search")),
        "{:?}",
        pg.arguments
    );
    assert_eq!(
        dag.nodes[13].agent.as_deref(),
        Some("DataVerification_Expert")
    );
    assert!(dag.nodes[13].final_answer);
}
