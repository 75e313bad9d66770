//! Trace ingestion against every real sample in `tests/fixtures/traces/`
//! (copied unmodified, with their SOURCE.md) and the hand-written fixtures
//! in `tests/fixtures/traces/synthetic/`, plus every bad-input class and a
//! property test that the parsers never panic.

mod agent_logs;
mod any_agent;
mod attribute_maps;
mod bad_input;
mod edge_cases;
mod otel_exports;
mod producers;
mod robustness;
mod tau_bench;
mod telemetry;

use std::collections::HashSet;
use std::path::PathBuf;

use agenteval_gate::trace::{Span, SpanKind, Trace, read_traces};

/// `tests/fixtures/traces/<rel>`.
fn trace_fixture(rel: &str) -> PathBuf {
    crate::common::fixture(&format!("traces/{rel}"))
}

/// Every trace in a fixture, checked for the model's invariants.
fn load(rel: &str) -> Vec<Trace> {
    let traces = read_traces(&trace_fixture(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    for trace in &traces {
        assert_well_formed(trace);
    }
    traces
}

/// The single trace of a fixture.
fn load_one(rel: &str) -> Trace {
    let mut traces = load(rel);
    assert_eq!(traces.len(), 1, "{rel} should hold one trace");
    traces.remove(0)
}

/// Invariants every ingested trace keeps: unique ids, every parent present,
/// one root at least, spans in time order.
fn assert_well_formed(trace: &Trace) {
    let ids: HashSet<&str> = trace.spans.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(
        ids.len(),
        trace.spans.len(),
        "{}: span ids repeat",
        trace.id
    );
    for span in &trace.spans {
        if let Some(parent) = &span.parent {
            assert!(
                ids.contains(parent.as_str()),
                "{}: `{}` has a dangling parent",
                trace.id,
                span.id
            );
            assert_ne!(
                parent, &span.id,
                "{}: `{}` is its own parent",
                trace.id, span.id
            );
        }
    }
    assert!(
        trace.spans.is_empty() || trace.spans.iter().any(|s| s.parent.is_none()),
        "{}: no root",
        trace.id
    );
    let keys: Vec<(u64, usize)> = trace.spans.iter().map(Span::order_key).collect();
    assert!(
        keys.windows(2).all(|w| w[0] <= w[1]),
        "{}: spans out of order",
        trace.id
    );
}

fn span<'t>(trace: &'t Trace, id: &str) -> &'t Span {
    trace
        .span(id)
        .unwrap_or_else(|| panic!("{}: no span `{id}`", trace.id))
}

fn count(trace: &Trace, kind: SpanKind) -> usize {
    trace.spans.iter().filter(|s| s.kind == kind).count()
}

/// Names of the tools executed, in time order.
fn tool_names(trace: &Trace) -> Vec<&str> {
    trace
        .tool_spans()
        .map(|s| s.tool.as_ref().map_or("", |t| t.name.as_str()))
        .collect()
}

fn root(trace: &Trace) -> &Span {
    trace
        .spans
        .iter()
        .find(|s| s.parent.is_none())
        .unwrap_or_else(|| panic!("{}: no root span", trace.id))
}

/// Issue 23 item 8: `trace --events` prints the events tier-2 matchers see, for every trace
/// format: the same number in text and JSON, each with a known kind, and the tool calls
/// with their arguments.
#[test]
fn trace_events_lists_what_tier2_matchers_see_in_every_format() {
    for (file, at_least) in [
        ("otel-genai-any-agent/OPENAI_trace.json", 9),
        ("openinference/openinference_client_span_tool_calls.json", 3),
        ("langgraph-openinference/console_weather.jsonl", 10),
        ("pydantic-ai/otlp_json_file_weather.jsonl", 10),
        ("swe-agent/pydicom__pydicom-1458.gpt4.traj", 50),
        ("synthetic/python_sdk_spans.jsonl", 5),
        ("synthetic/workflow_telemetry_subagent.jsonl", 8),
        ("synthetic/smolagents_nested_openinference.json", 10),
        ("who-and-when/hand-crafted_1.json", 58),
    ] {
        let path = crate::common::fixture(&format!("traces/{file}"));
        let json = crate::common::bin()
            .args(["trace", "--events", "--format", "json"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(
            json.status.code(),
            Some(0),
            "{file}: {:?}",
            crate::common::outputs(&json)
        );
        let events: serde_json::Value =
            serde_json::from_str(&crate::common::outputs(&json).0).unwrap();
        let events = events.as_array().unwrap();
        assert!(events.len() >= at_least, "{file}: {}", events.len());
        for e in events {
            assert!(
                ["llm", "tool", "agent", "user", "assistant", "system"]
                    .contains(&e["kind"].as_str().unwrap()),
                "{file}: {e}"
            );
        }
        let text = crate::common::bin()
            .args(["trace", "--events"])
            .arg(&path)
            .output()
            .unwrap();
        let (text, _) = crate::common::outputs(&text);
        assert!(
            text.starts_with(&format!(
                "events: {} (what tier-2 matchers see, in order)\n",
                events.len()
            )),
            "{file}: {text}"
        );
    }
    let path = crate::common::fixture("traces/otel-genai-any-agent/OPENAI_trace.json");
    let out = crate::common::bin()
        .args(["trace", "--events", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    let events: serde_json::Value = serde_json::from_str(&crate::common::outputs(&out).0).unwrap();
    let call = events
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["tool"] == "get_current_time")
        .unwrap();
    assert_eq!(call["kind"], "tool");
    assert_eq!(call["args"]["timezone"], "America/New_York");
    let mermaid = crate::common::bin()
        .args(["trace", "--events", "--format", "mermaid"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(mermaid.status.code(), Some(64));
}
