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

/// Write a machine-format document to stdout as it is produced: `write`
/// gets a writer whose bytes pass the workflow guard a few lines at a time
/// (the guard works line by line, so the output is exactly
/// [`write_document`]'s). For documents too large to build in memory.
pub fn write_document_streamed(
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), OutputError> {
    let mut out = Guarded {
        out: std::io::stdout().lock(),
        pending: Vec::with_capacity(GUARD_CHUNK * 2),
    };
    write(&mut out)
        .and_then(|()| out.finish().map(drop))
        .map_err(OutputError::Stdout)
}

/// [`write_document`] of [`super::to_json`]'s text of `value`, byte for
/// byte, written as it is serialized (a large run's report is not built
/// in memory as text first, issue 25).
pub fn write_json_document<T: serde::Serialize>(value: &T) -> Result<(), OutputError> {
    write_document_streamed(|out| super::write_json(out, value))
}

/// Bytes collected before the complete lines among them are guarded and written.
const GUARD_CHUNK: usize = 64 * 1024;

/// A writer that holds bytes until it has whole lines, guards them and
/// passes them on.
struct Guarded<W: Write> {
    out: W,
    pending: Vec<u8>,
}

impl<W: Write> Guarded<W> {
    /// Guard and write every complete line held (all of them with `all`).
    fn drain(&mut self, all: bool) -> std::io::Result<()> {
        let end = if all {
            self.pending.len()
        } else {
            match self.pending.iter().rposition(|&b| b == b'\n') {
                Some(i) => i + 1,
                None => return Ok(()),
            }
        };
        guard_lines(&mut self.out, &self.pending[..end])?;
        self.pending.drain(..end);
        Ok(())
    }

    /// Write what is left and hand back the inner writer.
    fn finish(mut self) -> std::io::Result<W> {
        self.drain(true)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Guard whole lines and write them. Our renderers write UTF-8 and the cut
/// is at a newline: the fast check passes, the lossy one is the fallback.
fn guard_lines(out: &mut impl Write, lines: &[u8]) -> std::io::Result<()> {
    let text = std::str::from_utf8(lines).map_or_else(
        |_| String::from_utf8_lossy(lines),
        std::borrow::Cow::Borrowed,
    );
    out.write_all(workflow_guard(&text).as_bytes())
}

impl<W: Write> Write for Guarded<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let whole = buf.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if whole < GUARD_CHUNK {
            self.pending.extend_from_slice(buf);
            if self.pending.len() >= GUARD_CHUNK {
                self.drain(false)?;
            }
            return Ok(buf.len());
        }
        // A large write: only its partial lines are held. The line begun
        // before it ends at its first newline; the lines after that are
        // guarded where they are, not copied into `pending` first (one copy
        // fewer of a 222 MB document; within the noise of the bench).
        let (lines, tail) = buf.split_at(whole);
        let first = lines.iter().position(|&b| b == b'\n').map_or(0, |i| i + 1);
        self.pending.extend_from_slice(&lines[..first]);
        self.drain(true)?;
        guard_lines(&mut self.out, &lines[first..])?;
        self.pending.extend_from_slice(tail);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
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

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    /// Written in pieces of any size, the streamed document is exactly what
    /// the guard makes of the whole: commands on lines that straddle the
    /// 64 KiB chunks are neutralised too.
    #[test]
    fn streamed_guarding_equals_guarding_the_whole() {
        let mut text = String::new();
        let mut i = 0usize;
        while text.len() < 3 * GUARD_CHUNK + 100 {
            match i % 7 {
                0 => text.push_str("::error file=x::pwned\n"),
                1 => text.push_str("  \"a\": \"##[group]x\",\n"),
                2 => text.push_str(&"é".repeat(i % 50)),
                _ => text.push_str(&format!("  \"k{i}\": {i},\n")),
            }
            i += 1;
        }
        text.push_str("::warning::last line, no newline");
        for piece in [1usize, 7, 4096, 65_535, 100_003, 200_000] {
            let mut out = Guarded {
                out: Vec::new(),
                pending: Vec::new(),
            };
            for chunk in text.as_bytes().chunks(piece) {
                out.write_all(chunk).unwrap();
            }
            let written = String::from_utf8(out.finish().unwrap()).unwrap();
            assert_eq!(written, workflow_guard(&text), "pieces of {piece} bytes");
            assert!(!written.lines().any(is_workflow_command));
        }
    }
}
