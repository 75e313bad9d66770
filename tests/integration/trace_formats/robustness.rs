//! The parsers never panic, whatever the bytes; the JSON view round-trips;
//! the text view is deterministic.

use std::path::Path;
use std::sync::LazyLock;

use agenteval_gate::trace::{Trace, parse_traces, render_text};
use proptest::prelude::*;

use super::{assert_well_formed, load, trace_fixture};

/// Fixtures of every format, small enough to mutate many times.
const SEEDS: [&str; 10] = [
    "otel-spec/otlp-example-trace.json",
    "synthetic/otlp_genai_batches.jsonl",
    "otel-genai-any-agent/GOOGLE_trace.json",
    "synthetic/python_sdk_spans.jsonl",
    "synthetic/smolagents_nested_openinference.json",
    "openinference/openinference_client_span_tool_calls.json",
    "synthetic/workflow_telemetry_subagent.jsonl",
    "who-and-when/algorithm-generated_103.json",
    "swe-agent/pydicom__pydicom-1458.gpt4.traj",
    "otel-genai-any-agent/LLAMA_INDEX_trace.json",
];

static SEED_BYTES: LazyLock<Vec<Vec<u8>>> = LazyLock::new(|| {
    SEEDS
        .iter()
        .map(|f| std::fs::read(trace_fixture(f)).unwrap_or_else(|e| panic!("{f}: {e}")))
        .collect()
});

/// Parse, and when it succeeds check the model's invariants.
fn parse_checked(bytes: &[u8]) {
    if let Ok(traces) = parse_traces(bytes, Path::new("fuzz.json")) {
        for trace in &traces {
            assert_well_formed(trace);
            let _ = render_text(trace);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        parse_checked(&bytes);
    }

    #[test]
    fn json_like_text_never_panics(text in r#"[\[\]{}",:0-9a-z_ .\n-]{0,200}"#) {
        parse_checked(text.as_bytes());
    }

    #[test]
    fn truncated_fixtures_never_panic(seed in 0..SEEDS.len(), cut in 0.0..1.0f64) {
        let bytes = &SEED_BYTES[seed];
        let end = (bytes.len() as f64 * cut) as usize;
        parse_checked(&bytes[..end]);
    }

    #[test]
    fn mutated_fixtures_never_panic(
        seed in 0..SEEDS.len(),
        edits in proptest::collection::vec((0.0..1.0f64, any::<u8>()), 1..8),
    ) {
        let mut bytes = SEED_BYTES[seed].clone();
        for (at, byte) in edits {
            let i = ((bytes.len() - 1) as f64 * at) as usize;
            bytes[i] = byte;
        }
        parse_checked(&bytes);
    }
}

#[test]
fn deeply_nested_and_cyclic_inputs_are_handled() {
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    parse_checked(deep.as_bytes());
    let cyclic = r#"{"spans": [
        {"name": "a", "context": {"trace_id": 1, "span_id": 2}, "parent": {"span_id": 3}},
        {"name": "b", "context": {"trace_id": 1, "span_id": 3}, "parent": {"span_id": 2}}
    ]}"#;
    let traces = parse_traces(cyclic.as_bytes(), Path::new("cycle.json")).unwrap();
    assert_well_formed(&traces[0]);
    assert_eq!(
        traces[0]
            .spans
            .iter()
            .filter(|s| s.parent.is_none())
            .count(),
        1
    );
    assert!(
        traces[0]
            .warnings
            .iter()
            .any(|w| w.contains("is its own ancestor")),
        "{:?}",
        traces[0].warnings
    );
}

#[test]
fn the_json_view_round_trips_for_every_fixture() {
    let files = [
        SEEDS.as_slice(),
        &[
            "tau-bench/gpt-4o-airline.subset.json",
            "swe-agent/marshmallow-code__marshmallow-1867.function_calling_replace.traj",
        ],
    ]
    .concat();
    for file in files {
        for trace in load(file) {
            let json = serde_json::to_string_pretty(&trace).unwrap();
            let back: Trace = serde_json::from_str(&json).unwrap();
            assert_eq!(back, trace, "{file}");
        }
    }
}

#[test]
fn the_text_view_is_deterministic_and_complete() {
    for file in SEEDS {
        let first = load(file);
        let second = load(file);
        for (a, b) in first.iter().zip(&second) {
            let text = render_text(a);
            assert_eq!(text, render_text(b), "{file}");
            // One tree line per span.
            let tree_lines = text.split_once("tree:\n").unwrap().1.lines().count();
            assert_eq!(tree_lines, a.spans.len(), "{file}");
        }
    }
}

#[test]
fn text_view_snapshots() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(trace_fixture("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for (name, file) in [
            ("google_any_agent", "otel-genai-any-agent/GOOGLE_trace.json"),
            ("otlp_genai_batches", "synthetic/otlp_genai_batches.jsonl"),
            (
                "smolagents_nested",
                "synthetic/smolagents_nested_openinference.json",
            ),
            (
                "telemetry_subagent",
                "synthetic/workflow_telemetry_subagent.jsonl",
            ),
            (
                "who_and_when_103",
                "who-and-when/algorithm-generated_103.json",
            ),
        ] {
            insta::assert_snapshot!(name, render_text(&load(file)[0]));
        }
        insta::assert_snapshot!(
            "tau_bench_task_0",
            render_text(&load("tau-bench/gpt-4o-airline.subset.json")[0])
        );
    });
}
