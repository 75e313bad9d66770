//! Issue 22, item 6, through the binary: a workflow that names only some
//! tools does not fault the others unless it says it is `exhaustive`; lint
//! says which it is; `tool: [a, b]` lists alternatives; a root cause at an
//! infrastructure failure names no agent.

use std::path::Path;

use serde_json::Value;

use crate::common::{bin, copy_dir, outputs, repo};

/// A copy of the airline-tau suite (real tau-bench episodes) whose
/// `exhaustive: false` line is replaced by `line` (empty: the default).
fn airline_with(dir: &Path, line: &str) {
    copy_dir(&repo().join("suites/airline-tau"), &dir.join("airline-tau"));
    let path = dir.join("airline-tau/suite.yaml");
    let yaml = std::fs::read_to_string(&path).unwrap();
    assert!(yaml.contains("  exhaustive: false\n"));
    std::fs::write(&path, yaml.replace("  exhaustive: false\n", line)).unwrap();
}

fn run(dir: &Path) -> Value {
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("run.json");
    let output = bin()
        .args(["--quiet", "run", "--deterministic", "--suites-dir"])
        .arg(dir)
        .args(["--suite", "airline-tau", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let (_, stderr) = outputs(&output);
    assert!(matches!(output.status.code(), Some(0 | 2)), "{stderr}");
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

/// The episodes tau-bench rewarded 1.0.
fn successes(report: &Value) -> Vec<&Value> {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["scores"]["task_success"] == 1.0)
        .collect()
}

/// TOOLSEL steps of `case` that selected a tool the workflow does not name.
fn unlisted_selections(case: &Value) -> usize {
    const NAMED: [&str; 2] = ["get_user_details", "get_reservation_details"];
    case["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["type"] == "TOOLSEL" && !NAMED.contains(&s["name"].as_str().unwrap_or("")))
        .count()
}

#[test]
fn a_successful_episode_under_a_partial_workflow_has_no_root_cause_by_default() {
    let dir = tempfile::tempdir().unwrap();
    airline_with(dir.path(), "");
    let report = run(dir.path());
    let ok = successes(&report);
    assert!(ok.len() >= 5, "{}", ok.len());
    // The episodes call tools the workflow does not name…
    assert!(ok.iter().map(|c| unlisted_selections(c)).sum::<usize>() > 10);
    for case in &ok {
        let id = &case["id"];
        // …and none of those is a deviation or a failed step.
        for s in case["steps"].as_array().unwrap() {
            assert!(
                !(s["type"] == "TOOLSEL" && s["failed"] == true),
                "{id}: {s}"
            );
            assert_ne!(s["taxonomy"]["l3"], "unexpected_tool", "{id}: {s}");
        }
        let deviations = case["dag"]["deviations"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(
            deviations.iter().all(|d| d["kind"] != "unexpected_step"),
            "{id}: {deviations:?}"
        );
    }
    // A reward-1 episode in which nothing failed: no root cause, Q 5.
    let task6 = ok.iter().find(|c| c["id"] == "task-6").unwrap();
    assert!(unlisted_selections(task6) > 0);
    assert!(task6.get("root_cause").is_none(), "{}", task6["root_cause"]);
    assert_eq!(task6["scores"]["workflow_quality"], 5.0);
}

#[test]
fn an_exhaustive_workflow_faults_the_tools_it_does_not_name() {
    let dir = tempfile::tempdir().unwrap();
    airline_with(dir.path(), "  exhaustive: true\n");
    let report = run(dir.path());
    let task6 = successes(&report)
        .into_iter()
        .find(|c| c["id"] == "task-6")
        .unwrap();
    let rc = &task6["root_cause"];
    assert_eq!(rc["status"], "named", "{task6}");
    assert!(
        rc["reason"]
            .as_str()
            .unwrap()
            .contains("that the workflow schema does not call for"),
        "{rc}"
    );
    assert!(task6["scores"]["workflow_quality"].as_f64().unwrap() < 5.0);
    let deviations = task6["dag"]["deviations"].as_array().unwrap();
    assert!(deviations.iter().any(|d| d["kind"] == "unexpected_step"));
}

fn lint(dir: &Path) -> (Option<i32>, String) {
    let out = bin()
        .args(["lint", "--deny-warnings", "--suites-dir"])
        .arg(dir)
        .args(["--suite", "airline-tau"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    (out.status.code(), format!("{stdout}{stderr}"))
}

#[test]
fn lint_warns_on_a_partial_workflow_that_does_not_say_whether_it_is_exhaustive() {
    let dir = tempfile::tempdir().unwrap();
    airline_with(dir.path(), "");
    let (code, text) = lint(dir.path());
    assert_ne!(code, Some(0), "{text}");
    assert!(
        text.contains("the workflow names 2 of the 14 catalog tools")
            && text.contains("does not say whether it is exhaustive")
            && text.contains("exhaustive: false"),
        "{text}"
    );
    for line in ["  exhaustive: false\n", "  exhaustive: true\n"] {
        let dir = tempfile::tempdir().unwrap();
        airline_with(dir.path(), line);
        let (code, text) = lint(dir.path());
        assert_eq!(code, Some(0), "{line}: {text}");
    }
}

#[test]
fn a_workflow_step_takes_a_list_of_alternative_tools() {
    let dir = tempfile::tempdir().unwrap();
    airline_with(dir.path(), "  exhaustive: false\n");
    let path = dir.path().join("airline-tau/suite.yaml");
    let yaml = std::fs::read_to_string(&path).unwrap().replace(
        "tool: get_reservation_details, after: [identify], optional: true}",
        "tool: [get_reservation_details, cancel_reservation], after: [identify], optional: true}",
    );
    std::fs::write(&path, &yaml).unwrap();
    let (code, text) = lint(dir.path());
    assert_eq!(code, Some(0), "{text}");
    assert!(!text.contains("expected string scalar"), "{text}");
    // An alternative outside the catalog is named in the error.
    std::fs::write(
        &path,
        yaml.replace("cancel_reservation], after", "cancel_reservaton], after"),
    )
    .unwrap();
    let (code, text) = lint(dir.path());
    assert_ne!(code, Some(0), "{text}");
    assert!(
        text.contains("uses tool `cancel_reservaton`, which is not in the `tools:` catalog"),
        "{text}"
    );
    // A wrong type says what `tool` takes.
    std::fs::write(
        &path,
        yaml.replace("tool: get_user_details,", "tool: {name: get_user_details},"),
    )
    .unwrap();
    let (code, text) = lint(dir.path());
    assert_eq!(code, Some(78), "{text}");
    assert!(
        text.contains("expected a tool name, or a list of alternative tool names (`tool: [a, b]`)"),
        "{text}"
    );
}

/// The accuracy script on an episode whose first failure is an HTTP 403:
/// the step is named, no agent is (the label blames `Paintball_Expert`).
#[test]
fn an_infrastructure_failure_names_its_step_and_no_agent() {
    let repo = repo();
    let out_dir = tempfile::tempdir().unwrap();
    let json_out = out_dir.path().join("accuracy.json");
    let out = std::process::Command::new("python3")
        .arg(repo.join("scripts/who-and-when-accuracy.py"))
        .arg(repo.join("tests/fixtures/traces/who-and-when-infra"))
        .arg("--json")
        .arg(&json_out)
        .env("AGENTEVAL_GATE_BIN", env!("CARGO_BIN_EXE_agenteval-gate"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Value = serde_json::from_slice(&std::fs::read(&json_out).unwrap()).unwrap();
    let e = &printed["episodes"][0];
    assert_eq!(e["id"], "algorithm-generated_123");
    assert_eq!(e["predicted_agent"], Value::Null, "{e}");
    assert!(e["predicted_step"].is_u64(), "{e}");
    let reason = e["reason"].as_str().unwrap();
    assert!(
        reason.contains("403") && reason.contains("an infrastructure failure: no agent is blamed"),
        "{reason}"
    );
    assert_eq!(printed["summary"]["total"]["agent_named"], 0);
}
