//! `GitHubContext::from_env` over an injected environment and real event files.

#![expect(
    clippy::unwrap_used,
    reason = "test fixtures panic when their setup fails"
)]

use std::collections::HashMap;
use std::path::Path;

use agenteval_gate::github::{GitHubContext, GitHubError, PullRequestInfo};
use pretty_assertions::assert_eq;

/// An Actions environment whose event payload is `event` (written to `dir`).
pub(super) fn actions_env(dir: &Path, event_name: &str, event: &str) -> HashMap<String, String> {
    let event_path = dir.join("event.json");
    std::fs::write(&event_path, event).unwrap();
    [
        ("GITHUB_ACTIONS", "true"),
        ("GITHUB_API_URL", "https://api.github.com/"),
        ("GITHUB_SERVER_URL", "https://github.com"),
        ("GITHUB_REPOSITORY", "acme/widgets"),
        ("GITHUB_EVENT_NAME", event_name),
        ("GITHUB_EVENT_PATH", event_path.to_str().unwrap()),
        ("GITHUB_SHA", "0123abcd"),
        ("GITHUB_REF", "refs/pull/12/merge"),
        ("GITHUB_RUN_ID", "4242"),
        ("GITHUB_TOKEN", "ghs_abc"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect()
}

pub(super) fn from_map(
    env: &HashMap<String, String>,
) -> Result<Option<GitHubContext>, GitHubError> {
    GitHubContext::from_env(|k| env.get(k).cloned())
}

pub(super) fn pr_event(head: &str, head_fork: bool) -> String {
    format!(
        r#"{{"action": "synchronize", "number": 12,
            "pull_request": {{"number": 12, "title": "Tune prompt",
              "head": {{"ref": "tune", "sha": "0123abcd", "repo": {{"full_name": "{head}", "fork": {head_fork}}}}},
              "base": {{"ref": "main", "repo": {{"full_name": "acme/widgets", "fork": false}}}}}},
            "repository": {{"full_name": "acme/widgets"}}}}"#
    )
}

#[test]
fn pull_request_event_from_the_same_repository() {
    let dir = tempfile::tempdir().unwrap();
    let env = actions_env(dir.path(), "pull_request", &pr_event("acme/widgets", false));
    let ctx = from_map(&env).unwrap().unwrap();
    assert_eq!(ctx.api_url, "https://api.github.com");
    assert_eq!(ctx.repository.as_ref().unwrap().to_string(), "acme/widgets");
    assert_eq!(ctx.event_name.as_deref(), Some("pull_request"));
    assert_eq!(
        ctx.pull_request,
        Some(PullRequestInfo {
            number: 12,
            fork: false,
            head_repository: Some("acme/widgets".into())
        })
    );
    assert!(ctx.is_pull_request_event());
    assert_eq!(ctx.token.as_ref().unwrap().expose(), "ghs_abc");
    assert_eq!(ctx.sha.as_deref(), Some("0123abcd"));
    assert_eq!(ctx.git_ref.as_deref(), Some("refs/pull/12/merge"));
    assert_eq!(
        ctx.run_url.as_deref(),
        Some("https://github.com/acme/widgets/actions/runs/4242")
    );
    assert_eq!(
        (ctx.step_summary, ctx.output, ctx.bot_login),
        (None, None, None)
    );
}

#[test]
fn fork_pull_request_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let env = actions_env(dir.path(), "pull_request", &pr_event("eve/widgets", true));
    let pr = from_map(&env).unwrap().unwrap().pull_request.unwrap();
    assert_eq!(
        pr,
        PullRequestInfo {
            number: 12,
            fork: true,
            head_repository: Some("eve/widgets".into())
        }
    );
}

#[test]
fn push_event_has_no_pull_request_and_agenteval_token_wins() {
    let dir = tempfile::tempdir().unwrap();
    let push = r#"{"ref": "refs/heads/main", "before": "00", "after": "11", "repository": {"full_name": "acme/widgets"}, "commits": []}"#;
    let mut env = actions_env(dir.path(), "push", push);
    env.insert("AGENTEVAL_GITHUB_TOKEN".into(), "ghp_override".into());
    env.insert("AGENTEVAL_BOT_LOGIN".into(), "my-app[bot]".into());
    env.insert("GITHUB_STEP_SUMMARY".into(), "/tmp/summary.md".into());
    env.insert("GITHUB_OUTPUT".into(), "  ".into()); // blank counts as unset
    let ctx = from_map(&env).unwrap().unwrap();
    assert_eq!(ctx.pull_request, None);
    assert!(!ctx.is_pull_request_event());
    assert_eq!(ctx.token.unwrap().expose(), "ghp_override");
    assert_eq!(ctx.bot_login.as_deref(), Some("my-app[bot]"));
    assert_eq!(
        ctx.step_summary.as_deref(),
        Some(Path::new("/tmp/summary.md"))
    );
    assert_eq!(ctx.output, None);
}

#[test]
fn outside_actions_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let mut env = actions_env(dir.path(), "pull_request", "not even json");
    env.remove("GITHUB_ACTIONS");
    assert!(
        from_map(&env).unwrap().is_none(),
        "the event file is not even read"
    );
    env.insert("GITHUB_ACTIONS".into(), "false".into());
    assert!(from_map(&env).unwrap().is_none());
    assert!(GitHubContext::from_env(|_| None).unwrap().is_none());
}

#[test]
fn malformed_event_file_is_a_located_error() {
    let dir = tempfile::tempdir().unwrap();
    let env = actions_env(
        dir.path(),
        "pull_request",
        "{\n  \"number\": 12,\n  \"pull_request\": {\"number\": 12,}\n}",
    );
    let err = from_map(&env).unwrap_err();
    let GitHubError::EventInvalid(d) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(d.line, 3);
    assert!(
        d.one_line()
            .starts_with(&format!("{}:3:", dir.path().join("event.json").display())),
        "{err}"
    );
    assert!(err.to_string().contains("not valid JSON"), "{err}");
}

#[test]
fn missing_event_file_and_bad_repository_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut env = actions_env(dir.path(), "pull_request", "{}");
    env.insert(
        "GITHUB_EVENT_PATH".into(),
        dir.path().join("gone.json").to_str().unwrap().into(),
    );
    let err = from_map(&env).unwrap_err();
    assert!(matches!(err, GitHubError::EventRead { .. }), "{err:?}");

    let mut env = actions_env(dir.path(), "pull_request", "{}");
    env.insert("GITHUB_REPOSITORY".into(), "acme".into());
    let err = from_map(&env).unwrap_err();
    assert_eq!(
        err.to_string(),
        "`GITHUB_REPOSITORY` is `acme`, expected `owner/name`"
    );
}
