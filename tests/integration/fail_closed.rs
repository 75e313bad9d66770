//! Issue 9's fail-open paths, each through the real binary: a setting out of range, an
//! unevaluable critical checkpoint, traces without their evidence, a smoke or shard report as
//! a baseline, and a crashing head that would have looked faster.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use crate::common::{REGRESSED_INPUTS, bin, copy_dir, outputs, regressed_compare_args, repo};

/// The regressed support-bot compare (exit 2 with any sane settings) plus `extra`.
fn regressed(dir: &std::path::Path, extra: &[&str]) -> (i32, String, String) {
    let out = bin()
        .current_dir(dir)
        .args(regressed_compare_args(extra))
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

#[test]
fn resamples_out_of_range_is_a_usage_error_never_a_silent_pass() {
    for b in ["0", "1", "999", "20000000"] {
        let (code, _, stderr) = regressed(&repo(), &["--resamples", b]);
        assert_eq!(code, 64, "--resamples {b}: {stderr}");
        assert!(
            stderr.contains(&format!("`--resamples {b}` is out of range")),
            "{stderr}"
        );
        assert!(stderr.contains("between 1000 and 10000000"), "{stderr}");
    }
    // The environment variable is the flag.
    let out = bin()
        .current_dir(repo())
        .env("AGENTEVAL_RESAMPLES", "0")
        .args(["compare", "--baseline", "main"])
        .args(REGRESSED_INPUTS)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64), "{}", outputs(&out).1);
    // The config file (found by walking up) is a config error (78) naming the file.
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &repo().join("suites/support-bot"),
        &dir.path().join("suites/support-bot"),
    );
    copy_dir(&repo().join("baselines"), &dir.path().join("baselines"));
    std::fs::write(dir.path().join("agenteval.yaml"), "resamples: 0\n").unwrap();
    let out = assert_cmd::Command::cargo_bin("agenteval-gate")
        .unwrap()
        .current_dir(dir.path())
        .env_remove("AGENTEVAL_RESAMPLES")
        .args(["compare", "--baseline", "main"])
        .args(REGRESSED_INPUTS)
        .output()
        .unwrap();
    let (_, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(78), "{stderr}");
    assert!(stderr.contains("`resamples: 0` in"), "{stderr}");
    // In range, the regression is still caught.
    let (code, _, _) = regressed(&repo(), &["--resamples", "1000"]);
    assert_eq!(code, 2);
}

/// A copy of the examples where support-bot's tier-3 checkpoint `P3-01` is `critical`.
fn with_critical_tier3(extra_gates: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &repo().join("suites/support-bot"),
        &dir.path().join("suites/support-bot"),
    );
    copy_dir(&repo().join("baselines"), &dir.path().join("baselines"));
    let yaml = dir.path().join("suites/support-bot/suite.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    let at = text.find("  - id: P3-01").unwrap();
    let severity = at + text[at..].find("severity: medium").unwrap();
    let mut text = format!(
        "{}severity: critical{}",
        &text[..severity],
        &text[severity + "severity: medium".len()..]
    );
    text = text.replace("gates:\n", &format!("gates:\n{extra_gates}"));
    std::fs::write(&yaml, text).unwrap();
    dir
}

#[test]
fn a_critical_checkpoint_no_case_could_evaluate_fails_the_gate() {
    // Tier 3 with no judge: N/A "no judge configured" in every case.
    let dir = with_critical_tier3("");
    let out = bin()
        .current_dir(dir.path())
        .args(["compare", "--baseline", "main", "--suite", "support-bot"])
        .args([
            "--traces",
            "suites/support-bot/traces",
            "--evidence",
            "suites/support-bot/evidence",
        ])
        .args(["--format", "markdown"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("1 checkpoint that no case could evaluate"),
        "{stdout}"
    );
    assert!(
        stdout.contains("checkpoint `support-bot/P3-01` (critical) was evaluated in no case: N\\/A\\: no judge configured \\(24 of 24\\)"),
        "{stdout}"
    );
    // `gates.unevaluated: warn` reports it and passes.
    let dir = with_critical_tier3("  unevaluated: warn\n");
    let out = bin()
        .current_dir(dir.path())
        .args(["compare", "--baseline", "main", "--suite", "support-bot"])
        .args([
            "--traces",
            "suites/support-bot/traces",
            "--evidence",
            "suites/support-bot/evidence",
        ])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("· warning: checkpoint `support-bot/P3-01`"),
        "{stdout}"
    );
}

#[test]
fn traces_without_their_evidence_are_a_usage_error() {
    let out = bin()
        .current_dir(repo())
        .args(["compare", "--baseline", "main", "--suite", "support-bot"])
        .args(["--traces", "suites/support-bot/traces-regressed"])
        .output()
        .unwrap();
    let (_, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(64), "{stderr}");
    assert!(
        stderr.contains("which also reads evidence: the new traces would be judged against the evidence of another run"),
        "{stderr}"
    );
    assert!(stderr.contains("`--evidence none`"), "{stderr}");
    // `--evidence none`: tier-1 checkpoints are N/A "no evidence", which the gate will not
    // vouch for at critical (P1-03 is critical and tier 1).
    let out = bin()
        .current_dir(repo())
        .args([
            "run",
            "--suite",
            "support-bot",
            "--format",
            "json",
            "--deterministic",
        ])
        .args([
            "--traces",
            "suites/support-bot/traces",
            "--evidence",
            "none",
        ])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let p1 = &report["cases"][0]["checkpoints"][0];
    assert_eq!(
        (p1["tier"].as_u64(), p1["result"].as_str()),
        (Some(1), Some("N/A"))
    );
    assert_eq!(p1["na_kind"], "no_evidence");
}

#[test]
fn smoke_and_shard_reports_cannot_become_baselines() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str], out: &str| {
        let path = dir.path().join(out);
        bin()
            .current_dir(repo())
            .args(["run", "--suite", "code-review", "--deterministic", "--out"])
            .arg(&path)
            .args(extra)
            .assert()
            .code(0);
        path
    };
    let smoke = run(&["--tier", "smoke"], "smoke.json");
    let shard = run(&["--shard", "1/2"], "shard.json");
    let full = run(&[], "full.json");
    for (report, says) in [
        (
            &smoke,
            "it holds the smoke tier of suite `code-review` (8 cases), not the full suite",
        ),
        (&shard, "it covers shard 1/2 of suite `code-review` only"),
    ] {
        let out = bin()
            .current_dir(dir.path())
            .args(["baseline", "update", "--name", "main", "--from-report"])
            .arg(report)
            .output()
            .unwrap();
        let (_, stderr) = outputs(&out);
        assert_eq!(out.status.code(), Some(65), "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
        assert!(stderr.contains("help:"), "{stderr}");
        assert!(
            !dir.path().join("baselines/main").exists(),
            "nothing written"
        );
    }
    bin()
        .current_dir(dir.path())
        .args([
            "baseline",
            "update",
            "--name",
            "main",
            "--deterministic",
            "--from-report",
        ])
        .arg(&full)
        .assert()
        .code(0);
}

#[test]
fn lint_warns_up_front_about_what_the_gate_cannot_do() {
    let dir = with_critical_tier3("");
    let yaml = dir.path().join("suites/support-bot/suite.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(&yaml, text.replace("max_cases: 8", "max_cases: 4")).unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["lint", "--suite", "support-bot"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let all = format!("{stdout}{stderr}");
    assert!(
        all.contains("checkpoint `P3-01` (critical) is tier 3 and no judge is configured: it will be N/A in every case, and the gate will fail"),
        "{all}"
    );
    assert!(
        all.contains(
            "the smoke tier selects 4 cases: it can stop the run only when at least 7 cases changed"
        ),
        "{all}"
    );
    assert!(all.contains("suite.yaml:"), "located: {all}");
    assert!(all.contains("2 warnings"), "{all}");

    // Issue 24: with `gates.unevaluated: warn` the N/A is accepted, so lint
    // does not warn about it (nor suggest the setting already made).
    let dir = with_critical_tier3("  unevaluated: warn\n");
    let out = bin()
        .current_dir(dir.path())
        .args(["lint", "--suite", "support-bot"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let all = format!("{stdout}{stderr}");
    assert!(
        !all.contains("is tier 3 and no judge is configured"),
        "{all}"
    );
    assert!(!all.contains("gates.unevaluated: warn"), "{all}");
}

/// Issue 23, item 5: a head case whose trace cannot be parsed used to count as one more
/// failed case, and a suite where it moved too little still passed. It now fails the gate by
/// name (file, line and hint in the reason, the comment's first line), unless
/// `gates.unevaluated: warn`.
#[test]
fn a_case_whose_trace_cannot_be_read_fails_the_gate_by_name() {
    for (gates, code) in [("", 2), ("  unevaluated: warn\n", 0)] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        copy_dir(
            &repo().join("suites/support-bot"),
            &root.join("suites/support-bot"),
        );
        let suite = root.join("suites/support-bot/suite.yaml");
        let text = std::fs::read_to_string(&suite).unwrap();
        std::fs::write(
            &suite,
            text.replacen("gates:\n", &format!("gates:\n{gates}"), 1),
        )
        .unwrap();
        let update = bin()
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
            .output()
            .unwrap();
        assert_eq!(update.status.code(), Some(0), "{:?}", outputs(&update));
        let head = root.join("head");
        copy_dir(&root.join("suites/support-bot/traces"), &head);
        std::fs::write(head.join("sb-003.json"), "{\"resourceSpans\": [\n").unwrap();
        let out = bin()
            .current_dir(root)
            .args(["compare", "--baseline", "main", "--suite", "support-bot"])
            .args(["--deterministic", "--traces", "head", "--evidence"])
            .arg("suites/support-bot/evidence")
            .args(["--format", "markdown", "--out", "compare.json"])
            .output()
            .unwrap();
        let (md, _) = outputs(&out);
        assert_eq!(out.status.code(), Some(code), "{gates}: {md}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root.join("compare.json")).unwrap())
                .unwrap();
        let u = &report["unreadable"][0];
        assert_eq!(
            (&u["case"], &u["status"], &u["fails"]),
            (&"sb-003".into(), &"parse_error".into(), &(code == 2).into()),
            "{report}"
        );
        assert!(
            u["message"]
                .as_str()
                .unwrap()
                .starts_with("head/sb-003.json:2:"),
            "{u}"
        );
        let reason = report["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r.as_str().unwrap().contains("could not be read"))
            .unwrap()
            .as_str()
            .unwrap();
        assert!(
            reason.contains("`sb-003` (parse_error: head/sb-003.json:2:"),
            "{reason}"
        );
        if code == 2 {
            assert_eq!(report["verdict"], "fail");
            assert!(
                reason.contains("the gate cannot vouch for the run"),
                "{reason}"
            );
            assert!(
                md.contains("- **What blocks:** case `sb-003` could not be read (parse_error)"),
                "{md}"
            );
        } else {
            assert!(reason.starts_with("warning: "), "{reason}");
        }
    }
}
