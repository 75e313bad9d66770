//! `trace FILE --events`: the event list tier-2 matchers see (issue 23 item 8), so a suite
//! author can write `tool`, `kind`, `agent`, `args_contains`, `content_matches` and `where`
//! against what is really there: every LLM, tool and agent call and every user, assistant
//! and system message, in the order the matchers walk them.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::eval::checkpoint::{Event, EventLog};
use crate::output::truncate_chars;
use crate::trace::Trace;

/// Characters of an argument, result or text shown per event in the text view.
const SHOWN: usize = 160;

/// One line per event, with its arguments, result and text below it.
pub(super) fn events_text(trace: &Trace) -> String {
    let log = EventLog::from_trace(trace);
    let mut out = format!(
        "events: {} (what tier-2 matchers see, in order)\n",
        log.events.len()
    );
    for (i, e) in log.events.iter().enumerate() {
        let _ = writeln!(
            out,
            "{i:>4}  {:<9} {:<12} turn {:<3} {}{}{}  (span {})",
            e.kind.as_str(),
            e.agent.unwrap_or("-"),
            e.turn,
            e.tool.unwrap_or(e.name),
            if e.error { "  status: error" } else { "" },
            if e.is_final { "  final" } else { "" },
            e.span_id
        );
        for (label, text) in [
            ("args", e.args_raw().unwrap_or_else(|| e.args_text())),
            ("result", e.result_raw().unwrap_or_else(|| e.result_text())),
            ("text", e.text.as_deref().unwrap_or_default()),
        ] {
            if !text.is_empty() {
                let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
                let _ = writeln!(out, "        {label}: {}", truncate_chars(&one_line, SHOWN));
            }
        }
    }
    out
}

/// The events as JSON objects, with their arguments and results in full.
pub(super) fn events_json(trace: &Trace) -> Value {
    let log = EventLog::from_trace(trace);
    Value::Array(
        log.events
            .iter()
            .enumerate()
            .map(|(i, e)| event_json(i, e))
            .collect(),
    )
}

fn event_json(index: usize, e: &Event) -> Value {
    json!({
        "index": index,
        "kind": e.kind.as_str(),
        "span_id": e.span_id,
        "name": e.name,
        "tool": e.tool,
        "agent": e.agent,
        "status": if e.error { "error" } else { "ok" },
        "final": e.is_final,
        "turn": e.turn,
        "turn_tool_calls": e.turn_tool_calls,
        "turn_replies": e.turn_replies,
        "args": e.args,
        "result": e.result,
        "text": e.text,
    })
}
