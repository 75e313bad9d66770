//! Issue 23, item 3: a critical checkpoint cannot silently stop being checked. Renaming
//! `issue_refund` in the head traces turns P2-02 ("no refund without approval", critical)
//! from decided in the baseline into N/A "not triggered" in every head case; the gate used to
//! pass. It now fails closed like an unevaluated checkpoint, unless the suite lists the id
//! in `gates.may_be_vacuous`, and the reverse (a rule the baseline never exercised, now
//! failing) fails too.

#![expect(
    clippy::unwrap_used,
    reason = "test fixtures panic when their setup fails"
)]

use std::path::Path;

use crate::common::{bin, copy_dir, outputs, repo};

/// support-bot with a baseline of its recorded traces, `gates_extra` added to its gates,
/// and head traces made from the recorded ones by replacing `from` with `to`.
fn setup(root: &Path, gates_extra: &str, from: &str, to: &str) {
    copy_dir(
        &repo().join("suites/support-bot"),
        &root.join("suites/support-bot"),
    );
    let suite = root.join("suites/support-bot/suite.yaml");
    let text = std::fs::read_to_string(&suite).unwrap();
    std::fs::write(
        &suite,
        text.replacen("gates:\n", &format!("gates:\n{gates_extra}"), 1),
    )
    .unwrap();
    update_baseline(root, &[]);
    let head = root.join("head");
    std::fs::create_dir(&head).unwrap();
    let mut renamed = 0;
    for entry in std::fs::read_dir(root.join("suites/support-bot/traces")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        renamed += usize::from(text.contains(from));
        std::fs::write(head.join(path.file_name().unwrap()), text.replace(from, to)).unwrap();
    }
    assert!(renamed > 0, "`{from}` occurs in the recorded traces");
}

/// `baseline update --name main` of support-bot under `root`, with `extra` flags.
fn update_baseline(root: &Path, extra: &[&str]) {
    let out = bin()
        .current_dir(root)
        .args([
            "baseline",
            "update",
            "--name",
            "main",
            "--suite",
            "support-bot",
        ])
        .arg("--deterministic")
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
}

/// `compare` of the head traces: exit code, terminal output, and the saved JSON report.
fn compare(root: &Path) -> (i32, String, serde_json::Value) {
    let report = root.join("compare.json");
    let out = bin()
        .current_dir(root)
        .args(["compare", "--baseline", "main", "--suite", "support-bot"])
        .args(["--deterministic", "--traces", "head", "--evidence"])
        .arg("suites/support-bot/evidence")
        .arg("--out")
        .arg(&report)
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let json = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    (out.status.code().unwrap(), stdout, json)
}

fn coverage<'a>(report: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    report["coverage"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap()
}

#[test]
fn a_critical_checkpoint_that_stopped_being_checked_fails_closed() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), "", "issue_refund", "make_refund");
    let (code, table, report) = compare(dir.path());
    assert_eq!(code, 2, "{table}");
    assert!(
        table.starts_with("verdict: FAIL · 1 gating checkpoint checked on one side only"),
        "{table}"
    );
    assert!(
        table.contains("checkpoint `support-bot/P2-02` (critical severity) was checked in 5 cases of the baseline and in no case of this run"),
        "{table}"
    );
    let p2 = coverage(&report, "P2-02");
    assert_eq!(p2["unevaluated"], true);
    assert_eq!(p2["decided"], 0);
    assert_eq!(p2["change"]["kind"], "no_longer_checked");
    assert_eq!(p2["change"]["base_decided"], 5);
    assert_eq!(p2["change"]["allowed"], false);
    // A `never` rule on the same tool is decided (passes) either way: no change.
    assert!(coverage(&report, "P2-06").get("change").is_none());
}

#[test]
fn may_be_vacuous_reports_the_change_without_failing() {
    let dir = tempfile::tempdir().unwrap();
    setup(
        dir.path(),
        "  may_be_vacuous: [P2-02]\n",
        "issue_refund",
        "make_refund",
    );
    let (code, table, report) = compare(dir.path());
    assert_eq!(code, 0, "{table}");
    assert!(
        table.contains("(listed in `gates.may_be_vacuous`: not blocking)"),
        "{table}"
    );
    let p2 = coverage(&report, "P2-02");
    assert_eq!(p2["unevaluated"], false);
    assert_eq!(p2["change"]["allowed"], true);
}

#[test]
fn a_misspelt_may_be_vacuous_id_is_a_lint_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    copy_dir(
        &repo().join("suites/support-bot"),
        &root.join("suites/support-bot"),
    );
    let suite = root.join("suites/support-bot/suite.yaml");
    let text = std::fs::read_to_string(&suite).unwrap();
    let text = text.replacen("gates:\n", "gates:\n  may_be_vacuous: [P2-20]\n", 1);
    std::fs::write(&suite, &text).unwrap();
    let out = bin()
        .current_dir(root)
        .args(["lint", "--suite", "support-bot"])
        .output()
        .unwrap();
    let (_, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(78), "{stderr}");
    assert!(
        stderr.contains(
            "`gates.may_be_vacuous` names unknown checkpoint `P2-20` (did you mean `P2-02`?)"
        ),
        "{stderr}"
    );
    // Under GitHub Actions the problem is also an annotation on its line (issue 23 item 9).
    let out = bin()
        .current_dir(root)
        .args(["lint", "--suite", "support-bot"])
        .env("GITHUB_ACTIONS", "true")
        .output()
        .unwrap();
    let (stdout, _) = outputs(&out);
    assert_eq!(out.status.code(), Some(78));
    let line = stdout
        .lines()
        .find(|l| l.starts_with("::error "))
        .unwrap_or_else(|| panic!("no annotation: {stdout}"));
    let at = text
        .lines()
        .position(|l| l.contains("may_be_vacuous"))
        .unwrap()
        + 1;
    assert!(
        line.starts_with(&format!(
            "::error file=suites/support-bot/suite.yaml,line={at},col=3,title=agenteval-gate lint::`gates.may_be_vacuous` names unknown checkpoint `P2-20`"
        )),
        "{line}"
    );
}

#[test]
fn a_rule_the_baseline_never_exercised_failing_in_the_head_fails_closed() {
    // The baseline's traces never call `issue_refund` (renamed there); the head's do, and
    // some of them without approval: P2-02 applies only in the head, where nothing pairs it.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    setup(root, "", "issue_refund", "issue_refund");
    // Re-record the baseline from traces without the tool.
    let base = root.join("base-traces");
    std::fs::create_dir(&base).unwrap();
    for entry in std::fs::read_dir(root.join("head")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            base.join(path.file_name().unwrap()),
            text.replace("issue_refund", "make_refund"),
        )
        .unwrap();
    }
    update_baseline(
        root,
        &[
            "--traces",
            "base-traces",
            "--evidence",
            "suites/support-bot/evidence",
        ],
    );
    // The head: the regressed traces, where refunds go out without approval.
    let head = root.join("head");
    std::fs::remove_dir_all(&head).unwrap();
    copy_dir(&repo().join("suites/support-bot/traces-regressed"), &head);
    let (code, table, report) = compare(root);
    assert_eq!(code, 2, "{table}");
    let p2 = coverage(&report, "P2-02");
    assert_eq!(p2["change"]["kind"], "newly_checked", "{p2}");
    assert_eq!(p2["change"]["base_decided"], 0);
    assert!(
        p2["change"]["head_not_passed"].as_u64().unwrap() > 0,
        "{p2}"
    );
    assert_eq!(p2["unevaluated"], true);
    assert!(
        table.contains("applied in no baseline case and now applies in"),
        "{table}"
    );
}
