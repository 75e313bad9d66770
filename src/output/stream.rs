//! The two streams. Writes to stdout report errors (a broken pipe is turned
//! into exit 0 by `main`); writes to stderr are best effort.
//!
//! The GitHub runner reads workflow commands on both streams, so every line
//! passes [`workflow_guard`]: only [`write_workflow_command`] can print a
//! command, and the gate calls it only for its own annotations.

use std::io::Write;

use super::error::OutputError;
use crate::output::escape::{is_workflow_command, terminal_text, workflow_guard};

/// Write human text (a table, a summary) to stdout. The gate never writes colour to stdout, so any
/// control character (an ESC from a trace) is shown as an escape, and a line
/// that would be a workflow command is neutralised.
pub fn write_stdout(text: &str) -> Result<(), OutputError> {
    let text = terminal_text(text);
    let text = workflow_guard(&text);
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(OutputError::Stdout)
}

/// Write a document in a machine format (JSON, `JUnit` XML, Markdown, HTML,
/// Mermaid) to stdout. Its renderer escaped every string by the format's
/// own rules, so it does not pass the terminal escaper (whose `\u{200e}`
/// is no JSON escape: it would make the JSON invalid, issue 22); only the
/// workflow guard, which changes no line a renderer of ours writes.
pub fn write_document(text: &str) -> Result<(), OutputError> {
    let text = workflow_guard(text);
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(OutputError::Stdout)
}

/// Print one workflow command (`::error …::…`) built by
/// [`crate::github::annotation`], whose values are already encoded.
pub fn write_workflow_command(line: &str) -> Result<(), OutputError> {
    if line.contains(['\n', '\r']) || !is_workflow_command(line) {
        return Err(OutputError::NotACommand(line.to_owned()));
    }
    let mut out = std::io::stdout().lock();
    out.write_all(line.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(OutputError::Stdout)
}

/// Write `text` to stderr, ignoring failures (there is nowhere left to
/// report them); a line that would be a workflow command is neutralised.
/// Through anstream: ANSI colour is stripped when colour is off.
pub fn write_stderr(text: &str) {
    let text = workflow_guard(text);
    let mut err = anstream::stderr().lock();
    let _ignored = err.write_all(text.as_bytes());
}
