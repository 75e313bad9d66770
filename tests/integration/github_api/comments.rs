//! The sticky comment against the fake GitHub: create, update in place,
//! pagination, ownership, truncation, 404s and GHES path prefixes.

use agenteval_gate::github::{
    CommentAction, GitHubError, MAX_COMMENT_CHARS, TRUNCATION_NOTICE, marker, upsert_sticky_comment,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::fake::{Fake, PR, TOKEN, recording_policy};

fn body(text: &str) -> String {
    format!("{}\n## agenteval-gate\n{text}\n", marker("main"))
}

#[tokio::test]
async fn first_run_creates_one_comment() {
    let fake = Fake::start().await;
    let (policy, waits) = recording_policy();
    let client = fake.client(policy);

    let outcome = upsert_sticky_comment(&client, PR, &marker("main"), &body("pass"))
        .await
        .unwrap();

    assert_eq!(outcome.action, CommentAction::Created);
    assert_eq!(outcome.comment_id, 1);
    assert_eq!(outcome.login, "agenteval-bot");
    assert_eq!(
        outcome.html_url.as_deref(),
        Some("https://github.com/acme/widgets/pull/7#issuecomment-1")
    );
    assert!(!outcome.truncated);
    assert_eq!(
        fake.log().await,
        [
            "GET /user",
            "GET /repos/acme/widgets/issues/7/comments?per_page=100",
            "POST /repos/acme/widgets/issues/7/comments",
        ]
    );
    let requests = fake.requests().await;
    let posted: Value = requests[2].body_json().unwrap();
    assert_eq!(posted, json!({"body": body("pass")}));
    for r in &requests {
        assert_eq!(
            r.headers.get("authorization").unwrap(),
            &format!("Bearer {TOKEN}")
        );
        assert_eq!(r.headers.get("x-github-api-version").unwrap(), "2022-11-28");
    }
    assert_eq!(fake.comments().len(), 1);
    assert!(waits.lock().unwrap().is_empty());
}

#[tokio::test]
async fn second_run_updates_in_place_without_a_duplicate() {
    let fake = Fake::start().await;
    let other = fake.seed("LGTM", "octocat");
    let client = fake.client(recording_policy().0);

    let first = upsert_sticky_comment(&client, PR, &marker("main"), &body("run 1"))
        .await
        .unwrap();
    let second = upsert_sticky_comment(&client, PR, &marker("main"), &body("run 2"))
        .await
        .unwrap();

    assert_eq!(first.action, CommentAction::Created);
    assert_eq!(second.action, CommentAction::Updated);
    assert_eq!(second.comment_id, first.comment_id);
    let comments = fake.comments();
    assert_eq!(comments.len(), 2);
    assert_eq!(comments[0].id, other);
    assert_eq!(comments[0].body, "LGTM");
    assert_eq!(comments[1].body, body("run 2"));

    let log = fake.log().await;
    assert_eq!(
        log[3..],
        [
            "GET /user".to_owned(),
            "GET /repos/acme/widgets/issues/7/comments?per_page=100".to_owned(),
            format!(
                "PATCH /repos/acme/widgets/issues/comments/{}",
                first.comment_id
            ),
        ]
    );
    let patched: Value = fake.requests().await[5].body_json().unwrap();
    assert_eq!(patched, json!({"body": body("run 2")}));
}

#[tokio::test]
async fn pagination_follows_link_headers_past_100_comments() {
    let fake = Fake::start().await;
    for i in 0..230 {
        fake.seed(&format!("comment {i}"), "someone");
    }
    let ours = fake.seed(&body("old"), "agenteval-bot");
    for i in 231..250 {
        fake.seed(&format!("comment {i}"), "someone");
    }
    let client = fake.client(recording_policy().0);

    let all = client.list_issue_comments(PR).await.unwrap();
    assert_eq!(all.len(), 250);
    assert!(all.iter().map(|c| c.id).eq(1..=250), "all pages, in order");
    assert_eq!(all[249].body, "comment 249");

    let outcome = upsert_sticky_comment(&client, PR, &marker("main"), &body("new"))
        .await
        .unwrap();
    assert_eq!(
        (outcome.action, outcome.comment_id),
        (CommentAction::Updated, ours)
    );
    assert_eq!(fake.comments().len(), 250);
    let log = fake.log().await;
    assert_eq!(
        log[..3],
        [
            "GET /repos/acme/widgets/issues/7/comments?per_page=100",
            "GET /repositories/1/issues/7/comments?per_page=100&page=2",
            "GET /repositories/1/issues/7/comments?per_page=100&page=3",
        ]
    );
    assert_eq!(
        log.last().unwrap(),
        &format!("PATCH /repos/acme/widgets/issues/comments/{ours}")
    );
}

#[tokio::test]
async fn another_users_comment_with_the_marker_is_never_edited() {
    let fake = Fake::start().await;
    let spoof = body("fake pass from mallory");
    let mallory = fake.seed(&spoof, "mallory");
    let client = fake.client(recording_policy().0);

    let outcome = upsert_sticky_comment(&client, PR, &marker("main"), &body("real"))
        .await
        .unwrap();

    assert_eq!(outcome.action, CommentAction::Created);
    assert_ne!(outcome.comment_id, mallory);
    let comments = fake.comments();
    assert_eq!(comments[0].body, spoof, "mallory's comment is untouched");
    assert_eq!(comments[1].login, "agenteval-bot");
    assert!(fake.log().await.iter().all(|l| !l.starts_with("PATCH")));
}

#[tokio::test]
async fn installation_tokens_fall_back_to_the_bot_login() {
    let fake = Fake::start().await;
    {
        let mut s = fake.state.lock().unwrap();
        s.user_login = None; // GET /user → 403, like the Actions GITHUB_TOKEN
        s.author = "github-actions[bot]".to_owned();
    }
    let ours = fake.seed(&body("old"), "github-actions[bot]");
    let client = fake.client(recording_policy().0);
    let outcome = upsert_sticky_comment(&client, PR, &marker("main"), &body("new"))
        .await
        .unwrap();
    assert_eq!(
        (outcome.action, outcome.comment_id),
        (CommentAction::Updated, ours)
    );
    assert_eq!(outcome.login, "github-actions[bot]");

    // A GitHub App token: the configured login (AGENTEVAL_BOT_LOGIN) decides.
    let app = fake.seed(&body("app"), "my-app[bot]");
    let mut config = fake.config(recording_policy().0);
    config.bot_login = Some("my-app[bot]".to_owned());
    let client = agenteval_gate::github::GitHubClient::new(&config).unwrap();
    let outcome = upsert_sticky_comment(&client, PR, &marker("main"), &body("app 2"))
        .await
        .unwrap();
    assert_eq!(
        (outcome.action, outcome.comment_id),
        (CommentAction::Updated, app)
    );
    assert_eq!(
        fake.comments().iter().find(|c| c.id == ours).unwrap().body,
        body("new")
    );
}

#[tokio::test]
async fn overlong_body_is_truncated_with_notice_and_marker() {
    let fake = Fake::start().await;
    let client = fake.client(recording_policy().0);
    let long = body(&"| case | 95% → 91% | régression ❌ |\n".repeat(3_000));
    assert!(long.chars().count() > MAX_COMMENT_CHARS);

    let outcome = upsert_sticky_comment(&client, PR, &marker("main"), &long)
        .await
        .unwrap();

    assert!(outcome.truncated);
    let requests = fake.requests().await;
    let posted: Value = requests.last().unwrap().body_json().unwrap();
    let sent = posted["body"].as_str().unwrap();
    assert!(
        sent.chars().count() <= MAX_COMMENT_CHARS,
        "{} chars",
        sent.chars().count()
    );
    assert!(
        sent.chars().count() > MAX_COMMENT_CHARS - 200,
        "most of the budget is used"
    );
    assert!(sent.starts_with(&marker("main")));
    assert!(sent.ends_with(TRUNCATION_NOTICE));
    assert!(
        long.starts_with(sent.strip_suffix(TRUNCATION_NOTICE).unwrap()),
        "a prefix of the original"
    );

    // The next run finds the truncated comment by its marker and updates it.
    let again = upsert_sticky_comment(&client, PR, &marker("main"), &body("short"))
        .await
        .unwrap();
    assert_eq!(
        (again.action, again.comment_id),
        (CommentAction::Updated, outcome.comment_id)
    );
}

#[tokio::test]
async fn missing_pull_request_is_a_clear_not_found() {
    let fake = Fake::start().await;
    let client = fake.client(recording_policy().0);
    let err = upsert_sticky_comment(&client, 999, &marker("main"), &body("x"))
        .await
        .unwrap_err();
    let GitHubError::NotFound { .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(
        err.to_string(),
        "not found while trying to list the comments of pull request #999 in `acme/widgets`: Not Found"
    );
    assert!(
        err.help_text()
            .unwrap()
            .contains("check that pull request #999 exists in `acme/widgets`")
    );
    assert_eq!(fake.log().await.len(), 2, "no retries on 404");
}

#[tokio::test]
async fn enterprise_server_path_prefix_is_kept_across_pages() {
    let fake = Fake::start_with_prefix("/api/v3").await;
    for i in 0..150 {
        fake.seed(&format!("c{i}"), "someone");
    }
    let client = fake.client(recording_policy().0);
    let outcome = upsert_sticky_comment(&client, PR, &marker("main"), &body("x"))
        .await
        .unwrap();
    assert_eq!(outcome.action, CommentAction::Created);
    assert_eq!(
        fake.log().await,
        [
            "GET /api/v3/user",
            "GET /api/v3/repos/acme/widgets/issues/7/comments?per_page=100",
            "GET /api/v3/repositories/1/issues/7/comments?per_page=100&page=2",
            "POST /api/v3/repos/acme/widgets/issues/7/comments",
        ]
    );
}
