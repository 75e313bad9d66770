//! The workflow framework's JSONL telemetry: one tool event per line,
//! with the keys `timestamp`, `tool_name`, `span_type` (`parent` or
//! `child`), `trace_id`, `parent_trace_id` and `args`.
//!
//! `trace_id` names the event itself. A `parent` event is a tool call of the
//! main agent; a `child` event is a tool call made by a sub-agent, nested
//! under the parent event named by its `parent_trace_id` (typically the
//! `Task`-style call that launched the sub-agent). All events hang under one
//! synthetic root agent span `root` (agent `main`). Optional fields:
//! `session_id` (the trace id), `agent`/`agent_name`/`subagent_type`,
//! `result`/`output`/`response`, `status`/`success`/`error`/`exit_code`,
//! `duration_ms`, `end_timestamp`; anything else is kept as attributes.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::model::ShortText;
use crate::trace::assemble::Draft;
use crate::trace::detect::{Layout, Plan};
use crate::trace::error::TraceError;
use crate::trace::ids::id_from_value;
use crate::trace::input::Input;
use crate::trace::json::{Attrs, decode_embedded, flatten_into, lenient_f64, lenient_u64, text_of};
use crate::trace::model::{
    SharedValue, Span, SpanKind, Status, StatusCode, ToolExecution, Trace, TraceFormat,
};
use crate::trace::otel::status_code_text;
use crate::trace::time::{Numeric, time_ns};

const HELP: &str = "each line needs at least a string `tool_name`";
const WHAT: &str = "a telemetry event (`{\"tool_name\", \"span_type\", \"trace_id\", …}`)";
const ROOT_ID: &str = "root";
const MAIN_AGENT: &str = "main";

/// One event. Lines are read as plain JSON objects (one pass, no
/// buffering) and the known fields taken out; the rest become attributes.
struct ToolEvent {
    tool_name: String,
    span_type: Option<String>,
    timestamp: Option<Value>,
    end_timestamp: Option<Value>,
    duration_ms: Option<Value>,
    trace_id: Option<Value>,
    parent_trace_id: Option<Value>,
    session_id: Option<Value>,
    args: Option<Value>,
    result: Option<Value>,
    agent: Option<ShortText>,
    status: Option<Value>,
    success: Option<bool>,
    error: Option<Value>,
    exit_code: Option<Value>,
    extra: Map<String, Value>,
}

impl ToolEvent {
    fn from_map(mut map: Map<String, Value>) -> Result<Self, String> {
        let tool_name = match map.remove("tool_name") {
            Some(Value::String(name)) => name,
            Some(other) => return Err(format!("`tool_name` must be a string, found `{other}`")),
            None => return Err("missing field `tool_name`".to_owned()),
        };
        let mut take = |key: &str| map.remove(key).filter(|v| !v.is_null());
        let text = |v: Option<Value>| v.map(|v| text_of(&v));
        Ok(Self {
            tool_name,
            span_type: text(take("span_type")),
            timestamp: take("timestamp"),
            end_timestamp: take("end_timestamp"),
            duration_ms: take("duration_ms"),
            trace_id: take("trace_id"),
            parent_trace_id: take("parent_trace_id"),
            session_id: take("session_id"),
            args: take("args"),
            result: take("result")
                .or_else(|| take("output"))
                .or_else(|| take("response")),
            agent: text(take("agent").or_else(|| take("agent_name"))).map(ShortText::from),
            status: take("status"),
            success: take("success").and_then(|v| v.as_bool()),
            error: take("error"),
            exit_code: take("exit_code"),
            extra: map,
        })
    }
}

/// Read a telemetry file.
pub(crate) fn parse(input: &Input<'_>, plan: &Plan) -> Result<Vec<Trace>, TraceError> {
    let event = |line: usize, map: Map<String, Value>| {
        ToolEvent::from_map(map)
            .map(|e| (line, e))
            .map_err(|m| input.invalid_line(line, format!("not {WHAT}: {m}"), HELP))
    };
    let mut draft = Draft::new(input.stem(), TraceFormat::TelemetryJsonl);
    let mut root = Span::new(ROOT_ID, "session", SpanKind::Agent, 0);
    root.agent = Some(MAIN_AGENT.into());
    // The sub-agent each event would launch, to name its children's agent.
    let mut launches: HashMap<ShortText, ShortText> = HashMap::new();
    let mut spans = Vec::new();
    // Each event becomes its span as it is read: no list of every event
    // next to the spans made from them.
    let mut add = |line: usize, map: Map<String, Value>| -> Result<(), TraceError> {
        let (line, event) = event(line, map)?;
        if let Some(session) = event.session_id.as_ref().filter(|s| !s.is_null())
            && !draft.metadata.contains_key("session_id")
        {
            draft.id = text_of(session);
            draft
                .metadata
                .insert("session_id".to_owned(), session.clone());
        }
        let span = span_of(event, spans.len() + 1, line, &mut draft.warnings);
        if let Some(tool) = &span.tool {
            launches.insert(
                span.id.clone(),
                sub_agent_name(
                    &tool.name,
                    tool.arguments.as_ref().map(SharedValue::value).as_deref(),
                ),
            );
        }
        spans.push(span);
        Ok(())
    };
    match plan.layout {
        Layout::Lines => {
            for record in input.values(WHAT) {
                let record = record?;
                add(record.line, record.value)?;
            }
        }
        Layout::Document if plan.shape.is_array() => {
            let maps: Vec<Map<String, Value>> =
                input.parse_document("an array of telemetry events")?;
            for (i, m) in maps.into_iter().enumerate() {
                add(i + 1, m)?;
            }
        }
        Layout::Document => add(1, input.parse_document(WHAT)?)?,
    }
    for span in &mut spans {
        let is_child = span
            .attributes
            .get("span_type")
            .and_then(crate::trace::AttrValue::as_str)
            == Some("child");
        match (&span.parent, is_child) {
            (Some(parent), _) if span.agent.is_none() => {
                let agent = launches.get(parent).cloned();
                span.agent = Some(agent.unwrap_or_else(|| "subagent".into()));
            }
            (None, true) => {
                draft.warnings.push(format!(
                    "child event `{}` ({}) has no `parent_trace_id`; it is attached to the root",
                    span.id, span.name
                ));
                span.parent = Some(ROOT_ID.into());
            }
            _ => {}
        }
        if span.parent.is_none() {
            span.parent = Some(ROOT_ID.into());
            span.agent.get_or_insert_with(|| MAIN_AGENT.into());
        }
    }
    root.start = spans.iter().filter_map(|s| s.start).min();
    root.end = spans.iter().filter_map(|s| s.end.or(s.start)).max();
    draft.spans.push(root);
    draft.spans.extend(spans);
    Ok(vec![draft.finish()])
}

/// The sub-agent a launching call started: its `subagent_type`/`agent`
/// argument, else the launching tool's name.
fn sub_agent_name(tool: &str, args: Option<&Value>) -> ShortText {
    args.and_then(|a| {
        ["subagent_type", "agent", "agent_name", "name"]
            .iter()
            .find_map(|k| a.get(*k))
    })
    .and_then(Value::as_str)
    .unwrap_or(tool)
    .into()
}

fn span_of(event: ToolEvent, seq: usize, line: usize, warnings: &mut Vec<String>) -> Span {
    let id = event
        .trace_id
        .as_ref()
        .and_then(id_from_value)
        .unwrap_or_else(|| {
            warnings.push(format!(
                "line {line} ({}) has no `trace_id`; the event is named `e{line}`",
                event.tool_name
            ));
            compact_str::format_compact!("e{line}")
        });
    let mut span = Span::new(id, event.tool_name.clone(), SpanKind::Tool, seq);
    span.parent = event.parent_trace_id.as_ref().and_then(id_from_value);
    span.agent = event.agent.or_else(|| {
        event
            .extra
            .get("subagent_type")
            .and_then(Value::as_str)
            .map(ShortText::from)
    });
    span.start = event
        .timestamp
        .as_ref()
        .and_then(|v| time_ns(v, Numeric::Guess));
    let duration = event
        .duration_ms
        .as_ref()
        .and_then(lenient_f64)
        .filter(|d| *d >= 0.0 && *d < 1e13);
    span.end = event
        .end_timestamp
        .as_ref()
        .and_then(|v| time_ns(v, Numeric::Guess))
        .or_else(|| {
            span.start
                .zip(duration)
                .and_then(|(s, d)| s.checked_add((d * 1e6).round() as u64))
        });
    span.status = status_of(
        event.status.as_ref(),
        event.success,
        event.error.as_ref(),
        event.exit_code.as_ref(),
    );
    span.tool = Some(Box::new(ToolExecution {
        arguments_text: None,
        result_text: None,
        name: event.tool_name.into(),
        call_id: None,
        arguments: event.args.map(|v| decode_embedded(v).into()),
        result: event.result.map(|v| decode_embedded(v).into()),
    }));
    if let Some(kind) = event.span_type {
        span.attributes.insert("span_type".into(), kind.into());
    }
    let mut extra = Attrs::new();
    for (key, value) in event.extra {
        flatten_into(&key, value, &mut extra);
    }
    span.attributes.extend(
        extra
            .into_iter()
            .map(|(k, v)| (ShortText::from(k), v.into())),
    );
    span
}

fn status_of(
    status: Option<&Value>,
    success: Option<bool>,
    error: Option<&Value>,
    exit_code: Option<&Value>,
) -> Status {
    let error_text = error
        .filter(|e| !e.is_null() && *e != &Value::Bool(false))
        .map(text_of)
        .filter(|e| !e.is_empty());
    let exit = exit_code.and_then(lenient_u64);
    let mut code = match status {
        Some(Value::String(s)) => status_code_text(s),
        Some(Value::Bool(true)) => StatusCode::Ok,
        Some(Value::Bool(false)) => StatusCode::Error,
        _ => StatusCode::Unset,
    };
    if success == Some(false) || error_text.is_some() || exit.is_some_and(|c| c != 0) {
        code = StatusCode::Error;
    } else if code == StatusCode::Unset && (success == Some(true) || exit == Some(0)) {
        code = StatusCode::Ok;
    }
    let message = error_text.or_else(|| exit.filter(|c| *c != 0).map(|c| format!("exit code {c}")));
    Status {
        code,
        message: if code == StatusCode::Error {
            message.map(String::into_boxed_str)
        } else {
            None
        },
    }
}
