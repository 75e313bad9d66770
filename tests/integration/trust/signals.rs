//! Item 5: SIGINT/SIGTERM stop new work, kill every agent process group
//! (grandchildren included), remove the scratch directory, write what is
//! known, and exit 130/143. Agents used to keep running after the gate died.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::case;
use crate::runner::{AgentSuite, process_gone};

/// The binary as `common::bin` sets it up, but spawned (not waited for).
pub(super) fn spawn(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Child {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("agenteval-gate"));
    for (k, _) in std::env::vars() {
        if k.starts_with("AGENTEVAL_") || k.starts_with("GITHUB_") || k == "CI" {
            cmd.env_remove(k);
        }
    }
    cmd.current_dir(dir)
        .env("NO_COLOR", "1")
        .arg("--isolated")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().unwrap()
}

pub(super) fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub(super) fn pid(path: &Path) -> u32 {
    std::fs::read_to_string(path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Exit code, stdout, stderr of `child`, killing it if it outlives a minute.
pub(super) fn finish(mut child: Child) -> (Option<i32>, String, String) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the gate did not exit after the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code(), out, err)
}

pub(super) fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(ok.success());
}

/// Four cases, two at a time: `quick` finishes, the two `hang` agents
/// (each with a grandchild `sleep`) are running when the signal comes,
/// `later` has not started.
fn interrupted_run(sig: &str, code: i32) {
    let s = AgentSuite::new(
        "  concurrency: 2\n",
        &[
            ("quick", "ok"),
            ("stuck1", "hang"),
            ("stuck2", "hang"),
            ("later", "ok"),
        ],
    );
    let (pids, tmp) = (s.path("pids"), s.path("tmp"));
    std::fs::create_dir_all(&pids).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let report = s.path("report.json");
    let child = spawn(
        s.dir.path(),
        &[
            "run",
            "--suite",
            "agents",
            "--deterministic",
            "--out",
            "report.json",
        ],
        &[("AGENT_PIDS", &pids), ("TMPDIR", &tmp)],
    );
    wait_for("both hanging agents", || {
        pids.join("stuck1.pid").exists() && pids.join("stuck2.pid").exists()
    });
    let scratch: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert_eq!(scratch.len(), 1, "one scratch directory while running");
    signal(&child, sig);
    let (status, _, stderr) = finish(child);
    assert_eq!(status, Some(code), "{stderr}");
    assert!(
        stderr.contains(&format!("interrupted by SIG{sig}")),
        "{stderr}"
    );

    for name in ["stuck1", "stuck2"] {
        for file in [format!("{name}.pid"), format!("{name}.agent.pid")] {
            let p = pid(&pids.join(&file));
            wait_for(&format!("{file} ({p}) to die"), || process_gone(p));
        }
    }
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "scratch space removed"
    );

    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(case(&r, "quick")["status"], "ok");
    for name in ["stuck1", "stuck2"] {
        let c = case(&r, name);
        assert_eq!(c["status"], "agent_error", "{c}");
        assert_eq!(
            c["error"]["message"],
            format!("interrupted by SIG{sig}: the agent's process group was killed")
        );
    }
    assert_eq!(
        case(&r, "later")["error"]["message"],
        format!("not run: interrupted by SIG{sig}")
    );
    let warnings = r["warnings"].to_string();
    assert!(warnings.contains("interrupted: SIG"), "{warnings}");

    // A partial report never becomes a baseline.
    let out = crate::common::bin()
        .current_dir(s.dir.path())
        .args([
            "baseline",
            "update",
            "--name",
            "main",
            "--from-report",
            "report.json",
        ])
        .output()
        .unwrap();
    let (_, stderr) = super::expect(&out, 65);
    assert!(stderr.contains("is partial"), "{stderr}");
}

#[test]
fn sigint_kills_agents_and_grandchildren_and_writes_what_is_known() {
    interrupted_run("INT", 130);
}

#[test]
fn sigterm_does_the_same_with_143() {
    interrupted_run("TERM", 143);
}

/// `compare` and `baseline update` reach no verdict and write nothing.
#[test]
fn an_interrupted_baseline_update_writes_no_baseline() {
    let s = AgentSuite::new("", &[("stuck", "hang")]);
    let pids = s.path("pids");
    std::fs::create_dir_all(&pids).unwrap();
    let child = spawn(
        s.dir.path(),
        &["baseline", "update", "--name", "main", "--deterministic"],
        &[("AGENT_PIDS", &pids)],
    );
    wait_for("the agent", || pids.join("stuck.pid").exists());
    signal(&child, "TERM");
    let (status, _, stderr) = finish(child);
    assert_eq!(status, Some(143), "{stderr}");
    assert!(!s.path("baselines/main/agents.json").exists());
    let p = pid(&pids.join("stuck.pid"));
    wait_for("the grandchild to die", || process_gone(p));
}
