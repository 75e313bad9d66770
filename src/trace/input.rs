//! The bytes of one trace file, and how errors point into them.
//!
//! Every adapter parses through [`Input`] so that malformed JSON, a bad JSONL
//! line or a value of the wrong type all become a [`TraceError::Invalid`]
//! with `file:line:col`, a snippet and a hint.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use miette::NamedSource;
use serde::de::DeserializeOwned;
use serde_json::error::Category;

use crate::diagnostic::{FileDiagnostic, named_source};
use crate::trace::detect::Layout;
use crate::trace::error::TraceError;
use crate::trace::model::Trace;

/// One file being ingested.
pub(crate) struct Input<'a> {
    pub(crate) path: &'a Path,
    /// The file's bytes with a UTF-8 byte-order mark removed.
    pub(crate) bytes: &'a [u8],
    source: OnceLock<Arc<NamedSource<String>>>,
}

/// One non-blank line of a JSONL file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line<'a> {
    /// 1-based line number in the file.
    pub(crate) number: usize,
    pub(crate) bytes: &'a [u8],
}

impl<'a> Input<'a> {
    pub(crate) fn new(path: &'a Path, bytes: &'a [u8]) -> Self {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        Self {
            path,
            bytes,
            source: OnceLock::new(),
        }
    }

    /// The file name without its extension, used when a format has no ids.
    pub(crate) fn stem(&self) -> String {
        self.path
            .file_stem()
            .map_or_else(|| "trace".to_owned(), |s| s.to_string_lossy().into_owned())
    }

    /// True when the file holds nothing but whitespace.
    pub(crate) fn is_blank(&self) -> bool {
        self.bytes.iter().all(u8::is_ascii_whitespace)
    }

    /// Non-blank lines with their 1-based numbers, lazily.
    pub(crate) fn lines(&self) -> impl Iterator<Item = Line<'a>> + use<'a> {
        let bytes = self.bytes;
        bytes
            .split(|b| *b == b'\n')
            .enumerate()
            .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
            .map(|(i, l)| Line {
                number: i + 1,
                bytes: l,
            })
    }

    fn source(&self) -> &Arc<NamedSource<String>> {
        self.source.get_or_init(|| {
            named_source(self.path, String::from_utf8_lossy(self.bytes).into_owned())
        })
    }

    /// A diagnostic without a position.
    pub(crate) fn diagnostic(&self, message: impl Into<String>) -> FileDiagnostic {
        FileDiagnostic::error(self.path, message)
    }

    /// A diagnostic pointing at a 1-based line and column of the file.
    pub(crate) fn diagnostic_at(
        &self,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> FileDiagnostic {
        FileDiagnostic::error(self.path, message).at(self.source(), line, column)
    }

    /// An invalid-input error without a position.
    pub(crate) fn invalid(
        &self,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> TraceError {
        TraceError::invalid(self.diagnostic(message).with_help(help))
    }

    /// An invalid-input error on one line (column 1).
    pub(crate) fn invalid_line(
        &self,
        line: usize,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> TraceError {
        TraceError::invalid(self.diagnostic_at(line, 1, message).with_help(help))
    }

    /// `serde_json` counts columns in bytes; diagnostics count characters.
    fn char_column(&self, line: usize, byte_column: usize) -> usize {
        let Some(text) = line
            .checked_sub(1)
            .and_then(|i| self.bytes.split(|b| *b == b'\n').nth(i))
        else {
            return byte_column;
        };
        let prefix = &text[..byte_column.saturating_sub(1).min(text.len())];
        String::from_utf8_lossy(prefix).chars().count() + 1
    }

    /// Parse the whole file into `T`. `what` names the expected shape, e.g.
    /// "an OTLP/JSON export request".
    pub(crate) fn parse_document<T: DeserializeOwned>(&self, what: &str) -> Result<T, TraceError> {
        serde_json::from_slice(self.bytes).map_err(|e| self.json_error(&e, None, what))
    }

    /// Parse one JSONL line into `T`.
    /// One trace per record: the whole document, or every JSONL line
    /// (ids `<stem>` and `<stem>:<line>`). For formats whose records are
    /// independent runs.
    pub(crate) fn each_record<T: DeserializeOwned>(
        &self,
        layout: Layout,
        what: &str,
        mut build: impl FnMut(String, T) -> Trace,
    ) -> Result<Vec<Trace>, TraceError> {
        let stem = self.stem();
        match layout {
            Layout::Document => Ok(vec![build(stem, self.parse_document(what)?)]),
            Layout::Lines => self
                .lines()
                .map(|line| {
                    Ok(build(
                        format!("{stem}:{}", line.number),
                        self.parse_line(line, what)?,
                    ))
                })
                .collect(),
        }
    }

    pub(crate) fn parse_line<T: DeserializeOwned>(
        &self,
        line: Line<'_>,
        what: &str,
    ) -> Result<T, TraceError> {
        serde_json::from_slice(line.bytes).map_err(|e| self.json_error(&e, Some(line.number), what))
    }

    /// Turn a `serde_json` error into a located [`TraceError::Invalid`]. With
    /// `jsonl_line`, the error happened in that line of a JSONL file.
    pub(crate) fn json_error(
        &self,
        err: &serde_json::Error,
        jsonl_line: Option<usize>,
        what: &str,
    ) -> TraceError {
        let line = match (err.line(), jsonl_line) {
            (0, _) => 0,
            (l, Some(first)) => first + l - 1,
            (l, None) => l,
        };
        let column = self.char_column(line, err.column());
        let detail = strip_position(&err.to_string());
        let jsonl = jsonl_line.is_some();
        let (message, label, help) = match err.classify() {
            Category::Eof if jsonl => (
                format!("malformed JSON on line {line}: the line ends inside {what} ({detail})"),
                "the line stops here",
                "each line of a JSONL file must hold one complete JSON value; this one looks cut short".to_owned(),
            ),
            Category::Eof => (
                format!("unexpected end of file inside {what}: {detail}"),
                "the JSON stops here",
                "the file looks truncated: the agent may have crashed before flushing its exporter".to_owned(),
            ),
            Category::Syntax | Category::Io => (
                if jsonl {
                    format!("malformed JSON on line {line}: {detail}")
                } else {
                    format!("malformed JSON: {detail}")
                },
                "invalid JSON here",
                "fix the JSON syntax at the marked position (JSONL files need exactly one JSON value per line)"
                    .to_owned(),
            ),
            Category::Data => (
                format!("not {what}: {detail}"),
                "unexpected value here",
                format!("this value does not fit {what}; check the field's type against the format's documentation"),
            ),
        };
        let diagnostic = if line == 0 {
            self.diagnostic(message)
        } else {
            self.diagnostic_at(line, column, message).with_label(label)
        };
        TraceError::invalid(diagnostic.with_help(help))
    }
}

/// `serde_json` appends " at line L column C"; the diagnostic shows that itself.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_skip_blanks_and_keep_numbers() {
        let input = Input::new(Path::new("a.jsonl"), b"{}\n\n  \n[1]\r\n");
        let lines: Vec<(usize, &[u8])> = input.lines().map(|l| (l.number, l.bytes)).collect();
        assert_eq!(lines, vec![(1, &b"{}"[..]), (4, &b"[1]\r"[..])]);
    }

    #[test]
    fn bom_is_stripped_and_stem_taken() {
        let input = Input::new(Path::new("dir/run-7.jsonl"), b"\xEF\xBB\xBF{}");
        assert_eq!(input.bytes, b"{}");
        assert_eq!(input.stem(), "run-7");
    }

    #[test]
    fn syntax_errors_point_at_file_line_and_column() {
        let input = Input::new(Path::new("t.json"), b"{\n  \"a\": 1,\n  \"b\": ]\n}");
        let err = input
            .parse_document::<serde_json::Value>("a trace")
            .unwrap_err();
        let text = err.one_line();
        assert!(text.starts_with("t.json:3:8: malformed JSON"), "{text}");
        assert!(!text.contains("at line"), "{text}");
    }

    #[test]
    fn the_rendered_diagnostic_shows_the_snippet_with_a_caret() {
        let input = Input::new(Path::new("t.json"), b"{\n  \"a\": 1,\n  \"b\": ]\n}");
        let err = input
            .parse_document::<serde_json::Value>("a trace")
            .unwrap_err();
        let mut out = String::new();
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_width(100)
            .render_report(&mut out, &err)
            .unwrap();
        assert!(out.contains("t.json:3:8"), "{out}");
        assert!(out.contains(r#"3 │   "b": ]"#), "{out}");
        assert!(out.contains("invalid JSON here"), "{out}");
        assert!(out.contains("fix the JSON syntax"), "{out}");
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        // `x` is byte 13 but character 11.
        let input = Input::new(Path::new("u.json"), "{\"é\": \"ü\" x}".as_bytes());
        let err = input
            .parse_document::<serde_json::Value>("a trace")
            .unwrap_err();
        assert!(err.one_line().starts_with("u.json:1:11:"), "{err}");
    }

    #[test]
    fn line_offsets_apply_to_jsonl_lines() {
        let input = Input::new(Path::new("t.jsonl"), b"{}\n{}\n{\"x\": tru}\n");
        let line = input.lines().nth(2).unwrap();
        let err = input
            .parse_line::<serde_json::Value>(line, "an event")
            .unwrap_err();
        assert!(err.one_line().starts_with("t.jsonl:3:"), "{err}");
        assert!(err.to_string().contains("on line 3"), "{err}");
    }
}
