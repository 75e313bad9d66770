//! Errors from talking to GitHub and from writing the Actions files
//! (`GITHUB_STEP_SUMMARY`, `GITHUB_OUTPUT`). Every HTTP failure names the
//! operation it interrupted and, where a workflow change fixes it, says which.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use miette::Diagnostic;

use crate::diagnostic::FileDiagnostic;
use crate::exit_code::ExitCode;

/// The hint for a token that may not write PR comments.
// https://docs.github.com/en/actions/using-jobs/assigning-permissions-to-jobs
pub(crate) const PERMISSIONS_HELP: &str = "give the job's token write access to pull requests:\n\
    \n    permissions:\n      pull-requests: write\n\
    \nfor pull requests from forks the token is always read-only; use the two-workflow pattern: \
    the `pull_request` workflow runs `agenteval-gate compare --out report.json` and uploads it as an \
    artifact, and a `workflow_run` workflow downloads it and runs \
    `agenteval-gate comment --report report.json --pr <number>`\n\
    see https://docs.github.com/en/actions/using-jobs/assigning-permissions-to-jobs";

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum GitHubError {
    /// `GITHUB_EVENT_PATH` names a file that cannot be read.
    #[error("cannot read the GitHub event file `{}`", path.display())]
    #[diagnostic(
        code(agenteval::github::event_io),
        help(
            "`GITHUB_EVENT_PATH` must point to the event payload; in a container, mount the file and pass the variable through"
        )
    )]
    EventRead {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// The event payload is not JSON, or a field has the wrong type.
    #[error(transparent)]
    #[diagnostic(transparent)]
    EventInvalid(Box<FileDiagnostic>),

    /// `GITHUB_REPOSITORY` (or the event's `repository.full_name`) is not `owner/name`.
    #[error("`{variable}` is `{value}`, expected `owner/name`")]
    #[diagnostic(code(agenteval::github::repository))]
    InvalidRepository {
        variable: &'static str,
        value: String,
    },

    /// A token that cannot be an HTTP header value (a control character, a
    /// space, non-ASCII): refused before any request, never sent.
    #[error("`{variable}` holds a character a GitHub token never has (at position {position})")]
    #[diagnostic(
        code(agenteval::github::token),
        help(
            "tokens are printable ASCII without spaces; check how the secret is passed (a stray newline or quote in the workflow's `env:`)"
        )
    )]
    InvalidToken {
        variable: &'static str,
        position: usize,
    },

    #[error("the repository is unknown: `GITHUB_REPOSITORY` is not set")]
    #[diagnostic(
        code(agenteval::github::no_repository),
        help("set `GITHUB_REPOSITORY=owner/name` (GitHub Actions sets it for every job)")
    )]
    MissingRepository,

    #[error("no GitHub token: neither `AGENTEVAL_GITHUB_TOKEN` nor `GITHUB_TOKEN` is set")]
    #[diagnostic(
        code(agenteval::github::no_token),
        help(
            "pass the token to the step:\n\n    env:\n      GITHUB_TOKEN: ${{{{ secrets.GITHUB_TOKEN }}}}"
        )
    )]
    MissingToken,

    #[error("the GitHub API URL `{url}` is not valid: {reason}")]
    #[diagnostic(
        code(agenteval::github::api_url),
        help(
            "`GITHUB_API_URL` should look like `https://api.github.com` or `https://ghe.example.com/api/v3`"
        )
    )]
    InvalidApiUrl { url: String, reason: String },

    /// The HTTP client could not be built (e.g. no TLS roots on the runner).
    #[error("cannot set up the GitHub HTTP client")]
    #[diagnostic(code(agenteval::github::client))]
    ClientSetup {
        #[source]
        source: octocrab::Error,
    },

    /// HTTP 401.
    #[error("GitHub rejected the token while trying to {operation}: {message}")]
    #[diagnostic(
        code(agenteval::github::unauthorized),
        help(
            "the token is missing, expired or revoked; pass `${{{{ secrets.GITHUB_TOKEN }}}}` or a valid token"
        )
    )]
    Unauthorized { operation: String, message: String },

    /// HTTP 403 that is not a rate limit, e.g. "Resource not accessible by integration".
    #[error("the token may not {operation}: {message}")]
    #[diagnostic(code(agenteval::github::permissions))]
    PermissionDenied {
        operation: String,
        message: String,
        #[help]
        help: String,
    },

    /// HTTP 404: the pull request, repository or comment does not exist (or is invisible to the token).
    #[error("not found while trying to {operation}: {message}")]
    #[diagnostic(code(agenteval::github::not_found))]
    NotFound {
        operation: String,
        message: String,
        #[help]
        help: String,
    },

    /// A rate limit that outlasted the retries, or asked for a longer wait than allowed.
    #[error("GitHub rate-limited the request to {operation}; gave up after {attempts} attempt(s){}",
        .retry_after.map(|d| format!(" (GitHub asked to wait {}s)", d.as_secs())).unwrap_or_default())]
    #[diagnostic(
        code(agenteval::github::rate_limited),
        help(
            "re-run the job later; many jobs posting at once trip GitHub's secondary rate limit, so consider posting from one job"
        )
    )]
    RateLimited {
        operation: String,
        attempts: u32,
        retry_after: Option<Duration>,
    },

    /// A 5xx answer that outlasted the retries.
    #[error(
        "GitHub answered HTTP {status} while trying to {operation}, after {attempts} attempt(s): {message}"
    )]
    #[diagnostic(
        code(agenteval::github::unavailable),
        help("GitHub is having trouble; see https://www.githubstatus.com and re-run the job")
    )]
    Unavailable {
        operation: String,
        status: u16,
        attempts: u32,
        message: String,
    },

    /// The request never got an HTTP answer.
    #[error("cannot reach GitHub to {operation} (after {attempts} attempt(s))")]
    #[diagnostic(
        code(agenteval::github::transport),
        help("check `GITHUB_API_URL` and the runner's network access")
    )]
    Transport {
        operation: String,
        attempts: u32,
        #[source]
        source: octocrab::Error,
    },

    /// Any other non-success status (e.g. 422 validation failures).
    #[error("GitHub answered HTTP {status} while trying to {operation}: {message}")]
    #[diagnostic(code(agenteval::github::api))]
    Api {
        operation: String,
        status: u16,
        message: String,
        #[help]
        help: Option<String>,
    },

    /// A success status whose body is not what the API documents.
    #[error("unexpected response from GitHub while trying to {operation}")]
    #[diagnostic(code(agenteval::github::response))]
    InvalidResponse {
        operation: String,
        #[source]
        source: serde_json::Error,
    },

    /// `Link: rel="next"` kept going (or looped); the listing was abandoned.
    #[error("pagination while trying to {operation} did not end: {reason}")]
    #[diagnostic(code(agenteval::github::pagination))]
    Pagination { operation: String, reason: String },

    #[error("cannot {action} `{}`", path.display())]
    #[diagnostic(code(agenteval::github::io))]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error("invalid output name `{key}`")]
    #[diagnostic(
        code(agenteval::github::output_key),
        help("output names must be non-empty and may not contain `=`, `<<` or line breaks")
    )]
    InvalidOutputKey { key: String },
}

impl GitHubError {
    /// Worth trying again later with the same request: a 5xx or a request
    /// that never got an answer. (Rate limits are retried inside the client.)
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::Unavailable { .. } | Self::Transport { .. })
    }

    /// The exit code this error maps to when it decides the run's outcome
    /// (it never overrides a verdict: DESIGN §2).
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Self::EventInvalid(_) | Self::InvalidRepository { .. } => ExitCode::DataError,
            Self::Io { .. } | Self::EventRead { .. } => ExitCode::Io,
            Self::MissingRepository
            | Self::MissingToken
            | Self::InvalidToken { .. }
            | Self::InvalidApiUrl { .. }
            | Self::InvalidOutputKey { .. } => ExitCode::Config,
            Self::ClientSetup { .. }
            | Self::Unauthorized { .. }
            | Self::PermissionDenied { .. }
            | Self::NotFound { .. }
            | Self::RateLimited { .. }
            | Self::Unavailable { .. }
            | Self::Transport { .. }
            | Self::Api { .. }
            | Self::InvalidResponse { .. }
            | Self::Pagination { .. } => ExitCode::Unavailable,
        }
    }

    /// The fix hint, if this error has one (for reports that print errors as text).
    pub fn help_text(&self) -> Option<String> {
        Diagnostic::help(self).map(|h| h.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_hints_render() {
        let help = GitHubError::MissingToken.help_text().unwrap();
        assert!(
            help.contains("GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}"),
            "{help}"
        );
        let limited = GitHubError::RateLimited {
            operation: "comment on pull request #3".into(),
            attempts: 2,
            retry_after: Some(Duration::from_secs(600)),
        };
        assert_eq!(
            limited.to_string(),
            "GitHub rate-limited the request to comment on pull request #3; gave up after 2 attempt(s) (GitHub asked to wait 600s)"
        );
        assert_eq!(limited.exit_code(), ExitCode::Unavailable);
        assert!(PERMISSIONS_HELP.contains("pull-requests: write"));
        assert!(!limited.is_transient());
    }
}
