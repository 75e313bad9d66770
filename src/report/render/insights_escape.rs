//! Escaping for the recurring-issue renderer until the shared escape module
//! (issue 12, `output::escape`) is on this branch: the same function names,
//! so switching is one `use` line. Markdown text: HTML-escaped, ASCII
//! punctuation backslash-escaped, `@` broken, control characters visible;
//! code spans: a fence longer than any backtick run; terminal: control
//! characters and bidi overrides visible.

use std::borrow::Cow;
use std::fmt::Write as _;

fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
        )
}

/// One field for a terminal line.
pub(super) fn terminal(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Markdown text (paragraph, list item, table cell).
pub(super) fn md_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for (i, c) in terminal(s).chars().enumerate() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '@' => out.push_str("@&#8203;"),
            ' ' if i == 0 => out.push_str("&#32;"),
            c if c.is_ascii_punctuation() => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Inline code.
pub(super) fn md_code(s: &str) -> String {
    code_span(&inert(&terminal(s)))
}

/// Inline code in a table cell (`|` escaped: GFM splits cells on it even in code).
pub(super) fn md_code_cell(s: &str) -> String {
    code_span(&inert(&terminal(s)).replace('|', "\\|"))
}

fn inert(s: &str) -> String {
    s.replace("##[", "#\u{200B}#[")
        .replace("<!--", "<\u{200B}!--")
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
