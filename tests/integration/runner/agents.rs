//! What each kind of agent run becomes in the report.

use super::{AgentSuite, assert_code};
use crate::common::case;

#[test]
fn run_mode_runs_the_agent_per_case_and_evaluates_its_trace() {
    let s = AgentSuite::new("  concurrency: 2\n", &[("ok-1", "ok"), ("ok-2", "ok")]);
    let artifacts = s.path("artifacts");
    let (out, report) = s.run(&["--artifacts", artifacts.to_str().unwrap()]);
    let (_, stderr) = assert_code(&out, 0);
    let report = report.unwrap();
    assert_eq!(report["mode"], "run");
    assert_eq!(report["aggregate"]["cases_ok"], 2);
    for id in ["ok-1", "ok-2"] {
        let c = case(&report, id);
        assert_eq!(c["status"], "ok", "{c}");
        assert_eq!(c["trace"]["path"], format!("traces/{id}.json"));
        assert_eq!(c["trace"]["format"], "chat_messages");
        // The agent's answer names its case: each run got its own input.
        assert_eq!(c["checkpoints"][0]["result"], "PASS", "{c}");
    }
    // The agent checked argv against AGENTEVAL_* and its cwd (exit 9 otherwise);
    // the kept input file is the documented contract.
    let input: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(artifacts.join("agents/work/ok-2/input.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        input,
        serde_json::json!({
            "case_id": "ok-2",
            "input": "What is my balance? A-17",
            "tags": ["t1"],
            "metadata": {"behaviour": "ok"}
        })
    );
    assert!(artifacts.join("agents/traces/ok-1.json").is_file());
    assert!(
        stderr.contains("run mode: full tier of `agents`: 2 cases, concurrency 2\n"),
        "{stderr}"
    );
}

#[test]
fn a_crashing_agent_is_an_agent_error_with_its_output_tails() {
    let s = AgentSuite::new("", &[("good", "ok"), ("crash", "crash")]);
    let (out, report) = s.run(&[]);
    let (_, stderr) = assert_code(&out, 0);
    let report = report.unwrap();
    let c = case(&report, "crash");
    assert_eq!(c["status"], "agent_error");
    assert_eq!(c["error"]["message"], "the agent exited with code 3");
    assert_eq!(c["error"]["exit_code"], 3);
    assert_eq!(c["error"]["stdout_tail"], "working on crash\n");
    assert!(
        c["error"]["stderr_tail"]
            .as_str()
            .unwrap()
            .ends_with("RuntimeError: boom: the model returned nothing\n"),
        "{c}"
    );
    // Counted as failed, never dropped: every checkpoint fails.
    assert_eq!(c["checkpoints"][0]["result"], "FAIL");
    assert_eq!(report["aggregate"]["cases"], 2);
    assert_eq!(report["aggregate"]["cases_failed"], 1);
    assert!(
        stderr.contains(
            "  case `crash`: agent_error: the agent exited with code 3 (stderr: RuntimeError: boom: the model returned nothing)\n"
        ),
        "{stderr}"
    );
    // The working case keeps no tails.
    assert!(case(&report, "good").get("error").is_none());
}

#[test]
fn an_agent_that_writes_no_trace_or_an_empty_one_is_trace_missing() {
    let s = AgentSuite::new("", &[("none", "no_trace"), ("empty", "empty_trace")]);
    let (out, report) = s.run(&[]);
    assert_code(&out, 0);
    let report = report.unwrap();
    let none = case(&report, "none");
    assert_eq!(none["status"], "trace_missing");
    assert_eq!(
        none["error"]["message"],
        "the agent exited 0 but wrote no trace (`traces/none.json`); it must write `{trace_file}`"
    );
    assert_eq!(none["error"]["exit_code"], 0);
    let empty = case(&report, "empty");
    assert_eq!(empty["status"], "trace_missing");
    assert_eq!(
        empty["error"]["message"],
        "the agent exited 0 but its trace `traces/empty.json` is empty"
    );
    assert_eq!(report["aggregate"]["cases_failed"], 2);
}

#[test]
fn a_garbage_trace_is_a_parse_error() {
    let s = AgentSuite::new("", &[("junk", "garbage")]);
    let (out, report) = s.run(&[]);
    let (_, stderr) = assert_code(&out, 0);
    let c = case(report.as_ref().unwrap(), "junk").clone();
    assert_eq!(c["status"], "parse_error");
    let message = c["error"]["message"].as_str().unwrap();
    assert!(message.contains("traces/junk.json"), "{message}");
    assert_eq!(c["trace"]["path"], "traces/junk.json");
    assert!(stderr.contains("  case `junk`: parse_error: "), "{stderr}");
}

#[test]
fn quiet_prints_no_progress() {
    let s = AgentSuite::new("", &[("crash", "crash")]);
    let (out, report) = s.run(&["--quiet"]);
    let (_, stderr) = assert_code(&out, 0);
    assert_eq!(stderr, "");
    assert_eq!(case(&report.unwrap(), "crash")["status"], "agent_error");
}

#[test]
fn traces_flag_forces_replay_of_a_kept_run() {
    let s = AgentSuite::new("", &[("ok-1", "ok"), ("crash", "crash")]);
    let artifacts = s.path("artifacts");
    let (out, run) = s.run(&["--artifacts", artifacts.to_str().unwrap()]);
    assert_code(&out, 0);
    let runs_before = s.log().len();
    let traces = artifacts.join("agents/traces");
    let (out, replay) = s.run(&["--traces", traces.to_str().unwrap()]);
    assert_code(&out, 0);
    assert_eq!(s.log().len(), runs_before, "replay must not run the agent");
    let (run, replay) = (run.unwrap(), replay.unwrap());
    assert_eq!(replay["mode"], "replay");
    assert_eq!(
        case(&replay, "ok-1")["scores"],
        case(&run, "ok-1")["scores"]
    );
    // No recording for the crashed case: replay says so.
    assert_eq!(case(&replay, "crash")["status"], "trace_missing");
}

#[test]
fn an_agent_block_that_cannot_run_is_a_config_error() {
    for (extra, message) in [
        ("  cwd: no-such-dir\n", "suite `agents`: `agent.cwd` `"),
        ("  timeout_s: 0\n", "`agent.timeout_s` is 0"),
    ] {
        let s = AgentSuite::new(extra, &[("ok-1", "ok")]);
        let (out, report) = s.run(&[]);
        let (_, stderr) = assert_code(&out, 78);
        assert!(stderr.contains(message), "{stderr}");
        assert!(report.is_none());
        assert!(s.log().is_empty(), "no agent may start");
    }
}

/// Issue 23, item 4: in run mode the agent writes each case's end state to `{evidence_file}`
/// (`AGENTEVAL_EVIDENCE_FILE`), and that is the case's tier-1 evidence. With the suite's
/// recorded evidence removed, support-bot's agent still gets its tier-1 checkpoints decided,
/// and what it wrote is byte for byte the recorded evidence.
#[test]
fn run_mode_reads_the_evidence_the_agent_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suites/support-bot");
    crate::common::copy_dir(&crate::common::repo().join("suites/support-bot"), &suite);
    let yaml = std::fs::read_to_string(suite.join("suite.yaml")).unwrap();
    let line = "evidence: evidence/      # helpdesk and billing state after each conversation\n";
    assert!(yaml.contains(line), "support-bot's evidence line changed");
    std::fs::write(suite.join("suite.yaml"), yaml.replacen(line, "", 1)).unwrap();
    std::fs::remove_dir_all(suite.join("evidence")).unwrap();
    let out = crate::common::bin()
        .current_dir(dir.path())
        .args([
            "run",
            "--suite",
            "support-bot",
            "--deterministic",
            "--tier",
            "full",
        ])
        .args(["--artifacts", "art", "--out", "run.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    for id in ["sb-001", "sb-004", "sb-017"] {
        let written = std::fs::read(
            dir.path()
                .join(format!("art/support-bot/evidence/{id}.json")),
        )
        .unwrap();
        let recorded = std::fs::read(
            crate::common::repo().join(format!("suites/support-bot/evidence/{id}.json")),
        )
        .unwrap();
        assert_eq!(written, recorded, "{id}");
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run.json")).unwrap())
            .unwrap();
    let tier1: Vec<&serde_json::Value> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["checkpoints"].as_array().unwrap())
        .filter(|p| p["tier"] == 1)
        .collect();
    assert!(!tier1.is_empty());
    let decided = tier1
        .iter()
        .filter(|p| p["result"] != "N/A" && p["evaluated_by"] == "tier1")
        .count();
    assert!(
        decided * 2 > tier1.len(),
        "most tier-1 results are decided from the agent's evidence: {decided} of {}",
        tier1.len()
    );
    assert!(
        tier1
            .iter()
            .all(|p| !p["notes"].as_str().unwrap().contains("no evidence")),
        "{tier1:?}"
    );
}
