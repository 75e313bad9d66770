//! A bare span-attribute map: a flat JSON object of `GenAI` and/or
//! `OpenInference` attributes with no span envelope (no ids, no clocks). It
//! becomes a one-span trace named after the file; in JSONL, every line is
//! its own one-span trace.

use serde_json::{Map, Value};

use crate::trace::assemble::Draft;
use crate::trace::detect::Plan;
use crate::trace::error::TraceError;
use crate::trace::input::Input;
use crate::trace::json::{flatten_attrs, text_of};
use crate::trace::model::{Span, SpanKind, Trace, TraceFormat};
use crate::trace::otel::apply_attributes;

const WHAT: &str = "a span attribute map (a JSON object)";

/// Read an attribute map file.
pub(crate) fn parse(input: &Input<'_>, plan: &Plan) -> Result<Vec<Trace>, TraceError> {
    input.each_record(plan.layout, WHAT, one_span_trace)
}

fn one_span_trace(id: String, map: Map<String, Value>) -> Trace {
    let attrs = flatten_attrs(map);
    let name = ["gen_ai.operation.name", "openinference.span.kind"]
        .iter()
        .find_map(|k| attrs.get(*k).map(text_of))
        .unwrap_or_else(|| "span".to_owned());
    let mut span = Span::new("0", name, SpanKind::Other, 0);
    apply_attributes(&mut span, attrs);
    let mut draft = Draft::new(id, TraceFormat::AttributeMap);
    draft.spans.push(span);
    draft.finish()
}
