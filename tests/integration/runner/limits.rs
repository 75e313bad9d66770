//! Timeouts, leftover processes, retries and the concurrency limit.

use super::{AgentSuite, assert_code, process_gone};
use crate::common::case;

fn wait_until_gone(pid: u32) -> bool {
    // SIGKILL is immediate; reaping by the new parent may lag a little.
    for _ in 0..200 {
        if process_gone(pid) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

fn pid_of(s: &AgentSuite, case: &str) -> u32 {
    std::fs::read_to_string(s.path(&format!("pids/{case}.pid")))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn a_timeout_kills_the_whole_process_group() {
    // 5 s, not 1: on a loaded 2-core machine the agent (python3) may take
    // over a second just to start and write its pid.
    let s = AgentSuite::new(
        "  timeout_s: 5\n",
        &[("stuck", "hang"), ("daemon", "daemon")],
    );
    std::fs::create_dir_all(s.path("pids")).unwrap();
    let out = crate::common::bin()
        .current_dir(s.dir.path())
        .env("AGENT_PIDS", s.path("pids"))
        .args([
            "run",
            "--suite",
            "agents",
            "--deterministic",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let (stdout, stderr) = assert_code(&out, 0);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let stuck = case(&report, "stuck");
    assert_eq!(stuck["status"], "timeout", "{stuck}");
    assert_eq!(
        stuck["error"]["message"],
        "no exit within 5 s (`agent.timeout_s`); its process group was killed"
    );
    assert!(
        stderr.contains("  case `stuck`: timeout: no exit within 5 s"),
        "{stderr}"
    );
    // The agent's grandchild `sleep 1000` went down with the group.
    assert!(
        wait_until_gone(pid_of(&s, "stuck")),
        "grandchild of the timed-out agent survived"
    );
    // An agent that exits 0 but leaves a child behind: the child is killed
    // too, and the case still counts (its trace is fine).
    assert_eq!(case(&report, "daemon")["status"], "ok");
    assert!(
        wait_until_gone(pid_of(&s, "daemon")),
        "leftover child of a finished agent survived"
    );
}

#[test]
fn a_command_that_cannot_start_is_retried_then_an_agent_error() {
    let s = AgentSuite::with_command(
        r#"["./no-such-agent", "{input_file}"]"#,
        "  retries: 2\n",
        &[("c1", "ok")],
    );
    let (out, report) = s.run(&[]);
    let (_, stderr) = assert_code(&out, 0);
    let c = case(report.as_ref().unwrap(), "c1").clone();
    assert_eq!(c["status"], "agent_error");
    let message = c["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("could not start `./no-such-agent`: No such file or directory"),
        "{message}"
    );
    assert!(
        message.contains("(3 attempts; `agent.retries` is 2)"),
        "{message}"
    );
    assert!(c["error"].get("exit_code").is_none());
    assert!(
        stderr.contains("  case `c1`: agent_error: could not start"),
        "{stderr}"
    );
}

#[test]
fn a_failing_agent_is_never_retried() {
    let s = AgentSuite::new(
        "  retries: 2\n",
        &[("crash", "crash"), ("none", "no_trace")],
    );
    let (out, _) = s.run(&[]);
    assert_code(&out, 0);
    let mut starts: Vec<String> = s
        .log()
        .into_iter()
        .filter(|l| l.starts_with("start "))
        .collect();
    starts.sort();
    assert_eq!(starts, ["start crash", "start none"]);
}

/// Most agents running at once, from the order of `start`/`end` lines.
fn max_overlap(log: &[String]) -> usize {
    let (mut running, mut max) = (0usize, 0usize);
    for line in log {
        if line.starts_with("start ") {
            running += 1;
            max = max.max(running);
        } else if line.starts_with("end ") {
            running -= 1;
        }
    }
    max
}

#[test]
fn the_concurrency_limit_is_honoured_and_reached() {
    let cases: Vec<(String, &str)> = (1..=6).map(|i| (format!("w{i}"), "wait")).collect();
    let cases: Vec<(&str, &str)> = cases.iter().map(|(id, b)| (id.as_str(), *b)).collect();

    // agent.concurrency: 3. Each agent waits until three have started, so a
    // limit of 3 is reached; a runner without a limit would start all six.
    let s = AgentSuite::new("  concurrency: 3\n", &cases);
    let out = crate::common::bin()
        .current_dir(s.dir.path())
        .env("AGENT_LOG", s.path("agent.log"))
        .env("AGENT_WAIT_FOR", "3")
        .args([
            "run",
            "--suite",
            "agents",
            "--deterministic",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let (stdout, stderr) = assert_code(&out, 0);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["aggregate"]["cases_ok"], 6, "{stderr}");
    let log = s.log();
    assert_eq!(log.len(), 12, "{log:?}");
    assert_eq!(max_overlap(&log), 3, "{log:?}");

    // `--jobs 2` caps it.
    let s = AgentSuite::new("  concurrency: 3\n", &cases);
    let out = crate::common::bin()
        .current_dir(s.dir.path())
        .env("AGENT_LOG", s.path("agent.log"))
        .env("AGENT_WAIT_FOR", "2")
        .args(["run", "--suite", "agents", "--deterministic", "--jobs", "2"])
        .output()
        .unwrap();
    let (_, stderr) = assert_code(&out, 0);
    assert!(stderr.contains("6 cases, concurrency 2"), "{stderr}");
    let log = s.log();
    assert_eq!(log.len(), 12, "{log:?}");
    assert_eq!(max_overlap(&log), 2, "{log:?}");
}
