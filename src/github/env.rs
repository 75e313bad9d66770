//! The GitHub Actions environment as a [`GitHubContext`] (DESIGN §13,
//! "Environment"). The environment is injected as a lookup function so tests
//! never mutate the process environment; empty variables count as unset.
//! <https://docs.github.com/en/actions/reference/variables-reference#default-environment-variables>

use std::fmt;
use std::path::PathBuf;

use crate::github::error::GitHubError;
use crate::github::event;
use crate::github::retry::RetryPolicy;

pub const DEFAULT_API_URL: &str = "https://api.github.com";
pub const DEFAULT_SERVER_URL: &str = "https://github.com";
/// The login of comments written with an Actions installation token.
pub const DEFAULT_BOT_LOGIN: &str = "github-actions[bot]";

/// `owner/name`, checked to contain only the characters GitHub allows, so it
/// can go into a URL path as is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoName {
    owner: String,
    name: String,
}

impl RepoName {
    /// `None` unless `full_name` is `owner/name` with URL-safe parts.
    pub fn parse(full_name: &str) -> Option<Self> {
        let (owner, name) = full_name.trim().split_once('/')?;
        let ok = |part: &str| {
            !part.is_empty()
                && part != "."
                && part != ".."
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        (ok(owner) && ok(name)).then(|| Self {
            owner: owner.to_owned(),
            name: name.to_owned(),
        })
    }

    pub fn owner(&self) -> &str {
        &self.owner
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for RepoName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

/// A token whose `Debug` never shows the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct GitHubToken(String);

impl GitHubToken {
    pub fn new(token: impl Into<String>) -> Self {
        Self(token.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for GitHubToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("GitHubToken(***)")
    }
}

/// The pull request the workflow runs for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullRequestInfo {
    pub number: u64,
    /// The head branch lives in another repository: with a `pull_request`
    /// event the token is read-only.
    pub fork: bool,
    /// `owner/name` of the head repository, when the payload names it.
    pub head_repository: Option<String>,
}

/// Everything agenteval-gate reads from a GitHub Actions job.
#[derive(Debug, Clone)]
pub struct GitHubContext {
    /// `GITHUB_API_URL` without a trailing slash (default [`DEFAULT_API_URL`]).
    pub api_url: String,
    /// `GITHUB_REPOSITORY`, else the event's `repository.full_name`.
    pub repository: Option<RepoName>,
    /// `GITHUB_EVENT_NAME`, e.g. `pull_request`, `push`.
    pub event_name: Option<String>,
    /// Set when the event payload carries a PR number.
    pub pull_request: Option<PullRequestInfo>,
    /// `AGENTEVAL_GITHUB_TOKEN`, else `GITHUB_TOKEN`.
    pub token: Option<GitHubToken>,
    /// `AGENTEVAL_BOT_LOGIN`: whose comments count as ours when `GET /user`
    /// is refused (installation tokens); default [`DEFAULT_BOT_LOGIN`].
    pub bot_login: Option<String>,
    pub step_summary: Option<PathBuf>,
    pub output: Option<PathBuf>,
    pub sha: Option<String>,
    /// `GITHUB_REF`, e.g. `refs/pull/12/merge`.
    pub git_ref: Option<String>,
    /// `{GITHUB_SERVER_URL}/{repo}/actions/runs/{GITHUB_RUN_ID}`.
    pub run_url: Option<String>,
    /// Retries for every request made with this context (not from the environment).
    pub retry: RetryPolicy,
}

impl GitHubContext {
    /// Read the Actions environment through `lookup` (e.g. `|k| std::env::var(k).ok()`).
    /// `Ok(None)` outside GitHub Actions (`GITHUB_ACTIONS` is not `true`).
    /// An unreadable or malformed event payload, or a malformed
    /// `GITHUB_REPOSITORY`, is an error.
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, GitHubError> {
        let var = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        if var("GITHUB_ACTIONS").as_deref() != Some("true") {
            return Ok(None);
        }
        let event = match var("GITHUB_EVENT_PATH") {
            Some(path) => Some(event::read_event(&PathBuf::from(path))?),
            None => None,
        };
        let repository = match var("GITHUB_REPOSITORY") {
            Some(full) => Some(repo_or_error("GITHUB_REPOSITORY", &full)?),
            None => match event.as_ref().and_then(|e| e.repository.as_deref()) {
                Some(full) => Some(repo_or_error("repository.full_name", full)?),
                None => None,
            },
        };
        let repo_text = repository.as_ref().map(ToString::to_string);
        let pull_request = event.as_ref().and_then(|e| {
            e.pr_number.map(|number| PullRequestInfo {
                number,
                fork: e.is_fork(repo_text.as_deref()),
                head_repository: e.head_repository.clone(),
            })
        });
        let run_url = match (var("GITHUB_RUN_ID"), &repo_text) {
            (Some(run), Some(repo)) => {
                let server =
                    var("GITHUB_SERVER_URL").unwrap_or_else(|| DEFAULT_SERVER_URL.to_owned());
                Some(format!(
                    "{}/{repo}/actions/runs/{run}",
                    server.trim_end_matches('/')
                ))
            }
            _ => None,
        };
        Ok(Some(Self {
            api_url: var("GITHUB_API_URL").map_or_else(
                || DEFAULT_API_URL.to_owned(),
                |u| u.trim_end_matches('/').to_owned(),
            ),
            repository,
            event_name: var("GITHUB_EVENT_NAME"),
            pull_request,
            token: token(&var)?,
            bot_login: var("AGENTEVAL_BOT_LOGIN"),
            step_summary: var("GITHUB_STEP_SUMMARY").map(PathBuf::from),
            output: var("GITHUB_OUTPUT").map(PathBuf::from),
            sha: var("GITHUB_SHA"),
            git_ref: var("GITHUB_REF"),
            run_url,
            retry: RetryPolicy::default(),
        }))
    }

    /// `pull_request` or `pull_request_target`: the events that have a PR to comment on.
    pub fn is_pull_request_event(&self) -> bool {
        matches!(
            self.event_name.as_deref(),
            Some("pull_request" | "pull_request_target")
        )
    }

    pub fn pr_number(&self) -> Option<u64> {
        self.pull_request.as_ref().map(|pr| pr.number)
    }
}

/// `AGENTEVAL_GITHUB_TOKEN`, else `GITHUB_TOKEN`, checked to be printable
/// ASCII without spaces: anything else would be rejected (or worse) as an
/// HTTP header value, so it is a config error before any request.
fn token(var: &impl Fn(&str) -> Option<String>) -> Result<Option<GitHubToken>, GitHubError> {
    for variable in ["AGENTEVAL_GITHUB_TOKEN", "GITHUB_TOKEN"] {
        if let Some(value) = var(variable) {
            if let Some(position) = value.chars().position(|c| !c.is_ascii_graphic()) {
                return Err(GitHubError::InvalidToken {
                    variable,
                    position: position + 1,
                });
            }
            return Ok(Some(GitHubToken::new(value)));
        }
    }
    Ok(None)
}

fn repo_or_error(variable: &'static str, value: &str) -> Result<RepoName, GitHubError> {
    RepoName::parse(value).ok_or_else(|| GitHubError::InvalidRepository {
        variable,
        value: value.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_names_are_url_safe() {
        let r = RepoName::parse("acme/widgets.rs").unwrap();
        assert_eq!(
            (r.owner(), r.name(), r.to_string().as_str()),
            ("acme", "widgets.rs", "acme/widgets.rs")
        );
        for bad in [
            "acme",
            "/w",
            "acme/",
            "acme/w/x",
            "acme/../x",
            "ac me/w",
            "acme/w?x=1",
            "acme/..",
        ] {
            assert!(RepoName::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn tokens_with_control_characters_are_config_errors() {
        let env = |token: &'static str| {
            move |k: &str| match k {
                "GITHUB_ACTIONS" => Some("true".to_owned()),
                "GITHUB_TOKEN" => Some(token.to_owned()),
                _ => None,
            }
        };
        let err = GitHubContext::from_env(env("ghs_a\u{7}b")).unwrap_err();
        assert!(
            matches!(
                err,
                GitHubError::InvalidToken {
                    variable: "GITHUB_TOKEN",
                    position: 6
                }
            ),
            "{err:?}"
        );
        assert!(
            !err.to_string().contains("ghs_a"),
            "the token is never printed: {err}"
        );
        assert!(GitHubContext::from_env(env("ghs_a b")).is_err());
        let ok = GitHubContext::from_env(env(" ghs_ok\n")).unwrap().unwrap();
        assert_eq!(
            ok.token.unwrap().expose(),
            "ghs_ok",
            "surrounding whitespace is trimmed"
        );
    }

    #[test]
    fn token_debug_is_redacted() {
        let t = GitHubToken::new("ghs_secret");
        assert_eq!(format!("{t:?}"), "GitHubToken(***)");
        assert_eq!(t.expose(), "ghs_secret");
    }
}
