//! `publish` and `post_saved_comment` end to end: real temp files for the
//! summary, outputs and event payload, the fake GitHub for the comment.

#![expect(
    clippy::unwrap_used,
    reason = "test fixtures panic when their setup fails"
)]

use agenteval_gate::github::{
    AnnotationLevel, CommentAction, CommentStatus, FileStatus, GitHubContext, GitHubError,
    PublishRequest, SkipReason, annotation, marker, post_saved_comment, publish,
};
use pretty_assertions::assert_eq;
use wiremock::ResponseTemplate;

use super::env::{actions_env, from_map, pr_event};
use super::fake::{Fake, TOKEN, github_error, recording_policy};

/// A context for pull request #7 of `acme/widgets` (head `head`), talking
/// to `fake`, with summary and output files in `dir`.
fn context(fake: &Fake, dir: &std::path::Path, event: &str, head: &str) -> GitHubContext {
    let mut env = actions_env(
        dir,
        event,
        &pr_event(head, head != "acme/widgets").replace("12", "7"),
    );
    env.insert("GITHUB_API_URL".into(), fake.api_url());
    env.insert("GITHUB_TOKEN".into(), TOKEN.into());
    env.insert(
        "GITHUB_STEP_SUMMARY".into(),
        dir.join("summary.md").to_str().unwrap().into(),
    );
    env.insert(
        "GITHUB_OUTPUT".into(),
        dir.join("output").to_str().unwrap().into(),
    );
    let mut ctx = from_map(&env).unwrap().unwrap();
    ctx.retry = recording_policy().0;
    ctx
}

fn request<'a>(body: &'a str, summary: &'a str) -> PublishRequest<'a> {
    PublishRequest {
        marker_key: "main",
        markdown_body: body,
        summary_markdown: summary,
        outputs: vec![
            ("verdict".into(), "fail".into()),
            (
                "regressions".into(),
                "compliance_percent\ncheckpoint:P1-01".into(),
            ),
        ],
        annotations: vec![annotation(
            AnnotationLevel::Error,
            "Regression",
            "compliance fell 4.2 points",
            Some("suites/a/suite.yaml"),
        )],
    }
}

#[tokio::test]
async fn pull_request_gets_comment_summary_and_outputs() {
    let fake = Fake::start().await;
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(&fake, dir.path(), "pull_request", "acme/widgets");
    let body = format!("{}\n## Verdict: fail", marker("main"));

    let outcome = publish(&ctx, request(&body, "## Summary\nfail")).await;

    let CommentStatus::Posted(posted) = &outcome.comment else {
        panic!("{:?}", outcome.comment)
    };
    assert_eq!(posted.action, CommentAction::Created);
    assert_eq!(fake.comments()[0].body, body);
    assert!(matches!(outcome.summary, FileStatus::Written(_)));
    assert!(matches!(outcome.outputs, FileStatus::Written(_)));
    assert_eq!(outcome.annotations_printed, 1);
    assert!(!outcome.has_failures());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("summary.md")).unwrap(),
        "## Summary\nfail\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("output")).unwrap(),
        "verdict=fail\nregressions<<AGENTEVAL_EOF\ncompliance_percent\ncheckpoint:P1-01\nAGENTEVAL_EOF\n"
    );

    // Second run: same comment, updated.
    let outcome = publish(
        &ctx,
        request(&format!("{}\n## Verdict: pass", marker("main")), ""),
    )
    .await;
    let CommentStatus::Posted(again) = &outcome.comment else {
        panic!("{:?}", outcome.comment)
    };
    assert_eq!(
        (again.action, again.comment_id),
        (CommentAction::Updated, posted.comment_id)
    );
    assert_eq!(fake.comments().len(), 1);
}

#[tokio::test]
async fn fork_pull_request_skips_the_comment_but_writes_files() {
    let fake = Fake::start().await;
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(&fake, dir.path(), "pull_request", "eve/widgets");

    let outcome = publish(&ctx, request("body", "summary")).await;

    let CommentStatus::Skipped(reason) = &outcome.comment else {
        panic!("{:?}", outcome.comment)
    };
    assert_eq!(
        reason,
        &SkipReason::ForkPullRequest {
            head: Some("eve/widgets".into())
        }
    );
    assert!(reason.to_string().contains("workflow_run"));
    assert!(
        fake.log().await.is_empty(),
        "no request at all for a fork PR"
    );
    assert!(matches!(outcome.summary, FileStatus::Written(_)));
    assert!(!outcome.has_failures());

    // The same fork PR under `pull_request_target` has a write token.
    let ctx = context(&fake, dir.path(), "pull_request_target", "eve/widgets");
    let outcome = publish(&ctx, request("body", "summary")).await;
    assert!(
        matches!(outcome.comment, CommentStatus::Posted(_)),
        "{:?}",
        outcome.comment
    );
}

#[tokio::test]
async fn posting_failure_is_reported_not_raised() {
    let fake = Fake::start().await;
    let denied = ResponseTemplate::new(403)
        .set_body_json(github_error("Resource not accessible by integration"));
    fake.script("POST", r"/comments$", 10, denied).await;
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(&fake, dir.path(), "pull_request", "acme/widgets");

    let outcome = publish(&ctx, request("body", "summary")).await;

    let CommentStatus::Failed(err) = &outcome.comment else {
        panic!("{:?}", outcome.comment)
    };
    assert!(
        matches!(err, GitHubError::PermissionDenied { .. }),
        "{err:?}"
    );
    assert!(err.help_text().unwrap().contains("pull-requests: write"));
    assert!(outcome.has_failures());
    assert!(
        matches!(outcome.summary, FileStatus::Written(_)),
        "files are still written"
    );
}

#[tokio::test]
async fn push_and_outside_actions_skip_with_a_note() {
    let outcome = publish(None, request("body", "summary")).await;
    assert!(matches!(
        outcome.comment,
        CommentStatus::Skipped(SkipReason::NotInActions)
    ));
    assert!(matches!(outcome.summary, FileStatus::NotConfigured));
    assert_eq!(outcome.annotations_printed, 0);

    let fake = Fake::start().await;
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(&fake, dir.path(), "push", "acme/widgets");
    let outcome = publish(&ctx, request("body", "summary")).await;
    let CommentStatus::Skipped(reason) = &outcome.comment else {
        panic!("{:?}", outcome.comment)
    };
    assert_eq!(
        reason,
        &SkipReason::NotPullRequestEvent {
            event: Some("push".into())
        }
    );
    assert!(fake.log().await.is_empty());
}

#[tokio::test]
async fn saved_comment_reuses_the_marker_in_its_body() {
    let fake = Fake::start().await;
    let nightly = marker("nightly");
    let ours = fake.seed(&format!("{nightly}\nold"), "agenteval-bot");
    fake.seed(&format!("{}\nother key", marker("main")), "agenteval-bot");
    let config = fake.config(recording_policy().0);

    // The marker counts on the body's first line, where the gate writes it.
    let outcome = post_saved_comment(&config, 7, &format!("{nightly}\n# Report\nnew"))
        .await
        .unwrap();

    assert_eq!(
        (outcome.action, outcome.comment_id),
        (CommentAction::Updated, ours)
    );
    assert_eq!(fake.comments()[0].body, format!("{nightly}\n# Report\nnew"));

    // No marker in the body: the default one is prepended.
    let outcome = post_saved_comment(&config, 7, "plain").await.unwrap();
    assert_eq!(outcome.action, CommentAction::Created);
    assert_eq!(
        fake.comments()[2].body,
        format!("{}\nplain", marker("report"))
    );
}
