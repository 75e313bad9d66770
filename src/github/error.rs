//! Errors from talking to GitHub.

use miette::Diagnostic;

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum GitHubError {
    #[error("GitHub API request failed: {message}")]
    #[diagnostic(code(agenteval::github::api))]
    Api {
        message: String,
        #[help]
        help: Option<String>,
    },
}
