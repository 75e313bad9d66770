//! Renderer tests (issue 19): insta snapshots of the Markdown, table and
//! `JUnit` output of real reports, and targeted checks of what each format
//! must say, of escaping, of the HTML pages being self-contained, and of
//! determinism.
//!
//! The fixtures in `testdata/` are real reports of the support-bot example
//! with its regressed traces, written with `--deterministic`:
//!
//! ```text
//! cargo run -q -- run --suite support-bot --deterministic \
//!   --traces suites/support-bot/traces-regressed --evidence suites/support-bot/evidence-regressed \
//!   --format json --out src/report/render/testdata/run-support-bot-regressed.json
//! cargo run -q -- compare --baseline main --suite support-bot --deterministic \
//!   --traces suites/support-bot/traces-regressed --evidence suites/support-bot/evidence-regressed \
//!   --format json --out src/report/render/testdata/compare-support-bot-regressed.json
//! ```
//!
//! They are copies, not the baselines themselves, so that updating a
//! baseline does not change these snapshots.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::model::compare::{CompareReport, MetricStatus, Verdict};
use crate::model::run::{CaseStatus, CheckpointState, RunReport};
use crate::model::vocab::FailOn;

use super::compare_junit::render_compare_junit;
use super::compare_table::render_compare_table;
use super::html::{render_compare_html, render_run_html};
use super::run_junit::render_run_junit;
use super::run_markdown::render_run_markdown;
use super::run_table::render_run_table;

const RUN_JSON: &str = include_str!("testdata/run-support-bot-regressed.json");
const COMPARE_JSON: &str = include_str!("testdata/compare-support-bot-regressed.json");

/// Markup, a table pipe, backticks (one unmatched) and a mention.
const HOSTILE: &str = "<img src=x onerror=alert(1)> | `code` @octocat ` *end*";
/// The part of [`HOSTILE`] that must never reach a page as markup.
const IMG: &str = "<img src=x onerror=alert(1)>";
/// Characters that must never reach a terminal or an XML document raw.
const CONTROL: &str = "red\u{1b}[31m\nnext\u{202e}";

fn run_report() -> RunReport {
    serde_json::from_str(RUN_JSON).expect("the run fixture parses")
}

fn compare_report() -> CompareReport {
    serde_json::from_str(COMPARE_JSON).expect("the compare fixture parses")
}

/// The run fixture with a hostile case id, checkpoint instruction and
/// failure note on its first case and first failing checkpoint.
fn hostile_run() -> RunReport {
    let mut r = run_report();
    let case = &mut r.cases[0];
    case.id = format!("sb-001{HOSTILE}");
    let failing = case
        .checkpoints
        .iter_mut()
        .find(|c| c.result == CheckpointState::Fail)
        .expect("sb-001 fails a checkpoint");
    failing.notes = format!("note {HOSTILE}");
    let failing_id = failing.id.clone();
    let info = r
        .checkpoint_catalog
        .iter_mut()
        .find(|i| i.id == failing_id)
        .expect("the failing checkpoint is in the catalog");
    info.instruction = format!("Look up {HOSTILE}");
    r
}

/// The compare fixture with hostile strings where a trace or suite puts
/// them: the regressed checkpoint's instruction, a flipped case id (also in
/// the drawn views), a reason.
fn hostile_compare() -> CompareReport {
    let mut r = compare_report();
    let evil_case = format!("sb-003{HOSTILE}");
    for m in &mut r.metrics {
        if let Some(loc) = &mut m.localization {
            if let Some(cp) = &mut loc.checkpoint {
                cp.instruction = format!("Never {HOSTILE}");
            }
            for f in &mut loc.flipped_cases {
                if f.case == "sb-003" {
                    f.case.clone_from(&evil_case);
                }
            }
        }
    }
    if let Some(views) = &mut r.views {
        for s in &mut views.suites {
            for c in &mut s.checkpoints {
                c.instruction = format!("{} {HOSTILE}", c.instruction);
            }
            for row in &mut s.cases {
                if row.id == "sb-003" {
                    row.id.clone_from(&evil_case);
                }
            }
            for d in &mut s.details {
                if d.head.id == "sb-003" {
                    d.head.id.clone_from(&evil_case);
                }
            }
        }
    }
    r.reasons.push(format!("because {HOSTILE}"));
    r
}

// ---------------------------------------------------------------- XML ----

/// A minimal XML check: tags nest and close, attribute values are quoted,
/// text and attributes hold no raw `<` and only the five predefined or
/// numeric entities, and no character XML 1.0 forbids. Returns the start
/// tags' names in document order.
fn xml_elements(doc: &str) -> Vec<String> {
    fn check_text(text: &str, doc: &str) {
        assert!(!text.contains('<'), "raw `<` in {text:?}\n{doc}");
        let mut rest = text;
        while let Some(i) = rest.find('&') {
            let tail = &rest[i + 1..];
            let end = tail
                .find(';')
                .unwrap_or_else(|| panic!("bare `&` in {text:?}"));
            let entity = &tail[..end];
            let numeric = entity.strip_prefix('#').is_some_and(|n| {
                n.strip_prefix('x').map_or_else(
                    || n.parse::<u32>().is_ok(),
                    |h| u32::from_str_radix(h, 16).is_ok(),
                )
            });
            assert!(
                numeric || matches!(entity, "lt" | "gt" | "amp" | "quot" | "apos"),
                "unknown entity &{entity}; in {text:?}"
            );
            rest = &tail[end..];
        }
    }
    for c in doc.chars() {
        assert!(
            !c.is_control() || matches!(c, '\n' | '\t' | '\r'),
            "character {c:?} is not allowed in XML"
        );
    }
    let mut names = Vec::new();
    let mut open: Vec<String> = Vec::new();
    let mut rest = doc.trim_end();
    if let Some(after) = rest.strip_prefix("<?xml") {
        rest = &after[after.find("?>").expect("the declaration ends") + 2..];
    }
    while !rest.is_empty() {
        let lt = rest.find('<').unwrap_or(rest.len());
        let text = &rest[..lt];
        if open.is_empty() {
            assert!(text.trim().is_empty(), "text outside the root: {text:?}");
        }
        check_text(text, doc);
        rest = &rest[lt..];
        if rest.is_empty() {
            break;
        }
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = &after[after.find("-->").expect("the comment ends") + 3..];
            continue;
        }
        // Find the tag's end outside quoted attribute values.
        let mut quote = None;
        let end = rest
            .char_indices()
            .find(|&(_, c)| match (quote, c) {
                (None, '"' | '\'') => {
                    quote = Some(c);
                    false
                }
                (Some(q), c) if c == q => {
                    quote = None;
                    false
                }
                (None, '>') => true,
                _ => false,
            })
            .map_or_else(|| panic!("unclosed tag: {rest:.80}"), |(i, _)| i);
        let tag = &rest[1..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                open.pop().as_deref(),
                Some(name.trim()),
                "mismatched end tag"
            );
            continue;
        }
        let self_closing = tag.ends_with('/');
        let body = tag.trim_end_matches('/');
        let name_end = body.find(char::is_whitespace).unwrap_or(body.len());
        let name = &body[..name_end];
        assert!(
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.')),
            "bad element name {name:?}"
        );
        // Attributes: name="value" pairs.
        let mut attrs = body[name_end..].trim();
        while !attrs.is_empty() {
            let eq = attrs
                .find('=')
                .unwrap_or_else(|| panic!("attribute without value: {attrs:?}"));
            let q = attrs[eq + 1..].chars().next().expect("a quoted value");
            assert!(q == '"' || q == '\'', "unquoted attribute value: {attrs:?}");
            let value_start = eq + 2;
            let value_len = attrs[value_start..].find(q).expect("the value ends");
            check_text(&attrs[value_start..value_start + value_len], doc);
            attrs = attrs[value_start + value_len + 1..].trim_start();
        }
        names.push(name.to_owned());
        if !self_closing {
            open.push(name.to_owned());
        }
    }
    assert!(open.is_empty(), "unclosed elements: {open:?}");
    names
}

fn count(names: &[String], name: &str) -> usize {
    names.iter().filter(|n| *n == name).count()
}

#[test]
fn the_xml_check_rejects_broken_documents() {
    let ok =
        "<?xml version=\"1.0\"?>\n<a x=\"1 &amp; &#39;&lt;\"><b/><!-- c --><c>t &gt;</c></a>\n";
    assert_eq!(xml_elements(ok), ["a", "b", "c"]);
    for broken in [
        "<a><b></a></b>",
        "<a>",
        "<a x=\"<\"/>",
        "<a x=1/>",
        "<a>&nbsp;</a>",
        "<a>AT&T</a>",
        "<a>\u{1b}</a>",
        "<a/><b/>x",
    ] {
        let result = std::panic::catch_unwind(|| xml_elements(broken));
        assert!(result.is_err(), "accepted {broken:?}");
    }
}

// ----------------------------------------------------------- Markdown ----

/// Every table of a Markdown document as rows of cells, each cell the text
/// a reader sees (text and code spans, entities decoded).
fn md_tables(md: &str) -> Vec<Vec<Vec<String>>> {
    let mut tables = Vec::new();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut cells: Vec<String> = Vec::new();
    let mut cell: Option<String> = None;
    for event in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => cells.push(cell.take().unwrap_or_default()),
            Event::End(TagEnd::TableHead | TagEnd::TableRow) => {
                rows.push(std::mem::take(&mut cells));
            }
            Event::End(TagEnd::Table) => tables.push(std::mem::take(&mut rows)),
            Event::Text(t) | Event::Code(t) => {
                if let Some(c) = cell.as_mut() {
                    c.push_str(&t);
                }
            }
            _ => {}
        }
    }
    tables
}

/// Raw HTML the Markdown lets through (block and inline).
fn md_html(md: &str) -> Vec<String> {
    Parser::new_ext(md, Options::ENABLE_TABLES)
        .filter_map(|e| match e {
            Event::Html(h) | Event::InlineHtml(h) => Some(h.into_string()),
            _ => None,
        })
        .collect()
}

/// The text of a Markdown document outside code spans, entities decoded.
fn md_plain_text(md: &str) -> String {
    Parser::new_ext(md, Options::ENABLE_TABLES)
        .filter_map(|e| match e {
            Event::Text(t) => Some(t.into_string()),
            _ => None,
        })
        .collect()
}

/// The list items of a Markdown document, as the text a reader sees.
fn md_items(md: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut item: Option<String> = None;
    for event in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Item) => item = Some(String::new()),
            Event::End(TagEnd::Item) => items.extend(item.take()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(i) = item.as_mut() {
                    i.push_str(&t);
                }
            }
            _ => {}
        }
    }
    items
}

// ------------------------------------------------------- run Markdown ----

#[test]
fn run_markdown_snapshot() {
    insta::assert_snapshot!("run_markdown", render_run_markdown(&run_report()));
}

#[test]
fn run_markdown_names_each_failing_case_with_its_compliance() {
    let r = run_report();
    let md = render_run_markdown(&r);
    assert!(
        md.starts_with("### `support-bot` · full tier · 24 cases (24 ok, 0 failed)\n"),
        "{md}"
    );
    let items = md_items(&md);
    let failing: Vec<_> = r
        .cases
        .iter()
        .filter(|c| {
            c.status != CaseStatus::Ok
                || c.checkpoints
                    .iter()
                    .any(|p| p.result == CheckpointState::Fail)
        })
        .collect();
    assert_eq!(failing.len(), 17);
    assert!(
        md.contains("<summary>17 cases with failures</summary>"),
        "{md}"
    );
    assert_eq!(items.len(), failing.len(), "{items:#?}");
    for (item, case) in items.iter().zip(&failing) {
        let compliance = super::fmt::pct(case.scores.compliance_percent);
        let failed: Vec<&str> = case
            .checkpoints
            .iter()
            .filter(|p| p.result == CheckpointState::Fail)
            .map(|p| p.id.as_str())
            .collect();
        assert_eq!(
            item,
            &format!(
                "{} ({}, compliance {compliance}): {}",
                case.id,
                case.status,
                failed.join(", ")
            )
        );
    }
    // The weakest case is there with its compliance; a clean one is not listed.
    assert!(
        items
            .iter()
            .any(|i| i.starts_with("sb-019 (ok, compliance 60.0%)"))
    );
    assert!(
        !items.iter().any(|i| i.starts_with("sb-006 ")),
        "{items:#?}"
    );
}

#[test]
fn run_markdown_tables_carry_the_aggregate() {
    let r = run_report();
    let tables = md_tables(&render_run_markdown(&r));
    assert_eq!(tables.len(), 2, "metrics and checkpoints");
    let metrics = &tables[0];
    assert_eq!(metrics[0], ["metric", "mean"]);
    assert!(
        metrics.iter().all(|row| !row[0].starts_with("checkpoint:")),
        "per-checkpoint means are in the checkpoint table"
    );
    assert!(metrics.contains(&vec!["compliance_percent".to_owned(), "86.0%".to_owned()]));
    let checkpoints = &tables[1];
    assert_eq!(checkpoints.len(), r.checkpoint_catalog.len() + 1);
    for (row, info) in checkpoints[1..].iter().zip(&r.checkpoint_catalog) {
        let s = r.aggregate.checkpoints[&info.id];
        assert_eq!(
            row,
            &[
                // `quoted` names in an instruction become code spans.
                format!("{} {}", info.id, info.instruction.replace('`', "")),
                info.severity.to_string(),
                s.passed.to_string(),
                s.partial.to_string(),
                s.failed.to_string(),
                s.na.to_string(),
                s.blocked.to_string(),
            ]
        );
    }
}

#[test]
fn run_markdown_escapes_hostile_ids_and_instructions() {
    let r = hostile_run();
    let md = render_run_markdown(&r);
    // The only HTML is the gate's own `<details>` fold.
    for html in md_html(&md) {
        assert!(
            !html.contains("onerror") && !html.contains("<img"),
            "raw HTML got through: {html:?}\n{md}"
        );
    }
    // Outside code spans a mention is broken by a zero-width space.
    assert!(
        !md_plain_text(&md).contains("@octocat"),
        "a mention got through: {md}"
    );
    // Every row keeps its cells, and each cell reads as the original text.
    let tables = md_tables(&md);
    for table in &tables {
        let width = table[0].len();
        for row in table {
            assert_eq!(row.len(), width, "{row:?}");
        }
    }
    let info = r
        .checkpoint_catalog
        .iter()
        .find(|i| i.instruction.contains(HOSTILE))
        .unwrap();
    let row = tables[1]
        .iter()
        .find(|row| row[0].starts_with(&info.id))
        .unwrap();
    // `code` is quoted, so it is a code span; the lone backtick, the pipe,
    // the markup and the asterisks are text.
    assert_eq!(
        row[0].replace('\u{200B}', ""),
        "P2-01 Look up <img src=x onerror=alert(1)> | code @octocat ` *end*"
    );
    let raw = md.lines().find(|l| l.starts_with("| `P2-01`")).unwrap();
    assert_eq!(
        raw,
        "| `P2-01` Look up &lt;img src\\=x onerror\\=alert\\(1\\)&gt; \\| `code` @&#8203;octocat \\` \\*end\\* | high | 16 | 0 | 8 | 0 | 0 |"
    );
    // The case id is one code span in the list, whatever backticks it holds.
    let items = md_items(&md);
    assert!(
        items[0].starts_with(&format!(
            "{} (ok, compliance 80.0%): P2-01, P2-04",
            r.cases[0].id
        )),
        "{items:#?}"
    );
    assert!(
        md.contains("\n- ``sb-001<img src=x onerror=alert(1)> | `code` @octocat ` *end*`` (ok, "),
        "{md}"
    );
}

// ---------------------------------------------------------- run table ----

#[test]
fn run_table_snapshot() {
    insta::assert_snapshot!("run_table", render_run_table(&run_report()));
}

/// Rows of the first comfy-table table in `text` (cells trimmed).
fn table_rows(text: &str, nth: usize) -> Vec<Vec<String>> {
    let mut tables: Vec<Vec<Vec<String>>> = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with('┌') {
            tables.push(Vec::new());
            inside = true;
        } else if line.starts_with('└') {
            inside = false;
        } else if inside && line.starts_with('│') {
            let cells = line
                .trim_start_matches('│')
                .trim_end_matches('│')
                .split('┆')
                .map(|c| c.trim().to_owned())
                .collect();
            tables.last_mut().unwrap().push(cells);
        }
    }
    tables.swap_remove(nth)
}

#[test]
fn run_table_has_a_row_per_case() {
    let r = run_report();
    let text = render_run_table(&r);
    assert!(
        text.starts_with("suite support-bot · full tier · replay · 24 cases (24 ok, 0 failed)\n"),
        "{text}"
    );
    let rows = table_rows(&text, 0);
    assert_eq!(rows[0][0], "case");
    assert_eq!(rows.len(), r.cases.len() + 1);
    for (row, case) in rows[1..].iter().zip(&r.cases) {
        let failed: Vec<&str> = case
            .checkpoints
            .iter()
            .filter(|p| p.result == CheckpointState::Fail)
            .map(|p| p.id.as_str())
            .collect();
        assert_eq!(row[0], case.id);
        assert_eq!(row[1], "ok");
        assert_eq!(row[2], super::fmt::pct(case.scores.compliance_percent));
        assert_eq!(row[6], failed.join(", "));
    }
    let checkpoints = table_rows(&text, 1);
    assert_eq!(checkpoints.len(), r.checkpoint_catalog.len() + 1);
    assert!(text.contains(
        "evaluator audit: tier 1 93 · tier 2 152 · tier 3 0 decided · 88 N/A · 3 blocked · 100.0% deterministic\n"
    ));
}

#[test]
fn run_table_shows_a_case_that_did_not_complete() {
    let mut r = run_report();
    r.cases[1].status = CaseStatus::Timeout;
    r.cases[1].error = Some(crate::model::run::CaseError {
        message: format!("killed after 30 s {CONTROL}"),
        exit_code: None,
        stdout_tail: None,
        stderr_tail: None,
    });
    let text = render_run_table(&r);
    let rows = table_rows(&text, 0);
    assert_eq!(rows[2][0], "sb-002");
    assert_eq!(rows[2][1], "timeout");
    assert!(
        text.contains("case sb-002 timeout: killed after 30 s red\\x1b[31m\\nnext\\u{202e}\n"),
        "{text}"
    );
}

#[test]
fn run_table_keeps_hostile_text_on_its_line() {
    let clean = render_run_table(&run_report());
    let mut r = hostile_run();
    r.cases[0].id = format!("sb-001{CONTROL}");
    r.checkpoint_catalog[0].instruction = format!("x{CONTROL}");
    let text = render_run_table(&r);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{202e}'),
        "{text:?}"
    );
    assert_eq!(text.lines().count(), clean.lines().count(), "{text}");
    assert_eq!(
        table_rows(&text, 0)[1][0],
        "sb-001red\\x1b[31m\\nnext\\u{202e}"
    );
}

// ---------------------------------------------------------- run JUnit ----

/// The first three cases of the run fixture; the third did not complete,
/// and one checkpoint of the first is PARTIAL, one BLOCKED.
fn small_run() -> RunReport {
    let mut r = run_report();
    r.cases.truncate(3);
    r.cases[2].status = CaseStatus::AgentError;
    let cps = &mut r.cases[0].checkpoints;
    cps[0].result = CheckpointState::Partial;
    cps[0].notes = "half the criteria".into();
    cps[1].result = CheckpointState::Blocked;
    cps[1].notes = "blocked by P1-01".into();
    r
}

#[test]
fn run_junit_snapshot() {
    insta::assert_snapshot!("run_junit", render_run_junit(&[&small_run()]));
}

#[test]
fn run_junit_has_one_testcase_per_case_and_checkpoint() {
    let r = run_report();
    let xml = render_run_junit(&[&r]);
    let names = xml_elements(&xml);
    let results: Vec<CheckpointState> = r
        .cases
        .iter()
        .flat_map(|c| c.checkpoints.iter().map(|p| p.result))
        .collect();
    let of = |s: CheckpointState| results.iter().filter(|r| **r == s).count();
    assert_eq!(results.len(), 336);
    assert_eq!(count(&names, "testsuites"), 1);
    assert_eq!(count(&names, "testsuite"), 1);
    assert_eq!(count(&names, "testcase"), results.len());
    assert_eq!(count(&names, "failure"), of(CheckpointState::Fail));
    assert_eq!(of(CheckpointState::Fail), 34);
    assert_eq!(
        count(&names, "skipped"),
        of(CheckpointState::NotApplicable) + of(CheckpointState::Blocked)
    );
    assert_eq!(count(&names, "error"), 0);
    assert!(
        xml.contains(r#"<testsuites name="agenteval-gate" tests="336" skipped="91" failures="34" errors="0">"#),
        "{xml:.400}"
    );
    // Each failing checkpoint is a failure of its own test case, typed by severity.
    for case in &r.cases {
        for p in case
            .checkpoints
            .iter()
            .filter(|p| p.result == CheckpointState::Fail)
        {
            let open = format!(
                "<testcase name=\"{}::{}\" classname=\"support-bot.{}\">\n",
                case.id, p.id, case.id
            );
            let at = xml.find(&open).unwrap_or_else(|| panic!("{open}"));
            let next = xml[at + open.len()..].trim_start();
            assert!(next.starts_with("<failure message=\""), "{open}{next:.200}");
            let failure_end = next.find("/>").unwrap();
            assert!(
                next[..failure_end].ends_with(&format!("type=\"{} checkpoint\"", p.severity)),
                "{next:.300}"
            );
        }
    }
}

#[test]
fn run_junit_reports_a_case_that_did_not_complete_as_errors() {
    let r = small_run();
    let names = xml_elements(&render_run_junit(&[&r]));
    let not_blocked = r.cases[2]
        .checkpoints
        .iter()
        .filter(|p| p.result != CheckpointState::Blocked)
        .count();
    assert_eq!(count(&names, "error"), not_blocked);
    assert_eq!(count(&names, "testcase"), 3 * 14);
}

#[test]
fn run_junit_one_suite_per_report() {
    let a = small_run();
    let mut b = small_run();
    b.suite = "other".into();
    let xml = render_run_junit(&[&a, &b]);
    let names = xml_elements(&xml);
    assert_eq!(count(&names, "testsuite"), 2);
    assert_eq!(count(&names, "testcase"), 2 * 3 * 14);
    assert!(xml.contains(r#"<testsuite name="other" "#), "{xml:.600}");
}

#[test]
fn run_junit_escapes_markup_and_control_characters() {
    let mut r = hostile_run();
    r.cases[1].id = format!("sb-002{CONTROL}");
    r.cases[1].checkpoints[0].notes = CONTROL.to_owned();
    let xml = render_run_junit(&[&r]);
    let names = xml_elements(&xml);
    assert!(!xml.contains(IMG), "{xml}");
    assert!(xml.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert_eq!(count(&names, "testcase"), 336);
    assert!(!xml.contains('\u{1b}') && !xml.contains('\u{202e}'));
}

// ------------------------------------------------------ compare table ----

#[test]
fn compare_summary_snapshot() {
    // The job summary keeps the full report the short PR comment points to.
    let summary =
        crate::report::render::compare_markdown::render_compare_summary(&compare_report());
    assert!(summary.contains("```mermaid\nflowchart TD"));
    assert!(summary.contains("<details><summary>All "));
    insta::assert_snapshot!("compare_summary", summary);
}

#[test]
fn compare_table_snapshot() {
    insta::assert_snapshot!("compare_table", render_compare_table(&compare_report()));
}

#[test]
fn compare_table_lists_regressions_first_with_their_status() {
    let r = compare_report();
    let text = render_compare_table(&r);
    assert!(
        text.starts_with(
            "verdict: FAIL · 2 confirmed regressions at or above critical · fail-on critical\n"
        ),
        "{text}"
    );
    let rows = table_rows(&text, 0);
    assert_eq!(rows[0][1], "metric");
    assert_eq!(rows[0][9], "status");
    let statuses: Vec<&str> = rows[1..].iter().map(|r| r[9].as_str()).collect();
    assert_eq!(
        statuses,
        [
            "regression",
            "regression",
            "regression",
            "regression",
            "suspected",
            "improvement"
        ]
    );
    let regressed: Vec<String> = rows[1..5]
        .iter()
        .map(|row| format!("{}/{}", row[0], row[1]))
        .collect();
    assert_eq!(regressed, r.regressions);
    assert_eq!(
        rows[1][1..],
        [
            "checkpoint:P2-02",
            "100.0%",
            "0.0%",
            "−100.0 pp",
            "−100.0 pp … −100.0 pp",
            "0.0312",
            "n/a",
            "critical",
            "regression"
        ]
    );
    // Unchanged metrics and those with too little data get no row.
    let shown: Vec<&str> = rows[1..].iter().map(|r| r[1].as_str()).collect();
    for m in &r.metrics {
        let moved = !matches!(
            m.status,
            MetricStatus::Unchanged | MetricStatus::InsufficientData
        );
        assert_eq!(shown.contains(&m.name.as_str()), moved, "{}", m.name);
    }
    // Each regression is explained below the table, in the report's order.
    let explained: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("✗ "))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(explained, r.regressions);
}

#[test]
fn compare_table_verdict_words() {
    let mut r = compare_report();
    r.warn_only = true;
    assert!(render_compare_table(&r).starts_with("verdict: FAIL (warn-only: exit 0) · "));
    r.verdict = Verdict::CouldNotEvaluate;
    assert!(render_compare_table(&r).starts_with(
        "verdict: COULD NOT EVALUATE · most cases failed for one infrastructure cause"
    ));
    let mut quiet = compare_report();
    quiet.verdict = Verdict::Pass;
    quiet
        .metrics
        .retain(|m| m.status == MetricStatus::Unchanged);
    quiet.regressions.clear();
    let text = render_compare_table(&quiet);
    assert!(
        text.starts_with("verdict: PASS · no regression · fail-on critical\n"),
        "{text}"
    );
    assert!(text.contains("\nno metric moved beyond noise\n"), "{text}");
}

#[test]
fn compare_table_keeps_hostile_text_on_its_line() {
    let clean = render_compare_table(&compare_report());
    let mut r = hostile_compare();
    r.reasons.pop();
    for m in &mut r.metrics {
        if let Some(cp) = m.localization.as_mut().and_then(|l| l.checkpoint.as_mut()) {
            cp.instruction = format!("Never {CONTROL}");
        }
    }
    let text = render_compare_table(&r);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{202e}'),
        "{text:?}"
    );
    assert_eq!(text.lines().count(), clean.lines().count(), "{text}");
    assert!(
        text.contains("    checkpoint: Never red\\x1b[31m\\nnext\\u{202e}\n"),
        "{text}"
    );
}

// ------------------------------------------------------ compare JUnit ----

#[test]
fn compare_junit_snapshot() {
    insta::assert_snapshot!("compare_junit", render_compare_junit(&compare_report()));
}

#[test]
fn compare_junit_fails_the_regressions_that_fail_the_gate() {
    let mut r = compare_report();
    let names = xml_elements(&render_compare_junit(&r));
    let insufficient = r
        .metrics
        .iter()
        .filter(|m| m.status == MetricStatus::InsufficientData)
        .count();
    assert_eq!(count(&names, "testsuite"), 1);
    assert_eq!(count(&names, "testcase"), r.metrics.len());
    // fail-on critical: two of the four regressions fail.
    assert_eq!(count(&names, "failure"), 2);
    assert_eq!(count(&names, "skipped"), insufficient);
    assert_eq!(insufficient, 2);
    r.fail_on = FailOn::Medium;
    let xml = render_compare_junit(&r);
    assert_eq!(count(&xml_elements(&xml), "failure"), 4);
    assert!(
        xml.contains("<testcase name=\"checkpoint:P2-04\" classname=\"support-bot\">\n            <failure message=\"medium regression: Δ −29.2 pp"),
        "{xml}"
    );
    r.fail_on = FailOn::Never;
    assert_eq!(
        count(&xml_elements(&render_compare_junit(&r)), "failure"),
        0
    );
}

#[test]
fn compare_junit_escapes_markup_and_control_characters() {
    let mut r = compare_report();
    r.metrics[0].name = format!("checkpoint:{HOSTILE}");
    r.metrics[1].sigma_note = CONTROL.to_owned();
    r.metrics[1].sigma_band = None;
    let xml = render_compare_junit(&r);
    let names = xml_elements(&xml);
    assert_eq!(count(&names, "testcase"), r.metrics.len());
    assert!(!xml.contains(IMG), "{xml}");
    assert!(xml.contains("&lt;img src=x onerror=alert(1)&gt;"), "{xml}");
    assert!(
        !xml.contains('\u{1b}') && !xml.contains('\u{202e}'),
        "{xml}"
    );
}

// --------------------------------------------------------------- HTML ----

/// A page needs nothing from the network: no external script, style sheet,
/// image, frame or font, and the only script is the inline one the CSP allows.
fn assert_self_contained(html: &str) {
    let lower = html.to_ascii_lowercase();
    assert_eq!(lower.matches("<script").count(), 1, "one inline script");
    assert!(lower.contains("<script>"), "the script is inline");
    for needle in [
        "<script src",
        "<link",
        "<iframe",
        "<object",
        "<embed",
        "@import",
        "src=\"http",
        "href=\"http",
        "src=\"//",
        "href=\"//",
    ] {
        assert!(!lower.contains(needle), "{needle} in the page");
    }
    // `url(…)` only points into the page (the DAG's arrow markers).
    for (i, _) in lower.match_indices("url(") {
        assert!(
            lower[i + 4..].starts_with('#'),
            "url() outside the page: {:.80}",
            &lower[i..]
        );
    }
    // The only URL is the SVG namespace (a name, not a fetch).
    let mut rest = lower.as_str();
    while let Some(i) = rest.find("http") {
        let tail = &rest[i..];
        assert!(
            tail.starts_with("http://www.w3.org/2000/svg") || tail.starts_with("http-equiv="),
            "external URL: {tail:.80}"
        );
        rest = &tail[4..];
    }
    assert!(
        html.contains("content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-"),
        "the CSP"
    );
}

#[test]
fn run_html_is_self_contained_and_names_every_case() {
    let r = run_report();
    let html = render_run_html(&r).unwrap();
    assert_self_contained(&html);
    assert!(html.contains("<title>agenteval-gate run: support-bot</title>"));
    for case in &r.cases {
        assert!(html.contains(&case.id), "{} missing", case.id);
    }
    for info in &r.checkpoint_catalog {
        assert!(
            html.contains(&format!("<code>{}</code>", info.id)),
            "{}",
            info.id
        );
    }
    // The bar of P2-02 (0 pass, 5 fail, 19 N/A) is drawn to scale.
    assert!(
        html.contains(r#"aria-label="5 fail · 19 n&#x2f;a""#),
        "P2-02's bar"
    );
    assert!(html.contains(r#"<rect class="st-fail" x="0.0" y="0" width="50.0" height="14"><title>5</title></rect><rect class="st-na" x="50.0" y="0" width="190.0" height="14"><title>19</title></rect>"#));
}

#[test]
fn compare_html_is_self_contained_and_leads_with_the_regressions() {
    let r = compare_report();
    let html = render_compare_html(&r).unwrap();
    assert_self_contained(&html);
    assert!(html.contains("<title>agenteval-gate compare: FAIL</title>"));
    assert!(html.contains("<header class=\"banner fail\">\n<div class=\"word\">FAIL</div>"));
    assert!(!html.contains("saved without its <code>views</code> block"));
    // The page opens on the first regression; the other regressions and
    // the suspected change follow the forest plot, in the report's order.
    let what_fell = html.find("<h2>What fell</h2>").expect("findings");
    let forest = html
        .find("<h2>Δ and its 95% confidence interval</h2>")
        .unwrap();
    let others = html
        .find("<h2>Other regressions and suspected changes</h2>")
        .unwrap();
    assert!(what_fell < forest && forest < others);
    let findings: Vec<(usize, &str, &str)> = html
        .match_indices("<section class=\"finding ")
        .map(|(at, _)| {
            let section = &html[at..];
            let status = section["<section class=\"finding ".len()..]
                .split('"')
                .next()
                .unwrap();
            let name = section
                .split_once("<code>")
                .and_then(|(_, rest)| rest.split_once("</code>"))
                .unwrap()
                .0;
            (at, status, name)
        })
        .collect();
    let expected: Vec<(&str, &str)> = r
        .metrics
        .iter()
        .filter(|m| matches!(m.status, MetricStatus::Regression | MetricStatus::Suspected))
        .map(|m| (m.status.as_str(), m.name.as_str()))
        .collect();
    assert_eq!(
        findings.iter().map(|f| (f.1, f.2)).collect::<Vec<_>>(),
        expected
    );
    assert_eq!(expected.len(), 5);
    assert_eq!(expected[0], ("regression", "checkpoint:P2-02"));
    assert!(what_fell < findings[0].0 && findings[0].0 < forest);
    assert!(findings[1..].iter().all(|f| f.0 > others));
    // The first finding quotes its checkpoint and the cases that got worse.
    let first = &html[findings[0].0..findings[1].0];
    assert!(
        first.contains(
            "<div class=\"instruction\">Never issue a refund without a supervisor approval first</div>"
        ),
        "{first}"
    );
    for case in ["sb-003", "sb-004", "sb-010", "sb-018", "sb-022"] {
        assert!(first.contains(&format!("<code>{case}</code>")), "{case}");
    }
    for case in &r.views.as_ref().unwrap().suites[0].cases {
        assert!(html.contains(&case.id), "{} missing", case.id);
    }
}

#[test]
fn compare_html_without_views_says_so() {
    let mut r = compare_report();
    r.views = None;
    let html = render_compare_html(&r).unwrap();
    assert_self_contained(&html);
    assert!(html.contains("saved without its <code>views</code> block"));
}

#[test]
fn html_pages_escape_hostile_strings() {
    let run = render_run_html(&hostile_run()).unwrap();
    let compare = render_compare_html(&hostile_compare()).unwrap();
    for (page, html) in [("run", &run), ("compare", &compare)] {
        assert!(!html.contains(IMG), "{page}: raw markup");
        assert!(!html.contains("<img"), "{page}: an img tag");
        assert!(
            html.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{page}: the hostile string is shown, escaped"
        );
        assert_self_contained(html);
    }
}

// -------------------------------------------------------- determinism ----

/// Every renderer, on reports parsed afresh (new hash maps each time).
fn render_all() -> Vec<(&'static str, String)> {
    let run = run_report();
    let cmp = compare_report();
    vec![
        ("run markdown", render_run_markdown(&run)),
        ("run table", render_run_table(&run)),
        ("run junit", render_run_junit(&[&run])),
        ("run html", render_run_html(&run).unwrap()),
        ("compare table", render_compare_table(&cmp)),
        ("compare junit", render_compare_junit(&cmp)),
        ("compare html", render_compare_html(&cmp).unwrap()),
    ]
}

#[test]
fn renderers_are_deterministic() {
    let first = render_all();
    let second = render_all();
    for ((name, a), (_, b)) in first.iter().zip(&second) {
        assert!(a == b, "{name} differs between two renderings");
        assert!(!a.is_empty(), "{name}");
    }
    let hostile = [
        render_compare_html(&hostile_compare()).unwrap(),
        render_run_html(&hostile_run()).unwrap(),
    ];
    let again = [
        render_compare_html(&hostile_compare()).unwrap(),
        render_run_html(&hostile_run()).unwrap(),
    ];
    assert!(
        hostile == again,
        "hostile pages differ between two renderings"
    );
}
