//! Traces recorded with real producer libraries (issue 22): a `LangGraph`
//! agent through the `OpenInference` `LangChain` instrumentation, written by
//! the Python SDK's `ConsoleSpanExporter` as it writes by default (see
//! `tests/fixtures/traces/langgraph-openinference/SOURCE.md`), and a
//! pydantic-ai agent through the OTLP JSON file exporter.

#![expect(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::collections::BTreeMap;

use serde_json::{Value, json};

use agenteval_gate::trace::{SpanKind, TraceFormat};

use super::{load_one, tool_names, trace_fixture};
use crate::common::{bin, case, outputs, run_report};

const LANGGRAPH: &str = "langgraph-openinference/console_weather.jsonl";
const PYDANTIC_AI: &str = "pydantic-ai/otlp_json_file_weather.jsonl";

/// The weather agent's checkpoints, as a user would write them: the
/// argument, result and capture checkpoints a correct run passes, and one
/// wrong expectation (W-05) that it must fail.
const WEATHER_CHECKPOINTS: &str = r"tools:
  - name: find_city
    schema: {type: object, required: [query], properties: {query: {type: string}}}
  - name: get_weather
    schema: {type: object, required: [city], properties: {city: {type: string}}}
checkpoints:
  - id: W-01
    tier: 2
    instruction: The weather is looked up for Paris
    severity: high
    evidence_sources: [trace]
    sequence: {eventually: {tool: get_weather, args_contains: {city: Paris}}}
  - id: W-02
    tier: 2
    instruction: The weather lookup returns a temperature
    severity: medium
    evidence_sources: [trace]
    sequence: {eventually: {tool: get_weather, status: ok, result_contains: {temp_c: 18}}}
  - id: W-03
    tier: 2
    instruction: The weather is looked up for the city that was found
    severity: high
    evidence_sources: [trace]
    sequence:
      before: {tool: find_city, capture: {city: /result/city}}
      then: {tool: get_weather, capture: {city: /args/city}}
  - id: W-04
    tier: 2
    instruction: Rome is never looked up
    severity: low
    evidence_sources: [trace]
    sequence: {never: {tool: get_weather, args_contains: {city: Rome}}}
  - id: W-05
    tier: 2
    instruction: (a wrong expectation, to show the checks discriminate) Rome is looked up
    severity: low
    evidence_sources: [trace]
    sequence: {eventually: {tool: get_weather, args_contains: {city: Rome}}}
cases:
  - {id: paris, input: What is the weather in the capital of France?}
";

/// `run` the weather suite on one fixture trace; the case `paris`.
fn run_weather(trace_rel: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("weather");
    std::fs::create_dir_all(suite.join("traces")).unwrap();
    std::fs::copy(trace_fixture(trace_rel), suite.join("traces/paris.jsonl")).unwrap();
    std::fs::write(
        suite.join("suite.yaml"),
        format!("suite: weather\nspec_version: \"1\"\ntraces: traces/\n{WEATHER_CHECKPOINTS}"),
    )
    .unwrap();
    let report = run_report(dir.path(), "weather");
    case(&report, "paris").clone()
}

fn checkpoint_results(case: &Value) -> BTreeMap<&str, &str> {
    case["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|cp| (cp["id"].as_str().unwrap(), cp["result"].as_str().unwrap()))
        .collect()
}

const CORRECT_RUN: [(&str, &str); 5] = [
    ("W-01", "PASS"),
    ("W-02", "PASS"),
    ("W-03", "PASS"),
    ("W-04", "PASS"),
    ("W-05", "FAIL"),
];

#[test]
fn issue_22_console_span_exporter_output_is_read_span_by_span() {
    let trace = load_one(LANGGRAPH);
    assert_eq!(trace.format, TraceFormat::OtelSdk);
    assert_eq!(trace.spans.len(), 23);
    assert_eq!(tool_names(&trace), ["find_city", "get_weather"]);
    assert_eq!(trace.spans.iter().filter(|s| s.parent.is_none()).count(), 1);
    let tokens: Vec<(u64, u64)> = trace
        .spans
        .iter()
        .filter(|s| s.kind == SpanKind::Llm)
        .filter_map(|s| s.tokens().map(|t| (t.input, t.output)))
        .collect();
    assert_eq!(tokens, [(61, 17), (101, 17), (142, 12)]);
    assert!(trace.warnings.is_empty(), "{:?}", trace.warnings);

    // Through the binary: exit 0 where it used to be 65 "trailing characters".
    let out = bin()
        .args(["trace", "--format", "json"])
        .arg(trace_fixture(LANGGRAPH))
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let parsed: Value = serde_json::from_str(&stdout).unwrap();
    assert!(parsed.to_string().contains("get_weather"), "{stdout}");
}

#[test]
fn issue_22_a_bad_value_in_a_pretty_printed_stream_is_located_not_skipped() {
    let text = std::fs::read_to_string(trace_fixture(LANGGRAPH)).unwrap();
    // Break the third span: `"kind": "SpanKind.INTERNAL",` loses its comma.
    let starts: Vec<usize> = text.match_indices("\n{\n").map(|(i, _)| i + 1).collect();
    let third = starts[1];
    let at = third + text[third..].find("\"SpanKind.INTERNAL\",").unwrap() + 19;
    let broken = format!("{}{}", &text[..at], &text[at + 1..]);
    let start_line = text[..third].lines().count() + 1;
    let bad_line = text[..at].lines().count() + 1;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("console.jsonl");
    std::fs::write(&path, broken).unwrap();
    let out = bin().arg("trace").arg(&path).output().unwrap();
    let (_, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(65), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "malformed JSON on line {bad_line}, in the value that starts on line {start_line}"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("console.jsonl:{bad_line}:")),
        "{stderr}"
    );
}

#[test]
fn issue_22_langchain_tool_messages_are_unwrapped_and_bare_args_recovered() {
    let trace = load_one(LANGGRAPH);
    let tools: Vec<(Option<&str>, Option<Value>, Option<Value>)> = trace
        .tool_spans()
        .filter_map(|s| s.tool.as_ref())
        .map(|t| {
            (
                t.call_id.as_deref(),
                t.arguments.as_ref().map(|a| a.value().into_owned()),
                t.result.as_ref().map(|r| r.value().into_owned()),
            )
        })
        .collect();
    assert_eq!(
        tools,
        [
            (
                Some("call_1_0"),
                Some(json!({"query": "capital of France"})),
                Some(json!({"city": "Paris", "country": "FR"}))
            ),
            (
                Some("call_2_0"),
                Some(json!({"city": "Paris"})),
                Some(json!({"city": "Paris", "temp_c": 18, "conditions": "sunny"}))
            ),
        ]
    );
}

/// A correct `LangGraph` run: the checkpoints a correct run passes pass (they
/// all failed before issue 22), the wrong expectation fails, and no
/// argument is counted invalid.
#[test]
fn issue_22_langgraph_checkpoints_pass_on_a_correct_run() {
    let paris = run_weather(LANGGRAPH);
    assert_eq!(
        checkpoint_results(&paris),
        BTreeMap::from(CORRECT_RUN),
        "{paris:#}"
    );
    assert_eq!(paris["tool_use"]["tool_calls"], 2, "{paris:#}");
    assert_eq!(paris["tool_use"]["invalid_args"], 0, "{paris:#}");
}

/// pydantic-ai's per-call `operation.cost` is summed into the case's cost
/// (it was dropped before issue 22: `cost_usd` was null); the same
/// checkpoints hold on its trace.
#[test]
fn issue_22_pydantic_ai_operation_cost_is_summed() {
    let paris = run_weather(PYDANTIC_AI);
    let cost = paris["cost"]["cost_usd"].as_f64();
    assert!(
        cost.is_some_and(|c| (c - 7.32e-05).abs() < 1e-12),
        "{:#}",
        paris["cost"]
    );
    assert_eq!(
        paris["cost"]["input_tokens"],
        61 + 101 + 142,
        "{:#}",
        paris["cost"]
    );
    assert_eq!(
        checkpoint_results(&paris),
        BTreeMap::from(CORRECT_RUN),
        "{paris:#}"
    );
    assert_eq!(paris["tool_use"]["invalid_args"], 0, "{paris:#}");
}

/// Issue 22 item 4: `LangGraph`'s AGENT spans through
/// openinference-instrumentation-langchain 0.1.80 carry no `agent.name`;
/// the span name (the graph node, `agent`) names the agent, and the model
/// calls under it inherit it. The `tools` node is no agent.
#[test]
fn issue_22_an_openinference_agent_span_without_agent_name_is_named_by_its_span() {
    let trace = load_one(LANGGRAPH);
    let agents: Vec<&agenteval_gate::trace::Span> = trace
        .spans
        .iter()
        .filter(|s| s.kind == SpanKind::Agent)
        .collect();
    assert_eq!(agents.len(), 3, "one AGENT span per model turn");
    assert!(agents.iter().all(|s| s.agent.as_deref() == Some("agent")));
    let llm_agents: Vec<Option<&str>> = trace
        .spans
        .iter()
        .filter(|s| s.kind == SpanKind::Llm)
        .map(|s| s.agent.as_deref())
        .collect();
    assert_eq!(llm_agents, [Some("agent"); 3]);
    // The tools run under the `tools` CHAIN node, outside every AGENT span.
    assert!(
        trace
            .spans
            .iter()
            .filter(|s| s.kind == SpanKind::Tool)
            .all(|s| s.agent.is_none())
    );
    // Through the binary: the tree names the agent.
    let out = bin()
        .arg("trace")
        .arg(trace_fixture(LANGGRAPH))
        .output()
        .unwrap();
    let (stdout, _) = outputs(&out);
    assert!(stdout.contains("@agent"), "{stdout}");
}

const AGENTS_OPENINFERENCE: &str = "openai-agents/console_handoff_openinference.jsonl";
const AGENTS_OTEL_V2: &str = "openai-agents/console_handoff_otel_v2.jsonl";

/// The handoff of `fixture` is one step: the handoff span executes the
/// model's `transfer_to_weather_agent` request (`call_1_0`), in the trace
/// and in the DAG the binary prints (one TOOLSEL → PARAMGEN → EXEC chain per
/// call, no unexecuted request, no separate handoff step).
fn assert_handoff_executes_the_transfer_call(fixture: &str) {
    let trace = load_one(fixture);
    assert_eq!(
        tool_names(&trace),
        ["transfer_to_weather_agent", "get_weather"]
    );
    let handoff = trace
        .tool_spans()
        .next()
        .and_then(|s| s.tool.as_ref())
        .unwrap();
    assert_eq!(handoff.call_id.as_deref(), Some("call_1_0"));
    assert_eq!(handoff.arguments, Some(json!({}).into()));
    let out = bin()
        .args(["trace", "--format", "json"])
        .arg(trace_fixture(fixture))
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let steps: Vec<(String, String)> = v["dag"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["type"].as_str().unwrap().to_owned(),
                n["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let of = |name: &str| -> Vec<&str> {
        steps
            .iter()
            .filter(|(_, n)| n == name)
            .map(|(t, _)| t.as_str())
            .collect()
    };
    assert_eq!(
        of("transfer_to_weather_agent"),
        ["TOOLSEL", "PARAMGEN", "EXEC"],
        "{steps:?}"
    );
    assert!(
        steps
            .iter()
            .all(|(_, n)| !n.starts_with("handoff to") && !n.starts_with("agent_handoff")),
        "{steps:?}"
    );
    assert_eq!(
        of("get_weather"),
        ["TOOLSEL", "PARAMGEN", "EXEC"],
        "{steps:?}"
    );
}

/// Issue 22 item 4: an `OpenAI` Agents SDK handoff through
/// openinference-instrumentation-openai-agents 2.6.0 is one step: the
/// `handoff to weather_agent` span executes the model's
/// `transfer_to_weather_agent` request (`call_1_0`).
#[test]
fn issue_22_an_openai_agents_handoff_executes_the_models_transfer_call() {
    assert_handoff_executes_the_transfer_call(AGENTS_OPENINFERENCE);
    assert!(load_one(AGENTS_OPENINFERENCE).warnings.is_empty());
}

/// Issue 22 item 4, through opentelemetry-instrumentation-openai-agents-v2
/// 0.1.0: the `chat` spans' output is the Python `repr` of the SDK's
/// message dict, read for its content and tool calls, and the
/// `agent_handoff` span (`gen_ai.handoff.to_agent`) executes the model's
/// `transfer_to_weather_agent` request, as with openinference.
#[test]
fn issue_22_an_otel_v2_handoff_reads_the_repr_request_and_executes_it() {
    assert_handoff_executes_the_transfer_call(AGENTS_OTEL_V2);
    let trace = load_one(AGENTS_OTEL_V2);
    let answers: Vec<(String, Vec<String>)> = trace
        .spans
        .iter()
        .filter(|s| s.kind == SpanKind::Llm)
        .map(|s| {
            let m = &s.output_messages[0];
            let calls = m.tool_calls.iter().map(|c| c.name.to_string()).collect();
            (m.content.clone(), calls)
        })
        .collect();
    assert_eq!(
        answers,
        [
            (String::new(), vec!["transfer_to_weather_agent".to_owned()]),
            (String::new(), vec!["get_weather".to_owned()]),
            ("It is 18 \u{b0}C and sunny in Paris.".to_owned(), vec![]),
        ]
    );
    let weather = trace
        .spans
        .iter()
        .flat_map(agenteval_gate::trace::Span::requested_tool_calls)
        .find(|c| c.name == "get_weather")
        .unwrap();
    assert_eq!(weather.id.as_deref(), Some("call_2_0"));
    assert_eq!(weather.arguments, json!({"city": "Paris"}));
}

/// Issue 22 item 4: opentelemetry-instrumentation-openai-agents-v2 0.1.0
/// writes `gen_ai.agent.name = "OpenAI Agent"` on the child spans of both
/// agents; the gate warns and gives each span the agent it runs inside.
#[test]
fn issue_22_a_wrongly_inherited_gen_ai_agent_name_is_reported_not_used() {
    let trace = load_one(AGENTS_OTEL_V2);
    assert_eq!(trace.warnings.len(), 1, "{:?}", trace.warnings);
    let w = &trace.warnings[0];
    assert!(
        w.contains("`OpenAI Agent`") && w.contains("`triage_agent` and `weather_agent`"),
        "{w}"
    );
    assert!(
        trace
            .spans
            .iter()
            .all(|s| s.agent.as_deref() != Some("OpenAI Agent"))
    );
    let agent_of = |kind: SpanKind| -> Vec<Option<&str>> {
        trace
            .spans
            .iter()
            .filter(|s| s.kind == kind)
            .map(|s| s.agent.as_deref())
            .collect()
    };
    assert_eq!(
        agent_of(SpanKind::Llm),
        [
            Some("triage_agent"),
            Some("weather_agent"),
            Some("weather_agent")
        ]
    );
    // The handoff runs inside the agent handing off.
    assert_eq!(
        agent_of(SpanKind::Tool),
        [Some("triage_agent"), Some("weather_agent")]
    );
    // The binary shows the warning.
    let out = bin()
        .arg("trace")
        .arg(trace_fixture(AGENTS_OTEL_V2))
        .output()
        .unwrap();
    let (stdout, _) = outputs(&out);
    assert!(stdout.contains("warnings: 1"), "{stdout}");
}
