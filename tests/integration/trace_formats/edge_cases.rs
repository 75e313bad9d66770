//! Inline inputs for the paths the fixtures do not take: chat results
//! matched by order, the other document shapes of each adapter, disagreeing
//! parents, missing ids.

use std::path::Path;

use agenteval_gate::trace::{SpanKind, StatusCode, Trace, TraceFormat, parse_traces};
use serde_json::json;

use super::{assert_well_formed, span, tool_names};

fn parse(name: &str, text: &str) -> Vec<Trace> {
    let traces =
        parse_traces(text.as_bytes(), Path::new(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    traces.iter().for_each(assert_well_formed);
    traces
}

fn parse_one(name: &str, text: &str) -> Trace {
    let mut traces = parse(name, text);
    assert_eq!(traces.len(), 1);
    traces.remove(0)
}

#[test]
fn chat_results_without_a_matching_id_fall_back_to_order_with_warnings() {
    let text = r#"{"messages": [
        {"role": "user", "content": "weather in Paris and Rome?"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"Paris\"}"}},
            {"id": "b", "type": "function", "function": {"name": "weather", "arguments": {"city": "Rome"}}}]},
        {"role": "tool", "tool_call_id": "zzz", "content": "sunny"},
        {"role": "tool", "content": "Error: rate limited", "name": "forecast"},
        {"role": "tool", "tool_call_id": "a", "content": "late"},
        {"role": "assistant", "content": "Paris is sunny."}
    ], "id": "conv-1", "metadata": {"user": "u1"}}"#;
    let trace = parse_one("chat.json", text);
    assert_eq!(trace.id, "conv-1");
    assert_eq!(trace.metadata["user"], json!("u1"));
    assert_eq!(tool_names(&trace), ["weather", "weather", "tool"]);
    // `zzz` is not pending: matched by order to `a`.
    assert_eq!(
        span(&trace, "m2").tool.as_ref().unwrap().arguments,
        Some(json!({"city": "Paris"}).into())
    );
    // No id: matched by order to `b`, though it calls itself `forecast`.
    let second = span(&trace, "m3");
    assert_eq!(
        second.tool.as_ref().unwrap().arguments,
        Some(json!({"city": "Rome"}).into())
    );
    assert_eq!(second.status.code, StatusCode::Error);
    // Nothing left to answer.
    assert_eq!(span(&trace, "m4").requested_by(), None);
    let w = &trace.warnings;
    assert_eq!(w.len(), 4, "{w:?}");
    assert!(w[0].contains(
        "answers call `zzz`, which is not waiting for a result; matched by order to call `a`"
    ));
    assert!(w[1].contains("names no call id; matched by order to call `b`"));
    assert!(w[2].contains("is named `forecast` but answers a call to `weather`"));
    assert!(w[3].contains("answers no pending tool call"));
    assert_eq!(trace.final_answer().as_deref(), Some("Paris is sunny."));
}

#[test]
fn chat_messages_as_a_bare_array_or_jsonl_and_unanswered_calls() {
    let array = r#"[{"role": "user", "content": "hi"},
        {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}]}]"#;
    let trace = parse_one("conv.json", array);
    assert_eq!(trace.id, "conv");
    assert_eq!(
        trace.warnings,
        ["tool call `c` (f) requested by `m1` never got a result"]
    );
    let lines = "{\"role\": \"system\", \"content\": \"be brief\"}\n{\"role\": \"user\", \"content\": \"hi\"}\n\
                 {\"role\": \"assistant\", \"content\": [{\"type\": \"text\", \"text\": \"hello\"}]}\n";
    let trace = parse_one("conv.jsonl", lines);
    assert_eq!(trace.format, TraceFormat::ChatMessages);
    assert_eq!(trace.spans.len(), 3);
    assert_eq!(span(&trace, "m2").input_messages.len(), 2);
    assert_eq!(span(&trace, "m2").output_text().as_deref(), Some("hello"));
}

#[test]
fn nested_spans_whose_declared_parent_disagrees_follow_the_nesting() {
    let text = r#"[{"span_id": "p", "span_name": "root", "span_attributes": {"openinference.span.kind": "AGENT"},
        "child_spans": [{"span_id": "c", "parent_span_id": "elsewhere", "span_name": "child",
                         "span_attributes": {"openinference.span.kind": "LLM"}},
                        {"span_name": "anonymous", "span_attributes": {"tool.name": "t"}}]}]"#;
    let trace = parse_one("nested.json", text);
    assert_eq!(span(&trace, "c").parent.as_deref(), Some("p"));
    assert_eq!(span(&trace, "s2").kind, SpanKind::Tool);
    assert_eq!(trace.warnings.len(), 2, "{:?}", trace.warnings);
    assert!(trace.warnings[0].contains("names parent `elsewhere`; the nesting wins"));
    assert!(trace.warnings[1].contains("has no `span_id`"));
}

#[test]
fn otlp_arrays_sdk_arrays_and_jsonl_documents() {
    let otlp = r#"[{"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": "AA", "spanId": "01", "name": "a", "attributes": [
            {"key": "n", "value": {"intValue": "-7"}}, {"key": "d", "value": {"doubleValue": "NaN"}}, {"key": "e", "value": {}}]},
        {"traceId": "BB", "name": "no id"}]}]}]}]"#;
    let traces = parse("o.json", otlp);
    assert_eq!(
        traces.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        ["aa", "bb"]
    );
    let a = &traces[0].spans[0];
    assert_eq!(
        (a.attributes["n"].to_value(), a.attributes["d"].to_value()),
        (json!(-7), json!("NaN"))
    );
    assert_eq!(a.attributes["e"], json!(null));
    assert_eq!(traces[1].spans[0].id, "s1");
    assert!(traces[1].warnings[0].contains("has no `spanId`"));

    let sdk = r#"[{"name": "child", "context": {"trace_id": 5, "span_id": 2}, "parent_span_id": 1, "start_time": 20},
                  {"name": "root", "context": {"trace_id": 5, "span_id": 1}, "start_time": 10}]"#;
    let trace = parse_one("s.json", sdk);
    assert_eq!(
        trace
            .spans
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>(),
        ["root", "child"]
    );
    assert_eq!(span(&trace, "2").parent.as_deref(), Some("1"));

    let docs = "{\"spans\": [{\"name\": \"a\", \"context\": {\"trace_id\": 1, \"span_id\": 1}}]}\n\
                {\"spans\": [{\"name\": \"b\", \"context\": {\"trace_id\": 2, \"span_id\": 1}}]}\n";
    let traces = parse("docs.jsonl", docs);
    assert_eq!(
        traces.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        ["1", "2"]
    );
}

#[test]
fn telemetry_children_without_a_parent_and_attribute_map_lines() {
    let text = "{\"tool_name\": \"A\", \"span_type\": \"parent\", \"trace_id\": 1}\n\
                {\"tool_name\": \"B\", \"span_type\": \"child\"}\n";
    let trace = parse_one("t.jsonl", text);
    assert_eq!(span(&trace, "e2").parent.as_deref(), Some("root"));
    assert_eq!(trace.warnings.len(), 2, "{:?}", trace.warnings);
    let maps = "{\"gen_ai.operation.name\": \"chat\", \"gen_ai.usage.input_tokens\": 3}\n\
                {\"gen_ai.operation.name\": \"execute_tool\", \"gen_ai.tool.name\": \"f\"}\n";
    let traces = parse("maps.jsonl", maps);
    assert_eq!(
        traces.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        ["maps:1", "maps:2"]
    );
    assert_eq!(
        (traces[0].spans[0].kind, traces[1].spans[0].kind),
        (SpanKind::Llm, SpanKind::Tool)
    );
}
