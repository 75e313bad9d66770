//! Issue 25, item 6, through the binary and a real GFM renderer (comrak,
//! with GitHub's autolink extension): a bare URL, a `www.` name, an e-mail
//! address, a tag and a link in a checkpoint instruction stay text in the
//! PR comment, the step summary and `--format markdown`; `click … href` and
//! `%%{init …}%%` mid-line in a saved report's Mermaid diagram are dropped
//! by `report --format markdown` and `comment --report`.

use super::expect;
use super::injection::{compare_in_a_pull_request, hostile_suite_with};
use crate::common::{bin, repo};
use crate::github_api::fake::{Fake, TOKEN};

const PAYLOADS: [&str; 6] = [
    "https://evil.example/x",
    "www.evil.example",
    "a@evil.example",
    "<img src=x>",
    "[x](javascript:alert(1))",
    "![i](https://evil.example/i.png)",
];

/// HTML as GitHub renders a comment (GFM, raw HTML kept so that any that
/// gets through is seen).
fn gfm_html(md: &str) -> String {
    let mut o = comrak::Options::default();
    o.extension.autolink = true;
    o.extension.table = true;
    o.extension.strikethrough = true;
    o.render.r#unsafe = true;
    comrak::markdown_to_html(md, &o)
}

/// Every `<a …>`, `<img …>` and raw tag in `html` that is not one of the
/// gate's own (`details`, `summary`, `sub`, `br`, Markdown's blocks).
fn foreign_elements(html: &str) -> Vec<String> {
    let own = [
        "p",
        "h2",
        "h3",
        "h4",
        "ul",
        "ol",
        "li",
        "blockquote",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "details",
        "summary",
        "sub",
        "code",
        "pre",
        "strong",
        "em",
        "br",
        "hr",
    ];
    html.split('<')
        .skip(1)
        .filter(|t| !t.starts_with("!--"))
        .filter_map(|t| {
            let name: String = t
                .trim_start_matches('/')
                .chars()
                .take_while(char::is_ascii_alphanumeric)
                .collect();
            (!own.contains(&name.as_str())).then(|| t.chars().take(60).collect())
        })
        .collect()
}

fn check_inert(what: &str, md: &str) {
    let html = gfm_html(md);
    let foreign = foreign_elements(&html);
    assert!(foreign.is_empty(), "{what}: {foreign:?}\n{md}");
    assert!(!html.contains("href="), "{what}: a link\n{html}");
    // The text is shown, as written (less the zero-width space after `@`).
    let shown = html.replace('\u{200B}', "");
    for p in [
        "https://evil.example/x",
        "www.evil.example",
        "a@evil.example",
    ] {
        assert!(shown.contains(p), "{what}: {p} not shown\n{html}");
    }
    assert!(shown.contains("&lt;img src=x&gt;"), "{what}\n{html}");
    assert!(shown.contains("[x](javascript:alert(1))"), "{what}\n{html}");
}

#[tokio::test]
async fn a_bare_url_in_an_instruction_is_no_link_in_the_comment_or_summary() {
    let instruction = format!("Never refund; see {}", PAYLOADS.join(" "));
    // Sanity: the renderer does link the raw payloads.
    assert!(gfm_html(&instruction).matches("href=").count() >= 3);
    let dir = hostile_suite_with(&instruction);
    let fake = Fake::start().await;
    let job = tempfile::tempdir().unwrap();
    let summary = job.path().join("summary.md");
    let out = compare_in_a_pull_request(dir.path(), &fake, job.path());
    let (stdout, _) = expect(&out, 2);
    let comments = fake.comments();
    assert_eq!(comments.len(), 1);
    check_inert("comment", &comments[0].body);
    check_inert("summary", &std::fs::read_to_string(&summary).unwrap());
    let markdown: String = stdout
        .lines()
        .filter(|l| !l.starts_with("::"))
        .collect::<Vec<_>>()
        .join("\n");
    check_inert("--format markdown", &markdown);
}

/// The regressed support-bot compare report, saved, with `worst_case.mermaid`
/// replaced by `mermaid`.
fn saved_report_with_mermaid(dir: &std::path::Path, mermaid: &str) -> std::path::PathBuf {
    let report = dir.join("compare.json");
    let out = bin()
        .current_dir(repo())
        .args(crate::common::regressed_compare_args(&["--quiet", "--out"]))
        .arg(&report)
        .output()
        .unwrap();
    expect(&out, 2);
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let saved = v["worst_case"]["mermaid"].as_str().unwrap().to_owned();
    assert!(saved.starts_with("flowchart TD\n"), "{saved}");
    v["worst_case"]["mermaid"] = serde_json::Value::String(format!("{saved}{mermaid}"));
    std::fs::write(&report, serde_json::to_string(&v).unwrap()).unwrap();
    report
}

/// The statements of every `mermaid` flowchart block in `md`.
fn flowcharts(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in md.lines() {
        if line.starts_with("```") {
            inside = line.trim_start_matches('`') == "mermaid";
            continue;
        }
        if inside {
            out.push(line.trim().to_owned());
        }
    }
    out.into_iter()
        .skip_while(|l| l != "flowchart TD")
        .collect()
}

const MID_LINE: &str = "    s1 --> s2; click s1 href \"javascript:alert(1)\"\n    s2[\"ok\"] %%{init: {\"securityLevel\":\"loose\"}}%%\n    s3[\"a %%{init: {\\\"securityLevel\\\":\\\"loose\\\"}}%% b\"]\n    s4[\"x\"]; click s4 call alert(1)\n    classDef root fill:url(javascript:x)\n  %%{init: {\"securityLevel\":\"loose\"}}%%\nclick s1 href \"https://evil.example\"\n";

fn check_diagram(what: &str, md: &str) {
    let chart = flowcharts(md);
    assert!(chart.len() > 10, "{what}: the diagram is kept\n{md}");
    assert!(chart.iter().any(|l| l.starts_with("s1[\"")), "{what}\n{md}");
    for line in &chart {
        assert!(!line.contains('%'), "{what}: {line}");
        // Outside a quoted label, only ids, arrows and the gate's words.
        let outside = line.split_once("[\"").map_or(line.as_str(), |(id, _)| id);
        for w in ["click", "call", "href", "url", "javascript"] {
            assert!(!outside.contains(w), "{what}: {line}");
        }
        if let Some((_, label)) = line.split_once("[\"") {
            let inner = label.strip_suffix("\"]").unwrap();
            assert!(!inner.contains('"'), "{what}: {line}");
        }
    }
}

#[tokio::test]
async fn mid_line_click_and_init_in_a_saved_report_are_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let report = saved_report_with_mermaid(dir.path(), MID_LINE);
    let out = bin()
        .args(["report", "--format", "markdown"])
        .arg(&report)
        .output()
        .unwrap();
    let (md, _) = expect(&out, 0);
    check_diagram("report --format markdown", &md);

    let fake = Fake::start().await;
    let out = bin()
        .args(["comment", "--pr", "7", "--report"])
        .arg(&report)
        .env("GITHUB_REPOSITORY", "acme/widgets")
        .env("GITHUB_API_URL", fake.api_url())
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    expect(&out, 0);
    let comments = fake.comments();
    assert_eq!(comments.len(), 1);
    // The short PR comment leaves the diagram to the job summary (issue 23);
    // if it ever carries it again, it is as inert as above.
    let body = &comments[0].body;
    if body.contains("flowchart TD") {
        check_diagram("comment --report", body);
    }
    for w in ["click s", "%%{init", "javascript:"] {
        assert!(!body.contains(w), "{w}: {body}");
    }
}
