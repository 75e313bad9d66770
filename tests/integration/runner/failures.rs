//! Failed cases in run mode: they keep their wall time, and when most cases fail for one
//! infrastructure cause the compare says it could not evaluate the agent (exit 69).

use super::{AgentSuite, assert_code};
use crate::common::{bin, case, outputs};

#[test]
fn a_crashed_case_keeps_its_wall_time_as_latency() {
    let s = AgentSuite::new("", &[("ok-1", "ok"), ("crash", "crash")]);
    let out = bin()
        .current_dir(s.dir.path())
        .args(["run", "--suite", "agents", "--format", "json"])
        .output()
        .unwrap();
    let (stdout, _) = assert_code(&out, 0);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let crash = case(&report, "crash");
    assert_eq!(crash["status"], "agent_error");
    // The agent is a Python process: it takes well over a millisecond to start and crash.
    let ms = crash["scores"]["latency_ms"].as_f64().unwrap_or_default();
    assert!(ms > 1.0, "{crash}");
    assert_eq!(crash["cost"]["latency_ms"].as_f64(), Some(ms));
    // Its cost is unknown, not zero.
    assert!(crash["scores"]["cost_usd"].is_null(), "{crash}");
    // --deterministic leaves wall-clock values out.
    let (out, deterministic) = s.run(&[]);
    assert_code(&out, 0);
    assert!(case(&deterministic.unwrap(), "crash")["scores"]["latency_ms"].is_null());
}

#[test]
fn most_cases_failing_for_one_cause_is_could_not_evaluate_not_a_regression() {
    let ids = ["c1", "c2", "c3", "c4", "c5", "c6"];
    let ok: Vec<(&str, &str)> = ids.iter().map(|id| (*id, "ok")).collect();
    let s = AgentSuite::new("", &ok);
    bin()
        .current_dir(s.dir.path())
        .args([
            "baseline",
            "update",
            "--name",
            "main",
            "--suite",
            "agents",
            "--deterministic",
        ])
        .assert()
        .code(0);
    // The same suite where every agent dies at start-up with the same error (a missing
    // secret on a fork PR looks like this).
    let yaml = s.path("suites/agents/suite.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(&yaml, text.replace("behaviour: ok", "behaviour: crash")).unwrap();
    let out = bin()
        .current_dir(s.dir.path())
        .args([
            "compare",
            "--baseline",
            "main",
            "--suite",
            "agents",
            "--format",
            "markdown",
        ])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(69), "{stdout}\n{stderr}");
    assert!(
        stdout.starts_with("## ⛔ agenteval-gate could not evaluate the agent"),
        "{stdout}"
    );
    assert!(
        stdout.contains("6 of 6 cases failed the same way before producing a trace \\(agent\\_error\\: the agent exited with code 3\\: RuntimeError\\: boom\\: the model returned nothing\\)"),
        "{stdout}"
    );
    assert!(stderr.contains("verdict: could_not_evaluate"), "{stderr}");
}
