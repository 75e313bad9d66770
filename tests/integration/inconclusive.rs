//! Issue 23, item 2: a suite too small to detect anything never shows a green
//! pass. The support-bot suite cut to 4 cases (P2-02 goes 100% → 0% in all
//! four) and to 7 cases (one case newly breaks P2-02) used to pass with exit 0
//! and a green comment; now every surface says `inconclusive` and names the
//! cases, and `gates.inconclusive` only changes the exit code: by default (`auto`) a suite
//! that could not decide at any effect blocks, one that could decide a larger change does not.

#![expect(
    clippy::unwrap_used,
    reason = "test fixtures panic when their setup fails"
)]

use std::path::Path;

use crate::common::{REGRESSED_INPUTS, bin, copy_dir, outputs, repo};

/// A copy of support-bot keeping only `ids`, with a baseline of the recorded
/// (good) traces; `gates_extra` is appended to its `gates:` block.
fn small_suite(root: &Path, ids: &[&str], gates_extra: &str) {
    copy_dir(
        &repo().join("suites/support-bot"),
        &root.join("suites/support-bot"),
    );
    let cases = root.join("suites/support-bot/cases.jsonl");
    let kept: Vec<String> = std::fs::read_to_string(&cases)
        .unwrap()
        .lines()
        .filter(|l| {
            ids.iter()
                .any(|id| l.contains(&format!("\"id\": \"{id}\"")))
        })
        .map(str::to_owned)
        .collect();
    assert_eq!(kept.len(), ids.len(), "every id kept");
    std::fs::write(&cases, kept.join("\n") + "\n").unwrap();
    let suite = root.join("suites/support-bot/suite.yaml");
    let text = std::fs::read_to_string(&suite).unwrap();
    std::fs::write(
        &suite,
        text.replacen("gates:\n", &format!("gates:\n{gates_extra}"), 1),
    )
    .unwrap();
    let out = bin()
        .current_dir(root)
        .args([
            "baseline",
            "update",
            "--name",
            "main",
            "--suite",
            "support-bot",
            "--deterministic",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
}

fn compare(root: &Path, format: &str) -> (i32, String, String) {
    let report = root.join("compare.json");
    let out = bin()
        .current_dir(root)
        .args(["compare", "--baseline", "main", "--deterministic"])
        .args(REGRESSED_INPUTS)
        .args(["--format", format, "--out"])
        .arg(&report)
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    (out.status.code().unwrap(), stdout, stderr)
}

fn saved(root: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(root.join("compare.json")).unwrap()).unwrap()
}

fn inconclusive_cases(report: &serde_json::Value, metric: &str) -> Vec<String> {
    report["inconclusive"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["metric"] == metric)
        .unwrap_or_else(|| panic!("{metric} is not inconclusive: {}", report["inconclusive"]))["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn four_cases_that_all_broke_a_critical_rule_are_inconclusive_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    small_suite(root, &["sb-003", "sb-004", "sb-010", "sb-018"], "");

    let lint = bin()
        .current_dir(root)
        .args(["lint", "--suite", "support-bot"])
        .output()
        .unwrap();
    let (_, lint_err) = outputs(&lint);
    assert!(
        lint_err.contains("the suite has 4 cases: no gating metric can reach α = 0.05 (the paired test needs at least 5 cases, 5 of them changed in one direction)"),
        "lint warns: {lint_err}"
    );

    let (code, table, _) = compare(root, "table");
    assert_eq!(code, 2, "{table}");
    assert!(
        table.starts_with("verdict: INCONCLUSIVE · "),
        "terminal: {table}"
    );
    assert!(!table.contains("PASS"), "{table}");
    let report = saved(root);
    assert_eq!(report["verdict"], "inconclusive");
    assert_eq!(
        inconclusive_cases(&report, "checkpoint:P2-02"),
        ["sb-003", "sb-004", "sb-010", "sb-018"]
    );
    let p2 = report["inconclusive"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["metric"] == "checkpoint:P2-02")
        .unwrap();
    assert_eq!(p2["needed_changed"], 5, "2^-5 ≤ 0.05 < 2^-4");
    // Four cases can never reach α: undecidable, so the default (`auto`) blocks.
    assert_eq!(p2["undecidable"], true);
    assert_eq!(p2["policy"], "auto");
    assert_eq!(p2["fails"], true);

    let (code, md, _) = compare(root, "markdown");
    assert_eq!(code, 2);
    let title = md.lines().next().unwrap();
    assert!(
        title.starts_with("## ⚠️ agenteval-gate inconclusive: "),
        "comment title: {title}"
    );
    assert!(!md.contains("✅"), "nothing green: {md}");
    assert!(
        md.contains("- ⚠️ `support-bot/checkpoint:P2-02` (critical): worse in `sb-003`, `sb-004`, `sb-010`, `sb-018` (4 of 4 paired cases, none better)"),
        "{md}"
    );

    let html = root.join("report.html");
    let out = bin()
        .current_dir(root)
        .args(["report", "compare.json", "--format", "html", "--out"])
        .arg(&html)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let html = std::fs::read_to_string(html).unwrap();
    assert!(
        html.contains("<header class=\"banner warn\">\n<div class=\"word\">INCONCLUSIVE</div>"),
        "HTML banner"
    );
    assert!(!html.contains("banner pass"), "no green banner");
}

#[test]
fn one_case_newly_breaking_a_critical_rule_in_seven_is_inconclusive() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    small_suite(
        root,
        &[
            "sb-001", "sb-002", "sb-003", "sb-005", "sb-006", "sb-007", "sb-008",
        ],
        "",
    );
    let (code, table, _) = compare(root, "table");
    assert_eq!(code, 2, "{table}");
    assert!(table.starts_with("verdict: INCONCLUSIVE"), "{table}");
    assert_eq!(
        inconclusive_cases(&saved(root), "checkpoint:P2-02"),
        ["sb-003"]
    );
}

#[test]
fn inconclusive_warn_exits_zero_but_never_shows_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    small_suite(
        root,
        &["sb-003", "sb-004", "sb-010", "sb-018"],
        "  inconclusive: warn\n",
    );
    let (code, table, _) = compare(root, "table");
    assert_eq!(code, 0, "{table}");
    assert!(
        table.starts_with("verdict: INCONCLUSIVE (exit 0) · "),
        "{table}"
    );
    let report = saved(root);
    assert_eq!(report["verdict"], "inconclusive");
    assert_eq!(report["inconclusive"][0]["fails"], false);
    let (_, md, _) = compare(root, "markdown");
    assert!(md.starts_with("## ⚠️ agenteval-gate inconclusive"), "{md}");
    assert!(
        md.contains("(`gates.inconclusive: warn`: not blocking)"),
        "{md}"
    );
}

/// The default `gates.inconclusive: auto` (issue 20's tau-bench null runs): one case of the
/// full suite newly breaking a critical rule is `inconclusive`, but the suite can decide a
/// larger change, so it does not block (exit 0, never green); `fail` blocks it.
#[test]
fn one_flip_in_a_suite_that_can_decide_is_inconclusive_but_not_blocking_by_default() {
    for (extra, code) in [("", 0), ("  inconclusive: fail\n", 2)] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let all: Vec<String> = (1..=24).map(|i| format!("sb-{i:03}")).collect();
        let ids: Vec<&str> = all.iter().map(String::as_str).collect();
        small_suite(root, &ids, extra);
        // The recorded traces, with sb-004 from the regressed run.
        for kind in ["traces", "evidence"] {
            let head = root.join(format!("head-{kind}"));
            copy_dir(&root.join(format!("suites/support-bot/{kind}")), &head);
            std::fs::copy(
                root.join(format!("suites/support-bot/{kind}-regressed/sb-004.json")),
                head.join("sb-004.json"),
            )
            .unwrap();
        }
        let out = bin()
            .current_dir(root)
            .args(["compare", "--baseline", "main", "--deterministic"])
            .args(["--suite", "support-bot", "--traces", "head-traces"])
            .args(["--evidence", "head-evidence", "--out", "compare.json"])
            .output()
            .unwrap();
        let (table, _) = outputs(&out);
        assert_eq!(out.status.code(), Some(code), "{extra}: {table}");
        let verdict = if code == 0 {
            "verdict: INCONCLUSIVE (exit 0) · "
        } else {
            "verdict: INCONCLUSIVE · "
        };
        assert!(table.starts_with(verdict), "{table}");
        let report = saved(root);
        assert_eq!(report["verdict"], "inconclusive");
        assert_eq!(inconclusive_cases(&report, "checkpoint:P2-02"), ["sb-004"]);
        for u in report["inconclusive"].as_array().unwrap() {
            assert_eq!(u["undecidable"], false, "{u}");
            assert_eq!(u["majority_worse"], false, "{u}");
            assert_eq!(u["fails"], code == 2, "{u}");
        }
        if code == 0 {
            assert_eq!(report["inconclusive"][0]["policy"], "auto");
            assert!(
                table.contains("(not blocking: a minority of the cases got worse and the suite can decide a larger change; `gates.inconclusive: fail` blocks this too)"),
                "{table}"
            );
        }
    }
}
