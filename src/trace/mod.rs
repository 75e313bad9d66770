//! Trace ingestion: every supported format into one span model (DESIGN §4).
//!
//! [`read_traces`]/[`read_trace`] read a file, detect its format and run one
//! adapter per format; [`render_text`] shows the result. See `model` for the
//! span model every adapter produces.

mod agent_names;
mod assemble;
mod attr_value;
mod attribute_map;
mod chat;
pub(crate) mod conversation;
mod detect;
mod error;
mod genai;
mod handoffs;
mod ids;
mod input;
mod json;
mod load;
mod messages;
pub(crate) mod model;
mod multi_agent;
mod openinference;
mod openinference_nested;
mod otel;
mod otel_sdk;
mod otlp;
mod pyrepr;
mod render;
mod shape;
mod shared_value;
mod span_serde;
mod swe_agent;
mod telemetry_jsonl;
mod time;
mod tool_args;

pub use error::TraceError;
pub use load::{
    detect_format, parse_trace, parse_traces, parse_traces_as, read_trace, read_trace_bytes,
    read_traces,
};
pub use model::{
    AttrValue, Attributes, Message, SharedValue, Span, SpanKind, Status, StatusCode, Tokens,
    ToolCall, ToolExecution, Trace, TraceFormat,
};
pub use render::render_text;
