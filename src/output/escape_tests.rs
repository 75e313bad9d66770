use proptest::prelude::*;
use pulldown_cmark::{Event, Options, Parser};

use super::*;

/// Structure of a Markdown document: the sequence of block and inline
/// containers, with adjacent text merged and code spans kept as `C`.
pub(crate) fn structure(md: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for event in Parser::new_ext(md, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH) {
        let token = match event {
            Event::Start(tag) => format!("<{tag:?}"),
            Event::End(tag) => format!("{tag:?}>"),
            Event::Text(_) => "T".to_owned(),
            Event::Code(_) => "C".to_owned(),
            Event::Html(_) | Event::InlineHtml(_) => "HTML".to_owned(),
            other => format!("{other:?}"),
        };
        if token == "T" && out.last().is_some_and(|t| t == "T") {
            continue;
        }
        out.push(token);
    }
    // Link destinations and heading ids carry text: compare kinds only.
    out.into_iter()
        .map(|t| t.split(['(', '{']).next().unwrap_or_default().to_owned())
        .collect()
}

/// Text of the document outside code spans, entities decoded.
pub(crate) fn plain_text(md: &str) -> String {
    Parser::new_ext(md, Options::ENABLE_TABLES)
        .filter_map(|e| match e {
            Event::Text(t) => Some(t.into_string()),
            _ => None,
        })
        .collect()
}

pub(crate) fn codes(md: &str) -> Vec<String> {
    Parser::new_ext(md, Options::ENABLE_TABLES)
        .filter_map(|e| match e {
            Event::Code(t) => Some(t.into_string()),
            _ => None,
        })
        .collect()
}

/// HTML as GitHub renders a comment: GFM (tables, strikethrough, the
/// extended autolinks of `https://…`, `www.…` and e-mail addresses), raw
/// HTML passed through so that any that gets through is seen.
pub(crate) fn gfm_html(md: &str) -> String {
    let mut o = comrak::Options::default();
    o.extension.autolink = true;
    o.extension.table = true;
    o.extension.strikethrough = true;
    o.render.r#unsafe = true;
    comrak::markdown_to_html(md, &o)
}

/// Links, images and raw HTML elements in `html` (as rendered by
/// [`gfm_html`]), other than the ones the contexts hold themselves.
pub(crate) fn live_elements(html: &str) -> Vec<String> {
    let own = [
        "p",
        "h4",
        "blockquote",
        "ul",
        "li",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "details",
        "summary",
        "code",
    ];
    html.split('<')
        .skip(1)
        .filter_map(|t| {
            let name: String = t
                .trim_start_matches('/')
                .chars()
                .take_while(char::is_ascii_alphanumeric)
                .collect();
            (!own.contains(&name.as_str()))
                .then(|| format!("<{}", t.chars().take(40).collect::<String>()))
        })
        .collect()
}

/// `@` directly followed by a name character: GitHub would link (and notify) it.
pub(crate) fn has_mention(text: &str) -> bool {
    text.as_bytes()
        .windows(2)
        .any(|w| w[0] == b'@' && (w[1].is_ascii_alphanumeric() || w[1] == b'-'))
}

/// Markdown contexts a data string is placed in by the renderers.
fn contexts(text: &str, code: &str, cell_code: &str) -> Vec<String> {
    contexts_with_cell(text, text, code, cell_code)
}

fn contexts_with_cell(text: &str, cell_text: &str, code: &str, cell_code: &str) -> Vec<String> {
    vec![
        format!("Before {text} after.\n"),
        format!("#### 🔴 {code} — {text}\n"),
        format!("> {text}\n\n- {text}\n  - {code}: {text}\n"),
        format!("| a | b |\n|---|---|\n| {cell_code} | {cell_text} |\n| x | y |\n"),
        format!("<details><summary>s</summary>\n\n- {code} {text}\n\n</details>\n"),
    ]
}

fn check_markdown(s: &str) {
    // An empty field leaves its block empty; anything else reads as text.
    let placeholder = if s.is_empty() { "" } else { "plain" };
    let plain = contexts(placeholder, "`plain`", "`plain`");
    let data = contexts(&md_text(s), &md_code(s), &md_code_cell(s));
    let visible = terminal(s)
        .replace("##[", "#\u{200B}#[")
        .replace("<!--", "<\u{200B}!--");
    for (p, d) in plain.iter().zip(&data) {
        assert_eq!(
            structure(d),
            structure(p),
            "{s:?} changed the structure of\n{d}"
        );
        assert!(!has_mention(&plain_text(d)), "{s:?}: live mention in\n{d}");
        assert!(
            !d.lines().any(is_workflow_command),
            "{s:?}: command in\n{d}"
        );
        let live = live_elements(&gfm_html(d));
        assert!(live.is_empty(), "{s:?}: {live:?} in\n{d}");
        for code in codes(d) {
            if visible.trim().is_empty() {
                assert!(code.trim().is_empty(), "{s:?}: {code:?}");
            } else {
                assert_eq!(code, visible, "{s:?} in\n{d}");
            }
        }
    }
}

/// Like [`check_markdown`] for [`md_prose`]: quoted names may become code
/// spans, nothing else may change.
fn check_prose(s: &str) {
    let collapse = |v: Vec<String>| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for t in v {
            let t = if t == "C" { "T".to_owned() } else { t };
            if t == "T" && out.last().is_some_and(|l| l == "T") {
                continue;
            }
            out.push(t);
        }
        out
    };
    let placeholder = if s.is_empty() { "" } else { "plain" };
    let plain = contexts(placeholder, "`plain`", "`plain`");
    let data = contexts_with_cell(
        &md_prose(s),
        &md_prose_cell(s),
        &md_code(s),
        &md_code_cell(s),
    );
    for (p, d) in plain.iter().zip(&data) {
        assert_eq!(
            collapse(structure(d)),
            collapse(structure(p)),
            "{s:?} in\n{d}"
        );
        assert!(!has_mention(&plain_text(d)), "{s:?}: live mention in\n{d}");
        assert!(
            !d.lines().any(is_workflow_command),
            "{s:?}: command in\n{d}"
        );
        let live = live_elements(&gfm_html(d));
        assert!(live.is_empty(), "{s:?}: {live:?} in\n{d}");
    }
}

#[test]
fn prose_keeps_quoted_names_as_code() {
    let md = md_prose("tool `issue_refund` (span 1) and `a` b ` c");
    assert_eq!(codes(&format!("{md}\n")), ["issue_refund", "a"]);
    assert_eq!(plain_text(&format!("{md}\n")), "tool  (span 1) and  b ` c");
    for s in [
        "`<!-- x -->`",
        "``",
        "`@me`",
        "a ` b",
        "```",
        "`x\ny`",
        "` `",
    ] {
        check_prose(s);
    }
}

#[test]
fn terminal_fields_cannot_break_lines_or_drive_the_terminal() {
    assert_eq!(terminal("plain"), "plain");
    assert_eq!(
        terminal("x\n::error title=FORGED::y\r\x1b[31m\u{202e}"),
        "x\\n::error title=FORGED::y\\r\\x1b[31m\\u{202e}"
    );
    assert_eq!(terminal_text("a\n\tb\x1b"), "a\n\tb\\x1b");
    assert_eq!(terminal_text("a\r\nb"), "a\nb");
}

#[test]
fn no_line_can_start_a_workflow_command() {
    let text = "ok\n::error title=FORGED::x\n  ::stop-commands::tok\nsee ##[error]x\n";
    let out = workflow_guard(text);
    assert!(!out.lines().any(is_workflow_command), "{out}");
    assert_eq!(out.lines().count(), 4);
    assert_eq!(workflow_guard("a :: b"), "a :: b");
}

#[test]
fn workflow_command_values_are_percent_encoded() {
    assert_eq!(workflow_data("100% \r\n::x"), "100%25 %0D%0A::x");
    assert_eq!(workflow_property("a:b,c%"), "a%3Ab%2Cc%25");
}

#[test]
fn markdown_text_and_code_are_inert() {
    for s in [
        "<!-- agenteval-gate:main -->",
        "</details><img src=x onerror=alert(1)>",
        "@octocat and @org/team",
        "# heading\n## another",
        "x | y",
        "`code` and ``more``",
        "```",
        "    indented",
        "[link](javascript:alert(1)) ![img](http://x/y.png)",
        "1. item",
        "> quote",
        "*em* _em_ ~~s~~",
        "x\n::error title=FORGED::y",
        "\\",
        "",
        " ",
        "`",
        "a`",
        " lead",
        "&lt;b&gt;",
        "\u{202e}evil",
    ] {
        check_markdown(s);
    }
}

/// Issue 25: GFM autolinked a bare URL, `www.` and an e-mail address in
/// untrusted text; every ASCII punctuation character is now escaped.
#[test]
fn no_autolink_link_image_or_html_from_text() {
    let payloads = [
        "see https://evil.example/x now",
        "www.evil.example",
        "(www.evil.example)",
        "a@evil.example",
        "mailto:a@evil.example xmpp:a@evil.example/r",
        "ftp://evil.example http://evil.example",
        "<img src=x>",
        "[x](javascript:alert(1))",
        "![i](https://evil.example/i.png)",
        "<https://evil.example>",
        "[ref]\n\n[ref]: https://evil.example",
        "&#64; a&#64;evil.example",
    ];
    let unescaped = format!("{}\n", payloads.join(" "));
    assert!(
        !live_elements(&gfm_html(&unescaped)).is_empty(),
        "the parser links the raw payloads"
    );
    for s in payloads {
        check_markdown(s);
        check_prose(s);
        check_prose(&format!("call `x` with {s} `y`"));
        let html = gfm_html(&format!("{}\n", md_text(s)));
        assert!(
            !html.contains("<a ") && !html.contains("<img"),
            "{s:?}: {html}"
        );
    }
    // Every ASCII punctuation character is escaped and reads as written.
    let all: String = (b'!'..=b'~')
        .map(char::from)
        .filter(char::is_ascii_punctuation)
        .collect();
    assert_eq!(all.len(), 32);
    let md = md_text(&all);
    for c in all
        .chars()
        .filter(|c| !matches!(c, '&' | '<' | '>' | '"' | '@'))
    {
        assert!(md.contains(&format!("\\{c}")), "{c} unescaped in {md}");
    }
    let text = plain_text(&format!("{md}\n"));
    assert_eq!(text.replace('\u{200B}', ""), all);
}

#[test]
fn code_spans_keep_their_text_exactly() {
    assert_eq!(
        md_code("<!-- agenteval-gate:main -->"),
        "`<\u{200B}!-- agenteval-gate:main -->`"
    );
    for s in ["plain", "a`b", "``", "` x `", "x|y", "<b>", "@me"] {
        let md = format!("t {} t", md_code(s));
        assert_eq!(codes(&md), vec![s.to_owned()], "{md}");
        let cell = format!("| h |\n|---|\n| {} |\n", md_code_cell(s));
        assert_eq!(codes(&cell), vec![s.to_owned()], "{cell}");
    }
}

#[test]
fn markdown_text_reads_as_written() {
    for s in ["a <b> & \"c\" @d #1 *e* | f", "x_y-z.1"] {
        let text = plain_text(&format!("{}\n", md_text(s)));
        assert_eq!(text.replace('\u{200B}', ""), s);
    }
}

#[test]
fn mermaid_labels_and_ids() {
    assert_eq!(
        mermaid_label("a\"]\nclick x href \"javascript:x\" #1 <b> `c` |"),
        "a#quot;] click x href #quot;javascript:x#quot; #35;1 #lt;b#gt; #96;c#96; #124;"
    );
    assert!(mermaid_id_ok("s12") && mermaid_id_ok("lookup_account"));
    for bad in ["end", "End", "1x", "a-b", "a\nb", "", "click"] {
        assert!(!mermaid_id_ok(bad), "{bad}");
    }
}

#[test]
fn stored_mermaid_cannot_close_its_fence() {
    let hostile = "flowchart TD\n    s1[\"x\"]\n```\n<!-- agenteval-gate:main -->\n%%{init: {}}%%\nclick s1 href \"javascript:x\"\n````";
    let md = format!("before\n\n{}\n\nafter\n", mermaid_block(hostile));
    let plain = "before\n\n```mermaid\nflowchart TD\n```\n\nafter\n";
    assert_eq!(structure(&md), structure(plain), "{md}");
    assert!(!md.contains("click") && !md.contains("%%"), "{md}");
}

#[test]
fn xml_text() {
    assert_eq!(xml("ok\x1b[0m\x00\u{ffff}"), "ok\\x1b[0m\\x00\\u{ffff}");
    assert_eq!(xml("tab\tnl\n"), "tab\tnl\n");
}

#[test]
fn snippet_text_keeps_offsets() {
    let text = "a\x1bb\u{85}c\u{202e}d\r\ne\rf\n";
    let out = same_length_printable(text);
    assert_eq!(out.len(), text.len());
    assert_eq!(out.chars().count(), text.chars().count());
    assert_eq!(out, "a?b¿c\u{FFFD}d\r\ne?f\n");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_string_is_inert_in_markdown(s in "\\PC{0,40}|[`@<>!\\[\\]()#*_|\\\\\n\r\x1b :-]{0,30}|((https?://|www\\.|mailto:|[a-z]{1,3}@)[a-z./@:<>()\\[\\]]{1,12} ?){1,3}") {
        check_markdown(&s);
    }

    #[test]
    fn any_prose_is_inert_in_markdown(s in "\\PC{0,30}|[`@<>!\\[\\]()#*_|\\\\\n :a-]{0,30}|((https?://|www\\.|`|[a-z]{1,3}@)[a-z./@:`]{1,12} ?){1,3}") {
        check_prose(&s);
    }

    #[test]
    fn any_text_survives_the_workflow_guard(s in "[:#\\[ \na-z]{0,40}") {
        let out = workflow_guard(&s);
        prop_assert!(!out.split('\n').any(is_workflow_command));
        prop_assert_eq!(out.replace('\u{200B}', ""), s);
    }
}
