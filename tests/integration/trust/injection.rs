//! Item 2: strings from traces, suites and reports are escaped for where
//! they go. A hostile suite and trace go through `trace`, `compare` (PR
//! comment posted to a fake GitHub, step summary, annotations) and the
//! renderers; a property test puts any string into any field of a compare
//! report and parses the comment with pulldown-cmark.

use proptest::prelude::*;
use pulldown_cmark::{Event, Options, Parser, Tag};

use super::{expect, no_workflow_command};
use crate::common::{REGRESSED_INPUTS, bin, copy_dir, repo};
use crate::github_api::fake::{Fake, TOKEN};

/// Everything the issue found reaching output raw.
const HOSTILE: &str = "x <!-- agenteval-gate:main:support-bot --> </details><img src=x onerror=alert(1)> @octocat \n## Forged heading\n::error title=FORGED::gotcha\n::stop-commands::tok ##[error]old \u{1b}[31mred\u{1b}[0m ``` | cell";

#[test]
fn a_hostile_trace_prints_nothing_live() {
    let dir = tempfile::tempdir().unwrap();
    let name = "x\n::error title=FORGED::tool\n::stop-commands::tok\u{1b}]0;title\u{7}";
    let trace = serde_json::json!({"messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": name, "arguments": "{\"q\": \"\\n::warning::arg\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "\u{1b}[2J##[error]result"},
        {"role": "assistant", "content": "done\n::error::final"}
    ]});
    let path = dir.path().join("t.json");
    std::fs::write(&path, trace.to_string()).unwrap();
    for format in ["text", "json", "mermaid"] {
        let out = bin()
            .args(["trace", "--format", format])
            .arg(&path)
            .output()
            .unwrap();
        let (stdout, stderr) = expect(&out, 0);
        no_workflow_command(&stdout);
        no_workflow_command(&stderr);
        assert!(
            !stdout.contains('\u{1b}') && !stdout.contains('\u{7}'),
            "{format}: {stdout}"
        );
        if format == "json" {
            // JSON keeps the value exactly (escaped, not altered).
            let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            assert!(v.to_string().contains("::stop-commands::tok"));
        }
    }
}

/// A copy of the support-bot example whose regressed checkpoint
/// instruction and one regressed case id are hostile, with a baseline
/// recorded from its own (passing) traces.
fn hostile_suite() -> tempfile::TempDir {
    hostile_suite_with(HOSTILE)
}

/// [`hostile_suite`] with `instruction` as P2-02's instruction.
pub(super) fn hostile_suite_with(instruction: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suites/support-bot");
    copy_dir(&repo().join("suites/support-bot"), &suite);
    let yaml = std::fs::read_to_string(suite.join("suite.yaml")).unwrap();
    let yaml = yaml.replace(
        "instruction: Never issue a refund without a supervisor approval first",
        &format!(
            "instruction: {}",
            serde_json::to_string(instruction).unwrap()
        ),
    );
    std::fs::write(suite.join("suite.yaml"), yaml).unwrap();
    // A case id with every Markdown-active character lint allows.
    let id = "sb-003<b>@octocat`x|![i](j)";
    let cases = std::fs::read_to_string(suite.join("cases.jsonl")).unwrap();
    std::fs::write(
        suite.join("cases.jsonl"),
        cases.replace("\"sb-003\"", &format!("{id:?}")),
    )
    .unwrap();
    for sub in [
        "traces",
        "traces-regressed",
        "evidence",
        "evidence-regressed",
    ] {
        let from = suite.join(sub).join("sb-003.json");
        if from.exists() {
            std::fs::rename(&from, suite.join(sub).join(format!("{id}.json"))).unwrap();
        }
    }
    let out = bin()
        .current_dir(dir.path())
        .args([
            "baseline",
            "update",
            "--name",
            "main",
            "--deterministic",
            "--traces",
            "suites/support-bot/traces",
            "--evidence",
            "suites/support-bot/evidence",
        ])
        .output()
        .unwrap();
    expect(&out, 0);
    dir
}

fn html_events(md: &str) -> Vec<String> {
    Parser::new_ext(md, Options::ENABLE_TABLES)
        .filter_map(|e| match e {
            Event::Html(h) | Event::InlineHtml(h) => Some(h.trim().to_owned()),
            _ => None,
        })
        .collect()
}

fn texts(md: &str) -> String {
    Parser::new_ext(md, Options::ENABLE_TABLES)
        .filter_map(|e| match e {
            Event::Text(t) => Some(t.into_string()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .concat()
}

fn headings(md: &str) -> usize {
    Parser::new_ext(md, Options::ENABLE_TABLES)
        .filter(|e| matches!(e, Event::Start(Tag::Heading { .. })))
        .count()
}

/// The gate's own HTML: collapsible sections and the footer.
fn ours(tag: &str) -> bool {
    let t = tag.trim();
    [
        "<details>",
        "</details>",
        "<summary>",
        "</summary>",
        "<sub>",
        "</sub>",
    ]
    .iter()
    .any(|own| t.starts_with(own) || t.ends_with(own))
        && !t.contains("<img")
        && !t.contains("<!--")
}

fn check_comment(body: &str, marker: &str) {
    assert_eq!(
        body.lines().next(),
        Some(marker),
        "the marker leads the body"
    );
    assert_eq!(
        body.matches("<!-- agenteval-gate:").count(),
        1,
        "no second raw marker (an escaped one in quoted data is inert):\n{body}"
    );
    for tag in html_events(body) {
        assert!(
            tag.starts_with(marker) || ours(&tag),
            "live HTML from data: {tag:?}"
        );
    }
    let text = texts(body);
    assert!(!text.contains("@octocat"), "a live mention");
    assert!(
        text.contains("@\u{200B}octocat"),
        "the mention is shown, inert"
    );
    assert!(text.contains("Forged heading"), "the text is shown");
    no_workflow_command(body);
}

/// The regressed compare of `dir` (a [`hostile_suite_with`] copy) as a
/// `pull_request` job: `--format markdown`, the comment posted to `fake`,
/// the step summary written to `job/summary.md`.
pub(super) fn compare_in_a_pull_request(
    dir: &std::path::Path,
    fake: &Fake,
    job: &std::path::Path,
) -> std::process::Output {
    let event = job.join("event.json");
    std::fs::write(
        &event,
        r#"{"number": 7, "pull_request": {"number": 7, "head": {"repo": {"full_name": "acme/widgets"}}, "base": {"sha": "0000000", "repo": {"full_name": "acme/widgets"}}}, "repository": {"full_name": "acme/widgets"}}"#,
    )
    .unwrap();
    bin()
        .current_dir(dir)
        .arg("compare")
        .args(REGRESSED_INPUTS)
        .args([
            "--deterministic",
            "--baseline-ref",
            "worktree",
            "--rules-ref",
            "worktree",
            "--format",
            "markdown",
        ])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_REPOSITORY", "acme/widgets")
        .env("GITHUB_API_URL", fake.api_url())
        .env("GITHUB_TOKEN", TOKEN)
        .env("GITHUB_STEP_SUMMARY", job.join("summary.md"))
        .output()
        .unwrap()
}

#[tokio::test]
async fn a_hostile_suite_yields_an_inert_comment_summary_and_log() {
    let dir = hostile_suite();
    let fake = Fake::start().await;
    let job = tempfile::tempdir().unwrap();
    let summary = job.path().join("summary.md");
    let out = compare_in_a_pull_request(dir.path(), &fake, job.path());
    let (stdout, stderr) = expect(&out, 2);
    let marker = "<!-- agenteval-gate:main:support-bot -->";
    let comments = fake.comments();
    assert_eq!(comments.len(), 1, "{stderr}");
    let body = &comments[0].body;
    assert!(
        body.contains("Forged heading"),
        "the regressed checkpoint is shown:\n{body}"
    );
    check_comment(body, marker);
    // Every heading is one of the gate's own lines (none forged by a field),
    // in the comment and in the fuller job summary.
    for md in [body.clone(), std::fs::read_to_string(&summary).unwrap()] {
        let own = md.lines().filter(|l| l.starts_with('#')).count();
        assert_eq!(headings(&md), own, "{md}");
    }
    // Every workflow command on stdout is one of the gate's annotations.
    for line in stdout.lines().filter(|l| l.trim_start().starts_with("::")) {
        assert!(
            line.starts_with("::error title=agenteval-gate")
                || line.starts_with("::warning title=agenteval-gate"),
            "{line}"
        );
        assert!(
            !line.contains("FORGED") && !line.contains("stop-commands"),
            "{line}"
        );
    }
    let without_annotations: String = stdout
        .lines()
        .filter(|l| {
            !l.starts_with("::error title=agenteval-gate")
                && !l.starts_with("::warning title=agenteval-gate")
        })
        .collect::<Vec<_>>()
        .join("\n");
    no_workflow_command(&without_annotations);
    no_workflow_command(&stderr);
    assert!(!stdout.contains('\u{1b}') && !stderr.contains('\u{1b}'));

    // The terminal table and JUnit of the same report are inert too.
    let report = job.path().join("compare.json");
    let out = bin()
        .current_dir(dir.path())
        .arg("compare")
        .args(REGRESSED_INPUTS)
        .args(["--deterministic", "--out"])
        .arg(&report)
        .output()
        .unwrap();
    let (table, _) = expect(&out, 2);
    no_workflow_command(&table);
    assert!(!table.contains('\u{1b}'));
    let out = bin()
        .args(["report", "--format", "junit"])
        .arg(&report)
        .output()
        .unwrap();
    let (junit, _) = expect(&out, 0);
    assert!(!junit.contains('\u{1b}'), "XML forbids ESC");
    let out = bin()
        .current_dir(dir.path())
        .arg("run")
        .args(REGRESSED_INPUTS)
        .args(["--deterministic", "--format", "junit"])
        .output()
        .unwrap();
    let (junit, _) = expect(&out, 0);
    assert!(
        junit.contains("sb-003&lt;b&gt;@octocat`x|![i](j)::P2-02"),
        "markup is escaped"
    );
    assert!(!junit.contains('\u{1b}'), "XML forbids ESC");
}

/// The regressed support-bot compare report of the examples, as JSON.
fn regressed_report() -> serde_json::Value {
    static REPORT: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    REPORT
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("r.json");
            let out = bin()
                .current_dir(repo())
                .arg("compare")
                .args(REGRESSED_INPUTS)
                .args(["--deterministic", "--out"])
                .arg(&path)
                .output()
                .unwrap();
            expect(&out, 2);
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
        })
        .clone()
}

/// JSON pointers of every string in `v`.
fn string_fields(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(_) => out.push(at),
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                string_fields(x, format!("{at}/{i}"), out);
            }
        }
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                string_fields(
                    x,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        _ => {}
    }
}

/// Block and inline structure: every event but text, text-like code and
/// HTML content, with adjacent text merged.
fn structure(md: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in Parser::new_ext(md, Options::ENABLE_TABLES) {
        let t = match e {
            Event::Text(_) | Event::Code(_) => "T".to_owned(),
            Event::Html(h) | Event::InlineHtml(h) => format!("H:{}", h.trim()),
            Event::Start(tag) => format!("<{:?}", std::mem::discriminant(&tag)),
            Event::End(tag) => format!("{tag:?}>"),
            other => format!("{other:?}"),
        };
        if t == "T" && out.last().is_some_and(|l| l == "T") {
            continue;
        }
        out.push(t);
    }
    out
}

fn render(report: &serde_json::Value) -> Option<String> {
    let r: agenteval_gate::model::CompareReport = serde_json::from_value(report.clone()).ok()?;
    Some(agenteval_gate::report::render_compare_markdown(&r))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any string in any string field of a compare report renders to a
    /// comment with the same structure as a plain word there, and no live
    /// marker, mention, tag or workflow command.
    #[test]
    fn any_string_in_any_field_keeps_the_comment_inert(
        pick in any::<prop::sample::Index>(),
        s in "\\PC{0,24}|[`@<>!#*_|\\[\\]()\\\\\\n\\r:~-]{1,24}|<!-- agenteval-gate:main:x -->|@[a-z]{1,8}|</details>|::error::x|##\\[x",
    ) {
        let base = regressed_report();
        let mut fields = Vec::new();
        string_fields(&base, String::new(), &mut fields);
        let field = &fields[pick.index(fields.len())];
        let with = |value: &str| {
            let mut v = base.clone();
            *v.pointer_mut(field).unwrap() = serde_json::Value::String(value.to_owned());
            render(&v)
        };
        // Enum fields reject other strings: nothing to render then.
        let (Some(plain), Some(data)) = (with("plain"), with(&s)) else { return Ok(()) };
        if !s.is_empty() {
            prop_assert_eq!(structure(&data), structure(&plain), "field {}", field);
        }
        let marker_like = data.matches("<!-- agenteval-gate").count();
        prop_assert_eq!(marker_like, plain.matches("<!-- agenteval-gate").count(), "field {}", field);
        prop_assert!(!texts(&data).split_whitespace().any(|w| w.starts_with('@') && w.len() > 1 && !w.starts_with("@\u{200B}")), "mention in {}", field);
        for line in data.lines() {
            prop_assert!(!line.trim_start().starts_with("::") && !line.contains("##["), "command in {}: {:?}", field, line);
        }
    }
}

#[test]
fn the_field_list_covers_the_report() {
    let mut fields = Vec::new();
    string_fields(&regressed_report(), String::new(), &mut fields);
    assert!(fields.len() > 100, "{}", fields.len());
    assert!(fields.iter().any(|f| f.ends_with("/instruction")));
    assert!(fields.iter().any(|f| f.ends_with("/note")));
}
