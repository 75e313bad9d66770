//! Item 9: size caps and non-regular files, `--out` into FIFOs and
//! devices, deterministic run-mode reports without scratch paths, case ids in
//! `lint`, and baseline names everywhere.

use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::time::{Duration, Instant};

use super::expect;
use crate::common::{bin, fixture, repo};
use crate::runner::AgentSuite;

fn mkfifo(path: &std::path::Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success());
}

/// A FIFO with no writer used to hang the gate forever.
#[test]
fn a_fifo_or_a_directory_as_input_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("trace.json");
    mkfifo(&fifo);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("agenteval-gate"))
        .args(["--isolated", "trace"])
        .arg(&fifo)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the gate blocked on a FIFO");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(65), "{stderr}");
    assert!(stderr.contains("not a regular file (a FIFO)"), "{stderr}");

    let out = bin().arg("report").arg(dir.path()).output().unwrap();
    let (_, stderr) = expect(&out, 65);
    assert!(
        stderr.contains("not a regular file (a directory)"),
        "{stderr}"
    );
}

#[test]
fn files_over_the_size_cap_are_refused_with_the_flag_to_raise_it() {
    let trace = fixture("traces/openinference/openinference_client_span_tool_calls.json");
    let size = std::fs::metadata(&trace).unwrap().len();
    assert!(size > 1024);
    let out = bin()
        .args(["--max-file-size", "1KiB", "trace"])
        .arg(&trace)
        .output()
        .unwrap();
    let (_, stderr) = expect(&out, 65);
    assert!(stderr.contains("larger than the 1 KiB limit"), "{stderr}");
    assert!(stderr.contains("--max-file-size"), "{stderr}");
    // The same cap from the environment; a larger one lets the file through.
    let out = bin()
        .env("AGENTEVAL_MAX_FILE_SIZE", "1KiB")
        .arg("trace")
        .arg(&trace)
        .output()
        .unwrap();
    expect(&out, 65);
    let out = bin()
        .args(["--max-file-size", "64MiB", "trace"])
        .arg(&trace)
        .output()
        .unwrap();
    expect(&out, 0);
    let out = bin()
        .args(["--max-file-size", "lots", "trace"])
        .arg(&trace)
        .output()
        .unwrap();
    expect(&out, 64);
}

/// `--out` used to replace a FIFO with a regular file (a link to a file is
/// refused: `trust::out_links`).
#[test]
fn out_writes_into_fifos_and_devices() {
    let dir = tempfile::tempdir().unwrap();
    let run = |out: &std::path::Path| {
        bin()
            .current_dir(repo())
            .args([
                "run",
                "--suite",
                "support-bot",
                "--deterministic",
                "--format",
                "json",
                "--out",
            ])
            .arg(out)
            .output()
            .unwrap()
    };
    let real = dir.path().join("real.json");
    expect(&run(&real), 0);
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&real).unwrap()).unwrap();
    assert_eq!(written["suite"], "support-bot");

    let fifo = dir.path().join("fifo.json");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    expect(&run(&fifo), 0);
    let through: serde_json::Value = serde_json::from_str(&reader.join().unwrap()).unwrap();
    assert_eq!(through, written, "the FIFO received the report");
    assert!(
        std::fs::metadata(&fifo).unwrap().file_type().is_fifo(),
        "still a FIFO"
    );
    // `/dev/stdout` is a link (to `/proc/self/fd/1`, a pipe here): it used
    // to fail, the temp file landing in `/proc/self/fd/`.
    let (stdout, _) = expect(&run(std::path::Path::new("/dev/stdout")), 0);
    assert!(stdout.contains("\"suite\": \"support-bot\""), "{stdout}");

    let (_, stderr) = expect(&run(dir.path()), 74);
    assert!(stderr.contains("is a directory"), "{stderr}");
}

/// A run-mode parse error used to embed the random scratch path, so two
/// identical `--deterministic` runs differed.
#[test]
fn deterministic_run_mode_reports_hold_no_scratch_path() {
    let s = AgentSuite::new("", &[("broken", "garbage"), ("fine", "ok")]);
    let first = s.run(&[]).1.unwrap();
    let second = s.run(&[]).1.unwrap();
    assert_eq!(first, second);
    let text = first.to_string();
    assert!(!text.contains("agenteval-run-"), "{text}");
    let broken = crate::common::case(&first, "broken");
    let message = broken["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("traces/broken.json:1:"), "{message}");
}

/// `lint` accepted ids that later aborted `run` with 74.
#[test]
fn lint_rejects_case_ids_that_cannot_be_file_names() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suites/ids");
    std::fs::create_dir_all(&suite).unwrap();
    let long = "x".repeat(300);
    std::fs::write(
        suite.join("suite.yaml"),
        format!(
            "suite: ids\nspec_version: \"1\"\ncheckpoints:\n  - {{id: P1, tier: 2, instruction: i, severity: low, evidence_sources: [trace], sequence: {{never: {{kind: agent}}}}}}\ncases:\n  - {{id: \"nul\\0id\", input: q}}\n  - {{id: {long}, input: q}}\n  - {{id: \"esc\\e[31m\", input: q}}\n  - {{id: ok-1, input: q}}\n  - include: more.jsonl\n"
        ),
    )
    .unwrap();
    std::fs::write(
        suite.join("more.jsonl"),
        "{\"id\": \"a/../b\", \"input\": \"q\"}\n",
    )
    .unwrap();
    let out = bin().current_dir(dir.path()).arg("lint").output().unwrap();
    let (stdout, stderr) = expect(&out, 78);
    assert!(stdout.contains("4 errors"), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("case id `nul\\x00id` cannot name a trace file"),
        "{stderr}"
    );
    assert!(
        stderr.contains("is 300 bytes long (at most 250)"),
        "{stderr}"
    );
    assert!(stderr.contains("case id `esc\\x1b[31m`"), "{stderr}");
    assert!(!stderr.contains('\u{1b}'), "no raw ESC on the terminal");
    assert!(stderr.contains("more.jsonl:1:1"), "{stderr}");
}

#[test]
fn baseline_names_are_checked_everywhere() {
    for args in [
        &["compare", "--baseline", "../../x"][..],
        &["compare", "--baseline", "main/../../x"],
        &["baseline", "show", "--name", ".."],
        &["baseline", "update", "--name", "a/b"],
    ] {
        let out = bin().current_dir(repo()).args(args).output().unwrap();
        let (_, stderr) = expect(&out, 64);
        assert!(
            stderr.contains("invalid baseline name"),
            "{args:?}: {stderr}"
        );
    }
    let out = bin()
        .current_dir(repo())
        .arg("compare")
        .env("AGENTEVAL_BASELINE", "../x")
        .output()
        .unwrap();
    expect(&out, 64);
}
