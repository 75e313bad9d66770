//! A small GitHub REST client: who am I, list a PR's comments (all pages),
//! create and update a comment. Sending, retries and error mapping live in
//! `transport`.

use std::collections::HashSet;

use serde::Deserialize;

use crate::github::env::{DEFAULT_BOT_LOGIN, GitHubContext, GitHubToken, RepoName};
use crate::github::error::GitHubError;
use crate::github::retry::RetryPolicy;
use crate::github::transport::{Call, Method, Transport, page, parse};

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
    transport: Transport,
    repository: RepoName,
    bot_login: Option<String>,
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
    /// Build the client; must run inside a tokio runtime (octocrab spawns a worker).
    pub fn new(config: &ClientConfig) -> Result<Self, GitHubError> {
        Ok(Self {
            transport: Transport::new(&config.api_url, &config.token, config.retry.clone())?,
            repository: config.repository.clone(),
            bot_login: config.bot_login.clone(),
        })
    }

    pub fn repository(&self) -> &RepoName {
        &self.repository
    }

    pub fn retry_policy(&self) -> &RetryPolicy {
        &self.transport.retry
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
        match self.transport.request(&call).await {
            Ok(reply) => Ok(parse::<RawUser>(&call.operation, &reply.body)?.login),
            Err(GitHubError::PermissionDenied { .. }) => Ok(self
                .bot_login
                .clone()
                .unwrap_or_else(|| DEFAULT_BOT_LOGIN.to_owned())),
            Err(e) => Err(e),
        }
    }

    /// Every conversation comment of pull request `pr`, oldest first,
    /// following `Link: rel="next"` (parsed by octocrab's `Page`) until the last page.
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
            let reply = self.transport.request(&call).await?;
            let page = page::<RawComment>(&operation, reply).await?;
            comments.extend(page.items.into_iter().map(IssueComment::from));
            let Some(next) = page.next.map(|uri| uri.to_string()) else {
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
        let reply = self.transport.request(&call).await?;
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
        let reply = self.transport.request(&call).await?;
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
}
