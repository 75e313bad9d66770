//! Escaping by sink (DESIGN §10). Every string that comes from a trace, a
//! suite or a report is untrusted: it goes through the function of the place
//! it is written to, and nowhere else is escaping done.
//!
//! | sink | function |
//! |---|---|
//! | terminal, one field | [`terminal`] (control characters, ESC, bidi overrides → visible escapes) |
//! | terminal, our own multi-line text | [`terminal_text`] (keeps line breaks and tabs) |
//! | any line on stdout/stderr | [`workflow_guard`] (no line can start a `::` command or hold `##[`) |
//! | workflow-command message / property | [`workflow_data`], [`workflow_property`] |
//! | Markdown text, table cells, headings | [`md_text`] |
//! | Markdown inline code | [`md_code`], and [`md_code_cell`] inside a table cell |
//! | Mermaid label / node id | [`mermaid_label`], [`mermaid_id`] |
//! | HTML text and attributes | [`html`] |
//! | XML (`JUnit`) text | [`xml`] |
//!
//! The GitHub runner reads workflow commands from stdout and stderr: a line
//! that starts with `::` after leading whitespace, and the legacy `##[`
//! form anywhere in a line
//! (<https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions>).

use std::borrow::Cow;
use std::fmt::Write as _;

/// A character that must not reach a terminal, a log or a rendered page raw:
/// C0 and C1 control characters, DEL, line/paragraph separators, and the
/// Unicode bidirectional overrides and isolates ("Trojan Source").
pub(super) fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
        )
}

fn push_visible(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x100 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// One field for a terminal or a log line: every control character
/// (newlines and ESC included) and bidi override becomes a visible escape
/// such as `\n`, `\x1b` or `\u{202e}`, so the field stays on its line and
/// cannot drive the terminal.
pub(crate) fn terminal(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe_char(c) {
            push_visible(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Text we composed ourselves for a terminal (several lines, tabs): like
/// [`terminal`] but line breaks and tabs stay. Data fields inside it must
/// already have been passed through [`terminal`].
pub fn terminal_text(s: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| is_unsafe_char(c) && c != '\n' && c != '\t';
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            continue;
        }
        if unsafe_char(c) {
            push_visible(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A rendered error report for stderr. Without colour it holds no escape
/// sequence of ours, so every control character in it came from data and is
/// shown as an escape; with colour, the data inside (file diagnostics) was
/// escaped when the diagnostic was built.
pub(crate) fn rendered_report(text: &str) -> Cow<'_, str> {
    if crate::output::color_enabled() {
        Cow::Borrowed(text)
    } else {
        terminal_text(text)
    }
}

/// Zero-width space: breaks a workflow-command prefix without changing what
/// a reader sees.
const ZWSP: char = '\u{200B}';

/// Whether `line` would be read by the GitHub runner as a workflow command.
pub fn is_workflow_command(line: &str) -> bool {
    line.trim_start().starts_with("::") || line.contains("##[")
}

/// Neutralise every line of `text` the runner would read as a workflow
/// command: a zero-width space goes between the two colons of a leading
/// `::`, and between the `#`s of `##[`. Applied to everything written to
/// stdout and stderr, except the gate's own annotations.
pub fn workflow_guard(text: &str) -> Cow<'_, str> {
    // Every command holds `::` or `##[`: two substring searches settle most
    // documents (a 100 MB `trace --format json` spent 9 % of its time in the
    // per-line check).
    if !text.contains("::") && !text.contains("##[") {
        return Cow::Borrowed(text);
    }
    if !text.split('\n').any(is_workflow_command) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let trimmed = line.trim_start();
        let line: Cow<'_, str> = if trimmed.starts_with("::") {
            let indent = &line[..line.len() - trimmed.len()];
            Cow::Owned(format!("{indent}:{ZWSP}{}", &trimmed[1..]))
        } else {
            Cow::Borrowed(line)
        };
        out.push_str(&line.replace("##[", &format!("#{ZWSP}#[")));
    }
    Cow::Owned(out)
}

/// The message of a workflow command: `%`, CR and LF are percent-encoded
/// (the runner decodes them), so the message stays on the command's line.
pub(crate) fn workflow_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow-command property (`title=`, `file=`): like [`workflow_data`],
/// and `:` and `,` too, which end a property.
pub(crate) fn workflow_property(s: &str) -> String {
    workflow_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Text in Markdown (a paragraph, a list item, a heading, a table cell):
/// HTML-escaped (`&`, `<`, `>`, `"`); every other ASCII punctuation
/// character backslash-escaped, so nothing opens inline markup (code span,
/// emphasis, link, image, table pipe, strikethrough, math, heading closing
/// sequence) or a block at the start of the field (`- + = >`, `1.`/`1)`),
/// and no GFM autolink forms: the extended autolinks are found while
/// parsing at an unescaped `:` (`https://…`) or `www.`, so `https\://`
/// and `www\.` stay text (issue 25); `@` followed by a zero-width space (no
/// mention, no e-mail autolink, which GFM finds in the decoded text);
/// control characters as visible escapes (no line break); a leading space
/// as `&#32;`.
pub(crate) fn md_text(s: &str) -> String {
    text(s, true)
}

/// [`md_text`]; `at_start`: `s` begins the field (a leading space matters).
fn text(s: &str, at_start: bool) -> String {
    let visible = terminal(s);
    let mut out = String::with_capacity(visible.len() + 16);
    for (i, c) in visible.chars().enumerate() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '@' => out.push_str("@&#8203;"),
            ' ' if i == 0 && at_start => out.push_str("&#32;"),
            c if c.is_ascii_punctuation() => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Prose that quotes names in backticks (the gate's notes, a checkpoint
/// instruction): each `` `quoted` `` part becomes inline code through
/// [`md_code`], the rest is [`md_text`]. An unmatched backtick is text.
/// Whatever the input, every piece is escaped for where it lands.
pub(crate) fn md_prose(s: &str) -> String {
    prose(s, md_code)
}

/// [`md_prose`] inside a GFM table cell (code spans via [`md_code_cell`]).
pub(crate) fn md_prose_cell(s: &str) -> String {
    prose(s, md_code_cell)
}

fn prose(s: &str, code: fn(&str) -> String) -> String {
    let pieces: Vec<&str> = s.split('`').collect();
    let n = pieces.len();
    let mut out = String::with_capacity(s.len() + 16);
    let mut text = String::new();
    for (i, piece) in pieces.iter().enumerate() {
        // Odd pieces sit between two backticks, unless no backtick follows.
        let quoted = i % 2 == 1 && i + 1 < n;
        if quoted && !piece.is_empty() {
            let at_start = out.is_empty();
            out.push_str(&self::text(&std::mem::take(&mut text), at_start));
            out.push_str(&code(piece));
        } else if quoted {
            text.push_str("``");
        } else {
            if i % 2 == 1 {
                text.push('`');
            }
            text.push_str(piece);
        }
    }
    let at_start = out.is_empty();
    out.push_str(&self::text(&text, at_start));
    out
}

/// Inline code in Markdown: a backtick fence longer than any backtick run in
/// `s`, padded when `s` starts or ends with a backtick or a space; control
/// characters as visible escapes (a code span cannot hold a line break).
/// Nothing inside a code span is HTML, a mention or a link.
pub(crate) fn md_code(s: &str) -> String {
    code_span(&inert_code(&terminal(s)))
}

/// Text that is shown verbatim (a code span, a fenced block) but must not
/// carry a legacy workflow command (`##[`: the Markdown may be printed to a
/// CI log) or an HTML comment opener (`<!--`: the sticky marker's start):
/// a zero-width space goes between their first two characters.
pub(super) fn inert_code(s: &str) -> Cow<'_, str> {
    if s.contains("##[") || s.contains("<!--") {
        Cow::Owned(
            s.replace("##[", &format!("#{ZWSP}#["))
                .replace("<!--", &format!("<{ZWSP}!--")),
        )
    } else {
        Cow::Borrowed(s)
    }
}

/// Inline code inside a GFM table cell: as [`md_code`], and `|` escaped,
/// because GFM splits cells on `|` even inside code spans (and shows `\|`
/// there as `|`).
pub(crate) fn md_code_cell(s: &str) -> String {
    code_span(&inert_code(&terminal(s)).replace('|', "\\|"))
}

fn code_span(v: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in v.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest + 1);
    let pad = v.is_empty() || v.starts_with(['`', ' ']) || v.ends_with(['`', ' ']);
    let sp = if pad { " " } else { "" };
    format!("{fence}{sp}{v}{sp}{fence}")
}

/// Text inside a quoted Mermaid label (`id["…"]`): Mermaid's entity codes
/// for the characters that end the label or start markup (`#` first: it
/// starts entity codes), control characters as spaces.
pub(crate) fn mermaid_label(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '#' => out.push_str("#35;"),
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '&' => out.push_str("#amp;"),
            '`' => out.push_str("#96;"),
            '|' => out.push_str("#124;"),
            c if is_unsafe_char(c) => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Words Mermaid's flowchart grammar reserves: never usable as node ids.
const MERMAID_KEYWORDS: [&str; 13] = [
    "end",
    "graph",
    "flowchart",
    "subgraph",
    "click",
    "style",
    "class",
    "classdef",
    "linkstyle",
    "direction",
    "call",
    "href",
    "default",
];

/// Whether `id` can be a Mermaid node id as is: ASCII letters, digits and
/// `_`, starting with a letter, and not a keyword. Otherwise the caller
/// uses a generated id.
pub(crate) fn mermaid_id_ok(id: &str) -> bool {
    id.len() <= 64
        && id.starts_with(|c: char| c.is_ascii_alphabetic())
        && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !MERMAID_KEYWORDS.contains(&id.to_ascii_lowercase().as_str())
}

/// Text for an XML writer that escapes `<`, `&` and quotes itself (`JUnit`
/// via quick-junit): characters XML 1.0 forbids (most C0 controls, lone
/// surrogates cannot occur in `str`, U+FFFE/U+FFFF) become visible escapes
/// so the document stays well-formed; ESC and bidi overrides too, since
/// CI tools print these messages to terminals.
pub(crate) fn xml(s: &str) -> Cow<'_, str> {
    let bad = |c: char| {
        (is_unsafe_char(c) && c != '\n' && c != '\t') || matches!(c, '\u{FFFE}' | '\u{FFFF}')
    };
    if !s.chars().any(bad) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if bad(c) {
            push_visible(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A copy of `text` with the same length in bytes and characters where
/// every control character other than tab and line breaks (and every bidi
/// override) is replaced, so a file's content can be shown in a diagnostic
/// snippet without driving the terminal while byte offsets and columns
/// still point at the same places.
pub(crate) fn same_length_printable(text: &str) -> Cow<'_, str> {
    let keep =
        |c: char, next: Option<char>| c == '\n' || c == '\t' || (c == '\r' && next == Some('\n'));
    let mut chars = text.chars().peekable();
    let mut needs = false;
    while let Some(c) = chars.next() {
        if is_unsafe_char(c) && !keep(c, chars.peek().copied()) {
            needs = true;
            break;
        }
    }
    if !needs {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if is_unsafe_char(c) && !keep(c, chars.peek().copied()) {
            // Same UTF-8 length: 1 byte → `?`, 2 → `¿`, 3 → U+FFFD.
            out.push(match c.len_utf8() {
                1 => '?',
                2 => '¿',
                _ => '\u{FFFD}',
            });
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[path = "escape_mermaid.rs"]
mod mermaid;
pub(crate) use mermaid::mermaid_block;

#[cfg(test)]
#[path = "escape_tests.rs"]
mod tests;
