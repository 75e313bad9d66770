//! The one entry point `compare` calls once the verdict is known: write the
//! job summary and step outputs, print annotations, and post the sticky PR
//! comment when the event allows it. Nothing here fails the run: every part
//! reports its own status in a [`PublishOutcome`], and the caller keeps the
//! verdict's exit code (DESIGN §2). Also [`post_saved_comment`] for
//! `comment --report F --pr N` in the fork-safe `workflow_run` job.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::github::actions::{write_outputs, write_step_summary};
use crate::github::client::{ClientConfig, GitHubClient};
use crate::github::comment::{CommentOutcome, find_marker, marker, upsert_sticky_comment};
use crate::github::env::GitHubContext;
use crate::github::error::GitHubError;

/// The marker key used when a saved body carries no marker.
pub const DEFAULT_MARKER_KEY: &str = "report";

/// What to publish. The bodies are already rendered (STYLE §1: `github` only sends).
#[derive(Debug, Clone, Default)]
pub struct PublishRequest<'a> {
    /// Identifies the sticky comment: see [`marker`].
    pub marker_key: &'a str,
    /// The PR comment; should contain `marker(marker_key)` (prepended if not).
    pub markdown_body: &'a str,
    /// Appended to `GITHUB_STEP_SUMMARY`.
    pub summary_markdown: &'a str,
    /// Appended to `GITHUB_OUTPUT`.
    pub outputs: Vec<(String, String)>,
    /// Workflow commands from [`crate::github::annotation`], printed to stdout.
    pub annotations: Vec<String>,
}

/// What happened to one of the Actions files.
#[derive(Debug)]
pub enum FileStatus {
    Written(PathBuf),
    /// The environment names no such file (or we are not in Actions).
    NotConfigured,
    Failed(GitHubError),
}

/// Why no comment was posted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    NotInActions,
    NotPullRequestEvent {
        event: Option<String>,
    },
    NoPullRequestNumber,
    /// A `pull_request` event from a fork: the token is read-only.
    ForkPullRequest {
        head: Option<String>,
    },
    NoToken,
    NoRepository,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotInActions => f.write_str(
                "not running in GitHub Actions (`GITHUB_ACTIONS` is not `true`): no PR comment, job summary, outputs or annotations",
            ),
            Self::NotPullRequestEvent { event } => write!(
                f,
                "the `{}` event has no pull request to comment on; the report is in the job summary",
                event.as_deref().unwrap_or("unknown")
            ),
            Self::NoPullRequestNumber => f.write_str(
                "the event payload (`GITHUB_EVENT_PATH`) has no pull request number: no PR comment",
            ),
            Self::ForkPullRequest { head } => write!(
                f,
                "pull request from the fork `{}`: the `pull_request` token is read-only, so no PR comment here; \
                 upload the report as an artifact and post it from a `workflow_run` job with \
                 `agenteval-gate comment --report <file> --pr <number>` (the fork-safe two-workflow pattern)",
                head.as_deref().unwrap_or("(deleted)")
            ),
            Self::NoToken => f.write_str(
                "no token in the environment: no PR comment; add `GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}` to the step's `env`",
            ),
            Self::NoRepository => f.write_str("`GITHUB_REPOSITORY` is not set: no PR comment"),
        }
    }
}

/// What happened to the PR comment.
#[derive(Debug)]
pub enum CommentStatus {
    Posted(CommentOutcome),
    Skipped(SkipReason),
    /// Posting failed; the error carries the fix hint (`help_text`).
    Failed(GitHubError),
}

/// Everything [`publish`] did. Notes and warnings were already printed to stderr.
#[derive(Debug)]
pub struct PublishOutcome {
    pub summary: FileStatus,
    pub outputs: FileStatus,
    pub annotations_printed: usize,
    /// Writing an annotation to stdout failed (e.g. a closed pipe).
    pub annotations_error: Option<crate::output::OutputError>,
    pub comment: CommentStatus,
}

impl PublishOutcome {
    /// The outcome outside GitHub Actions: nothing written, comment skipped.
    pub fn outside_actions() -> Self {
        Self {
            summary: FileStatus::NotConfigured,
            outputs: FileStatus::NotConfigured,
            annotations_printed: 0,
            annotations_error: None,
            comment: CommentStatus::Skipped(SkipReason::NotInActions),
        }
    }

    /// Whether any part failed (skips are not failures).
    pub fn has_failures(&self) -> bool {
        matches!(self.summary, FileStatus::Failed(_))
            || matches!(self.outputs, FileStatus::Failed(_))
            || self.annotations_error.is_some()
            || matches!(self.comment, CommentStatus::Failed(_))
    }
}

/// Publish a compare result to GitHub. `ctx` is the job's context, or `None`
/// outside Actions (both `&ctx` and `ctx.as_ref()` work).
///
/// Writes the job summary and outputs when the environment names their
/// files, prints the annotations to stdout, and upserts the sticky comment
/// for `pull_request`/`pull_request_target` events with a PR number and a
/// token — except `pull_request` events from forks, whose token is
/// read-only. Skips are printed as notes and failures as warnings on
/// stderr; nothing panics and nothing here decides the exit code.
pub async fn publish<'c>(
    ctx: impl Into<Option<&'c GitHubContext>>,
    req: PublishRequest<'_>,
) -> PublishOutcome {
    let Some(ctx) = ctx.into() else {
        let outcome = PublishOutcome::outside_actions();
        noteln!("{}", SkipReason::NotInActions);
        return outcome;
    };

    let summary = write_file(ctx.step_summary.as_deref(), |path| {
        write_step_summary(path, req.summary_markdown)
    });
    let outputs = write_file(ctx.output.as_deref(), |path| {
        write_outputs(path, &req.outputs)
    });
    for (what, status) in [("job summary", &summary), ("step outputs", &outputs)] {
        if let FileStatus::Failed(e) = status {
            warnln!("cannot write the {what}: {e}");
        }
    }

    let mut annotations_printed = 0;
    let mut annotations_error = None;
    for line in &req.annotations {
        // The one place a workflow command reaches stdout (`output::stream`).
        match crate::output::write_workflow_command(line) {
            Ok(()) => annotations_printed += 1,
            Err(e) => {
                annotations_error = Some(e);
                break;
            }
        }
    }

    let comment = match comment_target(ctx) {
        Err(reason) => {
            noteln!("{reason}");
            CommentStatus::Skipped(reason)
        }
        Ok(pr) => match post(ctx, pr, req.marker_key, req.markdown_body).await {
            Ok(outcome) => {
                let verb = match outcome.action {
                    crate::github::CommentAction::Created => "posted",
                    crate::github::CommentAction::Updated => "updated",
                };
                let url = outcome
                    .html_url
                    .as_deref()
                    .map(|u| format!(": {u}"))
                    .unwrap_or_default();
                statusln!("{verb} the agenteval-gate comment on pull request #{pr}{url}");
                if outcome.truncated {
                    warnln!(
                        "the PR comment was cut to GitHub's 65,536-character limit; the job summary has the full report"
                    );
                }
                CommentStatus::Posted(outcome)
            }
            Err(e) => {
                warnln!("cannot post the PR comment: {e}");
                if let Some(help) = e.help_text() {
                    noteln!("{help}");
                }
                CommentStatus::Failed(e)
            }
        },
    };

    PublishOutcome {
        summary,
        outputs,
        annotations_printed,
        annotations_error,
        comment,
    }
}

/// Post (or update) a saved, already rendered comment on pull request `pr`:
/// the `comment --report F --pr N` command of the trusted `workflow_run` job.
/// The sticky marker is the first agenteval-gate marker in `body`, else
/// `marker(DEFAULT_MARKER_KEY)`, prepended.
pub async fn post_saved_comment(
    config: &ClientConfig,
    pr: u64,
    body: &str,
) -> Result<CommentOutcome, GitHubError> {
    let marker = find_marker(body).map_or_else(|| marker(DEFAULT_MARKER_KEY), str::to_owned);
    let client = GitHubClient::new(config)?;
    upsert_sticky_comment(&client, pr, &marker, body).await
}

/// The PR to comment on, or why not.
pub(crate) fn comment_target(ctx: &GitHubContext) -> Result<u64, SkipReason> {
    if !ctx.is_pull_request_event() {
        return Err(SkipReason::NotPullRequestEvent {
            event: ctx.event_name.clone(),
        });
    }
    let pr = ctx
        .pull_request
        .as_ref()
        .ok_or(SkipReason::NoPullRequestNumber)?;
    if pr.fork && ctx.event_name.as_deref() == Some("pull_request") {
        return Err(SkipReason::ForkPullRequest {
            head: pr.head_repository.clone(),
        });
    }
    if ctx.token.is_none() {
        return Err(SkipReason::NoToken);
    }
    if ctx.repository.is_none() {
        return Err(SkipReason::NoRepository);
    }
    Ok(pr.number)
}

async fn post(
    ctx: &GitHubContext,
    pr: u64,
    marker_key: &str,
    body: &str,
) -> Result<CommentOutcome, GitHubError> {
    let client = GitHubClient::new(&ClientConfig::from_context(ctx)?)?;
    upsert_sticky_comment(&client, pr, &marker(marker_key), body).await
}

fn write_file(
    path: Option<&Path>,
    write: impl FnOnce(&Path) -> Result<(), GitHubError>,
) -> FileStatus {
    match path {
        None => FileStatus::NotConfigured,
        Some(path) => match write(path) {
            Ok(()) => FileStatus::Written(path.to_path_buf()),
            Err(e) => FileStatus::Failed(e),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::github::env::{GitHubToken, PullRequestInfo, RepoName};
    use crate::github::retry::RetryPolicy;

    fn ctx(event: &str, fork: bool, token: bool) -> GitHubContext {
        GitHubContext {
            api_url: "http://127.0.0.1:1".into(),
            repository: RepoName::parse("acme/widgets"),
            event_name: Some(event.into()),
            pull_request: Some(PullRequestInfo {
                number: 9,
                fork,
                head_repository: Some("eve/widgets".into()),
            }),
            token: token.then(|| GitHubToken::new("t")),
            bot_login: None,
            step_summary: None,
            output: None,
            sha: None,
            git_ref: None,
            run_url: None,
            retry: RetryPolicy::default(),
        }
    }

    #[test]
    fn comment_targets_follow_the_event_rules() {
        assert_eq!(comment_target(&ctx("pull_request", false, true)), Ok(9));
        assert_eq!(
            comment_target(&ctx("pull_request_target", true, true)),
            Ok(9)
        );
        assert_eq!(
            comment_target(&ctx("pull_request", true, true)),
            Err(SkipReason::ForkPullRequest {
                head: Some("eve/widgets".into())
            })
        );
        assert_eq!(
            comment_target(&ctx("push", false, true)),
            Err(SkipReason::NotPullRequestEvent {
                event: Some("push".into())
            })
        );
        assert_eq!(
            comment_target(&ctx("pull_request", false, false)),
            Err(SkipReason::NoToken)
        );
        let no_pr = GitHubContext {
            pull_request: None,
            ..ctx("pull_request", false, true)
        };
        assert_eq!(comment_target(&no_pr), Err(SkipReason::NoPullRequestNumber));
        let no_repo = GitHubContext {
            repository: None,
            ..ctx("pull_request", false, true)
        };
        assert_eq!(comment_target(&no_repo), Err(SkipReason::NoRepository));
    }

    #[test]
    fn skip_notes_name_the_remedy() {
        let fork = SkipReason::ForkPullRequest {
            head: Some("eve/widgets".into()),
        }
        .to_string();
        assert!(
            fork.contains("`eve/widgets`")
                && fork.contains("workflow_run")
                && fork.contains("comment --report")
        );
        assert!(
            SkipReason::NoToken
                .to_string()
                .contains("${{ secrets.GITHUB_TOKEN }}")
        );
    }
}
