//! Issue 25, item 4: nothing an agent starts survives its case. The agent
//! (`tests/fixtures/agents/daemons.py`) starts a `setsid sleep` (a new
//! session, so outside its process group) and a classic daemon (fork,
//! setsid, fork: outside its group and its tree). Both die at the end of
//! the case, on its timeout and on SIGTERM/SIGINT, and a case never kills
//! another case's processes. Linux only: elsewhere the gate kills the
//! agent's process group alone (docs/trust.md).

#![cfg(target_os = "linux")]

use std::path::Path;

use super::expect;
use super::signals::{finish, signal, spawn, wait_for};
use crate::common::{case, fixture};
use crate::runner::{AgentSuite, process_gone};

fn suite(agent_extra: &str, cases: &[(&str, &str)]) -> AgentSuite {
    let command = serde_json::json!([
        "python3",
        fixture("agents/daemons.py"),
        "--input",
        "{input_file}",
        "--trace-out",
        "{trace_file}",
    ]);
    let s = AgentSuite::with_command(&command.to_string(), agent_extra, cases);
    std::fs::create_dir_all(s.path("pids")).unwrap();
    s
}

/// The pids `case` wrote: its `setsid` sleep and its daemon.
fn escapees(pids: &Path, case: &str) -> Vec<u32> {
    let text = std::fs::read_to_string(pids.join(format!("{case}.pids"))).unwrap();
    let pids: Vec<u32> = text
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2, "{text}");
    pids
}

/// Every escapee of `cases` is gone (polled: killing is not instant).
fn assert_gone(pids: &Path, cases: &[&str]) {
    for name in cases {
        for p in escapees(pids, name) {
            wait_for(&format!("{name}'s process {p} to die"), || process_gone(p));
        }
    }
}

/// `run` of the suite with `AGENT_PIDS`: its output and report.
fn run(s: &AgentSuite) -> (std::process::Output, serde_json::Value) {
    let (out, report) = s.run_with(&[], &[("AGENT_PIDS", &s.path("pids"))]);
    (out, report.expect("a report"))
}

/// Two cases at once: `a` finishes at once, `b` waits until `a`'s escapees
/// are gone from /proc (killed and reaped by the gate, their subreaper,
/// while it runs), checks its own still live, and finishes.
#[test]
fn setsid_and_double_forked_processes_die_with_their_case_and_only_theirs() {
    let s = suite(
        "  concurrency: 2\n",
        &[("a", "ok"), ("b", "watch, other: a")],
    );
    let (out, r) = run(&s);
    expect(&out, 0);
    let pids = s.path("pids");
    let seen = std::fs::read_to_string(pids.join("b.seen")).unwrap();
    assert_eq!(
        seen.trim(),
        "other:gone mine:alive reparented:yes",
        "`a`'s escapees are reaped while `b` runs, `b`'s are untouched, and orphans come to the gate"
    );
    assert_gone(&pids, &["a", "b"]);
    for name in ["a", "b"] {
        assert_eq!(case(&r, name)["status"], "ok", "{}", case(&r, name));
    }
}

#[test]
fn a_timed_out_case_takes_its_escapees_along() {
    // 10 s, not 1: on a loaded 2-core machine python3 may take seconds to
    // start its escapees and write their pids.
    let s = suite("  timeout_s: 10\n", &[("stuck", "hang")]);
    let (out, r) = run(&s);
    expect(&out, 0);
    assert_eq!(case(&r, "stuck")["status"], "timeout");
    assert_gone(&s.path("pids"), &["stuck"]);
}

fn interrupted(sig: &str, code: i32) {
    let s = suite("  concurrency: 2\n", &[("x", "hang"), ("y", "hang")]);
    let pids = s.path("pids");
    let child = spawn(
        s.dir.path(),
        &["run", "--suite", "agents", "--deterministic"],
        &[("AGENT_PIDS", &pids)],
    );
    wait_for("both agents' escapees", || {
        pids.join("x.pids").exists() && pids.join("y.pids").exists()
    });
    signal(&child, sig);
    let (status, _, stderr) = finish(child);
    assert_eq!(status, Some(code), "{stderr}");
    assert_gone(&pids, &["x", "y"]);
}

#[test]
fn sigterm_kills_every_case_s_escapees() {
    interrupted("TERM", 143);
}

#[test]
fn sigint_kills_every_case_s_escapees() {
    interrupted("INT", 130);
}
