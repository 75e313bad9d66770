//! GitHub: sticky PR comment, step summary, outputs and annotations
//! (DESIGN §10, STYLE §8). Bodies arrive already rendered by `report`;
//! this module only reads the Actions environment and sends them.
//!
//! - `env`/`event`: the Actions environment and event payload → [`GitHubContext`].
//! - `client`/`transport`/`retry`: a small REST client over octocrab (its `Page`
//!   paginates) with retries run by backon under GitHub's rate-limit rules.
//! - `comment`: the sticky comment (marker + own login) and the 65,536-character cap.
//! - `actions`: `GITHUB_STEP_SUMMARY`, `GITHUB_OUTPUT` and workflow-command annotations.
//! - `publish`: the entry points `compare` and `comment` call.

mod actions;
mod client;
mod comment;
mod env;
mod error;
mod event;
mod publish;
mod retry;
mod transport;

pub use actions::{
    AnnotationLevel, annotation, format_output, located_annotation, write_outputs,
    write_step_summary,
};
pub use client::{ClientConfig, GitHubClient, IssueComment};
pub use comment::{
    CommentAction, CommentOutcome, MARKER_PREFIX, MAX_COMMENT_CHARS, TRUNCATION_NOTICE, cap_body,
    find_marker, marker, upsert_sticky_comment,
};
pub use env::{
    DEFAULT_API_URL, DEFAULT_BOT_LOGIN, DEFAULT_SERVER_URL, GitHubContext, GitHubToken,
    PullRequestInfo, RepoName,
};
pub use error::GitHubError;
pub use publish::{
    CommentStatus, DEFAULT_MARKER_KEY, FileStatus, PublishOutcome, PublishRequest, SkipReason,
    post_saved_comment, publish,
};
pub use retry::{RetryPolicy, SleepFuture, Sleeper};
