//! The flaky support-bot example (issue 20) through the binary: three
//! recorded trials of `AGENT_VARIANT=flaky` and `flaky-regressed` give
//! pass^k and the flaky cases, and a regression that one trial misses
//! while three trials against three catch it, with each regressed case's
//! history in the PR comment and the baseline's flaky cases in `baseline
//! show`.

use std::path::Path;

use crate::common::{bin, outputs, repo};

const FLAKY: [&str; 4] = [
    "--traces",
    "suites/support-bot/traces-flaky",
    "--evidence",
    "suites/support-bot/evidence-flaky",
];
const FLAKY_REGRESSED: [&str; 4] = [
    "--traces",
    "suites/support-bot/traces-flaky-regressed",
    "--evidence",
    "suites/support-bot/evidence-flaky-regressed",
];
/// The cases of the flaky variant that skip the account lookup in some trials.
const FLAKY_CASES: [&str; 3] = ["sb-002", "sb-012", "sb-024"];

#[expect(clippy::unwrap_used, reason = "test helpers fail loudly")]
fn json_of(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `baseline update --name NAME --suite support-bot` from `inputs` into `dir`.
#[expect(clippy::unwrap_used, reason = "test helpers fail loudly")]
fn update(dir: &Path, name: &str, inputs: &[&str]) {
    let out = bin()
        .current_dir(repo())
        .args([
            "baseline",
            "update",
            "--name",
            name,
            "--suite",
            "support-bot",
        ])
        .args(["--deterministic", "--baselines-dir"])
        .arg(dir)
        .args(inputs)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// `compare` of `inputs` with baseline `name` (full tier), the JSON report
/// written to `out`; the exit code.
#[expect(clippy::unwrap_used, reason = "test helpers fail loudly")]
fn compare(dir: &Path, name: &str, inputs: &[&str], out: &Path) -> Option<i32> {
    let run = bin()
        .current_dir(repo())
        .args(["compare", "--baseline", name, "--suite", "support-bot"])
        .args(["--deterministic", "--tier", "full", "--baselines-dir"])
        .arg(dir)
        .args(inputs)
        .args(["--format", "json", "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert!(out.is_file(), "{run:?}");
    run.status.code()
}

fn status_of(report: &serde_json::Value, name: &str) -> String {
    report["metrics"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|m| m["name"] == name)
        .map_or_else(
            || panic!("no metric {name}"),
            |m| m["status"].as_str().unwrap_or_default().to_owned(),
        )
}

#[test]
fn the_flaky_example_shows_pass_k_and_its_flaky_cases() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run.json");
    let run = bin()
        .current_dir(repo())
        .args(["run", "--suite", "support-bot", "--deterministic"])
        .args(FLAKY)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let t = &json_of(&out)["aggregate"]["trials"];
    assert_eq!((t["cases"].as_u64(), t["k"].as_u64()), (Some(24), Some(3)));
    // sb-002 answers without the renewal date when it skips the lookup.
    let hat = t["pass_hat_k"]["task_success"].as_f64().unwrap();
    let at = t["pass_at_k"]["task_success"].as_f64().unwrap();
    assert!(hat < at, "pass^k {hat} vs pass@k {at}");
    let flaky: Vec<&str> = t["flaky"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(flaky, FLAKY_CASES, "every other case is stable");
    assert!(
        t["flaky"]["sb-012"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m == "checkpoint:P2-01"),
        "{t}"
    );
    // The run report's table says it too.
    let table = bin()
        .current_dir(repo())
        .args(["report", "--format", "table"])
        .arg(&out)
        .output()
        .unwrap();
    let (table, _) = outputs(&table);
    assert!(
        table.contains("trials: 3 per case over 24 cases · pass^3 / pass@3 (every trial / some trial passes): task_success 87.5% / 91.7%"),
        "{table}"
    );
    assert!(
        table.contains("3 of 24 cases flaky (their trials disagree): sb-002 ("),
        "{table}"
    );
}

#[test]
fn a_regression_one_trial_misses_is_caught_by_three_trials_with_each_case_history() {
    let tmp = tempfile::tempdir().unwrap();
    let baselines = tmp.path().join("baselines");

    // Trial 0 against a one-trial baseline: 4 of the 5 small refunds skip
    // the approval, too few changed cases for the paired test to reach α.
    update(
        &baselines,
        "one",
        &[
            "--traces",
            "suites/support-bot/traces-flaky/trial-0",
            "--evidence",
            "suites/support-bot/evidence-flaky/trial-0",
        ],
    );
    let one = tmp.path().join("one.json");
    let code = compare(
        &baselines,
        "one",
        &[
            "--traces",
            "suites/support-bot/traces-flaky-regressed/trial-0",
            "--evidence",
            "suites/support-bot/evidence-flaky-regressed/trial-0",
        ],
        &one,
    );
    // One trial cannot confirm it: the cases that changed all got worse, too few to
    // reach α, so the verdict is `inconclusive` (issue 23), never a pass.
    assert_eq!(code, Some(2));
    let one = json_of(&one);
    assert_eq!(one["verdict"], "inconclusive");
    assert_ne!(status_of(&one, "checkpoint:P2-02"), "regression");
    assert!(one.get("flakiness").is_none(), "one trial: no flakiness");

    // Three trials against three: the stratified test confirms it.
    update(&baselines, "three", &FLAKY);
    let three = tmp.path().join("three.json");
    assert_eq!(
        compare(&baselines, "three", &FLAKY_REGRESSED, &three),
        Some(2)
    );
    let report = json_of(&three);
    assert_eq!(
        report["regressions"],
        serde_json::json!(["support-bot/checkpoint:P2-02"])
    );
    let flaky: Vec<&str> = report["flakiness"][0]["flaky"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["case"].as_str().unwrap())
        .collect();
    assert_eq!(flaky, FLAKY_CASES);

    let md = bin()
        .current_dir(repo())
        .args(["report", "--format", "markdown"])
        .arg(&three)
        .output()
        .unwrap();
    let (md, _) = outputs(&md);
    // sb-004 skipped the approval in 2 of its 3 trials; all 3 baseline trials passed.
    assert!(
        md.contains(
            "  - `sb-004`: 100.0% → 33.3% (failed 2 of 3 trials; passed 3 of 3 before) — FAIL\\:"
        ),
        "{md}"
    );
    assert!(
        md.contains("<details><summary>Flaky cases (3)</summary>"),
        "{md}"
    );
    assert!(
        md.contains("  - `sb-002`: `checkpoint:P2-01` passed 1 of 3, `checkpoint:P2-04` passed 1 of 3, `task_success` passed 1 of 3\n"),
        "{md}"
    );

    // JUnit too (issue 20): the failing metric names the worse cases with their history,
    // and the suite's system-out lists its flaky cases.
    let junit = bin()
        .current_dir(repo())
        .args(["report", "--format", "junit"])
        .arg(&three)
        .output()
        .unwrap();
    let (junit, _) = outputs(&junit);
    assert!(
        junit.contains("worse: sb-004 1 → 0.333 (failed 2 of 3 trials; passed 3 of 3 before)"),
        "{junit}"
    );
    assert!(
        junit.contains("<system-out>flaky: 3 of 24 cases flaky in up to 3 earlier trials per case"),
        "{junit}"
    );
    assert!(
        junit.contains("  sb-002: checkpoint:P2-01 passed 1 of 3, checkpoint:P2-04 passed 1 of 3, task_success passed 1 of 3"),
        "{junit}"
    );

    // The HTML report too: the worse case's history beside its link, the flaky cases folded.
    let html = bin()
        .current_dir(repo())
        .args(["report", "--format", "html"])
        .arg(&three)
        .output()
        .unwrap();
    let (html, _) = outputs(&html);
    assert!(
        html.contains(
            "<code>sb-004</code></a> <span class=\"muted small\">(failed 2 of 3 trials; passed 3 of 3 before)</span>"
        ),
        "{html}"
    );
    assert!(
        html.contains("<summary>Flaky cases (3)</summary>"),
        "{html}"
    );
    assert!(
        html.contains("<li>sb-002: checkpoint:P2-01 passed 1 of 3, checkpoint:P2-04 passed 1 of 3, task_success passed 1 of 3</li>"),
        "{html}"
    );

    let show = bin()
        .current_dir(repo())
        .args(["baseline", "show", "--name", "three", "--baselines-dir"])
        .arg(&baselines)
        .output()
        .unwrap();
    assert_eq!(show.status.code(), Some(0), "{show:?}");
    let (text, _) = outputs(&show);
    assert!(
        text.contains("3 of 24 cases flaky in up to 3 earlier trials per case"),
        "{text}"
    );
    for case in FLAKY_CASES {
        assert!(text.contains(case), "{case} in {text}");
    }
    assert!(text.contains("1 of 3") && text.contains("33%"), "{text}");
}

/// `gates.history_pooling: drift_check` (issue 20): three untagged one-trial baseline updates
/// of the same agent are pooled as each case's three baseline trials where the drift check
/// accepts them, so the regression that one trial against one cannot decide is confirmed;
/// under the default (`same_tags`) the same history is not pooled and the verdict stays
/// `inconclusive`.
#[test]
fn the_drift_check_pools_untagged_history_and_confirms_the_regression() {
    for (pooling, verdict, points) in [("drift_check", "fail", 3), ("same_tags", "inconclusive", 0)]
    {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        crate::common::copy_dir(
            &repo().join("suites/support-bot"),
            &root.join("suites/support-bot"),
        );
        let suite = root.join("suites/support-bot/suite.yaml");
        let text = std::fs::read_to_string(&suite).unwrap();
        // Untagged: nothing says that the three updates ran the same agent.
        let tags = "config_tags: {model: gpt-4o-mini, prompt: support-v3, agent_version: 0.3.0}\n";
        assert!(text.contains(tags));
        let gates = format!("gates:\n  history_pooling: {pooling}\n");
        let text = text.replacen(tags, "", 1).replacen("gates:\n", &gates, 1);
        std::fs::write(&suite, text).unwrap();
        // Trial 0 last: it is the baseline a one-trial compare reads.
        for trial in [2, 1, 0] {
            let out = bin()
                .current_dir(root)
                .args(["baseline", "update", "--name", "main", "--suite"])
                .args(["support-bot", "--deterministic", "--traces"])
                .arg(format!("suites/support-bot/traces-flaky/trial-{trial}"))
                .arg("--evidence")
                .arg(format!("suites/support-bot/evidence-flaky/trial-{trial}"))
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{out:?}");
        }
        let report = root.join("compare.json");
        let out = bin()
            .current_dir(root)
            .args(["compare", "--baseline", "main", "--suite", "support-bot"])
            .args(["--deterministic", "--tier", "full", "--traces"])
            .arg("suites/support-bot/traces-flaky-regressed/trial-0")
            .arg("--evidence")
            .arg("suites/support-bot/evidence-flaky-regressed/trial-0")
            .args(["--format", "json", "--out"])
            .arg(&report)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{pooling}: {out:?}");
        let report = json_of(&report);
        assert_eq!(report["verdict"], verdict, "{pooling}");
        let p2 = report["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == "checkpoint:P2-02")
            .unwrap();
        if points == 0 {
            assert!(p2["trials"].is_null(), "{pooling}: one trial against one");
        } else {
            assert_eq!(p2["status"], "regression", "{pooling}");
            assert_eq!(p2["trials"]["history_points"], points, "{pooling}");
            // The five small refunds P2-02 applies to: one head trial, three baseline trials.
            assert_eq!(p2["trials"]["head"], 5, "{pooling}");
            assert_eq!(p2["trials"]["base"], 15, "{pooling}: three per case");
        }
    }
}
