//! The bytes of one trace file, and how errors point into them.
//!
//! Every adapter parses through [`Input`] so that malformed JSON, a bad JSONL
//! line or a value of the wrong type all become a [`TraceError::Invalid`]
//! with `file:line:col`, a snippet and a hint.
//!
//! A stream of values ([`Input::values`]) is read with `serde_json`'s
//! `StreamDeserializer` over the whole file, not line by line: JSONL, and
//! values written one after another without separators, pretty-printed or
//! not (the `OpenTelemetry` Python SDK's `ConsoleSpanExporter` writes
//! `span.to_json()` with indent 4, one span after another). Errors keep the
//! exact line and column in the file.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde_json::StreamDeserializer;
use serde_json::de::SliceRead;
use serde_json::error::Category;

use crate::diagnostic::FileDiagnostic;
use crate::trace::detect::Layout;
use crate::trace::error::TraceError;
use crate::trace::model::Trace;

/// One file being ingested.
pub(crate) struct Input<'a> {
    pub(crate) path: &'a Path,
    /// The file's bytes with a UTF-8 byte-order mark removed.
    pub(crate) bytes: &'a [u8],
}

/// One value of a stream of JSON values and the line it starts on.
#[derive(Debug)]
pub(crate) struct Record<T> {
    /// 1-based line number in the file where the value starts.
    pub(crate) line: usize,
    pub(crate) value: T,
}

/// The values of a JSONL file (or of JSON values written one after
/// another), parsed as `T` one at a time; see [`Input::values`].
pub(crate) struct Values<'i, 'a, T> {
    input: &'i Input<'a>,
    stream: StreamDeserializer<'a, SliceRead<'a>, T>,
    what: &'i str,
    /// Bytes before `counted` hold `line - 1` newlines.
    counted: usize,
    line: usize,
    /// Some value so far spanned lines: the file is no plain JSONL.
    multiline: bool,
    failed: bool,
}

impl<T: DeserializeOwned> Iterator for Values<'_, '_, T> {
    type Item = Result<Record<T>, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let bytes = self.input.bytes;
        let start = bytes
            .get(self.stream.byte_offset()..)
            .and_then(|rest| rest.iter().position(|b| !b" \t\r\n".contains(b)))
            .map_or(bytes.len(), |i| self.stream.byte_offset() + i);
        if let Some(skipped) = bytes.get(self.counted..start) {
            #[expect(
                clippy::naive_bytecount,
                reason = "one pass over the file in all; not worth a `bytecount` dependency"
            )]
            let newlines = skipped.iter().filter(|b| **b == b'\n').count();
            self.line += newlines;
            self.counted = start;
        }
        match self.stream.next()? {
            Ok(value) => {
                let end = self.stream.byte_offset();
                self.multiline |= bytes.get(start..end).is_some_and(|v| v.contains(&b'\n'));
                Some(Ok(Record {
                    line: self.line,
                    value,
                }))
            }
            Err(e) => {
                self.failed = true;
                let cut = (e.line() > self.line && !self.multiline)
                    .then(|| self.cut_short_line(start))
                    .flatten();
                Some(Err(cut.unwrap_or_else(|| {
                    self.input.json_error(&e, Some(self.line), self.what)
                })))
            }
        }
    }
}

impl<T> Values<'_, '_, T> {
    /// In a file that has been JSONL so far, a value that runs past its
    /// line into the next is a line cut short: say so at the end of that
    /// line. A line holding only `{` or `[` opens a pretty-printed value.
    fn cut_short_line(&self, start: usize) -> Option<TraceError> {
        let rest = self.input.bytes.get(start..)?;
        let text = rest.split(|b| *b == b'\n').next()?;
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if text.trim_ascii().len() <= 1 {
            return None;
        }
        let err = serde_json::from_slice::<serde::de::IgnoredAny>(text).err()?;
        if err.classify() != Category::Eof {
            return None;
        }
        let column = String::from_utf8_lossy(text).chars().count() + 1;
        let message = format!(
            "malformed JSON on line {}: the line ends inside {} ({})",
            self.line,
            self.what,
            strip_position(&err.to_string())
        );
        let diagnostic = self
            .input
            .diagnostic_at(self.line, column, message)
            .with_label("the line stops here")
            .with_help(
                "each line of a JSONL file must hold one complete JSON value; this one looks cut short",
            );
        Some(TraceError::invalid(diagnostic))
    }
}

impl<'a> Input<'a> {
    pub(crate) fn new(path: &'a Path, bytes: &'a [u8]) -> Self {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        Self { path, bytes }
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

    /// Every JSON value of the file, one after another, parsed as `T`
    /// lazily: one per line (JSONL) or written back to back, pretty-printed
    /// or not. The first bad value ends the stream with an error at its
    /// exact line and column; nothing is skipped. `what` names one value,
    /// e.g. "an `OTel` SDK span".
    pub(crate) fn values<'i, T: DeserializeOwned>(&'i self, what: &'i str) -> Values<'i, 'a, T> {
        Values {
            input: self,
            stream: serde_json::Deserializer::from_slice(self.bytes).into_iter(),
            what,
            counted: 0,
            line: 1,
            multiline: false,
            failed: false,
        }
    }

    /// A diagnostic without a position.
    pub(crate) fn diagnostic(&self, message: impl Into<String>) -> FileDiagnostic {
        FileDiagnostic::error(self.path, message)
    }

    /// A diagnostic pointing at a 1-based line and column of the file; its
    /// snippet copies only the lines around the position, never the file.
    pub(crate) fn diagnostic_at(
        &self,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> FileDiagnostic {
        FileDiagnostic::error(self.path, message).at_bytes(
            &self.path.display().to_string(),
            self.bytes,
            line,
            column,
        )
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
                .values(what)
                .map(|record| {
                    let record = record?;
                    Ok(build(format!("{stem}:{}", record.line), record.value))
                })
                .collect(),
        }
    }

    /// Turn a `serde_json` error into a located [`TraceError::Invalid`]. With
    /// `record`, the error happened in a stream of values (JSONL), in the
    /// value that starts on that line; `serde_json`'s position is always
    /// counted from the start of the file.
    pub(crate) fn json_error(
        &self,
        err: &serde_json::Error,
        record: Option<usize>,
        what: &str,
    ) -> TraceError {
        let line = err.line();
        let column = self.char_column(line, err.column());
        let detail = strip_position(&err.to_string());
        let (message, label, help) = match (err.classify(), record) {
            (Category::Eof, Some(start)) => (
                format!("unexpected end of file inside {what} that starts on line {start} ({detail})"),
                "the JSON stops here",
                "the last value is cut short: each value (one per line in JSONL) must be complete; the agent \
                 may have crashed before flushing its exporter"
                    .to_owned(),
            ),
            (Category::Eof, None) => (
                format!("unexpected end of file inside {what}: {detail}"),
                "the JSON stops here",
                "the file looks truncated: the agent may have crashed before flushing its exporter".to_owned(),
            ),
            (Category::Syntax | Category::Io, Some(start)) => (
                if start == line {
                    format!("malformed JSON on line {line}: {detail}")
                } else {
                    format!("malformed JSON on line {line}, in the value that starts on line {start}: {detail}")
                },
                "invalid JSON here",
                if start == line {
                    "fix the JSON syntax at the marked position (a JSONL file holds one JSON value per line; \
                     values written one after another, pretty-printed or not, are read too)"
                        .to_owned()
                } else {
                    format!(
                        "fix the JSON syntax at the marked position; if the file is JSONL (one value per \
                         line), line {start} may be cut short"
                    )
                },
            ),
            (Category::Syntax | Category::Io, None) => (
                format!("malformed JSON: {detail}"),
                "invalid JSON here",
                "fix the JSON syntax at the marked position".to_owned(),
            ),
            (Category::Data, _) => (
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

    fn values(text: &str) -> Result<Vec<(usize, serde_json::Value)>, TraceError> {
        let input = Input::new(Path::new("a.jsonl"), text.as_bytes());
        input
            .values::<serde_json::Value>("a value")
            .map(|r| r.map(|r| (r.line, r.value)))
            .collect()
    }

    #[test]
    fn values_skip_blank_lines_and_keep_line_numbers() {
        let got = values("{}\n\n  \n[1]\r\n").unwrap();
        assert_eq!(
            got,
            vec![(1, serde_json::json!({})), (4, serde_json::json!([1]))]
        );
    }

    #[test]
    fn pretty_printed_values_one_after_another_are_read() {
        // The Python SDK's `ConsoleSpanExporter`: `to_json(indent=4)` and a
        // newline per span, no array, no separators.
        let text = "{\n    \"name\": \"a\",\n    \"n\": [\n        1\n    ]\n}\n{\n    \"name\": \"b\"\n}\n";
        let got = values(text).unwrap();
        assert_eq!(got.iter().map(|(l, _)| *l).collect::<Vec<_>>(), [1, 7]);
        assert_eq!(got[1].1["name"], "b");
        // Back to back on one line, and mixed with compact lines.
        let got = values("{\"a\":1}{\"a\":2} [3]\n{\"a\":\n4}\n").unwrap();
        assert_eq!(
            got.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
            [1, 1, 1, 2]
        );
        assert_eq!(got[3].1["a"], 4);
        assert!(values("  \n").unwrap().is_empty());
    }

    #[test]
    fn a_bad_value_in_a_stream_is_an_error_at_its_exact_position() {
        let text = "{\n    \"a\": 1\n}\n{\n    \"b\": ]\n}\n";
        let err = values(text).unwrap_err();
        let TraceError::Invalid(d) = &err else {
            panic!("{err:?}")
        };
        assert_eq!((d.line, d.column), (5, 10), "{err}");
        assert!(
            err.to_string()
                .contains("in the value that starts on line 4"),
            "{err}"
        );
        // A cut-short line of a JSONL file is reported at its end.
        let err = values("{\"a\": 1}\n{\"a\": 1\n{\"b\": 2}\n").unwrap_err();
        let TraceError::Invalid(d) = &err else {
            panic!("{err:?}")
        };
        assert_eq!((d.line, d.column), (2, 8), "{err}");
        assert!(
            err.to_string().contains("the line ends inside a value"),
            "{err}"
        );
        // After a pretty-printed value, the same text is located exactly,
        // naming the line its value starts on.
        let err = values("{\n\"a\": 1\n}\n{\"a\": 1\n{\"b\": 2}\n").unwrap_err();
        let TraceError::Invalid(d) = &err else {
            panic!("{err:?}")
        };
        assert_eq!((d.line, d.column), (5, 1), "{err}");
        assert!(
            d.help
                .as_deref()
                .unwrap_or_default()
                .contains("line 4 may be cut short"),
            "{err}"
        );
        // Garbage after a value, and a value cut off at the end of the file.
        let err = values("{\"a\": 1} x\n").unwrap_err();
        assert_eq!(
            err.one_line(),
            "a.jsonl:1:10: malformed JSON on line 1: expected value"
        );
        let err = values("{}\n{\"a\": [1,\n").unwrap_err();
        assert_eq!(
            err.one_line(),
            "a.jsonl:2:10: malformed JSON on line 2: the line ends inside a value (EOF while parsing a value)"
        );
        let err = values("{\n}\n{\n  \"a\": [1,\n").unwrap_err();
        assert!(
            err.to_string()
                .contains("end of file inside a value that starts on line 3"),
            "{err}"
        );
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
        let err = values("{}\n{}\n{\"x\": tru}\n").unwrap_err();
        assert!(err.one_line().starts_with("a.jsonl:3:"), "{err}");
        assert!(err.to_string().contains("on line 3"), "{err}");
    }
}
