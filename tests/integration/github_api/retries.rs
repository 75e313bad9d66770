//! Failures against the fake GitHub: permission errors, 5xx retries, rate
//! limits, and a create that failed after GitHub stored it.

use std::time::Duration;

use agenteval_gate::github::{CommentAction, GitHubError, marker, upsert_sticky_comment};
use pretty_assertions::assert_eq;
use wiremock::ResponseTemplate;

use super::fake::{Fake, PR, github_error, recording_policy};

const LIST: &str = r"^/repos/acme/widgets/issues/\d+/comments$";

fn body() -> String {
    format!("{}\nreport", marker("main"))
}

#[tokio::test]
async fn resource_not_accessible_gives_the_permissions_hint() {
    let fake = Fake::start().await;
    let answer = ResponseTemplate::new(403)
        .set_body_json(github_error("Resource not accessible by integration"));
    fake.script("POST", LIST, 10, answer).await;
    let (policy, waits) = recording_policy();
    let client = fake.client(policy);

    let err = upsert_sticky_comment(&client, PR, &marker("main"), &body())
        .await
        .unwrap_err();

    let GitHubError::PermissionDenied { message, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(message, "Resource not accessible by integration");
    assert_eq!(
        err.to_string(),
        "the token may not comment on pull request #7 in `acme/widgets`: Resource not accessible by integration"
    );
    let help = err.help_text().unwrap();
    assert!(
        help.contains("permissions:\n      pull-requests: write"),
        "{help}"
    );
    assert!(
        help.contains("workflow_run") && help.contains("comment --report"),
        "{help}"
    );
    let posts = fake
        .log()
        .await
        .iter()
        .filter(|l| l.starts_with("POST"))
        .count();
    assert_eq!(posts, 1, "a permission error is not retried");
    assert!(waits.lock().unwrap().is_empty());
    assert!(fake.comments().is_empty());
}

#[tokio::test]
async fn server_errors_are_retried_with_backoff_then_succeed() {
    let fake = Fake::start().await;
    fake.script(
        "GET",
        LIST,
        2,
        ResponseTemplate::new(502).set_body_string("<html>Bad Gateway</html>"),
    )
    .await;
    let (policy, waits) = recording_policy();
    let client = fake.client(policy);

    let outcome = upsert_sticky_comment(&client, PR, &marker("main"), &body())
        .await
        .unwrap();

    assert_eq!(outcome.action, CommentAction::Created);
    let lists = fake
        .log()
        .await
        .iter()
        .filter(|l| l.starts_with("GET /repos"))
        .count();
    assert_eq!(lists, 3);
    let waits = waits.lock().unwrap().clone();
    assert_eq!(waits.len(), 2);
    assert!(
        waits[0] >= Duration::from_millis(50) && waits[0] <= Duration::from_millis(100),
        "{waits:?}"
    );
    assert!(
        waits[1] >= Duration::from_millis(100) && waits[1] <= Duration::from_millis(200),
        "{waits:?}"
    );
}

#[tokio::test]
async fn persistent_server_errors_give_up_after_max_attempts() {
    let fake = Fake::start().await;
    let answer = ResponseTemplate::new(503).set_body_json(github_error("Service Unavailable"));
    fake.script("GET", LIST, 100, answer).await;
    let (policy, waits) = recording_policy();
    let client = fake.client(policy);

    let err = client.list_issue_comments(PR).await.unwrap_err();

    let GitHubError::Unavailable {
        status, attempts, ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!((*status, *attempts), (503, 4));
    assert!(err.is_transient());
    assert_eq!(fake.log().await.len(), 4);
    assert_eq!(waits.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn secondary_rate_limit_waits_for_retry_after() {
    let fake = Fake::start().await;
    let limited = ResponseTemplate::new(403)
        .insert_header("retry-after", "7")
        .set_body_json(github_error("You have exceeded a secondary rate limit. Please wait a few minutes before you try again."));
    fake.script("POST", LIST, 1, limited).await;
    let (policy, waits) = recording_policy();
    let client = fake.client(policy);

    let outcome = upsert_sticky_comment(&client, PR, &marker("main"), &body())
        .await
        .unwrap();

    assert_eq!(outcome.action, CommentAction::Created);
    assert_eq!(*waits.lock().unwrap(), [Duration::from_secs(7)]);
    let posts = fake
        .log()
        .await
        .iter()
        .filter(|l| l.starts_with("POST"))
        .count();
    assert_eq!(posts, 2);
    assert_eq!(fake.comments().len(), 1);
}

#[tokio::test]
async fn rate_limits_without_retry_after_back_off_from_a_minute() {
    let fake = Fake::start().await;
    fake.script(
        "GET",
        LIST,
        2,
        ResponseTemplate::new(429).set_body_json(github_error("secondary rate limit")),
    )
    .await;
    let (policy, waits) = recording_policy();
    let client = fake.client(policy);
    let comments = client.list_issue_comments(PR).await.unwrap();
    assert!(comments.is_empty());
    assert_eq!(
        *waits.lock().unwrap(),
        [Duration::from_secs(60), Duration::from_secs(120)]
    );
}

#[tokio::test]
async fn retry_after_beyond_the_limit_gives_up_at_once() {
    let fake = Fake::start().await;
    let limited = ResponseTemplate::new(429)
        .insert_header("retry-after", "3600")
        .set_body_json(github_error("slow down"));
    fake.script("GET", LIST, 10, limited).await;
    let (policy, waits) = recording_policy();
    let client = fake.client(policy);
    let err = client.list_issue_comments(PR).await.unwrap_err();
    let GitHubError::RateLimited {
        attempts,
        retry_after,
        ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(
        (*attempts, *retry_after),
        (1, Some(Duration::from_secs(3600)))
    );
    assert!(waits.lock().unwrap().is_empty());
    assert_eq!(fake.log().await.len(), 1);
}

#[tokio::test]
async fn a_create_that_failed_after_storing_is_updated_not_duplicated() {
    let fake = Fake::start().await;
    fake.state.lock().unwrap().create_then_fail = 1;
    let (policy, waits) = recording_policy();
    let client = fake.client(policy);

    let outcome = upsert_sticky_comment(&client, PR, &marker("main"), &body())
        .await
        .unwrap();

    assert_eq!(outcome.action, CommentAction::Updated);
    assert_eq!(fake.comments().len(), 1, "no duplicate comment");
    assert_eq!(
        fake.log().await,
        [
            "GET /user",
            "GET /repos/acme/widgets/issues/7/comments?per_page=100",
            "POST /repos/acme/widgets/issues/7/comments",
            "GET /repos/acme/widgets/issues/7/comments?per_page=100",
            "PATCH /repos/acme/widgets/issues/comments/1",
        ]
    );
    assert_eq!(
        waits.lock().unwrap().len(),
        1,
        "one backoff before listing again"
    );
}

#[tokio::test]
async fn bad_credentials_are_reported_as_unauthorized() {
    let fake = Fake::start().await;
    let mut config = fake.config(recording_policy().0);
    config.token = agenteval_gate::github::GitHubToken::new("wrong");
    let client = agenteval_gate::github::GitHubClient::new(&config).unwrap();
    let err = client.authenticated_login().await.unwrap_err();
    assert!(
        matches!(err, GitHubError::Unauthorized { ref message, .. } if message == "Bad credentials"),
        "{err:?}"
    );
}

#[tokio::test]
async fn unreachable_server_is_a_transport_error_after_retries() {
    // Bind a port, then free it: nothing listens there any more.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (policy, waits) = recording_policy();
    let mut config = Fake::start().await.config(policy);
    config.api_url = format!("http://127.0.0.1:{port}");
    let client = agenteval_gate::github::GitHubClient::new(&config).unwrap();

    let err = client.list_issue_comments(PR).await.unwrap_err();

    let GitHubError::Transport { attempts, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(*attempts, 4);
    assert!(err.is_transient());
    assert_eq!(waits.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn api_url_must_be_http() {
    let mut config = Fake::start().await.config(recording_policy().0);
    config.api_url = "api.github.com".into();
    let err = agenteval_gate::github::GitHubClient::new(&config).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the GitHub API URL `api.github.com` is not valid: it must start with `https://` or `http://`"
    );
}
