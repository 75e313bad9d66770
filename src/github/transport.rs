//! One GitHub REST request, sent (and re-sent) through octocrab.
//!
//! octocrab supplies the transport: TLS, the auth header, and
//! `GITHUB_API_URL` as base URI (GHES path prefixes included). Retries and
//! error mapping are ours: they need the status and the `Retry-After`,
//! `x-ratelimit-*` and `Link` headers, which octocrab's typed API drops, so
//! requests go through its raw `_get`/`_post`/`_patch` and octocrab's own
//! retry layer is switched off; backon runs our retries. List replies are
//! read by octocrab's `Page` (items and `Link` pagination).

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use backon::Retryable;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use octocrab::{FromResponse, Page};

use octocrab::Octocrab;
use octocrab::service::middleware::retry::RetryConfig;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::github::env::GitHubToken;
use crate::github::error::{GitHubError, PERMISSIONS_HELP};
use crate::github::retry::{self, Answer, Failure, RetryPolicy};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const READ_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Get,
    Post,
    Patch,
}

/// One logical request, possibly sent several times.
pub(crate) struct Call<'a> {
    /// What we were doing, as a fragment: "comment on pull request #3 in `o/r`".
    pub(crate) operation: String,
    pub(crate) method: Method,
    /// A path (`/repos/…`) or an absolute URL from a `Link` header.
    pub(crate) uri: String,
    /// Sent as `{"body": …}`.
    pub(crate) comment_body: Option<&'a str>,
    /// The hint attached to a 404.
    pub(crate) not_found_help: String,
}

/// A failed attempt, as backon sees it.
struct Failed {
    retry: bool,
    /// GitHub's requested wait, which replaces backon's backoff.
    wait: Option<Duration>,
    /// GitHub asked for a wait longer than `max_delay`.
    too_long: Option<Duration>,
    kind: FailedKind,
}

enum FailedKind {
    Reply {
        reply: Reply,
        message: String,
        failure: Failure,
    },
    Transport(octocrab::Error),
}

/// What we keep of an HTTP answer.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) link: Option<String>,
    retry_after: Option<String>,
    ratelimit_remaining: Option<String>,
    ratelimit_reset: Option<String>,
    pub(crate) body: String,
}

#[derive(Serialize)]
struct CommentPayload<'a> {
    body: &'a str,
}

/// octocrab plus our retry policy.
#[derive(Debug, Clone)]
pub(crate) struct Transport {
    octo: Octocrab,
    pub(crate) retry: RetryPolicy,
}

impl Transport {
    /// Must run inside a tokio runtime (octocrab spawns a worker).
    pub(crate) fn new(
        api_url: &str,
        token: &GitHubToken,
        retry: RetryPolicy,
    ) -> Result<Self, GitHubError> {
        let url = api_url.trim().trim_end_matches('/');
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
            .personal_token(token.expose().to_owned())
            .base_uri(url)
            .map_err(|e| GitHubError::InvalidApiUrl {
                url: url.to_owned(),
                reason: e.to_string(),
            })?
            .build()
            .map_err(|source| GitHubError::ClientSetup { source })?;
        Ok(Self { octo, retry })
    }

    /// Send `call`, retrying rate limits always and 5xx / lost connections
    /// only for idempotent methods (GET, PATCH). backon runs the loop and
    /// the backoff; GitHub's waits (`Retry-After`, the rate-limit reset)
    /// replace backon's delay, and a wait longer than `max_delay` ends the
    /// retries at once.
    pub(crate) async fn request(&self, call: &Call<'_>) -> Result<Reply, GitHubError> {
        let idempotent = call.method != Method::Post;
        let attempts = AtomicU32::new(0);
        let sleeper = self.retry.sleeper.clone();
        let outcome = (|| async {
            let attempt = attempts.fetch_add(1, Ordering::Relaxed) + 1;
            self.attempt(call, attempt, idempotent).await
        })
        .retry(self.retry.backoff_builder())
        .sleep(move |d| {
            let sleeper = sleeper.clone();
            async move { sleeper.sleep(d).await }
        })
        .when(|failed: &Failed| failed.retry)
        .adjust(|failed: &Failed, backoff: Option<Duration>| {
            backoff.map(|d| failed.wait.unwrap_or(d))
        })
        .await;
        let attempts = attempts.load(Ordering::Relaxed);
        outcome.map_err(|failed| match failed.kind {
            FailedKind::Reply {
                reply,
                message,
                failure,
            } => reply_error(call, &reply, message, failure, attempts, failed.too_long),
            FailedKind::Transport(source) => GitHubError::Transport {
                operation: call.operation.clone(),
                attempts,
                source,
            },
        })
    }

    /// One attempt: the reply, or why it failed and whether to retry.
    async fn attempt(
        &self,
        call: &Call<'_>,
        attempt: u32,
        idempotent: bool,
    ) -> Result<Reply, Failed> {
        match self.send_once(call).await {
            Ok(reply) if (200..300).contains(&reply.status) => Ok(reply),
            Ok(reply) => {
                let message = api_message(reply.status, &reply.body);
                let answer = reply.answer(&message);
                let failure = retry::classify(&answer);
                let wait = retry::github_wait(&self.retry, &answer, attempt, now_epoch_secs());
                let too_long = wait.filter(|w| *w > self.retry.max_delay);
                let retry = match failure {
                    Failure::Fatal => false,
                    Failure::Server => idempotent,
                    Failure::RateLimit => true,
                } && too_long.is_none();
                Err(Failed {
                    retry,
                    wait,
                    too_long,
                    kind: FailedKind::Reply {
                        reply,
                        message,
                        failure,
                    },
                })
            }
            Err(source) => Err(Failed {
                retry: idempotent,
                wait: None,
                too_long: None,
                kind: FailedKind::Transport(source),
            }),
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

/// A list page: octocrab's [`Page`] reads the items and the `Link`
/// header's `next`/`prev`/`first`/`last` (RFC 8288) from the reply.
/// <https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api>
pub(crate) async fn page<T: DeserializeOwned>(
    operation: &str,
    reply: Reply,
) -> Result<Page<T>, GitHubError> {
    let mut response = http::Response::builder().status(reply.status);
    if let Some(link) = &reply.link {
        response = response.header(http::header::LINK, link);
    }
    let body = Full::new(Bytes::from(reply.body))
        .map_err(|never: std::convert::Infallible| -> octocrab::Error { match never {} });
    let response = response.body(body).map_err(|e| GitHubError::Pagination {
        operation: operation.to_owned(),
        reason: format!("unusable `Link` header: {e}"),
    })?;
    Page::from_response(response).await.map_err(|e| match e {
        octocrab::Error::Serde { source, .. } => GitHubError::InvalidResponse {
            operation: operation.to_owned(),
            source,
        },
        other => GitHubError::Pagination {
            operation: operation.to_owned(),
            reason: other.to_string(),
        },
    })
}

pub(crate) fn parse<T: DeserializeOwned>(operation: &str, body: &str) -> Result<T, GitHubError> {
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
