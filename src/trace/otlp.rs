//! OTLP/JSON (`resourceSpans[].scopeSpans[].spans[]`, also the older
//! `instrumentationLibrarySpans`): one export request, an array of them, or
//! JSONL with one request per line. Parsed into typed structs (this is the
//! hot path), hex ids lower-cased, `kind`/status enums as integers (names
//! accepted too), 64-bit integers and times as strings or numbers, every
//! `AnyValue` variant. Spans are grouped into one trace per `traceId`.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::model::ShortText;
use crate::trace::assemble::{Draft, Groups};
use crate::trace::detect::{Layout, Plan};
use crate::trace::error::TraceError;
use crate::trace::ids::normalize_id;
use crate::trace::input::Input;
use crate::trace::json::{Attrs, flatten_into};
use crate::trace::model::{Span, SpanKind, Trace, TraceFormat};
use crate::trace::otel::{Event, absorb_events, apply_attributes, span_kind_word, status_code};
use crate::trace::time::{Numeric, time_ns};

mod stream;

const WHAT: &str = "an OTLP/JSON export request";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExportRequest {
    #[serde(default, alias = "resource_spans")]
    resource_spans: Vec<ResourceSpans>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResourceSpans {
    #[serde(default)]
    resource: Option<Resource>,
    #[serde(default, alias = "scope_spans")]
    scope_spans: Vec<ScopeSpans>,
    #[serde(default, alias = "instrumentation_library_spans")]
    instrumentation_library_spans: Vec<ScopeSpans>,
}

#[derive(Deserialize)]
struct Resource {
    #[serde(default)]
    attributes: Vec<KeyValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ScopeSpans {
    #[serde(
        default,
        alias = "instrumentationLibrary",
        alias = "instrumentation_library"
    )]
    scope: Option<Scope>,
    #[serde(default)]
    spans: Vec<OtlpSpan>,
}

#[derive(Deserialize)]
struct Scope {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    version: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OtlpSpan {
    #[serde(default, alias = "trace_id")]
    trace_id: Option<String>,
    #[serde(default, alias = "span_id")]
    span_id: Option<String>,
    #[serde(default, alias = "parent_span_id")]
    parent_span_id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    kind: Option<Value>,
    #[serde(default, alias = "start_time_unix_nano")]
    start_time_unix_nano: Option<Value>,
    #[serde(default, alias = "end_time_unix_nano")]
    end_time_unix_nano: Option<Value>,
    #[serde(default)]
    attributes: Vec<KeyValue>,
    #[serde(default)]
    events: Vec<OtlpEvent>,
    #[serde(default)]
    status: Option<OtlpStatus>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OtlpEvent {
    #[serde(default, alias = "time_unix_nano")]
    time_unix_nano: Option<Value>,
    #[serde(default)]
    name: String,
    #[serde(default)]
    attributes: Vec<KeyValue>,
}

#[derive(Deserialize)]
struct OtlpStatus {
    #[serde(default)]
    code: Option<Value>,
    #[serde(default)]
    message: Option<String>,
}

#[derive(Deserialize)]
struct KeyValue {
    key: String,
    #[serde(default)]
    value: Option<AnyValue>,
}

/// `AnyValue`: exactly one field is set (none means empty).
#[derive(Deserialize)]
struct AnyValue {
    #[serde(default, rename = "stringValue", alias = "string_value")]
    string: Option<String>,
    #[serde(default, rename = "boolValue", alias = "bool_value")]
    boolean: Option<bool>,
    #[serde(default, rename = "intValue", alias = "int_value")]
    int: Option<Value>,
    #[serde(default, rename = "doubleValue", alias = "double_value")]
    double: Option<Value>,
    #[serde(default, rename = "arrayValue", alias = "array_value")]
    array: Option<ValueList>,
    #[serde(default, rename = "kvlistValue", alias = "kvlist_value")]
    kvlist: Option<KeyValueList>,
    #[serde(default, rename = "bytesValue", alias = "bytes_value")]
    bytes: Option<String>,
}

#[derive(Deserialize)]
struct ValueList {
    #[serde(default)]
    values: Vec<AnyValue>,
}

#[derive(Deserialize)]
struct KeyValueList {
    #[serde(default)]
    values: Vec<KeyValue>,
}

impl AnyValue {
    fn into_json(self) -> Value {
        if let Some(s) = self.string {
            return Value::String(s);
        }
        if let Some(b) = self.boolean {
            return Value::Bool(b);
        }
        if let Some(i) = self.int {
            return int_json(i);
        }
        if let Some(d) = self.double {
            return double_json(d);
        }
        if let Some(list) = self.array {
            return Value::Array(list.values.into_iter().map(AnyValue::into_json).collect());
        }
        if let Some(kv) = self.kvlist {
            let map: Map<String, Value> = kv
                .values
                .into_iter()
                .map(|k| (k.key, k.value.map_or(Value::Null, AnyValue::into_json)))
                .collect();
            return Value::Object(map);
        }
        if let Some(bytes) = self.bytes {
            return Value::String(bytes);
        }
        Value::Null
    }
}

/// `intValue` is an int64 written as a string or a number.
fn int_json(value: Value) -> Value {
    match &value {
        Value::String(s) => s.trim().parse::<i64>().map_or(value, Value::from),
        _ => value,
    }
}

/// `doubleValue` may be a number (`0` is still a double) or a string
/// (`"NaN"`, `"Infinity"`, `"1.5"`); non-finite values stay strings.
fn double_json(value: Value) -> Value {
    let parsed = match &value {
        Value::String(s) => s.trim().parse::<f64>().ok(),
        Value::Number(n) => n.as_f64(),
        _ => None,
    };
    match parsed {
        Some(f) if f.is_finite() => Value::from(f),
        _ => value,
    }
}

fn attrs_of(list: Vec<KeyValue>) -> Attrs {
    let mut attrs = Attrs::new();
    for kv in list {
        let value = kv.value.map_or(Value::Null, AnyValue::into_json);
        flatten_into(&kv.key, value, &mut attrs);
    }
    attrs
}

/// Read an OTLP file.
pub(crate) fn parse(input: &Input<'_>, plan: &Plan) -> Result<Vec<Trace>, TraceError> {
    Ok(read(input, plan)?.finish())
}

/// The spans of an OTLP file, read but not yet finished into traces: finishing needs none of
/// the file's bytes, so [`super::load::read_traces`] lets them go first (on one large trace
/// they are a file's worth of the peak).
pub(crate) struct Pending {
    reader: Reader,
    /// The file's stem: the id of spans without a trace id.
    stem: String,
}

impl Pending {
    pub(crate) fn finish(self) -> Vec<Trace> {
        self.reader.finish(&self.stem)
    }
}

/// Read the spans of an OTLP file ([`Pending`]).
pub(crate) fn read(input: &Input<'_>, plan: &Plan) -> Result<Pending, TraceError> {
    let mut reader = Reader::default();
    match plan.layout {
        Layout::Document => {
            // Span by span; anything unusual is read again, typed whole,
            // for the same result or the document's own error.
            if stream::read(input.bytes, plan.shape.is_array(), &mut reader).is_err() {
                reader = Reader::default();
                if plan.shape.is_array() {
                    let requests: Vec<ExportRequest> =
                        input.parse_document("an array of OTLP/JSON export requests")?;
                    for request in requests {
                        reader.add(request);
                    }
                } else {
                    reader.add(input.parse_document(WHAT)?);
                }
            }
        }
        Layout::Lines => {
            for record in input.values(WHAT) {
                reader.add(record?.value);
            }
        }
    }
    Ok(Pending {
        reader,
        stem: input.stem(),
    })
}

#[derive(Default)]
struct Reader {
    groups: Groups,
    /// The first resource seen for each trace id.
    resources: HashMap<ShortText, Value>,
    /// Warnings per trace id.
    warnings: HashMap<ShortText, Vec<String>>,
    seq: usize,
}

impl Reader {
    fn add(&mut self, request: ExportRequest) {
        for rs in request.resource_spans {
            let mut seen = HashSet::new();
            for ss in rs
                .scope_spans
                .into_iter()
                .chain(rs.instrumentation_library_spans)
            {
                for raw in ss.spans {
                    self.add_span(raw, ss.scope.as_ref(), &mut seen);
                }
            }
            self.add_resource(rs.resource, seen);
        }
    }

    /// Convert one span and file it under its trace; `seen` collects the
    /// trace ids of the resource it belongs to.
    fn add_span(&mut self, raw: OtlpSpan, scope: Option<&Scope>, seen: &mut HashSet<ShortText>) {
        let trace_id = raw
            .trace_id
            .as_deref()
            .and_then(normalize_id)
            .unwrap_or_default();
        let span = self.span(raw, scope, &trace_id);
        // A trace's spans mostly come together: its id was just looked at.
        if self.groups.last_id() != Some(trace_id.as_str())
            && !self.resources.contains_key(&trace_id)
            && !seen.contains(&trace_id)
        {
            seen.insert(trace_id.clone());
        }
        self.groups.push(&trace_id, span);
    }

    /// The resource of the spans just added becomes the resource of every
    /// trace they started (the first resource seen for each trace id).
    fn add_resource(&mut self, resource: Option<Resource>, seen: HashSet<ShortText>) {
        if seen.is_empty() {
            return;
        }
        let resource = resource.map(|r| attrs_of(r.attributes)).unwrap_or_default();
        let resource = Value::Object(resource.into_iter().collect());
        for trace_id in seen {
            self.resources
                .entry(trace_id)
                .or_insert_with(|| resource.clone());
        }
    }

    fn span(&mut self, raw: OtlpSpan, scope: Option<&Scope>, trace_id: &str) -> Span {
        let seq = self.seq;
        self.seq += 1;
        let id = raw
            .span_id
            .as_deref()
            .and_then(normalize_id)
            .unwrap_or_else(|| {
                let name = raw.name.as_deref().unwrap_or("");
                let warning = format!("span #{seq} ({name}) has no `spanId`; it is named `s{seq}`");
                self.warnings
                    .entry(trace_id.into())
                    .or_default()
                    .push(warning);
                compact_str::format_compact!("s{seq}")
            });
        let mut span = Span::new(id, raw.name.unwrap_or_default(), SpanKind::Other, seq);
        span.parent = raw.parent_span_id.as_deref().and_then(normalize_id);
        span.start = raw
            .start_time_unix_nano
            .as_ref()
            .and_then(|v| time_ns(v, Numeric::Nanos));
        span.end = raw
            .end_time_unix_nano
            .as_ref()
            .and_then(|v| time_ns(v, Numeric::Nanos));
        if let Some(status) = raw.status {
            span.status.code = status.code.as_ref().map(status_code).unwrap_or_default();
            span.status.message = status
                .message
                .filter(|m| !m.is_empty())
                .map(String::into_boxed_str);
        }
        let mut attrs = attrs_of(raw.attributes);
        if let Some(kind) = raw.kind.as_ref().and_then(span_kind_word) {
            attrs.insert("span.kind".to_owned(), Value::String(kind));
        }
        if let Some(scope) = scope {
            if let Some(name) = scope.name.as_ref().filter(|n| !n.is_empty()) {
                attrs.insert("otel.scope.name".to_owned(), Value::String(name.clone()));
            }
            if let Some(version) = scope.version.as_ref().filter(|v| !v.is_empty()) {
                attrs.insert(
                    "otel.scope.version".to_owned(),
                    Value::String(version.clone()),
                );
            }
        }
        let events = raw
            .events
            .into_iter()
            .map(|e| Event {
                name: e.name,
                time: e
                    .time_unix_nano
                    .as_ref()
                    .and_then(|v| time_ns(v, Numeric::Nanos)),
                attributes: attrs_of(e.attributes),
            })
            .collect();
        absorb_events(&mut span, &mut attrs, events);
        apply_attributes(&mut span, attrs);
        span
    }

    fn finish(self, stem: &str) -> Vec<Trace> {
        let Self {
            groups,
            mut resources,
            mut warnings,
            ..
        } = self;
        groups
            .into_groups()
            .into_iter()
            .map(|(trace_id, spans)| {
                let id = if trace_id.is_empty() {
                    stem.to_owned()
                } else {
                    trace_id.clone()
                };
                let mut draft = Draft::new(id, TraceFormat::Otlp);
                draft.spans = spans;
                draft.warnings = warnings.remove(trace_id.as_str()).unwrap_or_default();
                if let Some(resource) = resources
                    .remove(trace_id.as_str())
                    .filter(|r| r.as_object().is_some_and(|m| !m.is_empty()))
                {
                    draft.metadata.insert("resource".to_owned(), resource);
                }
                draft.finish()
            })
            .collect()
    }
}
