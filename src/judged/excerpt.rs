//! What a judge sees of a trace: one entry per span in time order, each
//! opening with `[span ID]` so verdicts can cite it, every field capped,
//! and the whole capped by keeping the start and the end of the run (where
//! the request and the answer are) and counting what was left out.
//!
//! The result is plain text for [`crate::llm::prompts::fence`]; it is never sent
//! unfenced.

use serde_json::Value;

use crate::trace::model::{Span, SpanKind, Trace};

use crate::llm::prompts::cap_chars;

/// Characters kept of one message or tool result.
const FIELD_CHARS: usize = 600;
/// Characters kept of tool arguments.
const ARGS_CHARS: usize = 300;

/// The trace as text of at most about `cap` characters.
pub(crate) fn trace_excerpt(trace: &Trace, cap: usize) -> String {
    let entries: Vec<String> = trace.spans.iter().map(entry).collect();
    if entries.is_empty() {
        return "(the trace has no spans)".to_owned();
    }
    let total: usize = entries.iter().map(|e| e.chars().count() + 1).sum();
    if total <= cap {
        return entries.join("\n");
    }
    // Keep whole entries: the first third of the budget from the start, the rest from the end.
    let head_budget = cap / 3;
    let mut head = Vec::new();
    let mut used = 0;
    for e in &entries {
        let n = e.chars().count() + 1;
        if used + n > head_budget {
            break;
        }
        used += n;
        head.push(e.as_str());
    }
    let mut tail = Vec::new();
    let mut used_tail = 0;
    for e in entries[head.len()..].iter().rev() {
        let n = e.chars().count() + 1;
        if used + used_tail + n > cap {
            break;
        }
        used_tail += n;
        tail.push(e.as_str());
    }
    tail.reverse();
    let omitted = entries.len() - head.len() - tail.len();
    let mut out = head.join("\n");
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(&format!("[… {omitted} spans omitted …]"));
    if !tail.is_empty() {
        out.push('\n');
        out.push_str(&tail.join("\n"));
    }
    if head.is_empty() && tail.is_empty() {
        // One huge span: fall back to a character cap.
        return cap_chars(&entries.join("\n"), cap);
    }
    out
}

fn entry(span: &Span) -> String {
    let mut lines = vec![header(span)];
    match span.kind {
        SpanKind::Llm => {
            if let Some(m) = span
                .input_messages
                .iter()
                .rev()
                .find(|m| m.role == "user" && !m.content.is_empty())
            {
                lines.push(format!("  user: {}", one_line(&m.content, FIELD_CHARS)));
            }
            if let Some(text) = span.output_text() {
                lines.push(format!("  output: {}", one_line(&text, FIELD_CHARS)));
            }
            for call in span.requested_tool_calls() {
                lines.push(format!(
                    "  calls: {}({})",
                    call.name,
                    one_line(&call.arguments.to_text(), ARGS_CHARS)
                ));
            }
        }
        SpanKind::Tool => {
            if let Some(tool) = &span.tool {
                if let Some(args) = &tool.arguments {
                    lines.push(format!("  args: {}", one_line(&args.to_text(), ARGS_CHARS)));
                }
                if let Some(result) = &tool.result {
                    lines.push(format!(
                        "  result: {}",
                        one_line(&result.to_text(), FIELD_CHARS)
                    ));
                }
            }
        }
        SpanKind::User => {
            if let Some(text) = span
                .output_text()
                .or_else(|| span.input.as_deref().map(compact))
            {
                lines.push(format!("  says: {}", one_line(&text, FIELD_CHARS)));
            }
        }
        _ => {
            if let Some(out) = &span.output {
                lines.push(format!(
                    "  output: {}",
                    one_line(&compact(out), FIELD_CHARS)
                ));
            }
        }
    }
    if span.is_error() {
        lines.push(format!(
            "  status: error{}",
            span.status
                .message
                .as_deref()
                .map(|m| format!(": {}", one_line(m, 200)))
                .unwrap_or_default()
        ));
    }
    lines.join("\n")
}

fn header(span: &Span) -> String {
    let mut h = format!(
        "[span {}] {} {}",
        span.id,
        span.kind,
        one_line(&span.name, 80)
    );
    if let Some(agent) = &span.agent {
        h.push_str(&format!(" (agent {})", one_line(agent, 60)));
    }
    h
}

/// A value as compact text: strings as they are, other JSON serialised.
pub(crate) fn compact(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Newlines folded to `⏎` (entries stay one line per field) and capped.
pub(crate) fn one_line(text: &str, cap: usize) -> String {
    cap_chars(&text.replace("\r\n", "\n").replace('\n', " ⏎ "), cap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::model::{Message, Status, ToolExecution, TraceFormat};

    fn trace(n: usize) -> Trace {
        let mut spans = Vec::new();
        for i in 0..n {
            let mut s = Span::new(format!("id{i}"), "chat", SpanKind::Llm, i);
            s.output_messages.push(Message {
                role: "assistant".into(),
                content: format!("turn {i}\nsecond line"),
                ..Message::default()
            });
            spans.push(s);
        }
        let mut t = Span::new("tool1", "execute_tool lookup", SpanKind::Tool, n);
        t.tool = Some(Box::new(ToolExecution {
            arguments_text: None,
            result_text: None,
            name: "lookup".into(),
            call_id: None,
            arguments: Some(serde_json::json!({"id": "A-1"}).into()),
            result: Some(serde_json::json!({"balance": 12}).into()),
        }));
        t.status = Status::error("boom");
        spans.push(t);
        Trace {
            id: "t".into(),
            format: TraceFormat::Otlp,
            spans,
            final_output: None,
            metadata: std::collections::BTreeMap::default(),
            warnings: vec![],
        }
    }

    #[test]
    fn entries_carry_span_ids_and_fields() {
        let text = trace_excerpt(&trace(1), 10_000);
        assert_eq!(
            text,
            "[span id0] llm chat\n  output: turn 0 ⏎ second line\n\
             [span tool1] tool execute_tool lookup\n  args: {\"id\":\"A-1\"}\n  result: {\"balance\":12}\n  status: error: boom"
        );
    }

    #[test]
    fn long_traces_keep_start_and_end_and_count_the_rest() {
        let text = trace_excerpt(&trace(200), 1_000);
        assert!(text.starts_with("[span id0]"));
        assert!(text.contains("[span tool1]"), "the end of the run is kept");
        assert!(text.contains("spans omitted …]"));
        assert!(text.chars().count() <= 1_100, "{}", text.chars().count());
    }
}
