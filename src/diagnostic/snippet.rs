//! The text a diagnostic's snippet shows: a window of the file around the
//! error, copied and escaped when the diagnostic is built, never the whole
//! file. A parse error in a 200 MB trace costs a few hundred bytes, not a
//! copy and a scan of the file (issue 25: under a fuzzer, building the
//! located error was half of the CPU of a trace target).
//!
//! What miette renders from the window is what it rendered from the whole
//! file: the window holds whole lines around the error (more than the
//! renderers' one line of context), or, in a line longer than
//! [`MAX_SNIPPET_LINE_BYTES`], more than the [`WINDOW_BYTES`] of it shown
//! around the error; line and column numbers are the file's.

use std::borrow::Cow;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use crate::output::escape::{same_length_printable, terminal_text};

/// A line longer than this many bytes is shown as a window around the
/// error: miette pads the caret line with a format width, which panics past
/// 65,535 columns, and a minified multi-megabyte line is no snippet anyway.
const MAX_SNIPPET_LINE_BYTES: usize = 240;
/// Bytes of context kept on each side of the error in a long line.
const WINDOW_BYTES: usize = 80;
/// The caret underlines at most this many bytes.
const MAX_LABEL_BYTES: usize = 80;
/// Whole lines kept on each side of the error's line: the renderers show
/// one line of context; the error's offset can sit at the start of the
/// next line (a column past the end of its line), whose context is one
/// line further.
const CONTEXT_LINES: usize = 3;
/// Extra bytes kept around a long line's window: the window's ends move to
/// character boundaries.
const SLACK_BYTES: usize = 8;

/// A window of a file's text as miette reads it for a snippet: short lines
/// as they are, a long line as a window of about [`WINDOW_BYTES`] on each
/// side of the error, with the true line and column in the header. The
/// text is the file's with invalid UTF-8 shown as U+FFFD and control
/// characters replaced by printable ones of the same length (offsets stay
/// right), so a snippet of hostile content cannot drive the terminal.
#[derive(Debug, Clone)]
pub(super) struct Snippet {
    name: String,
    text: String,
    /// 0-based line of the file where `text` starts.
    first_line: usize,
    /// 0-based character column of the file where `text` starts (not 0
    /// only in a part of a long line).
    first_column: usize,
    /// `text` is a part of one long line, not whole lines.
    part_of_line: bool,
}

impl Snippet {
    /// The window around a 1-based `line` and `column` (in characters) of
    /// `bytes`, and the span of the error in it. A line past the end of
    /// the file points at its end.
    pub(super) fn around(
        name: &str,
        bytes: &[u8],
        line: usize,
        column: usize,
    ) -> (Self, SourceSpan) {
        let name = terminal_text(name).into_owned();
        // Starts of the last CONTEXT_LINES + 1 lines up to `line`.
        let mut starts = std::collections::VecDeque::with_capacity(CONTEXT_LINES + 2);
        starts.push_back(0);
        let mut at_line = 1;
        let mut start = 0;
        while at_line < line {
            let Some(i) = memchr(b'\n', &bytes[start..]) else {
                break;
            };
            start += i + 1;
            at_line += 1;
            starts.push_back(start);
            if starts.len() > CONTEXT_LINES + 1 {
                starts.pop_front();
            }
        }
        let past_end = at_line < line;
        let line_end = memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        if !past_end
            && line_end - start > MAX_SNIPPET_LINE_BYTES
            && let Some(part) = Self::part_of_line(&name, bytes, start, line_end, at_line, column)
        {
            return part;
        }
        let first = starts.front().copied().unwrap_or(0);
        let first_line = at_line - starts.len();
        // The error's line and CONTEXT_LINES more, with their newlines.
        let mut end = line_end;
        for _ in 0..CONTEXT_LINES {
            if end >= bytes.len() {
                break;
            }
            let next = end + 1;
            end = memchr(b'\n', &bytes[next..]).map_or(bytes.len(), |i| next + i);
        }
        let end = (end + 1).min(bytes.len());
        let lossy = String::from_utf8_lossy(&bytes[first..end]);
        let offset = if past_end {
            lossy.len()
        } else {
            super::offset_of(&lossy, starts.len(), column)
        };
        let span = label_span(&lossy, offset);
        let text = display_text(lossy);
        let snippet = Self {
            name,
            text,
            first_line,
            first_column: 0,
            part_of_line: false,
        };
        (snippet, span)
    }

    /// A window of a long line (`bytes[start..end]`, line `line`) around
    /// character `column`; `None` when the column is past the line's end.
    fn part_of_line(
        name: &str,
        bytes: &[u8],
        start: usize,
        end: usize,
        line: usize,
        column: usize,
    ) -> Option<(Self, SourceSpan)> {
        let error = nth_char(&bytes[start..end], column - 1)? + start;
        // Cut where the lossy decoding of the whole line is at a character
        // boundary (any byte but a continuation byte): the window decodes
        // as that part of the line does. Invalid bytes decode to 3 bytes
        // each at least, so WINDOW_BYTES of the file are as many of text.
        let mut from = error.saturating_sub(WINDOW_BYTES + SLACK_BYTES).max(start);
        while from > start && is_continuation(bytes[from]) {
            from -= 1;
        }
        let mut to = error + MAX_LABEL_BYTES + WINDOW_BYTES + SLACK_BYTES;
        while to < end && is_continuation(bytes[to]) {
            to += 1;
        }
        if to >= end {
            // The newline too: a `\r` before it is kept, as in the file.
            to = (end + 1).min(bytes.len());
        }
        let before = lossy_chars(&bytes[from..error]);
        let lossy = String::from_utf8_lossy(&bytes[from..to]);
        let offset = lossy
            .char_indices()
            .nth(before)
            .map_or(lossy.len(), |(i, _)| i);
        let span = label_span(&lossy, offset);
        let text = display_text(lossy);
        let snippet = Self {
            name: name.to_owned(),
            text,
            first_line: line - 1,
            first_column: column - 1 - before,
            part_of_line: true,
        };
        Some((snippet, span))
    }

    /// 1-based line and column in the file of a byte offset of the text.
    fn line_col(&self, offset: usize) -> (usize, usize) {
        let (line, column) = super::line_col_of(&self.text, offset);
        if line == 1 {
            (self.first_line + 1, self.first_column + column)
        } else {
            (self.first_line + line, column)
        }
    }
}

impl SourceCode for Snippet {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let text = self.text.as_str();
        let offset = text.floor_char_boundary(span.offset().min(text.len()));
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
        if !self.part_of_line && line_end - line_start <= MAX_SNIPPET_LINE_BYTES {
            let contents = text.read_span(span, context_lines_before, context_lines_after)?;
            return Ok(Box::new(MietteSpanContents::new_named(
                self.name.clone(),
                contents.data(),
                *contents.span(),
                self.first_line + contents.line(),
                contents.column(),
                contents.line_count(),
            )));
        }
        // The header asks for the span alone (no context): start at the
        // span so its line and column are exact. The snippet gets a window.
        let (start, end) = if context_lines_before == 0 && context_lines_after == 0 {
            (offset, (offset + span.len()).min(line_end))
        } else {
            (
                text.floor_char_boundary(offset.saturating_sub(WINDOW_BYTES).max(line_start)),
                text.ceil_char_boundary((offset + span.len() + WINDOW_BYTES).min(line_end)),
            )
        };
        let (line, column) = self.line_col(start);
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            &text.as_bytes()[start..end],
            SourceSpan::new(start.into(), end - start),
            line - 1,
            column - 1,
            1,
        )))
    }
}

/// The span the caret underlines: the token at `offset`, at most
/// [`MAX_LABEL_BYTES`], ending on a character boundary.
fn label_span(text: &str, offset: usize) -> SourceSpan {
    let len = token_len(text, offset).min(MAX_LABEL_BYTES);
    let len = text
        .floor_char_boundary(offset + len)
        .saturating_sub(offset);
    SourceSpan::new(offset.into(), len)
}

/// Length of the token at `offset`: up to the next whitespace, `,` or `:`,
/// at least 1 character so the caret shows.
fn token_len(text: &str, offset: usize) -> usize {
    let rest = text.get(offset..).unwrap_or("");
    let len: usize = rest
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != ',' && *c != ']' && *c != '}')
        .map(char::len_utf8)
        .sum();
    len.max(rest.chars().next().map_or(0, char::len_utf8))
}

/// Text as shown: control characters escaped to the same length (the
/// label's span is measured on the text before, as the parser saw it).
fn display_text(text: Cow<'_, str>) -> String {
    match same_length_printable(&text) {
        Cow::Borrowed(_) => text.into_owned(),
        Cow::Owned(clean) => clean,
    }
}

fn is_continuation(b: u8) -> bool {
    (0x80..0xC0).contains(&b)
}

fn memchr(needle: u8, bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|b| *b == needle)
}

/// Characters of `bytes` decoded lossily (an invalid sequence is one
/// U+FFFD).
fn lossy_chars(bytes: &[u8]) -> usize {
    bytes
        .utf8_chunks()
        .map(|c| c.valid().chars().count() + usize::from(!c.invalid().is_empty()))
        .sum()
}

/// Byte offset in `line` of its `n`th character (0-based) decoded lossily;
/// the line's length for `n` = its character count; `None` past that.
fn nth_char(line: &[u8], mut n: usize) -> Option<usize> {
    let mut offset = 0;
    for chunk in line.utf8_chunks() {
        let valid = chunk.valid();
        if let Some((i, _)) = valid.char_indices().nth(n) {
            return Some(offset + i);
        }
        n -= valid.chars().count();
        offset += valid.len();
        if !chunk.invalid().is_empty() {
            if n == 0 {
                return Some(offset);
            }
            n -= 1;
            offset += chunk.invalid().len();
        }
    }
    (n == 0).then_some(offset)
}

#[cfg(test)]
#[path = "snippet_tests.rs"]
mod tests;
