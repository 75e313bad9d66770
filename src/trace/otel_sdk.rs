//! `OTel` SDK span dumps (`ReadableSpan.to_json()` and look-alikes): the
//! any-agent shape `{"spans": […], "final_output": …}`, a bare array of
//! spans, or JSONL with one span (or one such document) per line.
//!
//! Ids in `context.span_id`/`parent.span_id` may be DECIMAL integers of 64
//! or 128 bits: they are read through [`RawValue`] and kept as their exact
//! decimal text. Hex strings (`0x…`) are accepted too, as are a top-level
//! `parent_id`/`parent_span_id`. Times are epoch nanoseconds or ISO-8601
//! strings; status codes `ok|unset|error` in any spelling. The root is often
//! listed last; order comes from the clocks.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::model::ShortText;
use crate::trace::assemble::{Draft, Groups};
use crate::trace::detect::{Layout, Plan};
use crate::trace::error::TraceError;
use crate::trace::ids::id_from_raw;
use crate::trace::input::Input;
use crate::trace::json::{Attrs, flatten_attrs, raw_text};
use crate::trace::model::{Span, SpanKind, Trace, TraceFormat};
use crate::trace::otel::{Event, absorb_events, apply_attributes, span_kind_word, status_code};
use crate::trace::time::{Numeric, time_ns};

#[derive(Deserialize)]
struct Document {
    spans: Vec<SdkSpan>,
    #[serde(default)]
    final_output: Option<Box<RawValue>>,
}

#[derive(Deserialize)]
struct SdkSpan {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    kind: Option<Value>,
    #[serde(default)]
    context: Option<Context>,
    #[serde(default)]
    parent: Option<Context>,
    #[serde(default)]
    parent_id: Option<Box<RawValue>>,
    #[serde(default)]
    parent_span_id: Option<Box<RawValue>>,
    #[serde(default)]
    start_time: Option<Value>,
    #[serde(default)]
    end_time: Option<Value>,
    #[serde(default)]
    status: Option<SdkStatus>,
    #[serde(default)]
    attributes: Option<serde_json::Map<String, Value>>,
    #[serde(default)]
    events: Option<Vec<SdkEvent>>,
    #[serde(default)]
    resource: Option<Value>,
}

#[derive(Deserialize)]
struct Context {
    #[serde(default)]
    trace_id: Option<Box<RawValue>>,
    #[serde(default)]
    span_id: Option<Box<RawValue>>,
}

#[derive(Deserialize)]
struct SdkStatus {
    #[serde(default)]
    status_code: Option<Value>,
    #[serde(default)]
    description: Option<String>,
}

#[derive(Deserialize)]
struct SdkEvent {
    #[serde(default)]
    name: String,
    #[serde(default)]
    timestamp: Option<Value>,
    #[serde(default)]
    attributes: Option<serde_json::Map<String, Value>>,
}

/// Read an `OTel` SDK dump.
pub(crate) fn parse(input: &Input<'_>, plan: &Plan) -> Result<Vec<Trace>, TraceError> {
    let mut reader = Reader::default();
    match plan.layout {
        Layout::Document if plan.shape.is_array() => {
            let spans: Vec<SdkSpan> = input.parse_document("an array of OTel SDK spans")?;
            reader.add_spans(input, spans, None)?;
        }
        Layout::Document if plan.shape.has("spans") => {
            let doc: Document =
                input.parse_document("an OTel SDK span dump (`{\"spans\": […]}`)")?;
            reader.add_spans(input, doc.spans, None)?;
            reader.final_output = doc.final_output.as_deref().and_then(raw_text);
        }
        Layout::Document => {
            let span: SdkSpan = input.parse_document("an OTel SDK span")?;
            reader.add_spans(input, vec![span], None)?;
        }
        Layout::Lines if plan.shape.has("spans") => {
            for record in input.values::<Document>("an OTel SDK span dump") {
                let record = record?;
                reader.add_spans(input, record.value.spans, Some(record.line))?;
            }
        }
        Layout::Lines => {
            for record in input.values::<SdkSpan>("an OTel SDK span") {
                let record = record?;
                reader.add_spans(input, vec![record.value], Some(record.line))?;
            }
        }
    }
    Ok(reader.finish(input))
}

#[derive(Default)]
struct Reader {
    groups: Groups,
    resource: Option<Value>,
    final_output: Option<String>,
    warnings: Vec<String>,
    seq: usize,
}

impl Reader {
    fn add_spans(
        &mut self,
        input: &Input<'_>,
        spans: Vec<SdkSpan>,
        line: Option<usize>,
    ) -> Result<(), TraceError> {
        for raw in spans {
            let (trace_id, span) = self.span(raw).map_err(|message| match line {
                Some(n) => {
                    input.invalid_line(n, message, "span ids must be integers or hex strings")
                }
                None => input.invalid(message, "span ids must be integers or hex strings"),
            })?;
            self.groups.push(&trace_id, span);
        }
        Ok(())
    }

    fn span(&mut self, raw: SdkSpan) -> Result<(String, Span), String> {
        let seq = self.seq;
        self.seq += 1;
        let name = raw.name.unwrap_or_default();
        let raw_id = |r: &Option<Box<RawValue>>, what: &str| -> Result<Option<ShortText>, String> {
            match r {
                Some(r) => {
                    id_from_raw(r).map_err(|e| format!("span #{seq} ({name}): bad `{what}`: {e}"))
                }
                None => Ok(None),
            }
        };
        let (trace_id, span_id) = match &raw.context {
            Some(c) => (
                raw_id(&c.trace_id, "context.trace_id")?,
                raw_id(&c.span_id, "context.span_id")?,
            ),
            None => (None, None),
        };
        let parent = match &raw.parent {
            Some(p) => raw_id(&p.span_id, "parent.span_id")?,
            None => None,
        };
        let parent = match parent {
            Some(p) => Some(p),
            None => raw_id(&raw.parent_id, "parent_id")?
                .or(raw_id(&raw.parent_span_id, "parent_span_id")?),
        };
        let id = span_id.unwrap_or_else(|| {
            self.warnings.push(format!(
                "span #{seq} ({name}) has no `context.span_id`; it is named `s{seq}`"
            ));
            compact_str::format_compact!("s{seq}")
        });
        let mut span = Span::new(id, name, SpanKind::Other, seq);
        span.parent = parent;
        span.start = raw
            .start_time
            .as_ref()
            .and_then(|v| time_ns(v, Numeric::Nanos));
        span.end = raw
            .end_time
            .as_ref()
            .and_then(|v| time_ns(v, Numeric::Nanos));
        if let Some(status) = raw.status {
            span.status.code = status
                .status_code
                .as_ref()
                .map(status_code)
                .unwrap_or_default();
            span.status.message = status
                .description
                .filter(|d| !d.is_empty())
                .map(String::into_boxed_str);
        }
        let mut attrs = raw.attributes.map(flatten_attrs).unwrap_or_default();
        if let Some(kind) = raw.kind.as_ref().and_then(span_kind_word) {
            attrs.insert("span.kind".to_owned(), Value::String(kind));
        }
        let events = raw
            .events
            .unwrap_or_default()
            .into_iter()
            .map(event)
            .collect();
        absorb_events(&mut span, &mut attrs, events);
        apply_attributes(&mut span, attrs);
        if self.resource.is_none() {
            // `ReadableSpan.to_json()` wraps the resource as `{attributes, schema_url}`.
            self.resource = raw
                .resource
                .map(|r| match r {
                    Value::Object(mut m) if m.get("attributes").is_some_and(Value::is_object) => {
                        m.remove("attributes").unwrap_or_default()
                    }
                    other => other,
                })
                .filter(|r| !r.is_null());
        }
        Ok((trace_id.map(String::from).unwrap_or_default(), span))
    }

    fn finish(self, input: &Input<'_>) -> Vec<Trace> {
        let Self {
            groups,
            resource,
            final_output,
            warnings,
            ..
        } = self;
        let groups = groups.into_groups();
        let single = groups.len() == 1;
        groups
            .into_iter()
            .map(|(trace_id, spans)| {
                let id = if trace_id.is_empty() {
                    input.stem()
                } else {
                    trace_id
                };
                let mut draft = Draft::new(id, TraceFormat::OtelSdk);
                draft.spans = spans;
                draft.warnings.clone_from(&warnings);
                if let Some(resource) = &resource {
                    draft
                        .metadata
                        .insert("resource".to_owned(), resource.clone());
                }
                if single {
                    draft.final_output.clone_from(&final_output);
                }
                draft.finish()
            })
            .collect()
    }
}

fn event(raw: SdkEvent) -> Event {
    let attributes: Attrs = raw.attributes.map(flatten_attrs).unwrap_or_default();
    Event {
        name: raw.name,
        time: raw
            .timestamp
            .as_ref()
            .and_then(|v| time_ns(v, Numeric::Nanos)),
        attributes,
    }
}
