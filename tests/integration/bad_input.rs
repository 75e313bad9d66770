//! Bad input through the real binary: each class gives a clear error with
//! file and line, the right exit code, and never a panic.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use crate::common::{bin, copy_dir, fixture, outputs, repo};

fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

/// Run and return (exit code, stderr), asserting no panic.
fn run_in(dir: &std::path::Path, args: &[&str]) -> (i32, String) {
    let out = bin().current_dir(dir).args(args).output().unwrap();
    let (_, stderr) = outputs(&out);
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code().unwrap_or(-1), stderr)
}

#[test]
fn malformed_trace_json_is_65_with_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "t.json",
        "{\n  \"resourceSpans\": [\n    {\"scopeSpans\": [}]\n  ]\n}\n",
    );
    let (code, stderr) = run_in(dir.path(), &["trace", "t.json"]);
    assert_eq!(code, 65, "{stderr}");
    assert!(stderr.contains("t.json:3:"), "{stderr}");
    assert!(stderr.contains("help:"), "{stderr}");
}

#[test]
fn a_bad_jsonl_trace_line_is_65_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = r#"{"timestamp": "2026-01-01T00:00:00Z", "tool_name": "Read", "span_type": "parent", "trace_id": "e1", "args": {}}"#;
    write(
        dir.path(),
        "t.jsonl",
        &format!("{good}\n{good}\n{{\"tool_name\": \n"),
    );
    let (code, stderr) = run_in(dir.path(), &["trace", "t.jsonl"]);
    assert_eq!(code, 65, "{stderr}");
    assert!(stderr.contains("t.jsonl:3:"), "{stderr}");
}

#[test]
fn unknown_formats_and_missing_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "x.json", "{\"hello\": \"world\"}\n");
    let (code, stderr) = run_in(dir.path(), &["trace", "x.json"]);
    assert_eq!(code, 65, "{stderr}");
    assert!(stderr.contains("accepted trace formats"), "{stderr}");
    let (code, stderr) = run_in(dir.path(), &["trace", "missing.json"]);
    assert_eq!(code, 74, "{stderr}");
    assert!(stderr.contains("missing.json"), "{stderr}");
}

#[test]
fn a_garbage_trace_in_a_run_is_a_failed_case_not_an_abort() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("suites/stable"), &dir.path().join("suites/stable"));
    write(
        dir.path(),
        "suites/stable/traces/s1.json",
        "not json at all",
    );
    std::fs::remove_file(dir.path().join("suites/stable/traces/s2.json")).unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["run", "--format", "json", "--deterministic"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let s1 = &report["cases"][0];
    assert_eq!(s1["status"], "parse_error");
    assert!(
        s1["error"]["message"]
            .as_str()
            .unwrap()
            .contains("s1.json:1:"),
        "{s1}"
    );
    assert_eq!(report["cases"][1]["status"], "trace_missing");
    assert_eq!(report["aggregate"]["cases_failed"], 2);
    assert_eq!(
        s1["scores"]["compliance_percent"], 0.0,
        "a failed case counts as failed, never dropped"
    );
}

#[test]
fn malformed_evidence_stops_the_run_with_65() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &repo().join("suites/support-bot"),
        &dir.path().join("suites/support-bot"),
    );
    write(
        dir.path(),
        "suites/support-bot/evidence/sb-002.json",
        "{\n  \"ticket\": {\"status\": \"open\",}\n}\n",
    );
    // Replayed: in run mode the agent writes its own evidence, which wins over the recording.
    let (code, stderr) = run_in(
        dir.path(),
        &[
            "run",
            "--suite",
            "support-bot",
            "--traces",
            "suites/support-bot/traces",
            "--evidence",
            "suites/support-bot/evidence",
        ],
    );
    assert_eq!(code, 65, "{stderr}");
    assert!(stderr.contains("sb-002.json:2:"), "{stderr}");
    assert!(stderr.contains("invalid evidence JSON"), "{stderr}");
}

#[test]
fn malformed_baselines_and_history_are_65() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &repo().join("suites/code-review"),
        &dir.path().join("suites/code-review"),
    );
    copy_dir(&repo().join("baselines"), &dir.path().join("baselines"));
    let hist = dir.path().join("baselines/main/code-review.history.jsonl");
    let text = std::fs::read_to_string(&hist).unwrap();
    std::fs::write(&hist, format!("{text}{{\"metrics\": oops}}\n")).unwrap();
    let (code, stderr) = run_in(dir.path(), &["compare", "--baseline", "main"]);
    assert_eq!(code, 65, "{stderr}");
    assert!(stderr.contains("code-review.history.jsonl:2:"), "{stderr}");

    std::fs::write(&hist, text).unwrap();
    write(
        dir.path(),
        "baselines/main/code-review.json",
        "{\"schema_version\": 1, \"baseline\": 3}",
    );
    let (code, stderr) = run_in(dir.path(), &["compare", "--baseline", "main"]);
    assert_eq!(code, 65, "{stderr}");
    assert!(stderr.contains("invalid baseline file"), "{stderr}");
}

#[test]
fn an_update_over_a_malformed_baseline_is_65_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &repo().join("suites/code-review"),
        &dir.path().join("suites/code-review"),
    );
    copy_dir(&repo().join("baselines"), &dir.path().join("baselines"));
    let base = dir.path().join("baselines/main");
    let history = std::fs::read(base.join("code-review.history.jsonl")).unwrap();
    // Not JSON: the update reads only the metadata of the file it replaces,
    // but the whole file must still parse.
    let bad = write(
        dir.path(),
        "baselines/main/code-review.json",
        "{\"schema_version\": 1, \"baseline\": {\"name\": \"main\"}, \"report\": [1,,2]}",
    );
    let update = [
        "baseline",
        "update",
        "--suite",
        "code-review",
        "--deterministic",
    ];
    let (code, stderr) = run_in(dir.path(), &update);
    assert_eq!(code, 65, "{stderr}");
    assert!(stderr.contains("invalid baseline file"), "{stderr}");
    assert!(stderr.contains("code-review.json:1:"), "{stderr}");
    // Another schema version is refused too.
    let other = std::fs::read_to_string(repo().join("baselines/main/code-review.json"))
        .unwrap()
        .replacen("\"schema_version\": 1", "\"schema_version\": 9", 1);
    std::fs::write(&bad, &other).unwrap();
    let (code, stderr) = run_in(dir.path(), &update);
    assert_eq!(code, 65, "{stderr}");
    assert!(stderr.contains("schema_version 9 is not 1"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&bad).unwrap(), other);
    assert_eq!(
        std::fs::read(base.join("code-review.history.jsonl")).unwrap(),
        history
    );
}

#[test]
fn malformed_reports_and_config_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "r.json", "{\"cases\": [], \"aggregate\": 5}");
    let (code, stderr) = run_in(dir.path(), &["report", "r.json"]);
    assert_eq!(code, 65, "{stderr}");
    assert!(stderr.contains("invalid run report"), "{stderr}");
    write(dir.path(), "agenteval.yaml", "seed: forty-two\n");
    let out = assert_cmd::Command::cargo_bin("agenteval-gate")
        .unwrap()
        .current_dir(dir.path())
        .args(["config", "show"])
        .output()
        .unwrap();
    let (_, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(78), "{stderr}");
    assert!(stderr.contains("agenteval.yaml:1:7"), "{stderr}");
}
