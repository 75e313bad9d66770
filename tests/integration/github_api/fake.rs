//! A fake GitHub REST API on 127.0.0.1 (wiremock) with real state: issue
//! comments per pull request, paginated with `Link` headers the way
//! api.github.com does (`/repositories/<id>/…?page=N` targets), plus
//! scripted failures mounted in front of it.

#![expect(
    clippy::unwrap_used,
    reason = "test fixtures panic when their setup fails"
)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agenteval_gate::github::{
    ClientConfig, GitHubClient, GitHubToken, RepoName, RetryPolicy, Sleeper,
};
use serde_json::{Value, json};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

pub(crate) const TOKEN: &str = "ghs_test_token";
pub(crate) const PR: u64 = 7;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stored {
    pub(crate) id: u64,
    pub(crate) pr: u64,
    pub(crate) body: String,
    pub(crate) login: String,
}

#[derive(Debug)]
pub(crate) struct State {
    pub(crate) comments: Vec<Stored>,
    next_id: u64,
    /// `GET /user` answers this login, or 403 like an installation token when `None`.
    pub(crate) user_login: Option<String>,
    /// The login new comments are written under.
    pub(crate) author: String,
    /// Pull requests that exist.
    pub(crate) prs: Vec<u64>,
    /// The next N creates store the comment but answer 502.
    pub(crate) create_then_fail: usize,
}

pub(crate) struct Fake {
    pub(crate) server: MockServer,
    pub(crate) state: Arc<Mutex<State>>,
    /// Path prefix of the API (`/api/v3` for GHES), empty for github.com.
    pub(crate) prefix: &'static str,
}

struct Api {
    state: Arc<Mutex<State>>,
    base: String,
    prefix: &'static str,
}

impl Fake {
    pub(crate) async fn start() -> Self {
        Self::start_with_prefix("").await
    }

    pub(crate) async fn start_with_prefix(prefix: &'static str) -> Self {
        let server = MockServer::start().await;
        let state = Arc::new(Mutex::new(State {
            comments: Vec::new(),
            next_id: 1,
            user_login: Some("agenteval-bot".to_owned()),
            author: "agenteval-bot".to_owned(),
            prs: vec![PR],
            create_then_fail: 0,
        }));
        let api = Api {
            state: Arc::clone(&state),
            base: server.uri(),
            prefix,
        };
        Mock::given(any())
            .respond_with(api)
            .with_priority(200)
            .mount(&server)
            .await;
        Self {
            server,
            state,
            prefix,
        }
    }

    pub(crate) fn api_url(&self) -> String {
        format!("{}{}", self.server.uri(), self.prefix)
    }

    /// Add a comment written by `login`.
    pub(crate) fn seed(&self, body: &str, login: &str) -> u64 {
        let mut s = self.state.lock().unwrap();
        let id = s.next_id;
        s.next_id += 1;
        s.comments.push(Stored {
            id,
            pr: PR,
            body: body.to_owned(),
            login: login.to_owned(),
        });
        id
    }

    pub(crate) fn comments(&self) -> Vec<Stored> {
        self.state.lock().unwrap().comments.clone()
    }

    pub(crate) fn config(&self, retry: RetryPolicy) -> ClientConfig {
        ClientConfig {
            api_url: self.api_url(),
            repository: RepoName::parse("acme/widgets").unwrap(),
            token: GitHubToken::new(TOKEN),
            bot_login: None,
            retry,
        }
    }

    pub(crate) fn client(&self, retry: RetryPolicy) -> GitHubClient {
        GitHubClient::new(&self.config(retry)).unwrap()
    }

    /// Every request received so far, as `METHOD /path?query`.
    pub(crate) async fn log(&self) -> Vec<String> {
        self.requests()
            .await
            .iter()
            .map(|r| match r.url.query() {
                Some(q) => format!("{} {}?{q}", r.method, r.url.path()),
                None => format!("{} {}", r.method, r.url.path()),
            })
            .collect()
    }

    pub(crate) async fn requests(&self) -> Vec<Request> {
        self.server.received_requests().await.unwrap()
    }

    /// Mount a scripted answer in front of the fake for the first `times`
    /// requests matching `method` and a path ending in `path_suffix`.
    pub(crate) async fn script(
        &self,
        method: &str,
        path_regex: &str,
        times: u64,
        answer: ResponseTemplate,
    ) {
        Mock::given(wiremock::matchers::method(method))
            .and(wiremock::matchers::path_regex(path_regex))
            .respond_with(answer)
            .up_to_n_times(times)
            .with_priority(1)
            .mount(&self.server)
            .await;
    }
}

/// A retry policy whose sleeps are recorded instead of slept.
pub(crate) fn recording_policy() -> (RetryPolicy, Arc<Mutex<Vec<Duration>>>) {
    let waits = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&waits);
    let policy = RetryPolicy {
        max_attempts: 4,
        base_delay: Duration::from_millis(100),
        rate_limit_delay: Duration::from_secs(60),
        max_delay: Duration::from_secs(120),
        sleeper: Sleeper::new(move |d| {
            record.lock().unwrap().push(d);
            Box::pin(async {})
        }),
    };
    (policy, waits)
}

/// The JSON body GitHub sends with an error status.
pub(crate) fn github_error(message: &str) -> Value {
    json!({"message": message, "documentation_url": "https://docs.github.com/rest"})
}

impl Api {
    fn comment_json(&self, c: &Stored) -> Value {
        json!({
            "id": c.id,
            "node_id": format!("IC_kwDO{}", c.id),
            "url": format!("{}/repos/acme/widgets/issues/comments/{}", self.base, c.id),
            "html_url": format!("https://github.com/acme/widgets/pull/{}#issuecomment-{}", c.pr, c.id),
            "issue_url": format!("{}/repos/acme/widgets/issues/{}", self.base, c.pr),
            "body": c.body,
            "user": {"login": c.login, "id": 41_898_282, "type": "Bot"},
            "created_at": "2025-01-01T00:00:00Z",
            "updated_at": "2025-01-01T00:00:00Z",
            "author_association": "NONE"
        })
    }

    fn list(&self, pr: u64, request: &Request) -> ResponseTemplate {
        let query = |key: &str| {
            request
                .url
                .query_pairs()
                .find(|(k, _)| k == key)
                .and_then(|(_, v)| v.parse::<usize>().ok())
        };
        let per_page = query("per_page").unwrap_or(30).min(100);
        let page = query("page").unwrap_or(1).max(1);
        let state = self.state.lock().unwrap();
        let all: Vec<&Stored> = state.comments.iter().filter(|c| c.pr == pr).collect();
        let last = all.len().div_ceil(per_page).max(1);
        let items: Vec<Value> = all
            .iter()
            .skip((page - 1) * per_page)
            .take(per_page)
            .map(|c| self.comment_json(c))
            .collect();
        let link_to = |p: usize, rel: &str| {
            format!(
                "<{}{}/repositories/1/issues/{pr}/comments?per_page={per_page}&page={p}>; rel=\"{rel}\"",
                self.base, self.prefix
            )
        };
        let mut links = Vec::new();
        if page > 1 {
            links.push(link_to(page - 1, "prev"));
        }
        if page < last {
            links.push(link_to(page + 1, "next"));
            links.push(link_to(last, "last"));
        }
        if page > 1 {
            links.push(link_to(1, "first"));
        }
        let mut answer = ResponseTemplate::new(200).set_body_json(items);
        if !links.is_empty() {
            answer = answer.insert_header("link", links.join(", "));
        }
        answer
    }
}

impl Respond for Api {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let auth = request
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok());
        if auth != Some(&format!("Bearer {TOKEN}")) {
            return ResponseTemplate::new(401).set_body_json(github_error("Bad credentials"));
        }
        let Some(path) = request.url.path().strip_prefix(self.prefix) else {
            return ResponseTemplate::new(404).set_body_json(github_error("Not Found"));
        };
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        let method = request.method.as_str();
        let not_found = || ResponseTemplate::new(404).set_body_json(github_error("Not Found"));
        match (method, parts.as_slice()) {
            ("GET", ["user"]) => match self.state.lock().unwrap().user_login.clone() {
                Some(login) => {
                    ResponseTemplate::new(200).set_body_json(json!({"login": login, "id": 1}))
                }
                None => ResponseTemplate::new(403)
                    .set_body_json(github_error("Resource not accessible by integration")),
            },
            (
                "GET",
                ["repos", "acme", "widgets", "issues", n, "comments"]
                | ["repositories", "1", "issues", n, "comments"],
            ) => match n.parse::<u64>() {
                Ok(pr) if self.state.lock().unwrap().prs.contains(&pr) => self.list(pr, request),
                _ => not_found(),
            },
            ("POST", ["repos", "acme", "widgets", "issues", n, "comments"]) => {
                let Ok(pr) = n.parse::<u64>() else {
                    return not_found();
                };
                let body: Value = serde_json::from_slice(&request.body).unwrap();
                let mut state = self.state.lock().unwrap();
                if !state.prs.contains(&pr) {
                    return not_found();
                }
                let id = state.next_id;
                state.next_id += 1;
                let stored = Stored {
                    id,
                    pr,
                    body: body["body"].as_str().unwrap().to_owned(),
                    login: state.author.clone(),
                };
                state.comments.push(stored.clone());
                if state.create_then_fail > 0 {
                    state.create_then_fail -= 1;
                    return ResponseTemplate::new(502)
                        .set_body_string("<html>502 Bad Gateway</html>");
                }
                ResponseTemplate::new(201).set_body_json(self.comment_json(&stored))
            }
            ("PATCH", ["repos", "acme", "widgets", "issues", "comments", id]) => {
                let body: Value = serde_json::from_slice(&request.body).unwrap();
                let mut state = self.state.lock().unwrap();
                let Some(c) = state.comments.iter_mut().find(|c| id.parse() == Ok(c.id)) else {
                    return not_found();
                };
                body["body"].as_str().unwrap().clone_into(&mut c.body);
                let updated = c.clone();
                ResponseTemplate::new(200).set_body_json(self.comment_json(&updated))
            }
            _ => not_found(),
        }
    }
}
