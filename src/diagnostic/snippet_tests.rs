use super::super::{FileDiagnostic, offset_of};
use super::*;

/// The snippet as it was built before windows (issue 25): the whole file,
/// decoded and escaped (`lossy`, `shown`). Rendering from it is what the
/// gate printed.
fn whole_file(lossy: &str, shown: &str, line: usize, column: usize) -> (Snippet, SourceSpan) {
    let offset = offset_of(lossy, line, column);
    let span = label_span(lossy, offset);
    let snippet = Snippet {
        name: terminal_text("f\u{1b}.json").into_owned(),
        text: shown.to_owned(),
        first_line: 0,
        first_column: 0,
        part_of_line: false,
    };
    (snippet, span)
}

fn render(snippet: Snippet, span: SourceSpan) -> String {
    let mut d = FileDiagnostic::error("f.json", "bad").with_label("here");
    d.line = 1;
    d.column = 1;
    d.source = Some(snippet);
    d.span = Some(span);
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_context_lines(1)
        .with_wrap_lines(false)
        .render_report(&mut out, &d)
        .unwrap();
    out
}

/// A deterministic generator of awkward files: short and long lines (past
/// 240 bytes; past 64 KiB in the next test), CRLF and lone CR, tabs, multi-byte and
/// invalid UTF-8, control characters, whitespace that is not ASCII.
struct Files(u64);

impl Files {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> usize {
        usize::try_from(self.next() % n).unwrap()
    }

    fn file(&mut self) -> Vec<u8> {
        const PIECES: [&[u8]; 18] = [
            b"{\"a\": 1, ",
            b"x",
            b"\n",
            b"\r\n",
            b"\r",
            b"\t",
            "é".as_bytes(),
            "😀".as_bytes(),
            b"\xff",
            b"\xe2\x82",
            b"\x80\x80",
            b"\x1b[31m",
            b"\x0c",
            "\u{85}".as_bytes(),
            "\u{2028}".as_bytes(),
            b"]}",
            b"  ",
            b"\"key\":",
        ];
        let mut out = Vec::new();
        for _ in 0..self.below(40) {
            if self.below(8) == 0 {
                let long = if self.below(4) == 0 { 3_000 } else { 300 };
                let piece = PIECES[self.below(PIECES.len() as u64)];
                for _ in 0..long / piece.len().max(1) / 2 {
                    out.extend_from_slice(piece);
                    out.push(b'y');
                }
            } else {
                out.extend_from_slice(PIECES[self.below(PIECES.len() as u64)]);
            }
        }
        out
    }
}

/// The window renders exactly what the whole file rendered, wherever the
/// error is: every line (and one past the end), columns at the start, in
/// the middle, at and past the end of the line.
#[test]
fn a_window_renders_as_the_whole_file_did() {
    let mut files = Files(25);
    let mut compared = 0;
    for _ in 0..120 {
        let bytes = files.file();
        let lossy = String::from_utf8_lossy(&bytes);
        let shown = display_text(lossy.clone());
        let lines: Vec<&str> = lossy.split('\n').collect();
        let n = lines.len();
        // Every line of a short file; the first, last and some others of
        // one with thousands.
        let picked: Vec<usize> = (1..=n + 1)
            .filter(|l| n < 40 || *l < 8 || *l + 8 > n || l % 97 == 0)
            .collect();
        for line in picked {
            let chars = lines.get(line - 1).map_or(0, |l| l.chars().count());
            let mut columns = vec![1, 2, chars, chars + 1, chars + 2, chars / 2 + 1];
            columns.push(files.below(chars as u64 + 3) + 1);
            for column in columns.into_iter().filter(|c| *c > 0) {
                let (window, span) = Snippet::around("f\u{1b}.json", &bytes, line, column);
                let (whole, whole_span) = whole_file(&lossy, &shown, line, column);
                assert!(
                    window.text.len() < 1_200 || !window.part_of_line,
                    "a part of a line is a window"
                );
                assert_eq!(
                    render(window, span),
                    render(whole, whole_span),
                    "line {line}, column {column} of {:?}",
                    String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 1_000, "{compared}");
}

/// A 4 MB file pays for the window, not the file: short lines keep 7
/// lines, a long line a few hundred bytes, with the file's line and column.
#[test]
fn the_snippet_of_a_big_file_is_a_window() {
    let lines = "{\"span\": \"é\"}\n".repeat(250_000);
    let (snippet, span) = Snippet::around("t.jsonl", lines.as_bytes(), 120_000, 11);
    assert_eq!(snippet.text.lines().count(), 2 * CONTEXT_LINES + 1);
    assert_eq!(snippet.first_line, 120_000 - 1 - CONTEXT_LINES);
    let contents = snippet.read_span(&span, 0, 0).unwrap();
    assert_eq!((contents.line() + 1, contents.column() + 1), (120_000, 11));

    let line = format!("[{}x]\n", "\"é\",".repeat(1_000_000));
    let column = 2_000_000; // characters: past 65,535 and far from both ends
    let (snippet, span) = Snippet::around("t.json", line.as_bytes(), 1, column);
    assert!(
        snippet.part_of_line && snippet.text.len() < 400,
        "{}",
        snippet.text.len()
    );
    let contents = snippet.read_span(&span, 0, 0).unwrap();
    assert_eq!((contents.line() + 1, contents.column() + 1), (1, column));
    drop(contents);
    let out = render(snippet, span);
    assert!(out.contains(&format!("t.json:1:{column}")), "{out}");
    // And it renders as the whole line did, past column 65,535 too.
    let lossy = String::from_utf8_lossy(line.as_bytes());
    let shown = display_text(lossy.clone());
    for column in [1, 70_000, column, 4_000_003, 4_000_004] {
        let (window, span) = Snippet::around("f\u{1b}.json", line.as_bytes(), 1, column);
        let (whole, whole_span) = whole_file(&lossy, &shown, 1, column);
        assert_eq!(
            render(window, span),
            render(whole, whole_span),
            "column {column}"
        );
    }
}

#[test]
fn lossy_characters_are_counted_as_decoded() {
    assert_eq!(lossy_chars(b"a\xe2\x82b\xff\xffc"), 6);
    assert_eq!(nth_char(b"a\xe2\x82b", 2), Some(3));
    assert_eq!(nth_char("éa".as_bytes(), 1), Some(2));
    assert_eq!(nth_char(b"ab", 2), Some(2));
    assert_eq!(nth_char(b"ab", 3), None);
}
