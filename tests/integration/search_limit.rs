//! Issue 24: a capture search that runs out of its budget of match attempts is N/A
//! `search_limit` in every form that searches (`order`, `never: [X, Y, …]`, ordered
//! `preceded_by` steps), never a pass; and the gate counts such a checkpoint unevaluated
//! even when other cases decided it, since the case it could not decide might have failed.

#![expect(
    clippy::unwrap_used,
    reason = "test fixtures panic when their setup fails"
)]

use std::path::Path;

use serde_json::json;

use crate::common::{bin, outputs};

/// Suite `budget` under `root`: three critical checkpoints whose steps all capture `n`
/// from every `step` call, so with distinct values the search tries every pair.
fn suite(root: &Path, gates: &str) {
    let dir = root.join("suites/budget");
    std::fs::create_dir_all(dir.join("traces")).unwrap();
    let step = "{tool: step, capture: {n: /args/n}}";
    let yaml = format!(
        r#"suite: budget
spec_version: "1"
traces: traces/
gates:
  fail_on: critical
{gates}tools:
  - name: step
    schema: {{type: object, properties: {{n: {{type: integer}}}}}}
checkpoints:
  - id: X2-01
    tier: 2
    instruction: No value repeats three times
    severity: critical
    evidence_sources: [trace]
    sequence:
      never: [{step}, {step}, {step}]
  - id: X2-02
    tier: 2
    instruction: Some value comes three times
    severity: critical
    evidence_sources: [trace]
    sequence:
      order: [{step}, {step}, {step}]
  - id: X2-03
    tier: 2
    instruction: Each step repeats two earlier values
    severity: critical
    evidence_sources: [trace]
    sequence:
      each: {step}
      preceded_by: [{step}, {step}]
      since: start
cases:
  - {{id: c1}}
  - {{id: c2}}
"#
    );
    std::fs::write(dir.join("suite.yaml"), yaml).unwrap();
    for case in ["c1", "c2"] {
        trace(&dir.join(format!("traces/{case}.json")), 3);
    }
}

/// A chat trace of `n` `step` calls with the distinct values 0..n.
fn trace(path: &Path, n: usize) {
    let mut messages = vec![json!({"role": "user", "content": "go"})];
    for i in 0..n {
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": format!("k{i}"), "type": "function",
             "function": {"name": "step", "arguments": json!({"n": i}).to_string()}}]}));
        messages.push(json!({"role": "tool", "tool_call_id": format!("k{i}"), "name": "step", "content": "ok"}));
    }
    std::fs::write(path, json!({ "messages": messages }).to_string()).unwrap();
}

/// The suite with `gates`, its baseline `main`, and head traces: c1 as in
/// the baseline, c2 with 1,600 calls (about 1.3 million pairs).
fn baseline_and_head(root: &Path, gates: &str) {
    suite(root, gates);
    let out = bin()
        .current_dir(root)
        .args(["baseline", "update", "--name", "main", "--suite", "budget"])
        .arg("--deterministic")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    std::fs::create_dir(root.join("head")).unwrap();
    trace(&root.join("head/c1.json"), 3);
    trace(&root.join("head/c2.json"), 1_600);
}

/// `compare` of the head traces in `root/head` against baseline `main`.
fn compare(root: &Path) -> (i32, String, serde_json::Value) {
    let report = root.join("compare.json");
    let out = bin()
        .current_dir(root)
        .args(["compare", "--baseline", "main", "--suite", "budget"])
        .args(["--deterministic", "--traces", "head", "--out"])
        .arg(&report)
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let json = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    (
        out.status.code().unwrap(),
        format!("{stdout}{stderr}"),
        json,
    )
}

#[test]
fn an_exhausted_search_is_na_search_limit_in_every_form_and_fails_the_gate() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    baseline_and_head(root, "");
    let run = root.join("run.json");
    let out = bin()
        .current_dir(root)
        .args([
            "run",
            "--suite",
            "budget",
            "--deterministic",
            "--traces",
            "head",
            "--out",
        ])
        .arg(&run)
        .output()
        .unwrap();
    // `run` reports (c1 fails X2-02 and X2-03: no value repeats); the gate is `compare`'s.
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let head: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&run).unwrap()).unwrap();
    let c2 = head["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "c2")
        .unwrap_or_else(|| panic!("{head}"));
    for cp in c2["checkpoints"].as_array().unwrap() {
        assert_eq!(cp["result"], "N/A", "{cp}");
        assert_eq!(cp["na_kind"], "search_limit", "{cp}");
        let notes = cp["notes"].as_str().unwrap();
        assert!(notes.starts_with("could not be decided: "), "{notes}");
        assert!(
            notes.contains("gave up after 1000000 match attempts"),
            "{notes}"
        );
    }
    // c1 decided every checkpoint; c2's N/A still fails the gate, by name and reason.
    let (code, text, report) = compare(root);
    assert_eq!(code, 2, "{text}");
    for id in ["X2-01", "X2-02", "X2-03"] {
        assert!(
            text.contains(&format!(
                "checkpoint `budget/{id}` (critical severity) could not be evaluated in some case: N/A: could not be decided"
            )),
            "{id}: {text}"
        );
    }
    let coverage = report["coverage"].as_array().unwrap();
    assert!(
        coverage
            .iter()
            .all(|c| c["unevaluated"] == true && c["decided"] == 1),
        "{coverage:?}"
    );

    // `gates.unevaluated: warn` reports it and passes.
    let root2 = tempfile::tempdir().unwrap();
    let root2 = root2.path();
    baseline_and_head(root2, "  unevaluated: warn\n");
    let (code, text, _) = compare(root2);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(
            "warning: checkpoint `budget/X2-01` (critical severity) could not be evaluated in some case"
        ),
        "{text}"
    );
}
