//! Format detection: sniff the layout (one JSON document, or JSONL) and the
//! keys of the first record, and pick the adapter. Valid JSON that is not a
//! trace gets a [`TraceError::UnknownFormat`] saying what it looks like.

use crate::trace::error::TraceError;
use crate::trace::input::Input;
use crate::trace::model::TraceFormat;
use crate::trace::shape::Shape;

/// The formats accepted, for error hints.
pub(crate) const ACCEPTED: &str = "accepted trace formats: OTLP/JSON (`resourceSpans`), OTel SDK span dumps \
(`{\"spans\": [{\"context\": …}]}`, a span array or JSONL), OpenInference spans (`openinference.span.kind`, \
nested `child_spans`), a bare GenAI/OpenInference attribute map, workflow telemetry JSONL (`tool_name`, \
`span_type`), OpenAI chat messages or tau-bench episodes (`messages`, `traj`), SWE-agent `.traj` files \
(`trajectory`, `history`) and Who&When multi-agent logs (`history` with speakers)";

/// How the file is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// One JSON document.
    Document,
    /// JSON values one after another: one per line (JSONL), or written
    /// back to back, pretty-printed or not.
    Lines,
}

/// What to do with a file: which adapter, which layout, and the sketch of
/// the document (or of the first JSONL line).
#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) format: TraceFormat,
    pub(crate) layout: Layout,
    pub(crate) shape: Shape,
}

/// Decide how to read `input`.
pub(crate) fn plan(input: &Input<'_>) -> Result<Plan, TraceError> {
    if input.is_blank() {
        return Err(TraceError::Empty {
            path: input.path.to_path_buf(),
        });
    }
    let (layout, shape) =
        sniff_layout(input).map_err(|e| input.json_error(&e, None, "a JSON document"))?;
    match classify(&shape, layout) {
        Ok(format) => Ok(Plan {
            format,
            layout,
            shape,
        }),
        Err(unknown) => Err(unknown.into_error(input, &shape)),
    }
}

/// A plan that reads `input` as `format`, whatever it looks like (fuzzing
/// every adapter with every input).
pub(crate) fn plan_as(input: &Input<'_>, format: TraceFormat) -> Result<Plan, TraceError> {
    if input.is_blank() {
        return Err(TraceError::Empty {
            path: input.path.to_path_buf(),
        });
    }
    let (layout, shape) =
        sniff_layout(input).map_err(|e| input.json_error(&e, None, "a JSON document"))?;
    Ok(Plan {
        format,
        layout,
        shape,
    })
}

/// The format of `bytes`, or `None` when they are not a trace we can read.
pub(crate) fn detect(bytes: &[u8]) -> Option<TraceFormat> {
    let input = Input::new(std::path::Path::new("-"), bytes);
    if input.is_blank() {
        return None;
    }
    let (layout, shape) = sniff_layout(&input).ok()?;
    classify(&shape, layout).ok()
}

/// A stream of values when the first non-blank line is a complete JSON
/// object or array and another non-blank line follows (JSONL), or when the
/// file holds several values one after another (pretty-printed, as the
/// Python SDK's `ConsoleSpanExporter` writes them); otherwise one document.
fn sniff_layout(input: &Input<'_>) -> Result<(Layout, Shape), serde_json::Error> {
    let is_container = |shape: &Shape| matches!(shape, Shape::Object(_) | Shape::Array { .. });
    let mut lines = input
        .bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace));
    if let Some(first) = lines.next()
        && lines.next().is_some()
        && let Ok(shape) = Shape::of(first)
        && is_container(&shape)
    {
        return Ok((Layout::Lines, shape));
    }
    match Shape::of(input.bytes) {
        Ok(shape) => Ok((Layout::Document, shape)),
        Err(err) => {
            // A second value (or anything) after a complete first one: read
            // the file as a stream, whose adapter reports a bad value exactly.
            let mut values = serde_json::Deserializer::from_slice(input.bytes).into_iter::<Shape>();
            match values.next() {
                Some(Ok(shape)) if is_container(&shape) && values.next().is_some() => {
                    Ok((Layout::Lines, shape))
                }
                _ => Err(err),
            }
        }
    }
}

/// Why a valid JSON file is not a trace.
pub(crate) struct Unknown {
    looks_like: String,
    hint: Option<String>,
}

impl Unknown {
    fn new(looks_like: impl Into<String>) -> Self {
        Self {
            looks_like: looks_like.into(),
            hint: None,
        }
    }

    fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    fn into_error(self, input: &Input<'_>, shape: &Shape) -> TraceError {
        if matches!(shape, Shape::Array { len: 0, .. }) {
            return TraceError::Empty {
                path: input.path.to_path_buf(),
            };
        }
        let help = match self.hint {
            Some(hint) => format!("{hint}; {ACCEPTED}"),
            None => ACCEPTED.to_owned(),
        };
        let message = format!("not a trace: this looks like {}", self.looks_like);
        TraceError::unknown_format(input.diagnostic(message).with_help(help))
    }
}

fn classify(shape: &Shape, layout: Layout) -> Result<TraceFormat, Unknown> {
    match shape {
        Shape::Object(_) => classify_object(shape, layout),
        Shape::Array {
            first: Some(first), ..
        } => classify_array_element(first),
        Shape::Array { first: None, .. } => Err(Unknown::new("an empty JSON array")),
        other => Err(Unknown::new(format!(
            "a single JSON value ({})",
            other.describe()
        ))),
    }
}

fn classify_object(o: &Shape, layout: Layout) -> Result<TraceFormat, Unknown> {
    if o.has("resourceSpans") || o.has("resource_spans") {
        return Ok(TraceFormat::Otlp);
    }
    // Any `spans`, even of the wrong type: the adapter reports it precisely.
    if let Some(spans) = o.get("spans") {
        return match spans.first() {
            Some(first) if is_nested_openinference_span(first) => Ok(TraceFormat::OpenInference),
            _ => Ok(TraceFormat::OtelSdk),
        };
    }
    if o.has("traj") || o.has("messages") {
        return Ok(TraceFormat::ChatMessages);
    }
    if o.has("trajectory") {
        return Ok(TraceFormat::SweAgent);
    }
    if o.has("history") {
        return Ok(TraceFormat::MultiAgentChat);
    }
    if o.has("tool_name") && (o.has("span_type") || o.has("parent_trace_id")) {
        return Ok(TraceFormat::TelemetryJsonl);
    }
    if is_nested_openinference_span(o) {
        return Ok(TraceFormat::OpenInference);
    }
    if o.has("context") && o.has("name") {
        return Ok(TraceFormat::OtelSdk);
    }
    if layout == Layout::Lines && o.has("role") && (o.has("content") || o.has("tool_calls")) {
        return Ok(TraceFormat::ChatMessages);
    }
    if is_attribute_map(o) {
        return Ok(TraceFormat::AttributeMap);
    }
    Err(unknown_object(o))
}

fn classify_array_element(first: &Shape) -> Result<TraceFormat, Unknown> {
    if first.has("traj") || first.has("role") {
        return Ok(TraceFormat::ChatMessages);
    }
    if first.has("resourceSpans") {
        return Ok(TraceFormat::Otlp);
    }
    if is_nested_openinference_span(first) {
        return Ok(TraceFormat::OpenInference);
    }
    if first.has("context") && first.has("name") {
        return Ok(TraceFormat::OtelSdk);
    }
    if first.has("tool_name") && first.has("span_type") {
        return Ok(TraceFormat::TelemetryJsonl);
    }
    match first {
        Shape::Object(_) => Err(unknown_object(first).map_looks(|l| format!("an array of {l}s"))),
        other => Err(Unknown::new(format!(
            "an array of {} values",
            other.describe().trim_start_matches("a ")
        ))),
    }
}

impl Unknown {
    fn map_looks(mut self, f: impl FnOnce(&str) -> String) -> Self {
        self.looks_like = f(&self.looks_like);
        self
    }
}

/// The nested `OpenInference` export (`span_id`, `span_name`, `child_spans`,
/// `span_attributes`, ISO times).
fn is_nested_openinference_span(s: &Shape) -> bool {
    s.has("child_spans") || s.has("span_attributes") || (s.has("span_id") && s.has("span_name"))
}

fn is_attribute_map(o: &Shape) -> bool {
    o.keys().any(|k| {
        k == "openinference.span.kind"
            || k.starts_with("gen_ai.")
            || k.starts_with("llm.")
            || k == "input.value"
            || k == "tool.name"
    })
}

fn unknown_object(o: &Shape) -> Unknown {
    let schema_keys = ["$schema", "$defs", "definitions", "$ref"];
    let typed = o.has("type")
        && ["properties", "items", "enum", "anyOf", "oneOf", "allOf"]
            .iter()
            .any(|k| o.has(k));
    if schema_keys.iter().any(|k| o.has(k)) || typed {
        let found: Vec<String> = o
            .keys()
            .filter(|k| {
                k.starts_with('$') || matches!(*k, "type" | "properties" | "items" | "definitions")
            })
            .map(|k| format!("`{k}`"))
            .collect();
        return Unknown::new(format!("a JSON Schema ({})", found.join(", "))).hint(
            "a schema describes data; point the command at a trace file, not at `*.schema.json`",
        );
    }
    if o.has("instance_id") && o.has("model_patch") {
        return Unknown::new("a SWE-bench predictions record (`instance_id`, `model_patch`)").hint(
            "a predictions file holds only the final patch, not the agent's steps; pass the SWE-agent \
             `<instance_id>.traj` trajectory instead",
        );
    }
    if o.has("resourceMetrics") || o.has("resourceLogs") {
        return Unknown::new("an OTLP metrics or logs export, not traces")
            .hint("export traces (`resourceSpans`) from the collector instead");
    }
    let keys: Vec<String> = o.keys().take(6).map(|k| format!("`{k}`")).collect();
    let more = if o.keys().count() > 6 { ", …" } else { "" };
    if keys.is_empty() {
        Unknown::new("an empty JSON object")
    } else {
        Unknown::new(format!("a JSON object with keys {}{more}", keys.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format_of(text: &str) -> Option<TraceFormat> {
        detect(text.as_bytes())
    }

    #[test]
    fn documents_are_classified_by_their_keys() {
        assert_eq!(
            format_of(r#"{"resourceSpans": []}"#),
            Some(TraceFormat::Otlp)
        );
        assert_eq!(
            format_of(r#"{"spans": [{"context": {}, "name": "x"}]}"#),
            Some(TraceFormat::OtelSdk)
        );
        assert_eq!(
            format_of(r#"{"spans": [{"span_id": "a", "span_name": "x"}]}"#),
            Some(TraceFormat::OpenInference)
        );
        assert_eq!(
            format_of(r#"[{"traj": []}]"#),
            Some(TraceFormat::ChatMessages)
        );
        assert_eq!(
            format_of(r#"[{"role": "user", "content": "hi"}]"#),
            Some(TraceFormat::ChatMessages)
        );
        assert_eq!(
            format_of(r#"{"trajectory": [], "history": []}"#),
            Some(TraceFormat::SweAgent)
        );
        assert_eq!(
            format_of(r#"{"history": [], "mistake_agent": "x"}"#),
            Some(TraceFormat::MultiAgentChat)
        );
        assert_eq!(
            format_of(r#"{"gen_ai.operation.name": "chat"}"#),
            Some(TraceFormat::AttributeMap)
        );
        assert_eq!(format_of(r#"{"$schema": "x", "type": "object"}"#), None);
    }

    #[test]
    fn jsonl_is_classified_by_its_first_line() {
        let telemetry =
            "{\"tool_name\": \"Read\", \"span_type\": \"parent\"}\n{\"tool_name\": \"Bash\"}\n";
        assert_eq!(format_of(telemetry), Some(TraceFormat::TelemetryJsonl));
        let sdk = "{\"name\": \"a\", \"context\": {}}\n{\"name\": \"b\", \"context\": {}}\n";
        assert_eq!(format_of(sdk), Some(TraceFormat::OtelSdk));
    }

    #[test]
    fn values_written_one_after_another_are_a_stream() {
        let pretty = "{\n    \"name\": \"a\",\n    \"context\": {}\n}\n{\n    \"name\": \"b\",\n    \"context\": {}\n}\n";
        let input = Input::new(std::path::Path::new("console.txt"), pretty.as_bytes());
        let sniffed = plan(&input).unwrap();
        assert_eq!(
            (sniffed.format, sniffed.layout),
            (TraceFormat::OtelSdk, Layout::Lines)
        );
        assert_eq!(
            format_of(r#"{"name": "a", "context": {}}{"name": "b", "context": {}}"#),
            Some(TraceFormat::OtelSdk)
        );
        // One pretty-printed document stays a document; scalars after
        // scalars are no stream of records.
        assert_eq!(
            format_of("{\n  \"resourceSpans\": []\n}\n"),
            Some(TraceFormat::Otlp)
        );
        let input = Input::new(std::path::Path::new("n.json"), b"1 2");
        assert!(
            plan(&input)
                .unwrap_err()
                .to_string()
                .contains("trailing characters")
        );
    }

    #[test]
    fn unknown_json_names_what_it_looks_like() {
        let input = Input::new(
            std::path::Path::new("p.jsonl"),
            br#"{"instance_id": "a", "model_patch": "diff"}"#,
        );
        let err = plan(&input).unwrap_err();
        assert!(matches!(err, TraceError::UnknownFormat(_)));
        assert!(err.to_string().contains("SWE-bench predictions"), "{err}");
        assert_eq!(err.exit_code().code(), 65);
    }
}
