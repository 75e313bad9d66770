//! A deterministic plain-text view of a trace: format, span count,
//! warnings, final output and metadata, then the span tree with kind, id,
//! name, agent (when it changes), tool call with compact arguments,
//! requested calls, the start of the output text, status, tokens, cost and
//! duration. The JSON view is
//! `serde_json::to_string_pretty(&trace)`. Every field from the trace passes
//! `escape::terminal` (control characters and line breaks become escapes).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use serde_json::Value;

use crate::output::escape::terminal;
use crate::trace::model::{SharedValue, Span, SpanKind, StatusCode, Trace};

const ARGS_WIDTH: usize = 80;
const TEXT_WIDTH: usize = 100;
const SAYS_WIDTH: usize = 48;
const MAX_INDENT: usize = 40;

/// Render `trace` as indented text.
pub fn render_text(trace: &Trace) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "trace {} ({})", terminal(&trace.id), trace.format);
    let _ = writeln!(out, "spans: {}", trace.spans.len());
    let _ = writeln!(out, "warnings: {}", trace.warnings.len());
    for warning in &trace.warnings {
        let _ = writeln!(out, "  - {}", terminal(warning));
    }
    if let Some(final_output) = &trace.final_output {
        let _ = writeln!(out, "final output: {}", one_line(final_output, TEXT_WIDTH));
    }
    if !trace.metadata.is_empty() {
        let _ = writeln!(out, "metadata:");
        for (key, value) in &trace.metadata {
            let _ = writeln!(out, "  {}: {}", terminal(key), compact(value, TEXT_WIDTH));
        }
    }
    let _ = writeln!(out, "tree:");
    let by_id: HashMap<&str, &Span> = trace.spans.iter().map(|s| (s.id.as_str(), s)).collect();
    for (depth, span) in tree_order(trace) {
        let parent_agent = span
            .parent
            .as_deref()
            .and_then(|p| by_id.get(p))
            .and_then(|p| p.agent.as_deref());
        // Very deep trees keep a bounded indent and say their depth.
        let indent = "  ".repeat(depth.min(MAX_INDENT) + 1);
        let deep = if depth > MAX_INDENT {
            format!("(depth {depth}) ")
        } else {
            String::new()
        };
        let _ = writeln!(out, "{indent}{deep}{}", span_line(span, parent_agent));
    }
    out
}

/// Spans depth first, children in time order, with their depth. Spans not
/// reachable from a root (impossible after ingestion, but cheap to guard)
/// are listed as roots at the end.
fn tree_order(trace: &Trace) -> Vec<(usize, &Span)> {
    let ids: HashSet<&str> = trace.spans.iter().map(|s| s.id.as_str()).collect();
    let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut roots = Vec::new();
    for (i, span) in trace.spans.iter().enumerate() {
        match span.parent.as_deref() {
            Some(p) if ids.contains(p) => children.entry(p).or_default().push(i),
            _ => roots.push(i),
        }
    }
    let mut seen = vec![false; trace.spans.len()];
    let mut out = Vec::with_capacity(trace.spans.len());
    let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|r| (*r, 0)).collect();
    let mut leftovers = 0;
    loop {
        while let Some((i, depth)) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            out.push((depth, &trace.spans[i]));
            if let Some(kids) = children.get(trace.spans[i].id.as_str()) {
                stack.extend(kids.iter().rev().map(|k| (*k, depth + 1)));
            }
        }
        match seen.iter().skip(leftovers).position(|s| !s) {
            Some(offset) => {
                leftovers += offset;
                stack.push((leftovers, 0));
            }
            None => break,
        }
    }
    out
}

fn span_line(span: &Span, parent_agent: Option<&str>) -> String {
    let mut line = format!(
        "{} {}: {}",
        span.kind,
        terminal(&span.id),
        one_line(&span.name, TEXT_WIDTH)
    );
    if let Some(agent) = span.agent.as_deref().filter(|a| Some(*a) != parent_agent) {
        let _ = write!(line, " @{}", terminal(agent));
    }
    if let Some(model) = span.model() {
        let _ = write!(line, " model={}", terminal(model));
    }
    if let Some(tool) = &span.tool {
        let args = tool
            .arguments
            .as_ref()
            .map_or_else(String::new, |a| compact_shared(a, ARGS_WIDTH));
        let _ = write!(line, " tool={}({args})", terminal(&tool.name));
        if let Some(id) = &tool.call_id {
            let _ = write!(line, " call={}", terminal(id));
        }
    }
    let calls: Vec<String> = span
        .requested_tool_calls()
        .map(|c| {
            format!(
                "{}({})",
                terminal(&c.name),
                compact_shared(&c.arguments, ARGS_WIDTH)
            )
        })
        .collect();
    if !calls.is_empty() {
        let _ = write!(line, " calls=[{}]", calls.join(", "));
    }
    if span.kind != SpanKind::Tool
        && let Some(text) = span.output_text().filter(|t| !t.trim().is_empty())
    {
        let _ = write!(line, " out=\"{}\"", one_line(text.trim(), SAYS_WIDTH));
    }
    match span.status.code {
        StatusCode::Ok => line.push_str(" ok"),
        StatusCode::Error => {
            let message = span.status.message.as_deref().unwrap_or("");
            let _ = write!(line, " ERROR({})", one_line(message, ARGS_WIDTH));
        }
        StatusCode::Unset => {}
    }
    if let Some(tokens) = span.tokens() {
        let _ = write!(line, " tokens={}/{}", tokens.input, tokens.output);
    }
    if let Some(cost) = span.cost() {
        let _ = write!(line, " cost=${cost:.6}");
    }
    if let Some(ms) = span.duration_ms() {
        let _ = write!(line, " {ms:.1}ms");
    }
    line
}

/// Compact JSON of a value, strings unquoted, cut to `width` characters.
fn compact(value: &Value, width: usize) -> String {
    match value {
        Value::String(s) => one_line(s, width),
        Value::Null => String::new(),
        other => one_line(&other.to_string(), width),
    }
}

/// [`compact`] of a shared value, without decoding it.
fn compact_shared(value: &SharedValue, width: usize) -> String {
    match value.as_scalar() {
        Some(scalar) => compact(scalar, width),
        None => one_line(&value.compact(), width),
    }
}

/// One line of at most `width` characters (newlines shown as `⏎`, other
/// control characters as escapes).
fn one_line(text: &str, width: usize) -> String {
    let mut out: String = text
        .chars()
        .take(width)
        .map(|c| if c == '\n' { '⏎' } else { c })
        .collect();
    out.retain(|c| c != '\r');
    let mut out = terminal(&out).into_owned();
    if text.chars().nth(width).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::trace::model::{Status, Tokens, ToolExecution, TraceFormat};

    #[test]
    fn renders_an_indented_tree_with_details() {
        let mut root = Span::new("r", "invoke_agent", SpanKind::Agent, 0);
        root.agent = Some("boss".into());
        let mut llm = Span::new("a", "chat", SpanKind::Llm, 1);
        llm.parent = Some("r".into());
        llm.agent = Some("boss".into());
        llm.set_tokens(Some(Tokens {
            input: 10,
            output: 2,
        }));
        llm.start = Some(1_000_000);
        llm.end = Some(3_500_000);
        let mut tool = Span::new("b", "execute_tool", SpanKind::Tool, 2);
        tool.parent = Some("r".into());
        tool.agent = Some("helper".into());
        tool.status = Status::error("boom\nstack");
        tool.tool = Some(Box::new(ToolExecution {
            arguments_text: None,
            result_text: None,
            name: "search".into(),
            call_id: Some("c1".into()),
            arguments: Some(serde_json::json!({"q": "x"}).into()),
            result: None,
        }));
        let trace = Trace {
            id: "t".into(),
            format: TraceFormat::OtelSdk,
            spans: vec![root, llm, tool],
            final_output: None,
            metadata: BTreeMap::new(),
            warnings: vec!["w1".into()],
        };
        let text = render_text(&trace);
        let expected = "trace t (otel_sdk)\nspans: 3\nwarnings: 1\n  - w1\ntree:\n  agent r: invoke_agent @boss\n    \
                        llm a: chat tokens=10/2 2.5ms\n    tool b: execute_tool @helper tool=search({\"q\":\"x\"}) call=c1 \
                        ERROR(boom⏎stack)\n";
        assert_eq!(text, expected);
        assert_eq!(render_text(&trace), text);
    }

    #[test]
    fn long_text_is_cut_on_character_boundaries() {
        assert_eq!(one_line("héllo wörld", 5), "héllo…");
        assert_eq!(one_line("ab", 5), "ab");
    }
}
