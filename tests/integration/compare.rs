//! End-to-end tests of `compare` on the bundled example suites and baselines.

use predicates::prelude::*;

use crate::common::{bin, copy_dir, outputs, regressed_compare_args, repo};

#[test]
fn the_bundled_examples_pass_against_their_baseline() {
    let out = bin()
        .current_dir(repo())
        .args(["compare", "--baseline", "main", "--deterministic"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.starts_with("verdict: PASS · no regression"),
        "{stdout}"
    );
    for suite in ["airline-tau", "code-review", "support-bot"] {
        assert!(stdout.contains(&format!("tier {suite}/full")), "{stdout}");
    }
}

/// `compare` and `run` write their JSON as they serialize it, to stdout and
/// to `--out` each (issue 25): the two are the same bytes, and the file
/// reads back.
#[test]
fn streamed_json_on_stdout_and_in_out_files_is_the_same_document() {
    let dir = tempfile::tempdir().unwrap();
    let document = |args: Vec<&str>, code: i32| -> serde_json::Value {
        let path = dir.path().join("out.json");
        let out = bin()
            .current_dir(repo())
            .args(args)
            .args(["--format", "json", "--out"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{}", outputs(&out).1);
        let file = std::fs::read(&path).unwrap();
        assert_eq!(out.stdout, file);
        serde_json::from_slice(&file).unwrap()
    };
    let compare = document(regressed_compare_args(&[]), 2);
    assert_eq!(compare["verdict"], "fail");
    let run = document(vec!["run", "--suite", "support-bot", "--deterministic"], 0);
    assert_eq!(run["suite"], "support-bot");
    assert_eq!(run["cases"].as_array().unwrap().len(), 24);
}

#[test]
fn the_regressed_agent_fails_with_localized_regressions() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("compare.json");
    let out = bin()
        .current_dir(repo())
        .args(regressed_compare_args(&["--out"]))
        .arg(&json)
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["verdict"], "fail");
    let regressions: Vec<&str> = report["regressions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        regressions.contains(&"support-bot/checkpoint:P2-02"),
        "{regressions:?}"
    );
    assert!(
        regressions.contains(&"support-bot/compliance_percent"),
        "{regressions:?}"
    );
    let p2 = report["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "checkpoint:P2-02")
        .unwrap();
    assert_eq!(p2["severity"], "critical");
    assert_eq!(p2["n"], 5, "the five refund cases pair");
    assert_eq!(p2["delta"], -1.0);
    // All five flipped: the exact sign test gives (1/2)^5; with Benjamini–Hochberg over the
    // family it lands exactly on α, which the step-up rule accepts (p(i) ≤ iα/m).
    assert_eq!(p2["test"], "exact_sign_flip");
    assert_eq!(
        (p2["nonzero"].as_u64(), p2["p_value"].as_f64()),
        (Some(5), Some(1.0 / 32.0))
    );
    assert!(p2["q_value"].as_f64().unwrap() <= 0.05 + 1e-12);
    // Its history never moved and its baseline cases all pass: no band (σ = 0), so the test
    // alone decides, and the report says why.
    assert!(p2["sigma_band"].is_null());
    assert!(
        p2["sigma_note"].as_str().unwrap().contains("no spread"),
        "{}",
        p2["sigma_note"]
    );
    let loc = &p2["localization"];
    assert_eq!(
        loc["checkpoint"]["instruction"],
        "Never issue a refund without a supervisor approval first"
    );
    // Four of the five refunds went out without the `approval_id` the tool's schema requires.
    assert_eq!(loc["root_cause"]["step"], "PARAMGEN issue_refund");
    assert_eq!(loc["root_cause"]["cases"], 4);
    assert_eq!(loc["flipped_cases"].as_array().unwrap().len(), 5);
    assert!(
        report["worst_case"]["mermaid"]
            .as_str()
            .unwrap()
            .contains("root cause")
    );
    // Tolerated below --fail-on critical, but reported.
    assert!(report["reasons"].as_array().unwrap().iter().any(|r| {
        r.as_str()
            .unwrap()
            .starts_with("tolerated regression in `support-bot/checkpoint:P2-01`")
    }));
}

#[test]
fn warn_only_reports_the_failure_but_exits_zero() {
    let out = bin()
        .current_dir(repo())
        .args(regressed_compare_args(&["--warn-only"]))
        .output()
        .unwrap();
    let (stdout, _) = outputs(&out);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout.starts_with("verdict: FAIL (warn-only: exit 0)"),
        "{stdout}"
    );
}

#[test]
fn fail_on_never_passes_with_tolerated_regressions() {
    let out = bin()
        .current_dir(repo())
        .args(regressed_compare_args(&["--fail-on", "never"]))
        .output()
        .unwrap();
    let (stdout, _) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("tolerated regression"), "{stdout}");
}

#[test]
fn compare_reports_are_byte_identical_across_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut outputs_seen = Vec::new();
    for i in 0..2 {
        let json = dir.path().join(format!("c{i}.json"));
        bin()
            .current_dir(repo())
            .args(regressed_compare_args(&["--format", "markdown", "--out"]))
            .arg(&json)
            .assert()
            .code(2);
        outputs_seen.push(std::fs::read(&json).unwrap());
    }
    assert_eq!(outputs_seen[0], outputs_seen[1]);
}

#[test]
fn renderers_match_their_snapshots() {
    for (format, name) in [
        ("markdown", "compare_regressed_markdown"),
        ("table", "compare_regressed_table"),
        ("junit", "compare_regressed_junit"),
        ("json", "compare_regressed_json"),
    ] {
        let out = bin()
            .current_dir(repo())
            .args(regressed_compare_args(&["--format", format]))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        insta::assert_snapshot!(name, String::from_utf8(out.stdout).unwrap());
    }
}

#[test]
fn the_pr_comment_leads_with_the_verdict_and_stays_under_the_limit() {
    let out = bin()
        .current_dir(repo())
        .args(regressed_compare_args(&["--format", "markdown"]))
        .output()
        .unwrap();
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(
        md.starts_with("## ❌ agenteval-gate failed: 2 confirmed regressions at or above critical"),
        "{md}"
    );
    let regressions_at = md.find("### What blocks, and where").unwrap();
    let first_regression = md[regressions_at..].find("checkpoint:P2-02").unwrap();
    let first_tolerated = md[regressions_at..].find("checkpoint:P2-01").unwrap();
    assert!(
        first_regression < first_tolerated,
        "critical regressions come first"
    );
    assert!(md.contains("**Minimum detectable effect**"));
    // The long parts are the job summary's and the HTML report's.
    assert!(!md.contains("```mermaid"), "{md}");
    assert!(!md.contains("<details><summary>All "));
    assert!(md.contains("this run's job summary"));
    assert!(md.chars().count() <= 65_536);
}

/// The PR comment as GitHub renders it (GFM tables, raw `<details>` kept).
fn comment_html(md: &str) -> String {
    let mut o = comrak::Options::default();
    o.extension.autolink = true;
    o.extension.table = true;
    o.extension.strikethrough = true;
    o.render.r#unsafe = true;
    comrak::markdown_to_html(md, &o)
}

/// Issue 23, item 7: the regressed support-bot comment says what blocks,
/// where and why in the three lines under its title, marks the blocking rows,
/// folds the rest, and stays under 6,000 characters.
#[test]
fn the_pr_comment_says_what_blocks_where_and_why_first_and_stays_short() {
    let out = bin()
        .current_dir(repo())
        .args(regressed_compare_args(&["--format", "markdown"]))
        .output()
        .unwrap();
    let md = String::from_utf8(out.stdout).unwrap();
    let chars = md.chars().count();
    assert!(chars < 6_000, "{chars} characters:\n{md}");
    let lines: Vec<&str> = md.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(lines[0].starts_with("## ❌ agenteval-gate failed"), "{md}");
    let (what, place, why) = (lines[1], lines[2], lines[3]);
    assert!(what.starts_with("- **What blocks:** "), "{what}");
    for blocking in [
        "`support-bot/checkpoint:P2-02` (critical) fell 100.0% → 0.0%",
        "`support-bot/compliance_percent` (critical) fell 93.4% → 86.0%",
    ] {
        assert!(what.contains(blocking), "{what}");
    }
    assert!(
        !what.contains("P2-01") && !what.contains("P2-04"),
        "regressions below fail_on do not block: {what}"
    );
    assert!(
        place.starts_with(
            "- **Where:** 5 of 5 paired cases got worse: `sb-003`, `sb-004`, `sb-010` and 2 more"
        ),
        "{place}"
    );
    assert!(
        place.contains("the arguments given to `issue_refund`"),
        "{place}"
    );
    assert!(
        why.starts_with("- **Why:** the rule “Never issue a refund without a supervisor approval first” broke; in `sb-003`: "),
        "{why}"
    );
    assert!(
        why.contains("ran with no call to `request_approval` before it"),
        "{why}"
    );
    assert!(!md.contains("`before` event"), "no DSL keys in the why");

    // Each moved metric's row says whether it blocks.
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| `")).collect();
    let blocking: Vec<&str> = rows
        .iter()
        .filter(|l| l.ends_with("| 🛑 **blocks** |"))
        .copied()
        .collect();
    assert_eq!(blocking.len(), 2, "{rows:#?}");
    assert!(blocking[0].starts_with("| `checkpoint:P2-02` | critical |"));
    assert!(
        rows.iter()
            .any(|l| l.starts_with("| `checkpoint:P2-01` | high |")
                && l.ends_with("| tolerated: below critical |"))
    );

    // As rendered: the gate column is a column, what does not block is folded,
    // and no escaped backtick shows literally.
    let html = comment_html(&md);
    assert!(html.contains("<th>gate</th>"), "{html}");
    let folded = &html[html
        .find("<details><summary>Not blocking: 3 more that moved")
        .unwrap()..];
    assert!(folded.contains("checkpoint:P2-01") && folded.contains("workflow_quality"));
    let open = &html[..html.find("<details>").unwrap()];
    assert!(!open.contains("<h4>🔴 <code>support-bot/checkpoint:P2-01"));
    assert!(!html.contains('`'), "a backtick shows literally: {html}");
    assert!(html.contains("<code>request_approval</code>"));
}

/// A copy of the examples whose support-bot smoke tier is exactly `smoke`.
#[expect(clippy::unwrap_used, reason = "test helpers fail loudly")]
fn with_smoke_tier(dir: &std::path::Path, smoke: &[&str]) {
    copy_dir(
        &repo().join("suites/support-bot"),
        &dir.join("suites/support-bot"),
    );
    copy_dir(&repo().join("baselines"), &dir.join("baselines"));
    let cases = dir.join("suites/support-bot/cases.jsonl");
    let text = std::fs::read_to_string(&cases).unwrap();
    let retagged: Vec<String> = text
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            let tagged = smoke.contains(&v["id"].as_str().unwrap());
            v["tags"] = serde_json::json!(if tagged { vec!["smoke"] } else { vec![] });
            v.to_string()
        })
        .collect();
    std::fs::write(&cases, retagged.join("\n") + "\n").unwrap();
    let yaml = dir.join("suites/support-bot/suite.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(&yaml, text.replace("max_cases: 6", "max_cases: 10")).unwrap();
}

#[expect(clippy::unwrap_used, reason = "test helpers fail loudly")]
fn compare_in(dir: &std::path::Path) -> (std::process::Output, serde_json::Value) {
    let json = dir.join("c.json");
    let out = bin()
        .current_dir(dir)
        .args(regressed_compare_args(&["--out"]))
        .arg(&json)
        .output()
        .unwrap();
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (out, report)
}

#[test]
fn a_blatant_smoke_regression_stops_the_run_before_the_full_tier() {
    // The regressed agent lowers compliance (critical) in all eight of these cases: the exact
    // test gives (1/2)^8, below the smoke tier's share of α (0.01).
    let dir = tempfile::tempdir().unwrap();
    with_smoke_tier(
        dir.path(),
        &[
            "sb-001", "sb-002", "sb-003", "sb-004", "sb-010", "sb-012", "sb-018", "sb-022",
        ],
    );
    let (out, report) = compare_in(dir.path());
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("smoke tier: a regression that fails the gate; skipping the full tier"),
        "{stderr}"
    );
    assert!(!stderr.contains("full tier of `support-bot`"), "{stderr}");
    let tiers = report["tiers"].as_array().unwrap();
    assert_eq!(tiers.len(), 1);
    assert_eq!(tiers[0]["tier"], "smoke");
    assert_eq!(tiers[0]["stopped_early"], true);
    assert_eq!(tiers[0]["cases"], 8);
    assert_eq!(tiers[0]["runs_saved"], 16);
    assert!((report["family"]["alpha"].as_f64().unwrap() - 0.01).abs() < 1e-12);
    assert!(
        report["regressions"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("support-bot/compliance_percent"))
    );
}

#[test]
fn a_smoke_tier_too_small_to_stop_spends_no_alpha() {
    // Five changed smoke cases can give p = 1/32 at best, above the smoke share of α:
    // the smoke tier cannot stop the run, and the full tier tests at the whole α.
    let dir = tempfile::tempdir().unwrap();
    with_smoke_tier(
        dir.path(),
        &["sb-003", "sb-004", "sb-010", "sb-018", "sb-022"],
    );
    let (out, report) = compare_in(dir.path());
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(stderr.contains("full tier of `support-bot`"), "{stderr}");
    let tiers = report["tiers"].as_array().unwrap();
    assert_eq!(
        tiers
            .iter()
            .map(|t| (
                t["tier"].as_str().unwrap(),
                t["stopped_early"].as_bool().unwrap()
            ))
            .collect::<Vec<_>>(),
        [("smoke", false), ("full", false)]
    );
    assert_eq!(report["family"]["alpha"], 0.05);
    assert!(
        report["family"]["alpha_note"]
            .as_str()
            .unwrap()
            .contains("too few changed cases to stop the run")
    );
}

#[test]
fn a_missing_baseline_passes_with_a_note_unless_required() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &repo().join("suites/code-review"),
        &dir.path().join("suites/code-review"),
    );
    let out = bin()
        .current_dir(dir.path())
        .args(["compare", "--baseline", "main", "--format", "markdown"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.starts_with("## ✅ agenteval-gate passed"),
        "{stdout}"
    );
    assert!(
        stdout.contains("`code-review`: no baseline `main` yet, not compared; it is created when this change merges"),
        "{stdout}"
    );
    assert!(
        stderr.contains("suite `code-review` has no baseline `main` yet"),
        "{stderr}"
    );
    bin()
        .current_dir(dir.path())
        .args(["compare", "--baseline", "main", "--require-baseline"])
        .assert()
        .code(65)
        .stderr(predicate::str::contains(
            "no baseline `main` for suite `code-review`",
        ))
        .stderr(predicate::str::contains("baseline update --name main"));
}

#[test]
fn a_misspelt_baseline_name_is_a_usage_error_with_the_names_the_suite_has() {
    // support-bot has baselines `main` and `stand-in-judge`: `mian` is a typo, not a first
    // pull request, so it must not pass.
    let out = bin()
        .current_dir(repo())
        .args(["compare", "--baseline", "mian", "--suite", "support-bot"])
        .args(["--deterministic"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(64), "{stdout}\n{stderr}");
    assert!(stdout.is_empty(), "no verdict printed: {stdout}");
    assert!(
        stderr.contains(
            "no baseline `mian` for suite `support-bot`; it has `main`, `stand-in-judge`"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("did you mean `--baseline main`?"),
        "{stderr}"
    );

    // A new baseline name on purpose: the documented flag passes with the note.
    let out = bin()
        .current_dir(repo())
        .args(["compare", "--baseline", "mian", "--suite", "support-bot"])
        .args(["--deterministic", "--allow-missing-baseline"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("suite `support-bot` has no baseline `mian` yet"),
        "{stderr}"
    );
    // `--help` shows the flag the hint names.
    let out = bin().args(["compare", "--help"]).output().unwrap();
    assert!(outputs(&out).0.contains("--allow-missing-baseline"));
}
