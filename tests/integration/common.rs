//! Helpers shared by integration tests.

#![allow(dead_code, reason = "not every test module uses every helper")]
#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::path::{Path, PathBuf};

/// `tests/fixtures/<rel>` inside the repository.
pub(crate) fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// The repository root.
pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The real binary, isolated from any `agenteval.yaml` and `AGENTEVAL_*`/`GITHUB_*` variables.
pub(crate) fn bin() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("agenteval-gate").unwrap();
    for (k, _) in std::env::vars() {
        if k.starts_with("AGENTEVAL_") || k.starts_with("GITHUB_") || k == "NO_COLOR" || k == "CI" {
            cmd.env_remove(k);
        }
    }
    cmd.env("NO_COLOR", "1").arg("--isolated");
    cmd
}

/// Copy a directory tree.
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// stdout and stderr of a finished command, as strings.
pub(crate) fn outputs(out: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `--suite support-bot` on the example's regressed traces and their
/// evidence: the inputs of [`regressed_compare_args`], for a `run`, a
/// `baseline update` or a `compare` with other flags.
pub(crate) const REGRESSED_INPUTS: [&str; 6] = [
    "--suite",
    "support-bot",
    "--traces",
    "suites/support-bot/traces-regressed",
    "--evidence",
    "suites/support-bot/evidence-regressed",
];

/// The regressed support-bot compare of the examples (exit 2 from the
/// repository root), then `extra`: `compare --baseline main --suite
/// support-bot --traces … --evidence … --deterministic <extra>`.
pub(crate) fn regressed_compare_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["compare", "--baseline", "main"];
    args.extend(REGRESSED_INPUTS);
    args.push("--deterministic");
    args.extend_from_slice(extra);
    args
}

/// `git <args>` in `dir` as a throwaway user (no commit signing, `main` the
/// default branch), ignoring any `GIT_DIR`/`GIT_WORK_TREE` of the caller.
/// Asserts that git succeeded; its stdout, trimmed.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// The case `id` of a run or compare report.
pub(crate) fn case<'a>(report: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no case {id} in {report}"))
}

/// `a` and `b` agree within 1e-9 (reports give 9 decimal places).
pub(crate) fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// `run` a suite and return its report.
pub(crate) fn run_report(suites_dir: &Path, suite: &str) -> serde_json::Value {
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("report.json");
    let output = bin()
        .args(["--quiet", "run", "--deterministic", "--suites-dir"])
        .arg(suites_dir)
        .args(["--suite", suite, "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let (_, stderr) = outputs(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}
