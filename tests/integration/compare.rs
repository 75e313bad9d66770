//! End-to-end tests of `compare` on the bundled example suites and baselines.

use predicates::prelude::*;

use crate::common::{bin, copy_dir, outputs, repo};

fn regressed_args() -> Vec<&'static str> {
    vec![
        "compare",
        "--baseline",
        "main",
        "--suite",
        "support-bot",
        "--traces",
        "suites/support-bot/traces-regressed",
        "--evidence",
        "suites/support-bot/evidence-regressed",
        "--deterministic",
    ]
}

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

#[test]
fn the_regressed_agent_fails_with_localized_regressions() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("compare.json");
    let out = bin()
        .current_dir(repo())
        .args(regressed_args())
        .arg("--out")
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
    assert!(p2["q_value"].as_f64().unwrap() < 0.05);
    assert_eq!(p2["sigma_band"]["points"], 6);
    assert_eq!(p2["sigma_band"]["fired"], true);
    let loc = &p2["localization"];
    assert_eq!(
        loc["checkpoint"]["instruction"],
        "Never issue a refund without a supervisor approval first"
    );
    assert_eq!(loc["root_cause"]["step"], "TOOLSEL issue_refund");
    assert_eq!(loc["root_cause"]["cases"], 5);
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
        .args(regressed_args())
        .arg("--warn-only")
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
        .args(regressed_args())
        .args(["--fail-on", "never"])
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
            .args(regressed_args())
            .args(["--format", "markdown", "--out"])
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
            .args(regressed_args())
            .args(["--format", format])
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
        .args(regressed_args())
        .args(["--format", "markdown"])
        .output()
        .unwrap();
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(
        md.starts_with("## ❌ agenteval-gate failed: 2 confirmed regressions at or above critical"),
        "{md}"
    );
    let regressions_at = md.find("### What moved and where").unwrap();
    let first_regression = md[regressions_at..].find("checkpoint:P2-02").unwrap();
    let first_tolerated = md[regressions_at..].find("checkpoint:P2-01").unwrap();
    assert!(
        first_regression < first_tolerated,
        "critical regressions come first"
    );
    assert!(md.contains("```mermaid\nflowchart TD"));
    assert!(md.contains("**Minimum detectable effect**"));
    assert!(md.contains("<details><summary>All "));
    assert!(md.chars().count() <= 65_536);
}

#[test]
fn progressive_mode_stops_after_a_critical_smoke_regression() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &repo().join("suites/support-bot"),
        &dir.path().join("suites/support-bot"),
    );
    copy_dir(&repo().join("baselines"), &dir.path().join("baselines"));
    // Make the five refund cases (where the regressed agent skips approval) the smoke tier.
    let cases = dir.path().join("suites/support-bot/cases.jsonl");
    let text = std::fs::read_to_string(&cases).unwrap();
    let retagged: Vec<String> = text
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            let refund = ["sb-003", "sb-004", "sb-010", "sb-018", "sb-022"]
                .contains(&v["id"].as_str().unwrap());
            v["tags"] = serde_json::json!(if refund { vec!["smoke"] } else { vec![] });
            v.to_string()
        })
        .collect();
    std::fs::write(&cases, retagged.join("\n") + "\n").unwrap();
    let json = dir.path().join("c.json");
    let out = bin()
        .current_dir(dir.path())
        .args(regressed_args())
        .arg("--allow-empty")
        .arg("--out")
        .arg(&json)
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("smoke tier: confirmed critical regression; skipping the full tier"),
        "{stderr}"
    );
    assert!(!stderr.contains("full tier of `support-bot`"), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let tiers = report["tiers"].as_array().unwrap();
    assert_eq!(tiers.len(), 1);
    assert_eq!(tiers[0]["tier"], "smoke");
    assert_eq!(tiers[0]["stopped_early"], true);
    assert_eq!(tiers[0]["cases"], 5);
    assert_eq!(tiers[0]["runs_saved"], 19);
}

#[test]
fn a_missing_baseline_is_bad_input_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &repo().join("suites/code-review"),
        &dir.path().join("suites/code-review"),
    );
    bin()
        .current_dir(dir.path())
        .args(["compare", "--baseline", "main"])
        .assert()
        .code(65)
        .stderr(predicate::str::contains(
            "no baseline `main` for suite `code-review`",
        ))
        .stderr(predicate::str::contains("baseline update --name main"));
    bin()
        .current_dir(dir.path())
        .args(["compare", "--baseline", "main", "--allow-missing-baseline"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "nothing to compare; the gate passes",
        ));
}
