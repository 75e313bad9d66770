//! Trace ingestion: every supported format into one span model (DESIGN §4).

mod error;
pub mod model;

pub use error::TraceError;
pub use model::{
    Message, Span, SpanKind, Status, StatusCode, Tokens, ToolCall, ToolExecution, Trace,
    TraceFormat,
};

// TEMPORARY: replaced by the adapters' loader when the `trace` branch lands.
/// Read the single trace in `path`.
pub fn read_trace(path: &std::path::Path) -> Result<Trace, TraceError> {
    let bytes = std::fs::read(path).map_err(|e| TraceError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(TraceError::Empty {
            path: path.to_path_buf(),
        });
    }
    serde_json::from_slice(&bytes).map_err(|e| {
        TraceError::invalid(
            crate::diagnostic::FileDiagnostic::error(path, e.to_string())
                .at_line(e.line(), e.column()),
        )
    })
}
