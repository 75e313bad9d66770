//! The nested `OpenInference` export: a document with `trace_id` and
//! `spans`, where each span has `span_id`, `parent_span_id`, `span_name`,
//! `span_kind`, `timestamp` (ISO-8601), `duration` (ISO-8601, e.g.
//! `PT1.532S`), `status_code`, `status_message`, `span_attributes`
//! (`OpenInference` keys), `events`, `logs` and `child_spans` — the shape
//! Phoenix/Patronus-style collectors export smolagents runs in. Children are
//! nested, so the tree comes from the nesting; a `parent_span_id` that
//! disagrees with it is recorded as a warning. Also accepts one such span
//! per JSONL line, or a bare array of spans.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::ShortText;
use crate::trace::assemble::Draft;
use crate::trace::detect::{Layout, Plan};
use crate::trace::error::TraceError;
use crate::trace::ids::{id_from_raw, id_from_value};
use crate::trace::input::Input;
use crate::trace::json::{Attrs, flatten_attrs, text_of};
use crate::trace::model::{Span, SpanKind, Trace, TraceFormat};
use crate::trace::otel::{Event, absorb_events, apply_attributes, span_kind_word, status_code};
use crate::trace::time::{Numeric, parse_duration, time_ns};

#[derive(Deserialize)]
struct Document {
    #[serde(default)]
    trace_id: Option<Value>,
    spans: Vec<NestedSpan>,
}

#[derive(Deserialize)]
struct NestedSpan {
    #[serde(default, alias = "start_time")]
    timestamp: Option<Value>,
    #[serde(default)]
    end_time: Option<Value>,
    #[serde(default)]
    duration: Option<Value>,
    #[serde(default)]
    trace_id: Option<Box<RawValue>>,
    #[serde(default)]
    span_id: Option<Box<RawValue>>,
    #[serde(default, alias = "parent_id")]
    parent_span_id: Option<Box<RawValue>>,
    #[serde(default, alias = "name")]
    span_name: Option<String>,
    #[serde(default)]
    span_kind: Option<Value>,
    #[serde(default)]
    service_name: Option<String>,
    #[serde(default, alias = "attributes")]
    span_attributes: Option<serde_json::Map<String, Value>>,
    #[serde(default)]
    resource_attributes: Option<Value>,
    #[serde(default)]
    status_code: Option<Value>,
    #[serde(default)]
    status_message: Option<String>,
    #[serde(default)]
    events: Option<Vec<Value>>,
    #[serde(default)]
    logs: Option<Vec<Value>>,
    #[serde(default)]
    child_spans: Vec<NestedSpan>,
}

/// Read a nested `OpenInference` export.
pub(crate) fn parse(input: &Input<'_>, plan: &Plan) -> Result<Vec<Trace>, TraceError> {
    let mut reader = Reader {
        draft: Draft::new(input.stem(), TraceFormat::OpenInference),
        seq: 0,
    };
    let mut trace_id = None;
    match plan.layout {
        Layout::Document if plan.shape.has("spans") => {
            let doc: Document = input.parse_document("a nested OpenInference trace export")?;
            trace_id = doc.trace_id.as_ref().and_then(id_from_value);
            reader
                .add_all(doc.spans)
                .map_err(|m| input.invalid(m, HELP))?;
        }
        Layout::Document if plan.shape.is_array() => {
            let spans: Vec<NestedSpan> = input.parse_document("an array of OpenInference spans")?;
            reader.add_all(spans).map_err(|m| input.invalid(m, HELP))?;
        }
        Layout::Document => {
            let span: NestedSpan = input.parse_document("an OpenInference span")?;
            reader
                .add_all(vec![span])
                .map_err(|m| input.invalid(m, HELP))?;
        }
        Layout::Lines => {
            for record in input.values::<NestedSpan>("an OpenInference span") {
                let record = record?;
                reader
                    .add_all(vec![record.value])
                    .map_err(|m| input.invalid_line(record.line, m, HELP))?;
            }
        }
    }
    let mut draft = reader.draft;
    if let Some(id) = trace_id {
        draft.id = id.into();
    }
    Ok(vec![draft.finish()])
}

const HELP: &str = "span ids must be strings or integers";

struct Reader {
    draft: Draft,
    seq: usize,
}

impl Reader {
    /// Add spans and their descendants depth first (file order), without
    /// recursion.
    fn add_all(&mut self, spans: Vec<NestedSpan>) -> Result<(), String> {
        let mut stack: Vec<(NestedSpan, Option<ShortText>)> =
            spans.into_iter().rev().map(|s| (s, None)).collect();
        while let Some((mut raw, parent)) = stack.pop() {
            let children = std::mem::take(&mut raw.child_spans);
            let id = self.add(raw, parent)?;
            stack.extend(children.into_iter().rev().map(|c| (c, Some(id.clone()))));
        }
        Ok(())
    }

    fn add(&mut self, raw: NestedSpan, nested_in: Option<ShortText>) -> Result<ShortText, String> {
        let seq = self.seq;
        self.seq += 1;
        let name = raw.span_name.unwrap_or_default();
        let id_of = |r: &Option<Box<RawValue>>, what: &str| match r {
            Some(r) => {
                id_from_raw(r).map_err(|e| format!("span #{seq} ({name}): bad `{what}`: {e}"))
            }
            None => Ok(None),
        };
        let declared_parent = id_of(&raw.parent_span_id, "parent_span_id")?;
        let trace_id = id_of(&raw.trace_id, "trace_id")?;
        let id = if let Some(id) = id_of(&raw.span_id, "span_id")? {
            id
        } else {
            self.draft.warnings.push(format!(
                "span #{seq} ({name}) has no `span_id`; it is named `s{seq}`"
            ));
            compact_str::format_compact!("s{seq}")
        };
        let parent = match (nested_in, declared_parent) {
            (Some(outer), Some(declared)) if outer != declared => {
                self.draft.warnings.push(format!(
                    "span `{id}` ({name}) is nested in `{outer}` but names parent `{declared}`; the nesting wins"
                ));
                Some(outer)
            }
            (Some(outer), _) => Some(outer),
            (None, declared) => declared,
        };
        if self.draft.metadata.is_empty() {
            if let Some(trace_id) = trace_id {
                self.draft.id = trace_id.into();
            }
            if let Some(service) = &raw.service_name {
                self.draft
                    .metadata
                    .insert("service_name".to_owned(), Value::String(service.clone()));
            }
            if let Some(resource) = raw.resource_attributes.clone().filter(|r| !r.is_null()) {
                self.draft.metadata.insert("resource".to_owned(), resource);
            }
        }
        let mut span = Span::new(id.clone(), name, SpanKind::Other, seq);
        span.parent = parent;
        span.start = raw
            .timestamp
            .as_ref()
            .and_then(|v| time_ns(v, Numeric::Guess));
        let duration = raw.duration.as_ref().and_then(duration_ns);
        span.end = raw
            .end_time
            .as_ref()
            .and_then(|v| time_ns(v, Numeric::Guess))
            .or_else(|| span.start.zip(duration).and_then(|(s, d)| s.checked_add(d)));
        span.status.code = raw
            .status_code
            .as_ref()
            .map(status_code)
            .unwrap_or_default();
        span.status.message = raw
            .status_message
            .filter(|m| !m.is_empty())
            .map(String::into_boxed_str);
        let mut attrs = raw.span_attributes.map(flatten_attrs).unwrap_or_default();
        if let Some(kind) = raw.span_kind.as_ref().and_then(span_kind_word) {
            attrs.insert("span.kind".to_owned(), Value::String(kind));
        }
        if let Some(logs) = raw.logs.filter(|l| !l.is_empty()) {
            attrs.insert("logs".to_owned(), Value::Array(logs));
        }
        let events = raw
            .events
            .unwrap_or_default()
            .into_iter()
            .map(event)
            .collect();
        absorb_events(&mut span, &mut attrs, events);
        apply_attributes(&mut span, attrs);
        self.draft.spans.push(span);
        Ok(id)
    }
}

/// A duration: ISO-8601 (`PT1.5S`) or a number of seconds.
fn duration_ns(value: &Value) -> Option<u64> {
    match value {
        Value::String(s) => parse_duration(s),
        Value::Number(n) => n
            .as_f64()
            .filter(|f| f.is_finite() && *f >= 0.0 && *f < 1.8e10)
            .map(|f| (f * 1e9).round() as u64),
        _ => None,
    }
}

fn event(value: Value) -> Event {
    let Value::Object(mut map) = value else {
        return Event {
            name: text_of(&value),
            time: None,
            attributes: Attrs::new(),
        };
    };
    let name = map.remove("name").map(|v| text_of(&v)).unwrap_or_default();
    let time = map
        .remove("timestamp")
        .or_else(|| map.remove("time"))
        .and_then(|v| time_ns(&v, Numeric::Guess));
    let attributes = match map.remove("attributes") {
        Some(Value::Object(a)) => flatten_attrs(a),
        _ => Attrs::new(),
    };
    Event {
        name,
        time,
        attributes,
    }
}
