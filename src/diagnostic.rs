//! A diagnostic that points into a file: `file:line:col`, a snippet with a
//! caret, and a hint. Spec, trace, report and baseline errors all use it so
//! bad input always reads the same way.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::output::escape::terminal_text;
use miette::{Diagnostic, LabeledSpan, NamedSource, SourceCode, SourceSpan};

mod snippet;
use snippet::Snippet;

/// Severity of a [`FileDiagnostic`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Warning,
    Error,
}

/// An error or warning located in a file.
#[derive(Debug, Clone)]
pub struct FileDiagnostic {
    pub level: Level,
    /// Lower-case fragment, names in backticks.
    pub message: String,
    pub path: PathBuf,
    /// 1-based line and column; 0 when unknown.
    pub line: usize,
    pub column: usize,
    pub label: Option<String>,
    pub help: Option<String>,
    source: Option<Snippet>,
    span: Option<SourceSpan>,
}

impl FileDiagnostic {
    pub fn error(path: impl AsRef<Path>, message: impl Into<String>) -> Self {
        Self {
            level: Level::Error,
            message: message.into(),
            path: path.as_ref().to_path_buf(),
            line: 0,
            column: 0,
            label: None,
            help: None,
            source: None,
            span: None,
        }
    }

    pub fn warning(path: impl AsRef<Path>, message: impl Into<String>) -> Self {
        Self {
            level: Level::Warning,
            ..Self::error(path, message)
        }
    }

    /// Point at a 1-based line and column of `text` (the file's content), so
    /// the snippet can be rendered. Only a window of lines around the
    /// position is kept (`snippet.rs`).
    #[must_use]
    pub fn at(self, text: &Arc<NamedSource<String>>, line: usize, column: usize) -> Self {
        self.at_bytes(text.name(), text.inner().as_bytes(), line, column)
    }

    /// [`Self::at`] in a file's bytes (`name` is shown in the header):
    /// invalid UTF-8 is shown as U+FFFD, and counts as one character of a
    /// column. Nothing but the window around the position is copied.
    #[must_use]
    pub(crate) fn at_bytes(mut self, name: &str, bytes: &[u8], line: usize, column: usize) -> Self {
        self.line = line;
        self.column = column;
        if line > 0 {
            let (snippet, span) = Snippet::around(name, bytes, line, column.max(1));
            self.span = Some(span);
            self.source = Some(snippet);
        }
        self
    }

    /// Point at a line without source text (e.g. very large files).
    #[must_use]
    pub fn at_line(mut self, line: usize, column: usize) -> Self {
        self.line = line;
        self.column = column;
        self
    }

    #[must_use]
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// `path:line:col` (or just the path when the position is unknown).
    pub fn location(&self) -> String {
        if self.line == 0 {
            self.path.display().to_string()
        } else {
            format!(
                "{}:{}:{}",
                self.path.display(),
                self.line,
                self.column.max(1)
            )
        }
    }
}

impl FileDiagnostic {
    /// `path:line:col: message`, for one-line contexts (notes, JSON reports).
    pub fn one_line(&self) -> String {
        format!("{}: {}", self.location(), self.message)
    }
}

/// With a snippet, miette prints the location in the snippet header, so the
/// message stands alone; without one, the location leads the message.
/// Messages quote data (ids, tool names, file content): control characters
/// in them are shown as escapes (`terminal_text`), never sent to a terminal.
impl fmt::Display for FileDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = terminal_text(&self.message);
        if self.source.is_some() {
            f.write_str(&message)
        } else {
            write!(f, "{}: {message}", terminal_text(&self.location()))
        }
    }
}

impl std::error::Error for FileDiagnostic {}

impl Diagnostic for FileDiagnostic {
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.level {
            Level::Warning => miette::Severity::Warning,
            Level::Error => miette::Severity::Error,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(terminal_text(h).into_owned()) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.span?;
        let label = self
            .label
            .as_deref()
            .map_or_else(|| "here".to_owned(), |l| terminal_text(l).into_owned());
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(
            Some(label),
            span,
        ))))
    }
}

/// Wrap a file's text for snippets.
pub(crate) fn named_source(path: &Path, text: String) -> Arc<NamedSource<String>> {
    Arc::new(NamedSource::new(path.display().to_string(), text))
}

/// Byte offset of a 1-based line/column (column counted in characters).
pub(crate) fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let col_bytes: usize = l
                .chars()
                .take(column.saturating_sub(1))
                .map(char::len_utf8)
                .sum();
            return (offset + col_bytes).min(text.len());
        }
        offset += l.len();
    }
    text.len()
}

/// 1-based line and column of a byte offset.
pub(crate) fn line_col_of(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..text.floor_char_boundary(offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_positions_round_trip() {
        let text = "a: 1\nbé: two\n  c: [x]\n";
        let off = offset_of(text, 2, 5);
        assert_eq!(&text[off..off + 3], "two");
        assert_eq!(line_col_of(text, off), (2, 5));
        assert_eq!(offset_of(text, 9, 1), text.len());
    }

    #[test]
    fn location_renders_file_line_col() {
        let src = named_source(Path::new("s.yaml"), "x: 1\ny: 2\n".to_owned());
        let d = FileDiagnostic::error("s.yaml", "bad `y`")
            .at(&src, 2, 1)
            .with_help("remove it");
        assert_eq!(d.one_line(), "s.yaml:2:1: bad `y`");
        assert_eq!(d.to_string(), "bad `y`");
        assert_eq!(d.labels().unwrap().count(), 1);
    }

    fn render(d: &FileDiagnostic) -> String {
        let mut out = String::new();
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_context_lines(1)
            .with_wrap_lines(false)
            .render_report(&mut out, d)
            .unwrap();
        out
    }

    /// Issue 12: miette pads the caret line with a format width, which
    /// panicked ("Formatting argument out of range") past column 65,535.
    #[test]
    fn columns_past_65535_render_a_window_with_the_true_position() {
        for column in [65_536, 70_000, 200_000] {
            let text = format!("{{\"a\":{}é x\n}}\n", " ".repeat(column - 7));
            let src = named_source(Path::new("big.json"), text);
            let d = FileDiagnostic::error("big.json", "malformed JSON")
                .at(&src, 1, column)
                .with_label("here");
            let out = render(&d);
            assert!(out.contains(&format!("big.json:1:{column}")), "{out}");
            assert!(
                out.len() < 2_000,
                "snippet is a window: {} bytes",
                out.len()
            );
            assert!(out.contains("here"), "{out}");
        }
    }

    #[test]
    fn a_huge_token_is_underlined_in_part() {
        let text = format!("x: {}\n", "y".repeat(100_000));
        let src = named_source(Path::new("s.yaml"), text);
        let d = FileDiagnostic::error("s.yaml", "bad").at(&src, 1, 4);
        let out = render(&d);
        assert!(out.contains("s.yaml:1:4"), "{out}");
        assert!(out.len() < 2_000, "{}", out.len());
    }
}
