//! The workflow framework's JSONL telemetry: main-agent events, sub-agent
//! events nested under the call that launched them, orphans and failures.

use agenteval_gate::trace::{StatusCode, TraceFormat};
use serde_json::json;

use super::{load_one, root, span, tool_names};

#[test]
fn telemetry_nests_sub_agent_calls_under_their_launching_call() {
    let trace = load_one("synthetic/workflow_telemetry_subagent.jsonl");
    assert_eq!(trace.format, TraceFormat::TelemetryJsonl);
    assert_eq!(trace.id, "sess-7f3a21");
    assert!(trace.warnings.is_empty(), "{:?}", trace.warnings);
    assert_eq!(trace.spans.len(), 8);
    assert_eq!(
        tool_names(&trace),
        ["Read", "Grep", "Task", "Bash", "Read", "Edit", "Bash"]
    );
    for child in ["evt-0004", "evt-0005"] {
        let s = span(&trace, child);
        assert_eq!(s.parent.as_deref(), Some("evt-0003"));
        assert_eq!(s.agent.as_deref(), Some("test-runner"));
    }
    for parent in ["evt-0001", "evt-0003", "evt-0007"] {
        assert_eq!(span(&trace, parent).parent.as_deref(), Some("root"));
        assert_eq!(span(&trace, parent).agent.as_deref(), Some("main"));
    }
    let failing = span(&trace, "evt-0004");
    assert_eq!(failing.status.code, StatusCode::Error);
    assert_eq!(failing.status.message.as_deref(), Some("exit code 1"));
    assert_eq!(failing.duration_ms(), Some(9120.0));
    assert_eq!(span(&trace, "evt-0007").status.code, StatusCode::Ok);
    assert_eq!(span(&trace, "evt-0007").attributes["cwd"], json!("/repo"));
    let edit = span(&trace, "evt-0006").tool.as_ref().unwrap();
    assert_eq!(
        edit.arguments
            .as_ref()
            .and_then(|a| a.value().get("new_string").cloned()),
        Some(json!("round(total, 2)"))
    );
    let root = root(&trace);
    assert_eq!(root.start, Some(1_748_855_643_120_000_000));
    assert_eq!(root.end, Some(1_748_855_676_270_000_000));
}

#[test]
fn telemetry_orphans_and_failures_are_kept_with_warnings() {
    let trace = load_one("synthetic/workflow_telemetry_orphan.jsonl");
    assert_eq!(trace.id, "workflow_telemetry_orphan");
    assert_eq!(trace.spans.len(), 4);
    assert_eq!(trace.warnings.len(), 1);
    assert!(
        trace.warnings[0].contains("names parent `zz-missing`"),
        "{:?}",
        trace.warnings
    );
    let fetch = span(&trace, "a2");
    assert_eq!(fetch.parent.as_deref(), Some("root"));
    assert_eq!(fetch.status.message.as_deref(), Some("timeout after 30s"));
    assert_eq!(fetch.start, Some(1_748_855_650_250_000_000));
    assert_eq!(span(&trace, "a1").status.code, StatusCode::Ok);
    assert_eq!(
        span(&trace, "a3").status.message.as_deref(),
        Some("permission denied: notes.md")
    );
}
