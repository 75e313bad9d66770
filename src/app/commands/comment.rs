//! `agenteval-gate comment --report F --pr N`: post a saved compare report as
//! the sticky PR comment. This is the trusted `workflow_run` half of the
//! fork-safe two-workflow pattern (docs/github.md): the `pull_request` job
//! of a fork has a read-only token, so it only saves the report; this
//! command, run with `pull-requests: write`, renders and posts it.
//!
//! The body and the marker key are exactly those of `compare` (see
//! `publish::marker_key`), so the comment replaces the one an earlier
//! `compare` or `comment` posted for the same baseline and suites. The exit
//! code says whether posting worked; the verdict was the first job's.

use crate::app::cli::{CliComment, CliSummaryFormat};
use crate::app::error::{Error, Result};
use crate::exit_code::ExitCode;
use crate::github::{
    ClientConfig, CommentAction, GitHubContext, GitHubError, RepoName, marker, post_saved_comment,
};
use crate::report::read::read_compare_report;
use crate::report::render::compare_markdown::render_compare_markdown;

use super::publish::marker_key;

pub(crate) fn run(args: &CliComment, quiet: bool) -> Result<ExitCode> {
    let report = read_compare_report(&args.report)?;
    let config = client_config(args, |k| std::env::var(k).ok())?;
    let body = format!(
        "{}\n{}",
        marker(&marker_key(&report)),
        render_compare_markdown(&report)
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Internal(format!("cannot start the async runtime: {e}")))?;
    let outcome = runtime.block_on(post_saved_comment(&config, args.pr, &body))?;
    if args.format == CliSummaryFormat::Json {
        let json = serde_json::json!({
            "action": match outcome.action {
                CommentAction::Created => "created",
                CommentAction::Updated => "updated",
            },
            "url": outcome.html_url,
            "pull_request": args.pr,
            "repository": config.repository.to_string(),
            "verdict": report.verdict.as_str(),
            "truncated": outcome.truncated,
        });
        crate::output::write_document(&crate::output::to_json(&json))?;
    } else if !quiet {
        let verb = match outcome.action {
            CommentAction::Created => "posted",
            CommentAction::Updated => "updated",
        };
        let url = outcome
            .html_url
            .as_deref()
            .map(|u| format!(": {u}"))
            .unwrap_or_default();
        statusln!(
            "{verb} the agenteval-gate comment (verdict: {}) on pull request #{} in `{}`{url}",
            report.verdict.as_str(),
            args.pr,
            config.repository
        );
        if outcome.truncated {
            warnln!(
                "the PR comment was cut to GitHub's 65,536-character limit; the report artifact has everything"
            );
        }
    }
    Ok(ExitCode::Success)
}

/// Where and as whom to post: `--repo` (else `GITHUB_REPOSITORY`), the token,
/// `GITHUB_API_URL` and `AGENTEVAL_BOT_LOGIN`, read with the same rules as
/// in a `compare` job (empty counts as unset) whether or not we are in
/// Actions. The event payload plays no part: in a `workflow_run` job it
/// describes the other workflow's run, and `--pr` says which PR.
fn client_config(
    args: &CliComment,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<ClientConfig, GitHubError> {
    let repo = match args.repo.as_deref() {
        Some(full) => Some(
            RepoName::parse(full)
                .ok_or_else(|| GitHubError::InvalidRepository {
                    variable: "--repo",
                    value: full.to_owned(),
                })?
                .to_string(),
        ),
        None => None,
    };
    let ctx = GitHubContext::from_env(|key| match key {
        "GITHUB_ACTIONS" => Some("true".to_owned()),
        "GITHUB_EVENT_PATH" => None,
        "GITHUB_REPOSITORY" => repo.clone().or_else(|| lookup(key)),
        _ => lookup(key),
    })?
    .ok_or(GitHubError::MissingRepository)?;
    ClientConfig::from_context(&ctx)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::PathBuf;

    use super::*;

    fn args(repo: Option<&str>) -> CliComment {
        CliComment {
            report: PathBuf::from("r.json"),
            pr: 3,
            repo: repo.map(str::to_owned),
            format: CliSummaryFormat::Text,
        }
    }

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn config_comes_from_flags_and_environment() {
        let vars = env(&[
            ("GITHUB_REPOSITORY", "acme/widgets"),
            ("GITHUB_TOKEN", "ghs_1"),
            ("AGENTEVAL_GITHUB_TOKEN", " "),
            ("GITHUB_API_URL", "https://ghe.example.com/api/v3/"),
            ("AGENTEVAL_BOT_LOGIN", "gate[bot]"),
            // Ignored: the payload of a `workflow_run` event is not ours.
            ("GITHUB_EVENT_PATH", "/no/such/event.json"),
        ]);
        let c = client_config(&args(None), |k| vars.get(k).cloned()).unwrap();
        assert_eq!(c.repository.to_string(), "acme/widgets");
        assert_eq!(c.token.expose(), "ghs_1");
        assert_eq!(c.api_url, "https://ghe.example.com/api/v3");
        assert_eq!(c.bot_login.as_deref(), Some("gate[bot]"));

        let c = client_config(&args(Some("eve/tools")), |k| vars.get(k).cloned()).unwrap();
        assert_eq!(c.repository.to_string(), "eve/tools", "--repo wins");

        let minimal = env(&[("GITHUB_REPOSITORY", "acme/w"), ("GITHUB_TOKEN", "t")]);
        let c = client_config(&args(None), |k| minimal.get(k).cloned()).unwrap();
        assert_eq!(c.api_url, "https://api.github.com");
        assert_eq!(c.bot_login, None);
    }

    #[test]
    fn missing_or_bad_settings_are_config_errors() {
        let no_token = env(&[("GITHUB_REPOSITORY", "acme/widgets")]);
        let err = client_config(&args(None), |k| no_token.get(k).cloned()).unwrap_err();
        assert!(matches!(err, GitHubError::MissingToken), "{err:?}");
        assert_eq!(err.exit_code(), ExitCode::Config);

        let no_repo = env(&[("GITHUB_TOKEN", "t")]);
        let err = client_config(&args(None), |k| no_repo.get(k).cloned()).unwrap_err();
        assert!(matches!(err, GitHubError::MissingRepository), "{err:?}");

        let err = client_config(&args(Some("acme")), |k| no_repo.get(k).cloned()).unwrap_err();
        assert_eq!(err.to_string(), "`--repo` is `acme`, expected `owner/name`");
    }
}
