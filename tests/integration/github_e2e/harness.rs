//! A simulated Actions job: the event payload, `GITHUB_STEP_SUMMARY` and
//! `GITHUB_OUTPUT` in a temp directory, and the real binary run from the
//! repository root with the environment of a `pull_request` run.

#![expect(
    clippy::unwrap_used,
    reason = "test fixtures panic when their setup fails"
)]

use std::path::{Path, PathBuf};
use std::process::Output;

use tempfile::TempDir;

use crate::common::{bin, repo};
use crate::github_api::fake::{Fake, PR, TOKEN};

/// The marker `compare` and `comment` put on the support-bot comment.
pub(super) const MARKER: &str = "<!-- agenteval-gate:main:support-bot -->";

/// The support-bot compare of the examples on the suite's own recordings
/// (exit 0); `common::regressed_compare_args` is the regressed one (exit 2).
pub(super) const PASSING: &[&str] = &[
    "compare",
    "--baseline",
    "main",
    "--suite",
    "support-bot",
    "--deterministic",
];

/// One job's files. `head` is the PR's head repository: `acme/widgets`
/// (the base) or a fork.
pub(super) struct Job {
    pub(super) dir: TempDir,
    pub(super) event: PathBuf,
    pub(super) summary: PathBuf,
    pub(super) output: PathBuf,
}

/// A `pull_request` payload for PR #7 of `acme/widgets` from `head`.
pub(super) fn pull_request_event(head: &str) -> String {
    let fork = head != "acme/widgets";
    format!(
        r#"{{"action": "synchronize", "number": {PR},
            "pull_request": {{"number": {PR}, "title": "Tune the refund prompt",
              "head": {{"ref": "tune", "sha": "5a1e0c0ffee", "repo": {{"full_name": "{head}", "fork": {fork}}}}},
              "base": {{"ref": "main", "sha": "ba5e", "repo": {{"full_name": "acme/widgets", "fork": false}}}}}},
            "repository": {{"full_name": "acme/widgets"}}}}"#
    )
}

impl Job {
    pub(super) fn new(head: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let event = dir.path().join("event.json");
        std::fs::write(&event, pull_request_event(head)).unwrap();
        Self {
            event,
            summary: dir.path().join("step_summary.md"),
            output: dir.path().join("github_output"),
            dir,
        }
    }

    pub(super) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The binary with `args`, in the repository root, with the
    /// environment of a `pull_request` job talking to `fake`.
    pub(super) fn run(&self, fake: &Fake, args: &[&str]) -> Output {
        let mut cmd = bin();
        cmd.current_dir(repo()).args(args);
        for (k, v) in self.env(fake) {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    pub(super) fn env(&self, fake: &Fake) -> Vec<(&'static str, String)> {
        let s = |p: &Path| p.to_str().unwrap().to_owned();
        vec![
            ("GITHUB_ACTIONS", "true".into()),
            ("GITHUB_EVENT_NAME", "pull_request".into()),
            ("GITHUB_EVENT_PATH", s(&self.event)),
            ("GITHUB_REPOSITORY", "acme/widgets".into()),
            ("GITHUB_API_URL", fake.api_url()),
            ("GITHUB_SERVER_URL", "https://github.com".into()),
            ("GITHUB_TOKEN", TOKEN.into()),
            ("GITHUB_STEP_SUMMARY", s(&self.summary)),
            ("GITHUB_OUTPUT", s(&self.output)),
            ("GITHUB_SHA", "5a1e0c0ffee".into()),
            ("GITHUB_REF", format!("refs/pull/{PR}/merge")),
            ("GITHUB_RUN_ID", "4242".into()),
            // These tests exercise GitHub; the baseline comes from the working
            // tree (the fake event's base sha is not a commit here).
            ("AGENTEVAL_BASELINE_REF", "worktree".into()),
            // … and so do the rules (issue 25; trust::rules tests the base commit's).
            ("AGENTEVAL_RULES_REF", "worktree".into()),
        ]
    }

    pub(super) fn summary(&self) -> String {
        std::fs::read_to_string(&self.summary).unwrap()
    }

    /// `GITHUB_OUTPUT` as `(name, value)` pairs (one-line values only).
    pub(super) fn outputs(&self) -> Vec<(String, String)> {
        read_outputs(&self.output)
    }
}

/// One-line `name=value` outputs; a heredoc output fails the test (no output
/// of ours spans lines).
pub(super) fn read_outputs(path: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            assert!(!l.contains("<<"), "unexpected multi-line output: {l}");
            let (k, v) = l.split_once('=').unwrap();
            (k.to_owned(), v.to_owned())
        })
        .collect()
}

/// The value of output `name` (the last one written wins, as in Actions).
pub(super) fn output<'a>(outputs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    outputs
        .iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// The saved compare report.
pub(super) fn read_report(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Requests the fake received, as `METHOD /path`, without the query.
pub(super) async fn requests(fake: &Fake) -> Vec<String> {
    fake.requests()
        .await
        .iter()
        .map(|r| format!("{} {}", r.method, r.url.path()))
        .collect()
}
