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
