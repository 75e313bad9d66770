//! Trace ingestion: every supported format into one span model (DESIGN §4).

mod error;
pub mod model;

pub use error::TraceError;
pub use model::{
    Message, Span, SpanKind, Status, StatusCode, Tokens, ToolCall, ToolExecution, Trace,
    TraceFormat,
};
