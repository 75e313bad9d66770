//! Issue 25, items 8 and 9: the memory budget (`--max-memory`) refuses a
//! trace with the size it would need; no report or baseline is written
//! that the gate could not read back (`--max-file-size`); a SIGTERM that
//! lands after the baseline commit leaves a complete update and exits 0.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::expect;
use super::signals::{signal, wait_for};
use crate::common::{bin, copy_dir, fixture, repo};

#[test]
fn a_trace_over_the_memory_budget_is_refused_with_the_size_it_needs() {
    let trace = fixture("traces/synthetic/workflow_telemetry_subagent.jsonl");
    let size = std::fs::metadata(&trace).unwrap().len();
    let out = bin()
        .args(["trace", "--max-memory", "1KiB"])
        .arg(&trace)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(65), "{stderr}");
    assert!(
        stderr.contains("telemetry_jsonl trace needs about")
            && stderr.contains("more than the --max-memory limit (1 KiB)"),
        "{stderr}"
    );
    assert!(stderr.contains("--max-memory"), "{stderr}");
    assert!(size > 1024, "the fixture is larger than the budget");
    // With room, the same trace is read.
    bin()
        .args(["trace", "--max-memory", "1GiB"])
        .arg(&trace)
        .assert()
        .code(0);
}

#[test]
fn a_report_larger_than_the_read_cap_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.json");
    // Every input of `code-review` is under 64 KiB; its run report is not.
    let out = bin()
        .current_dir(repo())
        .args([
            "run",
            "--suite",
            "code-review",
            "--deterministic",
            "--max-file-size",
            "64KiB",
            "--out",
        ])
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(74), "{stderr}");
    assert!(
        stderr.contains("larger than the 64 KiB limit the gate reads files up to"),
        "{stderr}"
    );
    assert!(stderr.contains("--max-file-size"), "{stderr}");
    assert!(
        !path.exists(),
        "nothing the gate could not read back is written"
    );
    // The default cap holds it, and reads it back.
    bin()
        .current_dir(repo())
        .args(["run", "--suite", "code-review", "--deterministic", "--out"])
        .arg(&path)
        .assert()
        .code(0);
    expect(
        &bin()
            .args(["report", "--format", "json"])
            .arg(&path)
            .output()
            .unwrap(),
        0,
    );
}

#[test]
fn a_baseline_larger_than_the_read_cap_is_not_written_and_says_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let suites = dir.path().join("suites");
    copy_dir(
        &repo().join("suites/code-review"),
        &suites.join("code-review"),
    );
    let update = |baselines: &str, cap: Option<&str>| {
        let mut cmd = bin();
        cmd.current_dir(dir.path())
            .args(["baseline", "update", "--suite", "code-review"])
            .args(["--deterministic", "--baselines-dir", baselines]);
        if let Some(cap) = cap {
            cmd.args(["--max-file-size", cap]);
        }
        cmd.output().unwrap()
    };
    expect(&update("full", None), 0);
    let full = dir.path().join("full/main");
    let size = std::fs::metadata(full.join("code-review.json"))
        .unwrap()
        .len();
    assert!(
        size > 64 * 1024,
        "the baseline is larger than the cap below"
    );

    // Refused, and the history (which the update would append to) does
    // not change; no baseline file appears.
    let capped = dir.path().join("capped/main");
    std::fs::create_dir_all(&capped).unwrap();
    let history = std::fs::read(full.join("code-review.history.jsonl")).unwrap();
    std::fs::write(capped.join("code-review.history.jsonl"), &history).unwrap();
    let out = update("capped", Some("64KiB"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(74), "{stderr}");
    // The size of the whole file, not where the writer stopped.
    let said = format!(
        "it would be {:.1} KiB, larger than the 64 KiB limit",
        size as f64 / 1024.0
    );
    assert!(stderr.contains(&said), "{said}\n{stderr}");
    assert!(stderr.contains("--max-file-size 1MiB"), "{stderr}");
    assert_eq!(
        std::fs::read(capped.join("code-review.history.jsonl")).unwrap(),
        history
    );
    let mut left: Vec<_> = std::fs::read_dir(&capped)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["code-review.history.jsonl"],
        "no baseline and no temp file"
    );
}

/// A socket whose buffer is already full, so that the gate's first write
/// to stdout (the "baseline … written" line, printed after the commit)
/// blocks until the test reads the other end.
fn full_socket() -> (UnixStream, UnixStream) {
    let (reader, mut writer) = UnixStream::pair().unwrap();
    writer.set_nonblocking(true).unwrap();
    for size in [4096, 1] {
        let chunk = vec![b'.'; size];
        loop {
            match writer.write(&chunk) {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => panic!("{e}"),
            }
        }
    }
    // The flag belongs to the socket, which the gate shares: blocking again.
    writer.set_nonblocking(false).unwrap();
    (reader, writer)
}

#[test]
fn sigterm_after_the_baseline_commit_exits_0_with_the_update_written() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("full.json");
    bin()
        .current_dir(repo())
        .args(["run", "--suite", "code-review", "--deterministic", "--out"])
        .arg(&report)
        .assert()
        .code(0);
    let (mut reader, writer) = full_socket();
    let mut child = {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("agenteval-gate"));
        for (k, _) in std::env::vars() {
            if k.starts_with("AGENTEVAL_") || k.starts_with("GITHUB_") || k == "CI" {
                cmd.env_remove(k);
            }
        }
        cmd.current_dir(dir.path())
            .env("NO_COLOR", "1")
            .args([
                "--isolated",
                "baseline",
                "update",
                "--name",
                "main",
                "--deterministic",
                "--from-report",
            ])
            .arg(&report)
            .stdout(Stdio::from(std::os::fd::OwnedFd::from(writer)))
            .stderr(Stdio::piped());
        cmd.spawn().unwrap()
    };
    let baseline = dir.path().join("baselines/main/code-review.json");
    wait_for("the baseline commit", || baseline.exists());
    // The gate is now blocked printing the line after the commit.
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, "TERM");
    std::thread::sleep(Duration::from_millis(300));
    let drain = std::thread::spawn(move || {
        let mut out = Vec::new();
        reader.read_to_end(&mut out).unwrap();
        String::from_utf8_lossy(&out).into_owned()
    });
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let stdout = drain.join().unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("baseline `main` of suite `code-review` written"),
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "SIGTERM arrived after the last baseline was written: the update is complete"
        ),
        "{stderr}"
    );
    let text = std::fs::read_to_string(&baseline).unwrap();
    assert!(text.contains("\"update\": 1"), "{text}");
}
