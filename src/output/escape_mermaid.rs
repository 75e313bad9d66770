//! The Mermaid flowchart a saved compare report carries (`worst_case.mermaid`)
//! is untrusted text. Matching line prefixes let `click … href` and
//! `%%{init: {"securityLevel":"loose"}}%%` through mid-line (issue 25), so
//! the diagram is parsed against the grammar of what the gate writes
//! (`dag::view`) and rebuilt from the parts: node ids that are plain
//! identifiers and no keyword, labels re-encoded, the two arrows, the three
//! classes and their plain styles. Any other line (`click`, `call`, `style`,
//! `linkStyle`, `%%` directives and comments, a second header) is dropped, and
//! no `%` or `"` survives inside a label, so a directive cannot start anywhere
//! (Mermaid finds `%%{…}%%` anywhere in the text, not only at a line start).

use std::fmt::Write as _;

use super::{inert_code, is_unsafe_char, mermaid_id_ok};

/// The classes `dag::view` assigns.
const CLASSES: [&str; 3] = ["root", "propagated", "compensated"];

/// A Mermaid diagram (from a saved report) as a fenced Markdown block it
/// cannot close, holding only the statements the gate writes (see the
/// module docs).
pub(crate) fn mermaid_block(text: &str) -> String {
    let mut body = String::from("flowchart TD\n");
    for line in text.lines() {
        if let Some(statement) = statement(line.trim()) {
            let _ = writeln!(body, "    {}", inert_code(&statement));
        }
    }
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}mermaid\n{}\n{fence}", body.trim_end())
}

/// One statement of the gate's grammar, rebuilt; `None` for anything else.
fn statement(line: &str) -> Option<String> {
    node(line)
        .or_else(|| edge(line))
        .or_else(|| class_def(line))
        .or_else(|| class(line))
}

/// `id["label"]`.
fn node(line: &str) -> Option<String> {
    let (id, rest) = line.split_once("[\"")?;
    let label = rest.strip_suffix("\"]")?;
    mermaid_id_ok(id).then(|| format!("{id}[\"{}\"]", label_text(label)))
}

/// `a --> b` or `a -.-> b`.
fn edge(line: &str) -> Option<String> {
    let [a, arrow, b] = words(line)?;
    (mermaid_id_ok(a) && mermaid_id_ok(b) && matches!(arrow, "-->" | "-.->"))
        .then(|| format!("{a} {arrow} {b}"))
}

/// `classDef root fill:#f8d7da,stroke:#c62828`: a known class and a style of
/// plain CSS words (no `url(`, no `;`, no `%`).
fn class_def(line: &str) -> Option<String> {
    let rest = line.strip_prefix("classDef ")?;
    let (name, style) = rest.trim_start().split_once(' ')?;
    let style = style.trim();
    let plain = |c: char| c.is_ascii_alphanumeric() || " #:,.-".contains(c);
    (CLASSES.contains(&name) && !style.is_empty() && style.len() <= 200 && style.chars().all(plain))
        .then(|| format!("classDef {name} {style}"))
}

/// `class a,b root`.
fn class(line: &str) -> Option<String> {
    let ["class", ids, name] = words(line)? else {
        return None;
    };
    (CLASSES.contains(&name) && ids.split(',').all(mermaid_id_ok))
        .then(|| format!("class {ids} {name}"))
}

fn words(line: &str) -> Option<[&str; 3]> {
    let mut it = line.split_whitespace();
    let words = [it.next()?, it.next()?, it.next()?];
    it.next().is_none().then_some(words)
}

/// A label's text, encoded again with Mermaid's entity codes: the gate's
/// `<br/>` stays, every character that could end the string or start markup
/// or a directive (double quote, `<`, `>`, `&`, `%`, `|`, backtick) becomes a
/// code (`#` stays, so the codes the gate wrote still read), control
/// characters become spaces.
/// Idempotent on what the gate writes.
fn label_text(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    for (i, part) in label.split("<br/>").enumerate() {
        if i > 0 {
            out.push_str("<br/>");
        }
        for c in part.chars() {
            match c {
                '"' => out.push_str("#quot;"),
                '<' => out.push_str("#lt;"),
                '>' => out.push_str("#gt;"),
                '&' => out.push_str("#amp;"),
                '%' => out.push_str("#37;"),
                '`' => out.push_str("#96;"),
                '|' => out.push_str("#124;"),
                c if is_unsafe_char(c) => out.push(' '),
                c => out.push(c),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GATE: &str = "flowchart TD\n    s1[\"s1 PLAN chat #quot;x#quot; #35;1<br/>N/A\"]\n    n1[\"weird id EXEC x<br/>2.0 · root cause\"]\n    s1 --> n1\n    s1 -.-> n1\n    classDef root fill:#f8d7da,stroke:#c62828,stroke-width:2px,color:#000\n    classDef compensated stroke-dasharray:5 5\n    class n1 root\n";

    #[test]
    fn what_the_gate_writes_is_kept_as_is() {
        let block = mermaid_block(GATE);
        assert_eq!(block, format!("```mermaid\n{}\n```", GATE.trim_end()));
    }

    #[test]
    fn directives_and_handlers_are_inert_wherever_they_appear() {
        let hostile = [
            "s1[\"x\"] %%{init: {\"securityLevel\":\"loose\"}}%%",
            "s1 --> n1; click s1 href \"javascript:alert(1)\"",
            "s1[\"a\"]; click s1 call alert(1) \"]",
            "  %%{init: {\"securityLevel\":\"loose\"}}%%",
            "click s1 href \"javascript:alert(1)\"",
            "s1[\"x %%{init: {}}%% y\"]",
            "style s1 fill:url(javascript:x)",
            "classDef root fill:url(x)",
            "classDef evil fill:#fff",
            "class s1 evil",
            "class click root",
            "click[\"x\"]",
            "call --> s1",
            "s1 --> n1 --> s2",
            "linkStyle 0 stroke:red",
            "graph LR",
        ]
        .join("\n");
        let block = mermaid_block(&hostile);
        assert!(!block.contains('%'), "{block}");
        for line in block.lines().skip(2) {
            let line = line.trim();
            if line == "```" {
                continue;
            }
            // Words outside a label: only ids, arrows and the gate's own.
            let outside = match line.split_once("[\"") {
                Some((id, _)) => id,
                None => line,
            };
            for w in [
                "click",
                "call",
                "href",
                "style",
                "linkStyle",
                "graph",
                "evil",
                "url",
            ] {
                assert!(
                    !outside.split([' ', ';', ',', '(']).any(|x| x == w),
                    "{line}"
                );
            }
            if let Some((_, label)) = line.split_once("[\"") {
                let inner = label.strip_suffix("\"]").unwrap();
                assert!(!inner.contains('"'), "{line}");
            }
        }
        assert!(
            block.contains("s1[\"a#quot;]; click s1 call alert(1) \"]"),
            "{block}"
        );
    }
}
