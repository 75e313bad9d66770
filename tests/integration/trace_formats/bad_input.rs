//! One test per bad-input class: malformed JSON, a malformed JSONL line,
//! wrong types, empty and missing files, and valid JSON that is no trace.

use std::path::Path;

use agenteval_gate::trace::{TraceError, TraceFormat, detect_format, parse_traces, read_traces};

use super::trace_fixture;

fn parse_err(name: &str, text: &str) -> TraceError {
    match parse_traces(text.as_bytes(), Path::new(name)) {
        Ok(traces) => panic!("{name} should not parse, got {} traces", traces.len()),
        Err(err) => err,
    }
}

fn assert_invalid(err: &TraceError) {
    assert!(matches!(err, TraceError::Invalid(_)), "{err:?}");
    assert_eq!(err.exit_code().code(), 65);
}

#[test]
fn malformed_json_points_at_line_and_column() {
    let text = "{\n  \"spans\": [\n    {\"name\": \"a\",, \"context\": {}}\n  ]\n}\n";
    let err = parse_err("run.json", text);
    assert_invalid(&err);
    let message = err.one_line();
    assert!(
        message.starts_with("run.json:3:18: malformed JSON: key must be a string"),
        "{message}"
    );
    let TraceError::Invalid(diagnostic) = &err else {
        unreachable!()
    };
    assert_eq!((diagnostic.line, diagnostic.column), (3, 18));
    assert!(diagnostic.help.is_some());
}

#[test]
fn truncated_json_says_the_file_ends_early() {
    let err = parse_err("cut.json", "{\"resourceSpans\": [{\"scopeSpans\": [");
    assert_invalid(&err);
    assert!(err.one_line().contains("unexpected end of file"), "{err}");
}

#[test]
fn a_malformed_jsonl_line_is_reported_by_its_number_not_skipped() {
    let good = r#"{"tool_name": "Read", "span_type": "parent", "trace_id": "e1", "args": {}}"#;
    let broken = r#"{"tool_name": "Bash", "args": {"command": "ls"}"#;
    let text = format!("{good}\n{good}\n\n{broken}\n{good}\n");
    let err = parse_err("events.jsonl", &text);
    assert_invalid(&err);
    let message = err.one_line();
    assert!(message.starts_with("events.jsonl:4:"), "{message}");
    assert!(message.contains("malformed JSON on line 4"), "{message}");

    // A line that is valid JSON but not a record of the file's format.
    let text = format!("{good}\n{{\"span_type\": \"child\"}}\n");
    let err = parse_err("events.jsonl", &text);
    assert_invalid(&err);
    assert!(err.one_line().starts_with("events.jsonl:2:"), "{err}");
    assert!(
        err.one_line().contains("missing field `tool_name`"),
        "{err}"
    );
}

#[test]
fn a_bad_line_in_an_otlp_jsonl_export_names_its_line() {
    let good =
        std::fs::read_to_string(trace_fixture("synthetic/otlp_genai_batches.jsonl")).unwrap();
    let first = good.lines().next().unwrap();
    let text = format!("{first}\n{}\n", &first[..first.len() / 2]);
    let err = parse_err("batches.jsonl", &text);
    assert_invalid(&err);
    assert!(err.one_line().starts_with("batches.jsonl:2:"), "{err}");
}

#[test]
fn wrong_types_are_located_errors() {
    let err = parse_err(
        "t.json",
        "{\"spans\": \"not a list\", \"final_output\": null}",
    );
    assert_invalid(&err);
    let message = err.one_line();
    assert!(message.starts_with("t.json:1:"), "{message}");
    assert!(
        message.contains("invalid type: string \"not a list\", expected a sequence"),
        "{message}"
    );

    let err = parse_err(
        "o.json",
        "{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [{\"attributes\": 5}]}]}]}",
    );
    assert_invalid(&err);
    assert!(
        err.one_line().contains("invalid type: integer `5`"),
        "{err}"
    );

    let err = parse_err(
        "ep.json",
        "[{\"traj\": [{\"content\": \"hi\"}], \"task_id\": 1}]",
    );
    assert_invalid(&err);
    assert!(err.one_line().contains("missing field `role`"), "{err}");

    // An id that is neither an integer nor a string.
    let err = parse_err(
        "ids.json",
        "{\"spans\": [{\"name\": \"x\", \"context\": {\"span_id\": 1.5}}]}",
    );
    assert_invalid(&err);
    assert!(err.one_line().contains("bad `context.span_id`"), "{err}");
}

#[test]
fn empty_files_and_empty_span_lists_are_empty_traces() {
    for text in [
        "",
        "  \n\t\n",
        "[]",
        "{\"spans\": []}",
        "{\"resourceSpans\": []}",
    ] {
        let err = parse_err("e.json", text);
        assert!(matches!(err, TraceError::Empty { .. }), "{text:?}: {err:?}");
        assert_eq!(err.exit_code().code(), 65);
        assert!(err.one_line().contains("is empty"), "{err}");
    }
}

#[test]
fn a_missing_file_is_an_io_error() {
    let path = trace_fixture("does-not-exist.json");
    let err = read_traces(&path).unwrap_err();
    assert!(matches!(err, TraceError::Io { .. }), "{err:?}");
    assert_eq!(err.exit_code().code(), 74);
    assert!(err.one_line().contains("does-not-exist.json"), "{err}");
}

#[test]
fn json_schemas_and_predictions_are_not_traces() {
    for schema in [
        "input-messages",
        "output-messages",
        "system-instructions",
        "tool-definitions",
    ] {
        let path = trace_fixture(&format!("otel-spec/gen-ai-{schema}.schema.json"));
        let err = read_traces(&path).unwrap_err();
        assert!(
            matches!(err, TraceError::UnknownFormat(_)),
            "{schema}: {err:?}"
        );
        assert_eq!(err.exit_code().code(), 65);
        assert!(
            err.one_line()
                .contains("not a trace: this looks like a JSON Schema (`$defs`"),
            "{schema}: {err}"
        );
        let TraceError::UnknownFormat(diagnostic) = &err else {
            unreachable!()
        };
        let help = diagnostic.help.as_deref().unwrap();
        assert!(
            help.contains("`*.schema.json`") && help.contains("accepted trace formats"),
            "{help}"
        );
        assert_eq!(detect_format(&std::fs::read(&path).unwrap()), None);
    }
    let err = read_traces(&trace_fixture("swe-agent/pydicom.all_preds.jsonl")).unwrap_err();
    assert!(matches!(err, TraceError::UnknownFormat(_)), "{err:?}");
    assert!(
        err.one_line()
            .contains("SWE-bench predictions record (`instance_id`, `model_patch`)"),
        "{err}"
    );
    let TraceError::UnknownFormat(diagnostic) = &err else {
        unreachable!()
    };
    assert!(
        diagnostic
            .help
            .as_deref()
            .is_some_and(|h| h.contains("`<instance_id>.traj`"))
    );
}

#[test]
fn unknown_json_names_its_keys_and_the_accepted_formats() {
    let err = parse_err("x.json", "{\"foo\": 1, \"bar\": [2]}");
    assert!(matches!(err, TraceError::UnknownFormat(_)), "{err:?}");
    assert!(
        err.one_line()
            .contains("a JSON object with keys `foo`, `bar`"),
        "{err}"
    );
    let err = parse_err("x.json", "42");
    assert!(
        err.one_line().contains("a single JSON value (a number)"),
        "{err}"
    );
    let err = parse_err("m.json", "{\"resourceMetrics\": []}");
    assert!(
        err.one_line().contains("OTLP metrics or logs export"),
        "{err}"
    );
}

#[test]
fn every_fixture_is_detected_as_its_format() {
    let cases: [(&str, TraceFormat); 10] = [
        ("otel-spec/otlp-example-trace.json", TraceFormat::Otlp),
        ("synthetic/otlp_genai_batches.jsonl", TraceFormat::Otlp),
        (
            "otel-genai-any-agent/GOOGLE_trace.json",
            TraceFormat::OtelSdk,
        ),
        ("synthetic/python_sdk_spans.jsonl", TraceFormat::OtelSdk),
        (
            "synthetic/smolagents_nested_openinference.json",
            TraceFormat::OpenInference,
        ),
        (
            "openinference/otel_genai_tool_execution_span.json",
            TraceFormat::AttributeMap,
        ),
        (
            "synthetic/workflow_telemetry_subagent.jsonl",
            TraceFormat::TelemetryJsonl,
        ),
        (
            "tau-bench/gpt-4o-airline.subset.json",
            TraceFormat::ChatMessages,
        ),
        (
            "swe-agent/pydicom__pydicom-1458.gpt4.traj",
            TraceFormat::SweAgent,
        ),
        (
            "who-and-when/hand-crafted_1.json",
            TraceFormat::MultiAgentChat,
        ),
    ];
    for (file, format) in cases {
        let bytes = std::fs::read(trace_fixture(file)).unwrap();
        assert_eq!(detect_format(&bytes), Some(format), "{file}");
    }
    assert_eq!(detect_format(b"{not json"), None);
    assert_eq!(detect_format(b""), None);
}
