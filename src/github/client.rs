//! A small GitHub REST client over octocrab: who am I, list a PR's comments
//! (all pages), create and update a comment.
//!
//! octocrab supplies the transport (TLS, the auth header, `GITHUB_API_URL`
//! as base URI, GHES path prefixes included). Retries and error mapping are
//! ours: they need the status, `Retry-After`, `x-ratelimit-*` and `Link`
//! headers, which octocrab's typed API drops, so requests go through its raw
//! `_get`/`_post`/`_patch` and octocrab's own retry layer is switched off.

use std::collections::HashSet;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use octocrab::Octocrab;
use octocrab::service::middleware::retry::RetryConfig;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::github::env::{DEFAULT_BOT_LOGIN, GitHubContext, GitHubToken, RepoName};
use crate::github::error::{GitHubError, PERMISSIONS_HELP};
use crate::github::link::next_link;
use crate::github::retry::{self, Answer, Decision, Failure, RetryPolicy};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const READ_TIMEOUT: Duration = Duration::from_secs(30);
/// 100 comments per page: the most GitHub allows.
const PER_PAGE: u32 = 100;
/// A PR with more than 100,000 comments is not a real PR.
const MAX_PAGES: usize = 1000;

/// Where and as whom to talk to GitHub.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// e.g. `https://api.github.com` or `https://ghe.example.com/api/v3`.
    pub api_url: String,
    pub repository: RepoName,
    pub token: GitHubToken,
    /// Our login when `GET /user` is refused; default [`DEFAULT_BOT_LOGIN`].
    pub bot_login: Option<String>,
    pub retry: RetryPolicy,
}

impl ClientConfig {
    pub fn new(api_url: impl Into<String>, repository: RepoName, token: GitHubToken) -> Self {
        Self {
            api_url: api_url.into(),
            repository,
            token,
            bot_login: None,
            retry: RetryPolicy::default(),
        }
    }

    /// The API URL, repository, token, bot login and retries of an Actions job.
    pub fn from_context(ctx: &GitHubContext) -> Result<Self, GitHubError> {
        Ok(Self {
            api_url: ctx.api_url.clone(),
            repository: ctx
                .repository
                .clone()
                .ok_or(GitHubError::MissingRepository)?,
            token: ctx.token.clone().ok_or(GitHubError::MissingToken)?,
            bot_login: ctx.bot_login.clone(),
            retry: ctx.retry.clone(),
        })
    }
}

/// An issue or PR conversation comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueComment {
    pub id: u64,
    pub body: String,
    /// `user.login`; `None` for comments of deleted accounts.
    pub author: Option<String>,
    pub html_url: Option<String>,
}

/// The client. Build it inside a tokio runtime (octocrab spawns a worker).
#[derive(Debug, Clone)]
pub struct GitHubClient {
    octo: Octocrab,
    repository: RepoName,
    bot_login: Option<String>,
    retry: RetryPolicy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Get,
    Post,
    Patch,
}

/// One logical request, possibly sent several times.
struct Call<'a> {
    operation: String,
    method: Method,
    uri: String,
    comment_body: Option<&'a str>,
    not_found_help: String,
}

/// What we keep of an HTTP answer.
struct Reply {
    status: u16,
    link: Option<String>,
    retry_after: Option<String>,
    ratelimit_remaining: Option<String>,
    ratelimit_reset: Option<String>,
    body: String,
}

#[derive(Serialize)]
struct CommentPayload<'a> {
    body: &'a str,
}

#[derive(Deserialize)]
struct RawComment {
    id: u64,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    user: Option<RawUser>,
    #[serde(default)]
    html_url: Option<String>,
}

#[derive(Deserialize)]
struct RawUser {
    login: String,
}

impl From<RawComment> for IssueComment {
    fn from(c: RawComment) -> Self {
        Self {
            id: c.id,
            body: c.body.unwrap_or_default(),
            author: c.user.map(|u| u.login),
            html_url: c.html_url,
        }
    }
}

impl GitHubClient {
    pub fn new(config: &ClientConfig) -> Result<Self, GitHubError> {
        let url = config.api_url.trim().trim_end_matches('/');
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            return Err(GitHubError::InvalidApiUrl {
                url: url.to_owned(),
                reason: "it must start with `https://` or `http://`".to_owned(),
            });
        }
        let octo = Octocrab::builder()
            .add_retry_config(RetryConfig::None)
            .set_connect_timeout(Some(CONNECT_TIMEOUT))
            .set_read_timeout(Some(READ_TIMEOUT))
            .personal_token(config.token.expose().to_owned())
            .base_uri(url)
            .map_err(|e| GitHubError::InvalidApiUrl {
                url: url.to_owned(),
                reason: e.to_string(),
            })?
            .build()
            .map_err(|source| GitHubError::ClientSetup { source })?;
        Ok(Self {
            octo,
            repository: config.repository.clone(),
            bot_login: config.bot_login.clone(),
            retry: config.retry.clone(),
        })
    }

    pub fn repository(&self) -> &RepoName {
        &self.repository
    }

    pub fn retry_policy(&self) -> &RetryPolicy {
        &self.retry
    }

    /// The login our comments are written under: `GET /user`, or, when an
    /// installation token (Actions' `GITHUB_TOKEN`, a GitHub App) is refused
    /// that endpoint with a 403, the configured bot login or `github-actions[bot]`.
    pub async fn authenticated_login(&self) -> Result<String, GitHubError> {
        let call = Call {
            operation: "read the token's login (`GET /user`)".to_owned(),
            method: Method::Get,
            uri: "/user".to_owned(),
            comment_body: None,
            not_found_help: "`GITHUB_API_URL` may be wrong".to_owned(),
        };
        match self.request(&call).await {
            Ok(reply) => Ok(parse::<RawUser>(&call.operation, &reply.body)?.login),
            Err(GitHubError::PermissionDenied { .. }) => Ok(self
                .bot_login
                .clone()
                .unwrap_or_else(|| DEFAULT_BOT_LOGIN.to_owned())),
            Err(e) => Err(e),
        }
    }

    /// Every conversation comment of pull request `pr`, oldest first,
    /// following `Link: rel="next"` until the last page.
    pub async fn list_issue_comments(&self, pr: u64) -> Result<Vec<IssueComment>, GitHubError> {
        let operation = format!(
            "list the comments of pull request #{pr} in `{}`",
            self.repository
        );
        let mut uri = format!("{}?per_page={PER_PAGE}", self.comments_path(pr));
        let mut seen = HashSet::new();
        let mut comments = Vec::new();
        for _ in 0..MAX_PAGES {
            let call = Call {
                operation: operation.clone(),
                method: Method::Get,
                uri: uri.clone(),
                comment_body: None,
                not_found_help: self.pr_not_found_help(pr),
            };
            let reply = self.request(&call).await?;
            let page: Vec<RawComment> = parse(&operation, &reply.body)?;
            comments.extend(page.into_iter().map(IssueComment::from));
            let Some(next) = reply.link.as_deref().and_then(next_link) else {
                return Ok(comments);
            };
            if !seen.insert(next.clone()) {
                return Err(GitHubError::Pagination {
                    operation,
                    reason: format!("`Link` points back to `{next}`"),
                });
            }
            uri = next;
        }
        Err(GitHubError::Pagination {
            operation,
            reason: format!("more than {MAX_PAGES} pages"),
        })
    }

    /// Post a new comment on pull request `pr`. Not retried on 5xx or lost
    /// connections (GitHub may have created it anyway): the caller re-lists
    /// and decides, see `upsert_sticky_comment`.
    pub async fn create_comment(&self, pr: u64, body: &str) -> Result<IssueComment, GitHubError> {
        let call = Call {
            operation: format!("comment on pull request #{pr} in `{}`", self.repository),
            method: Method::Post,
            uri: self.comments_path(pr),
            comment_body: Some(body),
            not_found_help: self.pr_not_found_help(pr),
        };
        let reply = self.request(&call).await?;
        Ok(parse::<RawComment>(&call.operation, &reply.body)?.into())
    }

    /// Replace the body of comment `comment_id`.
    pub async fn update_comment(
        &self,
        comment_id: u64,
        body: &str,
    ) -> Result<IssueComment, GitHubError> {
        let call = Call {
            operation: format!("update comment {comment_id} in `{}`", self.repository),
            method: Method::Patch,
            uri: format!(
                "/repos/{}/{}/issues/comments/{comment_id}",
                self.repository.owner(),
                self.repository.name()
            ),
            comment_body: Some(body),
            not_found_help: "the comment was deleted after it was listed".to_owned(),
        };
        let reply = self.request(&call).await?;
        Ok(parse::<RawComment>(&call.operation, &reply.body)?.into())
    }

    fn comments_path(&self, pr: u64) -> String {
        format!(
            "/repos/{}/{}/issues/{pr}/comments",
            self.repository.owner(),
            self.repository.name()
        )
    }

    fn pr_not_found_help(&self, pr: u64) -> String {
        format!(
            "check that pull request #{pr} exists in `{}` and that the token can read that repository \
             (`GITHUB_REPOSITORY`, `--pr`); private repositories answer 404 to tokens without access",
            self.repository
        )
    }

    /// Send `call`, retrying rate limits always and 5xx / lost connections
    /// only for idempotent methods (GET, PATCH).
    async fn request(&self, call: &Call<'_>) -> Result<Reply, GitHubError> {
        let max_attempts = self.retry.attempts();
        let idempotent = call.method != Method::Post;
        let mut attempt = 1;
        loop {
            match self.send_once(call).await {
                Ok(reply) if (200..300).contains(&reply.status) => return Ok(reply),
                Ok(reply) => {
                    let message = api_message(reply.status, &reply.body);
                    let answer = reply.answer(&message);
                    let failure = retry::classify(&answer);
                    let decision = if failure == Failure::Server && !idempotent {
                        Decision::Stop
                    } else {
                        retry::decide(&self.retry, &answer, attempt, now_epoch_secs())
                    };
                    match decision {
                        Decision::Retry(wait) if attempt < max_attempts => {
                            self.retry.sleeper.sleep(wait).await;
                        }
                        Decision::WaitTooLong(wait) => {
                            return Err(reply_error(
                                call,
                                &reply,
                                message,
                                failure,
                                attempt,
                                Some(wait),
                            ));
                        }
                        Decision::Retry(_) | Decision::Stop => {
                            return Err(reply_error(call, &reply, message, failure, attempt, None));
                        }
                    }
                }
                Err(source) => {
                    if !idempotent || attempt >= max_attempts {
                        return Err(GitHubError::Transport {
                            operation: call.operation.clone(),
                            attempts: attempt,
                            source,
                        });
                    }
                    self.retry.sleeper.sleep(self.retry.backoff(attempt)).await;
                }
            }
            attempt += 1;
        }
    }

    async fn send_once(&self, call: &Call<'_>) -> Result<Reply, octocrab::Error> {
        let payload = call.comment_body.map(|body| CommentPayload { body });
        let uri = call.uri.as_str();
        let response = match call.method {
            Method::Get => self.octo._get(uri).await?,
            Method::Post => self.octo._post(uri, payload.as_ref()).await?,
            Method::Patch => self.octo._patch(uri, payload.as_ref()).await?,
        };
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let status = response.status().as_u16();
        let link = header("link");
        let retry_after = header("retry-after");
        let ratelimit_remaining = header("x-ratelimit-remaining");
        let ratelimit_reset = header("x-ratelimit-reset");
        let body = self.octo.body_to_string(response).await?;
        Ok(Reply {
            status,
            link,
            retry_after,
            ratelimit_remaining,
            ratelimit_reset,
            body,
        })
    }
}

impl Reply {
    fn answer<'a>(&'a self, message: &'a str) -> Answer<'a> {
        Answer {
            status: self.status,
            retry_after: self.retry_after.as_deref(),
            ratelimit_remaining: self.ratelimit_remaining.as_deref(),
            ratelimit_reset: self.ratelimit_reset.as_deref(),
            message,
        }
    }
}

/// The error for a final non-success answer.
fn reply_error(
    call: &Call<'_>,
    reply: &Reply,
    message: String,
    failure: Failure,
    attempts: u32,
    too_long: Option<Duration>,
) -> GitHubError {
    let operation = call.operation.clone();
    let status = reply.status;
    match failure {
        Failure::RateLimit => GitHubError::RateLimited {
            operation,
            attempts,
            retry_after: too_long.or_else(|| retry::retry_after_secs(&reply.answer(&message))),
        },
        Failure::Server => GitHubError::Unavailable {
            operation,
            status,
            attempts,
            message,
        },
        Failure::Fatal => match status {
            401 => GitHubError::Unauthorized { operation, message },
            403 => GitHubError::PermissionDenied {
                operation,
                message,
                help: PERMISSIONS_HELP.to_owned(),
            },
            404 => GitHubError::NotFound {
                operation,
                message,
                help: call.not_found_help.clone(),
            },
            _ => GitHubError::Api {
                operation,
                status,
                message,
                help: None,
            },
        },
    }
}

#[derive(Deserialize)]
struct ApiErrorBody {
    message: Option<String>,
    #[serde(default)]
    errors: Vec<serde_json::Value>,
}

/// GitHub's `message` plus any `errors[].message`/`code` (422 answers),
/// else the start of the raw body.
fn api_message(status: u16, body: &str) -> String {
    if let Ok(ApiErrorBody {
        message: Some(message),
        errors,
    }) = serde_json::from_str(body)
    {
        let details: Vec<&str> = errors
            .iter()
            .filter_map(|e| {
                e.as_str().or_else(|| {
                    e.get("message")
                        .or_else(|| e.get("code"))
                        .and_then(|v| v.as_str())
                })
            })
            .collect();
        return if details.is_empty() {
            message
        } else {
            format!("{message} ({})", details.join("; "))
        };
    }
    match body.trim() {
        "" => format!("HTTP {status} with an empty body"),
        text => crate::output::truncate_chars(text, 200),
    }
}

fn parse<T: DeserializeOwned>(operation: &str, body: &str) -> Result<T, GitHubError> {
    serde_json::from_str(body).map_err(|source| GitHubError::InvalidResponse {
        operation: operation.to_owned(),
        source,
    })
}

fn now_epoch_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_messages_keep_github_details() {
        assert_eq!(
            api_message(
                403,
                r#"{"message":"Resource not accessible by integration","documentation_url":"x"}"#
            ),
            "Resource not accessible by integration"
        );
        assert_eq!(
            api_message(
                422,
                r#"{"message":"Validation Failed","errors":[{"resource":"IssueComment","code":"custom","field":"body","message":"body is too long (maximum is 65536 characters)"}]}"#
            ),
            "Validation Failed (body is too long (maximum is 65536 characters))"
        );
        assert_eq!(api_message(502, "  "), "HTTP 502 with an empty body");
        assert_eq!(
            api_message(502, "<html>Bad gateway</html>"),
            "<html>Bad gateway</html>"
        );
    }
}
