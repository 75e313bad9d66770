//! Item 1: inputs that used to panic (exit 101) or exit 74 without a
//! location now get their documented exit code and `file:line:col`.

use std::path::Path;

use super::expect;
use crate::common::{REGRESSED_INPUTS, bin, copy_dir, repo};

/// A minified file whose error is past column 65,535: miette's caret line
/// used to panic ("Formatting argument out of range").
#[test]
fn an_error_past_column_65535_is_located_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f.json");
    // The issue's reproduction: a truncated minified OTLP export over 64 KB.
    std::fs::write(&f, format!("{{\"resourceSpans\":{}x", " ".repeat(65_600))).unwrap();
    let out = bin().args(["trace"]).arg(&f).output().unwrap();
    let (_, stderr) = expect(&out, 65);
    assert!(stderr.contains("f.json:1:65618"), "{stderr}");
    assert!(
        stderr.len() < 4_000,
        "the snippet is a window, not the line"
    );

    // A minified report with a bad value far into its only line.
    let report = dir.path().join("report.json");
    std::fs::write(
        &report,
        format!(
            "{{\"schema_version\": 1, \"pad\": \"{}\", \"cases\": [}}",
            "p".repeat(80_000)
        ),
    )
    .unwrap();
    for cmd in [&["report"][..], &["merge", "--out", "-"]] {
        let out = bin().args(cmd).arg(&report).output().unwrap();
        let (_, stderr) = expect(&out, 65);
        assert!(stderr.contains("report.json:1:"), "{cmd:?}: {stderr}");
    }

    // A suite whose YAML error sits on a 70,000-column line.
    let suites = dir.path().join("suites/long");
    std::fs::create_dir_all(&suites).unwrap();
    std::fs::write(
        suites.join("suite.yaml"),
        format!(
            "suite: long\nspec_version: \"1\"\ndescription: {}: x\n",
            "d".repeat(70_000)
        ),
    )
    .unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["lint"])
        .output()
        .unwrap();
    let (_, stderr) = expect(&out, 78);
    assert!(stderr.contains("suite.yaml:3:"), "{stderr}");
}

/// Invalid UTF-8 is bad input with a location (78 for a suite, 65 for data),
/// not "I/O" (74).
#[test]
fn invalid_utf8_is_located_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &repo().join("suites/support-bot"),
        &dir.path().join("suites/support-bot"),
    );
    copy_dir(
        &repo().join("baselines/main"),
        &dir.path().join("baselines/main"),
    );
    let run = |args: &[&str]| bin().current_dir(dir.path()).args(args).output().unwrap();

    let suite = dir.path().join("suites/support-bot/suite.yaml");
    let good = std::fs::read(&suite).unwrap();
    let mut bad = good.clone();
    let at = bad.iter().position(|&b| b == b'\n').unwrap() + 1;
    bad.splice(at..at, b"# caf\xE9\n".iter().copied());
    std::fs::write(&suite, &bad).unwrap();
    let (_, stderr) = expect(&run(&["lint"]), 78);
    assert!(stderr.contains("suite.yaml:2:6"), "{stderr}");
    assert!(stderr.contains("not valid UTF-8: byte 0xE9"), "{stderr}");
    std::fs::write(&suite, &good).unwrap();

    for file in [
        "baselines/main/support-bot.json",
        "baselines/main/support-bot.history.jsonl",
    ] {
        let path = dir.path().join(file);
        let original = std::fs::read(&path).unwrap();
        let mut broken = original.clone();
        // Three bytes into the second line.
        let at = broken.iter().position(|&b| b == b'\n').unwrap() + 4;
        broken.insert(at, 0xFF);
        std::fs::write(&path, &broken).unwrap();
        let (_, stderr) = expect(
            &run(&["compare", "--suite", "support-bot", "--deterministic"]),
            65,
        );
        let name = Path::new(file).file_name().unwrap().to_str().unwrap();
        assert!(stderr.contains(&format!("{name}:2:4")), "{stderr}");
        std::fs::write(&path, &original).unwrap();
    }

    let report = dir.path().join("r.json");
    std::fs::write(
        &report,
        b"{\"schema_version\": 1,\n \"suite\": \"\xC3\x28\"}",
    )
    .unwrap();
    let (_, stderr) = expect(&run(&["report", "r.json"]), 65);
    assert!(stderr.contains("r.json:2:12"), "{stderr}");
}

/// A token with a control character was a panic in the HTTP client; now it
/// is a config problem, and `compare` still exits with the verdict.
#[test]
fn a_token_with_a_control_character_never_changes_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let event = dir.path().join("event.json");
    std::fs::write(
        &event,
        r#"{"number": 7, "pull_request": {"number": 7, "base": {"sha": "0000000"}}}"#,
    )
    .unwrap();
    let out = bin()
        .current_dir(repo())
        .arg("compare")
        .args(REGRESSED_INPUTS)
        .args([
            "--deterministic",
            "--baseline-ref",
            "worktree",
            "--rules-ref",
            "worktree",
        ])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_REPOSITORY", "acme/widgets")
        .env("GITHUB_API_URL", "http://127.0.0.1:9")
        .env("GITHUB_TOKEN", "ghs_secret\u{7}rest")
        .output()
        .unwrap();
    let (_, stderr) = expect(&out, 2);
    assert!(
        stderr.contains("`GITHUB_TOKEN` holds a character a GitHub token never has"),
        "{stderr}"
    );
    assert!(!stderr.contains("ghs_secret"), "the token is never printed");

    let report = dir.path().join("compare.json");
    let out = bin()
        .current_dir(repo())
        .args([
            "compare",
            "--suite",
            "support-bot",
            "--deterministic",
            "--out",
        ])
        .arg(&report)
        .output()
        .unwrap();
    expect(&out, 0);
    let out = bin()
        .args(["comment", "--pr", "7", "--report"])
        .arg(&report)
        .env("GITHUB_REPOSITORY", "acme/widgets")
        .env("GITHUB_API_URL", "http://127.0.0.1:9")
        .env("AGENTEVAL_GITHUB_TOKEN", "ghs_x\ny")
        .output()
        .unwrap();
    let (_, stderr) = expect(&out, 78);
    assert!(stderr.contains("AGENTEVAL_GITHUB_TOKEN"), "{stderr}");
}
