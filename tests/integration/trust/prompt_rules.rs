//! Issue 25: a suite's `judge.prompts` overrides decide judged verdicts, so in
//! a `pull_request` event they are read from the PR's base commit like the
//! rest of the rules. A pull request that edits an override is judged with the
//! base's prompt (checked in the request bodies a loopback judge receives),
//! and the comment lists the edit as a change to the gate, effective after
//! merge. With `--rules-ref worktree` the PR's prompt is sent instead, so the
//! test would fail if the edit did not reach the judge at all.

use std::path::Path;

use wiremock::matchers::method;
use wiremock::{Mock, MockServer};

use super::expect;
use crate::common::git;
use crate::judge::support::{JudgeSuite, judge_bin, live, scripted, strs, system_of};

const TEMPLATE: &str = "judged/prompts/checkpoint.system.j2";
const BUILT_IN: &str = include_str!("../../../src/spec/templates/checkpoint.system.j2");

fn override_text(marker: &str) -> String {
    format!("{marker}: house rules for this suite.\n{BUILT_IN}")
}

/// The system prompts of the checkpoint questions `server` received.
async fn checkpoint_systems(server: &MockServer) -> Vec<String> {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(system_of)
        .filter(|s| s.contains("checkpoint"))
        .collect()
}

fn compare(
    root: &Path,
    config: &Path,
    base: &str,
    judge: &[String],
    extra: &[&str],
) -> (String, String) {
    let event = root.join("event.json");
    std::fs::write(
        &event,
        format!(r#"{{"pull_request": {{"number": 7, "base": {{"sha": "{base}"}}}}}}"#),
    )
    .unwrap();
    let out = judge_bin(config)
        .current_dir(root)
        .args([
            "compare",
            "--suites-dir",
            ".",
            "--baselines-dir",
            "baselines",
            "--tier",
            "full",
            "--deterministic",
            "--format",
            "markdown",
        ])
        .args(strs(judge))
        .args(extra)
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .output()
        .unwrap();
    expect(&out, 0)
}

#[tokio::test]
async fn a_pr_edit_of_a_prompt_override_is_not_what_judges_it() {
    let s = JudgeSuite::new("{steps: false, prompts: prompts}", &["c1", "c2"]);
    let root = s.dir.path();
    std::fs::create_dir_all(s.path("judged/prompts")).unwrap();
    std::fs::write(s.path(TEMPLATE), override_text("BASE-PROMPT-MARKER")).unwrap();
    let config = s.config("{retries: 0}");
    let caches = tempfile::tempdir().unwrap();

    // The base commit: the suite, its override and a baseline judged with it.
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(scripted("PASS"))
        .mount(&server)
        .await;
    let out = judge_bin(&config)
        .current_dir(root)
        .args([
            "baseline",
            "update",
            "--suites-dir",
            ".",
            "--baselines-dir",
            "baselines",
            "--deterministic",
        ])
        .args(strs(&live(&server, &caches.path().join("base"))))
        .output()
        .unwrap();
    expect(&out, 0);
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "base"]);
    let base = git(root, &["rev-parse", "HEAD"]);
    // The pull request rewrites the prompt.
    git(root, &["checkout", "-q", "-b", "pr"]);
    std::fs::write(s.path(TEMPLATE), override_text("PR-PROMPT-MARKER")).unwrap();
    git(root, &["commit", "-q", "-am", "the pull request"]);

    let judged = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(scripted("PASS"))
        .mount(&judged)
        .await;
    let (md, stderr) = compare(
        root,
        &config,
        &base,
        &live(&judged, &caches.path().join("head")),
        &[],
    );
    let systems = checkpoint_systems(&judged).await;
    assert_eq!(
        systems.len(),
        2,
        "one checkpoint question per case: {stderr}"
    );
    assert!(
        systems.iter().all(|s| s.starts_with("BASE-PROMPT-MARKER")),
        "the base's prompt judges the pull request: {systems:?}"
    );
    assert!(!systems.iter().any(|s| s.contains("PR-PROMPT-MARKER")));
    let first_screen: String = md.lines().take(25).collect::<Vec<_>>().join("\n");
    assert!(
        first_screen.contains("### ⚠️ Changes to the gate, effective after merge"),
        "{first_screen}"
    );
    assert!(
        first_screen.contains("- **changed** suite `judged` `judge.prompts/checkpoint.system.j2`:"),
        "{first_screen}"
    );

    // The maintainer's override reads the PR's own rules: its prompt is the one sent.
    let own = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(scripted("PASS"))
        .mount(&own)
        .await;
    let _ = compare(
        root,
        &config,
        &base,
        &live(&own, &caches.path().join("own")),
        &["--rules-ref", "worktree"],
    );
    let systems = checkpoint_systems(&own).await;
    assert_eq!(systems.len(), 2);
    assert!(
        systems.iter().all(|s| s.starts_with("PR-PROMPT-MARKER")),
        "{systems:?}"
    );
}

#[test]
fn an_override_directory_missing_at_the_base_is_an_error_with_the_revision() {
    // The base commit names a prompt directory it does not hold (the PR adds it): the
    // base's suite is invalid and the compare stops with the revision in the message,
    // instead of judging with the PR's files.
    let s = JudgeSuite::new("{steps: false, prompts: prompts}", &["c1", "c2"]);
    let root = s.dir.path();
    let config = s.config("{}");
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "base"]);
    let base = git(root, &["rev-parse", "HEAD"]);
    git(root, &["checkout", "-q", "-b", "pr"]);
    std::fs::create_dir_all(s.path("judged/prompts")).unwrap();
    std::fs::write(s.path(TEMPLATE), override_text("PR-PROMPT-MARKER")).unwrap();
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "the pull request"]);
    let event = root.join("event.json");
    std::fs::write(
        &event,
        format!(r#"{{"pull_request": {{"number": 7, "base": {{"sha": "{base}"}}}}}}"#),
    )
    .unwrap();
    let out = judge_bin(&config)
        .current_dir(root)
        .args([
            "compare",
            "--suites-dir",
            ".",
            "--baselines-dir",
            "baselines",
        ])
        .args(["--judge", "replay", "--judge-model", "m", "--deterministic"])
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .output()
        .unwrap();
    let (_, stderr) = expect(&out, 78);
    assert!(
        stderr.contains("judge.prompts") && stderr.contains(&format!("{base}:")),
        "{stderr}"
    );
}
