//! Output: stdout carries results, stderr carries status, warnings and
//! errors (STYLE §6). Everything prints through the macros in `macros.rs`
//! so clippy's `print_stdout`/`print_stderr` lints stay on.

#[macro_use]
mod macros;
pub(crate) mod color;
mod error;
pub(crate) mod escape;
mod json;
mod stream;
mod text;

pub use color::{ColorChoice, color_enabled, set_color};
pub use error::OutputError;
pub use json::{json_len, to_json, write_json};
pub use stream::{
    write_document, write_document_streamed, write_json_document, write_stderr, write_stdout,
    write_workflow_command,
};
pub use text::{SIMILAR, cap_chars, closest, plural, truncate_chars};

// The API the integration tests, benches and fuzz targets use.
pub use escape::is_workflow_command;
pub use escape::terminal_text;
pub use escape::workflow_guard;
