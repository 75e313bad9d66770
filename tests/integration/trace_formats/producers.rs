//! Traces recorded with real producer libraries (issue 22): a `LangGraph`
//! agent through the `OpenInference` `LangChain` instrumentation, written by
//! the Python SDK's `ConsoleSpanExporter` as it writes by default (see
//! `tests/fixtures/traces/langgraph-openinference/SOURCE.md`).

use serde_json::Value;

use agenteval_gate::trace::{SpanKind, TraceFormat};

use super::{load_one, tool_names, trace_fixture};
use crate::common::{bin, outputs};

const LANGGRAPH: &str = "langgraph-openinference/console_weather.jsonl";

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
        .filter_map(|s| s.tokens.map(|t| (t.input, t.output)))
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
