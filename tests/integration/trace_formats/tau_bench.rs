//! tau-bench: an array of 19 episodes → 19 traces, order = array index,
//! repeated `tool_call_id`s, `Error:` results, episode facts in metadata.

use agenteval_gate::trace::{SpanKind, StatusCode, Trace, TraceFormat, read_trace};
use serde_json::json;

use super::{count, load, span, trace_fixture};

const FILE: &str = "tau-bench/gpt-4o-airline.subset.json";

/// (`task_id`, reward, traj length, tool results, `Error:` results,
/// call ids used twice or more).
const EPISODES: [(u64, f64, usize, usize, usize, usize); 19] = [
    (0, 0.0, 32, 8, 1, 2),
    (1, 0.0, 12, 0, 0, 0),
    (2, 0.0, 24, 7, 0, 0),
    (3, 0.0, 62, 20, 5, 2),
    (4, 0.0, 26, 6, 0, 0),
    (5, 0.0, 26, 6, 0, 0),
    (6, 1.0, 24, 6, 0, 0),
    (7, 0.0, 26, 5, 0, 0),
    (8, 0.0, 18, 0, 0, 0),
    (11, 1.0, 36, 10, 1, 0),
    (12, 1.0, 16, 2, 0, 0),
    (13, 0.0, 58, 14, 6, 2),
    (18, 1.0, 16, 3, 0, 0),
    (20, 1.0, 24, 3, 0, 0),
    (24, 1.0, 40, 7, 0, 0),
    (26, 1.0, 32, 8, 1, 0),
    (29, 1.0, 16, 0, 0, 0),
    (31, 1.0, 36, 8, 0, 1),
    (33, 0.0, 62, 23, 0, 3),
];

fn episodes() -> Vec<Trace> {
    load(FILE)
}

#[test]
fn nineteen_episodes_with_their_rewards_and_shapes() {
    let traces = episodes();
    assert_eq!(traces.len(), 19);
    assert_eq!(
        traces
            .iter()
            .filter(|t| t.metadata["reward"] == json!(1.0))
            .count(),
        9
    );
    for (trace, &(task, reward, traj, tools, errors, repeated)) in traces.iter().zip(&EPISODES) {
        assert_eq!(trace.format, TraceFormat::ChatMessages);
        assert_eq!(trace.id, format!("task-{task}.trial-0"));
        assert_eq!(trace.metadata["task_id"], json!(task));
        assert_eq!(trace.metadata["trial"], json!(0));
        assert_eq!(trace.metadata["reward"], json!(reward), "task {task}");
        // Every message but the system prompt is a span, plus the root agent.
        assert_eq!(trace.spans.len(), traj, "task {task}");
        assert_eq!(trace.spans[0].kind, SpanKind::Agent);
        assert!(
            trace
                .spans
                .iter()
                .skip(1)
                .all(|s| s.parent.as_deref() == Some("root"))
        );
        assert_eq!(count(trace, SpanKind::Tool), tools, "task {task}");
        let failed = trace
            .tool_spans()
            .filter(|s| s.status.code == StatusCode::Error)
            .count();
        assert_eq!(failed, errors, "task {task}");
        let repeat_warnings = trace
            .warnings
            .iter()
            .filter(|w| w.contains("is used by"))
            .count();
        assert_eq!(
            repeat_warnings, repeated,
            "task {task}: {:?}",
            trace.warnings
        );
        // Every result found its call: no order fallback, no orphan.
        assert_eq!(
            trace.warnings.len(),
            repeated,
            "task {task}: {:?}",
            trace.warnings
        );
        for tool in trace.tool_spans() {
            let requester = span(trace, tool.requested_by().expect("requested_by"));
            assert_eq!(requester.kind, SpanKind::Llm);
            let call = requester
                .requested_tool_calls()
                .find(|c| c.id == tool.tool.as_ref().unwrap().call_id)
                .unwrap();
            assert_eq!(
                Some(&call.arguments),
                tool.tool.as_ref().unwrap().arguments.as_ref()
            );
        }
        assert!(
            trace.metadata["instruction"]
                .as_str()
                .is_some_and(|i| i.starts_with("You ")),
            "task {task}"
        );
        assert!(trace.metadata["actions"].is_array());
    }
    // The one record without `reward_info`.
    assert!(!traces[18].metadata.contains_key("reward_info"));
    assert!(
        traces[..18]
            .iter()
            .all(|t| t.metadata.contains_key("reward_info"))
    );
}

#[test]
fn repeated_call_ids_match_the_most_recent_unanswered_call() {
    let traces = episodes();
    let first = &traces[0];
    // `call_HGn16…` asks for `search_direct_flight` (m8) and later
    // `search_onestop_flight` (m12); each result goes to its own call.
    for (tool_id, name, requested_by) in [
        ("m9", "search_direct_flight", "m8"),
        ("m13", "search_onestop_flight", "m12"),
        ("m7", "get_user_details", "m6"),
        ("m17", "calculate", "m16"),
    ] {
        let tool = span(first, tool_id);
        assert_eq!(tool.name, name);
        assert_eq!(tool.requested_by(), Some(requested_by));
    }
    assert_eq!(
        span(first, "m17").tool.as_ref().unwrap().arguments,
        Some(json!({"expression": "152 + 103"}).into())
    );
    assert_eq!(
        span(first, "m9").tool.as_ref().unwrap().call_id.as_deref(),
        Some("call_HGn16KZh9oNCruxsMJ4gYXan")
    );
    assert!(first.warnings.iter().any(|w| {
        w.starts_with("tool call id `call_HGn16KZh9oNCruxsMJ4gYXan` is used by 2 calls (m8, m12)")
    }));
    let booking = span(first, "m21");
    assert_eq!(booking.status.code, StatusCode::Error);
    assert_eq!(
        booking.status.message.as_deref(),
        Some("Error: payment amount does not add up, total price is 305, but paid 255")
    );
    assert_eq!(
        first.metadata["actions"][0]["name"],
        json!("book_reservation")
    );
    assert_eq!(first.metadata["user_id"], json!("mia_li_3668"));
}

#[test]
fn turns_become_user_llm_and_tool_spans_in_array_order() {
    let first = &episodes()[0];
    let order: Vec<&str> = first.spans.iter().take(10).map(|s| s.id.as_str()).collect();
    assert_eq!(
        order,
        ["root", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"]
    );
    assert_eq!(span(first, "m1").kind, SpanKind::User);
    assert_eq!(
        span(first, "m1").output_text().as_deref(),
        Some("Hi! I'm looking to book a flight from New York to Seattle on May 20th.")
    );
    let m2 = span(first, "m2");
    assert_eq!(m2.kind, SpanKind::Llm);
    // The first model turn sees the system policy and the user's message.
    assert_eq!(
        m2.input_messages
            .iter()
            .map(|m| m.role.as_str())
            .collect::<Vec<_>>(),
        ["system", "user"]
    );
    assert!(
        m2.input_messages[0]
            .content
            .starts_with("# Airline Agent Policy")
    );
    // A later turn sees what happened since the previous one: a tool result.
    assert_eq!(
        span(first, "m8").input_messages[0].tool_call_id.as_deref(),
        Some("call_oIHazX6yQrB8hUwl4cRilFKj")
    );
    assert!(first.final_answer().is_some_and(|a| a.starts_with(
        "Your flight from New York (JFK) to Seattle (SEA) has been successfully booked"
    )));
}

#[test]
fn reading_one_trace_from_a_multi_episode_file_is_an_error_with_a_hint() {
    let err = read_trace(&trace_fixture(FILE)).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("expected one trace but the file holds 19"),
        "{text}"
    );
    assert!(text.contains("`task-0.trial-0`"), "{text}");
    assert_eq!(err.exit_code().code(), 65);
}
