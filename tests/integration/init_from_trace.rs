//! Issue 23, item 8: `init --from-trace` drafts a suite from the seven any-agent traces (one
//! per framework) that lints clean, and whose baseline update and compare run; names and
//! texts from the traces cannot break the YAML; bad input is refused before anything is
//! written.

#![expect(
    clippy::unwrap_used,
    reason = "test fixtures panic when their setup fails"
)]

use std::path::PathBuf;

use crate::common::{bin, fixture, outputs};

fn any_agent_traces() -> Vec<PathBuf> {
    let dir = fixture("traces/otel-genai-any-agent");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with("_trace.json"))
        .collect();
    files.sort();
    files
}

#[test]
fn a_suite_drafted_from_seven_frameworks_lints_clean_and_compares() {
    let dir = tempfile::tempdir().unwrap();
    let traces = any_agent_traces();
    assert_eq!(traces.len(), 7, "{traces:?}");
    let out = bin()
        .current_dir(dir.path())
        .args(["init", "--name", "any-agent", "--from-trace"])
        .args(&traces)
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("drafted suite `any-agent` in suites/any-agent: 7 cases, 4 tools (final_answer, final_output, get_current_time, write_file)"),
        "{stdout}"
    );
    let yaml = std::fs::read_to_string(dir.path().join("suites/any-agent/suite.yaml")).unwrap();
    // Every call of get_current_time passed a `timezone` string.
    assert!(
        yaml.contains(r#"schema: {"properties":{"timezone":{"type":"string"}},"required":["timezone"],"type":"object"}"#),
        "{yaml}"
    );
    assert!(
        yaml.contains(r#"sequence: {eventually: {tool: "write_file"}}"#),
        "{yaml}"
    );
    let cases = std::fs::read_to_string(dir.path().join("suites/any-agent/cases.jsonl")).unwrap();
    assert_eq!(cases.lines().count(), 7);
    assert!(cases.contains(r#""id":"LANGCHAIN_trace""#), "{cases}");
    assert!(
        cases.contains("Find what year it is in the America/New_York timezone"),
        "{cases}"
    );

    for args in [
        vec!["lint", "--suite", "any-agent"],
        vec![
            "baseline",
            "update",
            "--name",
            "main",
            "--suite",
            "any-agent",
            "--deterministic",
        ],
        vec![
            "compare",
            "--baseline",
            "main",
            "--suite",
            "any-agent",
            "--deterministic",
        ],
    ] {
        let out = bin().current_dir(dir.path()).args(&args).output().unwrap();
        let (stdout, stderr) = outputs(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stdout}{stderr}");
        if args[0] == "lint" {
            assert!(stdout.contains("0 errors, 0 warnings"), "{stdout}{stderr}");
        }
        if args[0] == "compare" {
            assert!(stdout.starts_with("verdict: PASS"), "{stdout}");
        }
    }

    // A second init over it is refused; `--force` replaces it.
    let again = bin()
        .current_dir(dir.path())
        .args(["init", "--name", "any-agent", "--from-trace"])
        .arg(&traces[0])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(64));
    assert!(outputs(&again).1.contains("already holds a suite"));
}

#[test]
fn hostile_tool_names_stay_yaml_strings_and_bad_input_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // An OpenAI chat trajectory whose tool name and message try to break out of the YAML.
    let evil = "x\"}}\n  - id: EVIL\n#";
    let trace = serde_json::json!([
        {"role": "user", "content": "ok: {a: [b]}\n- id: INJECTED"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": evil, "arguments": "{\"k\": 1}"}}
        ]},
        {"role": "tool", "tool_call_id": "c1", "name": evil, "content": "done"},
        {"role": "assistant", "content": "finished"}
    ]);
    let path = dir.path().join("t 1.json");
    std::fs::write(&path, trace.to_string()).unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["init", "--name", "evil", "--from-trace"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let lint = bin()
        .current_dir(dir.path())
        .args(["lint", "--suite", "evil"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&lint);
    assert_eq!(lint.status.code(), Some(0), "{stdout}{stderr}");
    let yaml = std::fs::read_to_string(dir.path().join("suites/evil/suite.yaml")).unwrap();
    assert!(!yaml.contains("\n  - id: EVIL"), "{yaml}");
    let schema = bin()
        .current_dir(dir.path())
        .args(["trace", "--suite", "evil", "--format", "json"])
        .arg(dir.path().join("suites/evil/traces/t-1.json"))
        .output()
        .unwrap();
    assert_eq!(schema.status.code(), Some(0), "{:?}", outputs(&schema));

    // Not a trace: exit 65 naming the file, and no suite directory.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"hello\": 1}").unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["init", "--name", "other", "--from-trace"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(65), "{:?}", outputs(&out));
    assert!(!dir.path().join("suites/other").exists());
}
