//! Where `compare` reads the baseline from (DESIGN §9: no moved goalposts).
//!
//! `--baseline-ref REF` (env `AGENTEVAL_BASELINE_REF`) reads
//! `<baselines>/<name>/` from the git object `REF` (a sha, a branch, or
//! `origin/agenteval-baselines`) with `git show REF:<path>`;
//! `--baseline-ref worktree` reads the working tree. Without the flag, a
//! `pull_request`/`pull_request_target` event reads the PR's base commit
//! (`pull_request.base.sha` of `GITHUB_EVENT_PATH`), so a pull request that
//! regenerates `baselines/` from its own regressed runs is still compared
//! with the baseline it started from; everywhere else the working tree.
//! In git mode the baseline files that the working tree changes are listed
//! (the PR comment names them).

use crate::model::compare::{SourceInfo, SourceKind};
use std::path::{Path, PathBuf};

use crate::baseline::BaselineError;
use crate::baseline::model::{BaselineFile, HistoryLine};
use crate::baseline::name::{NameKind, check_name};
use crate::baseline::store::{
    baseline_path, committed_history, history_path, parse_baseline, parse_history, read_pair,
};
use crate::diagnostic::FileDiagnostic;
use crate::fsutil::git::{anchor, git};

/// `--baseline-ref worktree`.
pub(crate) const WORKTREE: &str = "worktree";

/// Reads `<dir>/<name>/<suite>.json` and its history from one source.
#[derive(Debug, Clone)]
pub(crate) struct BaselineLoader {
    dir: PathBuf,
    name: String,
    rev: Option<String>,
    chosen_by: &'static str,
}

impl BaselineLoader {
    /// Resolve the source: `flag` is `--baseline-ref` (clap also reads
    /// `AGENTEVAL_BASELINE_REF`); `env` looks up the Actions variables.
    /// A bad baseline name is a usage error (64).
    pub(crate) fn resolve(
        dir: &Path,
        name: &str,
        flag: Option<&str>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, BaselineError> {
        check_name(NameKind::Baseline, name)?;
        let (rev, chosen_by) = match flag.map(str::trim) {
            Some(WORKTREE) => (None, "--baseline-ref"),
            Some(rev) => (Some(check_rev(rev)?), "--baseline-ref"),
            None => match pull_request_base(&env)? {
                Some(sha) => (Some(sha), "pull request base"),
                None => (None, "default"),
            },
        };
        let loader = Self {
            dir: dir.to_path_buf(),
            name: name.to_owned(),
            rev,
            chosen_by,
        };
        if let Some(rev) = &loader.rev {
            loader.ensure_commit(rev)?;
        }
        Ok(loader)
    }

    /// The committed baseline and history of `suite`; `None` when the
    /// source has no baseline file for it.
    pub(crate) fn load(
        &self,
        suite: &str,
    ) -> Result<Option<(BaselineFile, Vec<HistoryLine>)>, BaselineError> {
        check_name(NameKind::Suite, suite)?;
        let Some(rev) = &self.rev else {
            return read_pair(&self.dir, &self.name, suite);
        };
        let path = baseline_path(&self.dir, &self.name, suite);
        let Some(text) = Self::git_file(rev, &path)? else {
            return Ok(None);
        };
        let shown = PathBuf::from(format!("{rev}:{}", path.display()));
        let file = parse_baseline(&shown, text)?;
        let hist = history_path(&self.dir, &self.name, suite);
        let history = match Self::git_file(rev, &hist)? {
            Some(text) => {
                let shown = PathBuf::from(format!("{rev}:{}", hist.display()));
                parse_history(&shown, &text)?
            }
            None => Vec::new(),
        };
        let history = committed_history(history, Some(&file));
        Ok(Some((file, history)))
    }

    /// The other baseline names that hold a baseline of `suite` in this source, sorted.
    pub(crate) fn other_names(&self, suite: &str) -> Result<Vec<String>, BaselineError> {
        check_name(NameKind::Suite, suite)?;
        let file = format!("{suite}.json");
        let names = match &self.rev {
            None => crate::baseline::store::list_names(&self.dir)
                .into_iter()
                .filter(|n| baseline_path(&self.dir, n, suite).is_file())
                .collect(),
            Some(rev) => {
                let listed = |dir: &Path| {
                    crate::fsutil::git::list_dir_at(rev, dir).map_err(|e| BaselineError::Git {
                        rev: rev.clone(),
                        message: e.to_string(),
                        help: "check that the revision holds the baselines directory".to_owned(),
                    })
                };
                let mut names = Vec::new();
                for n in listed(&self.dir)? {
                    if check_name(NameKind::Baseline, &n).is_ok()
                        && listed(&self.dir.join(&n))?.contains(&file)
                    {
                        names.push(n);
                    }
                }
                names
            }
        };
        Ok(names.into_iter().filter(|n| *n != self.name).collect())
    }

    /// Where the baseline of `suite` was looked for, for "missing" errors.
    pub(crate) fn location(&self, suite: &str) -> PathBuf {
        let path = baseline_path(&self.dir, &self.name, suite);
        match &self.rev {
            Some(rev) => PathBuf::from(format!("{rev}:{}", path.display())),
            None => path,
        }
    }

    /// What the report records: the source and, in git mode, the baseline
    /// files the working tree changes.
    pub(crate) fn info(&self) -> SourceInfo {
        SourceInfo {
            kind: if self.rev.is_some() {
                SourceKind::Git
            } else {
                SourceKind::Worktree
            },
            rev: self.rev.clone(),
            chosen_by: self.chosen_by.to_owned(),
            edited: self
                .rev
                .as_deref()
                .map_or_else(Vec::new, |rev| self.edited(rev)),
        }
    }

    /// Files under the baselines directory that differ between `rev` and
    /// the working tree (changed, added, deleted; untracked included).
    fn edited(&self, rev: &str) -> Vec<String> {
        let (cwd, rel) = anchor(&self.dir);
        let spec = format!("./{}", rel.display());
        let mut files: Vec<String> = Vec::new();
        for args in [
            vec!["diff", "--name-only", "--no-renames", rev, "--", &spec],
            vec![
                "ls-files",
                "--others",
                "--exclude-standard",
                "--full-name",
                "--",
                &spec,
            ],
        ] {
            if let Ok(out) = git(&cwd, &args)
                && out.status.success()
            {
                files.extend(
                    String::from_utf8_lossy(&out.stdout)
                        .lines()
                        .filter(|l| !l.is_empty() && !l.ends_with(crate::fsutil::TEMP_SUFFIX))
                        .map(str::to_owned),
                );
            }
        }
        files.sort();
        files.dedup();
        files
    }

    /// `rev` must name a commit in this clone. The PR's base commit is
    /// fetched once when a shallow checkout lacks it.
    fn ensure_commit(&self, rev: &str) -> Result<(), BaselineError> {
        let (cwd, _) = anchor(&self.dir);
        // A commit, or a tree: `scripts/action-baselines.sh` answers git's empty tree
        // when the baselines branch does not exist yet (every suite: "no baseline yet").
        let spec = format!("{rev}^{{tree}}");
        let exists = |cwd: &Path| {
            git(cwd, &["rev-parse", "--verify", "--quiet", &spec]).map(|o| o.status.success())
        };
        match exists(&cwd) {
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(e) => return Err(git_missing(rev, &e)),
        }
        if self.chosen_by == "pull request base" {
            let _fetched = git(
                &cwd,
                &["fetch", "--quiet", "--no-tags", "--depth=1", "origin", rev],
            );
            if exists(&cwd).unwrap_or(false) {
                return Ok(());
            }
        }
        Err(BaselineError::Git {
            rev: rev.to_owned(),
            message: format!(
                "`{rev}` is not a commit (or tree) in the repository at `{}`",
                cwd.display()
            ),
            help: if self.chosen_by == "pull request base" {
                "the pull request's base commit is read so a PR cannot change its own baseline; \
                 check out with history (`actions/checkout` with `fetch-depth: 0`), or pass \
                 `--baseline-ref worktree` to compare with the working tree's baselines"
                    .to_owned()
            } else {
                "pass a commit, branch or remote branch that exists here (e.g. `origin/main`; fetch it first), \
                 or `--baseline-ref worktree`"
                    .to_owned()
            },
        })
    }

    /// The text of `path` at `rev`; `None` when `rev` has no such file.
    fn git_file(rev: &str, path: &Path) -> Result<Option<String>, BaselineError> {
        use crate::fsutil::InputError;
        match crate::fsutil::git::read_text_at(rev, path) {
            Ok(text) => Ok(Some(text)),
            Err(InputError::NotFound(_)) => Ok(None),
            Err(InputError::Io(e)) => Err(BaselineError::Git {
                rev: rev.to_owned(),
                message: e.to_string(),
                help: "install git, check that the path is a file at that revision, or pass `--baseline-ref worktree`".to_owned(),
            }),
            Err(e) => Err(invalid(e.diagnostic(&crate::fsutil::git::shown_at(rev, path)))),
        }
    }
}

fn invalid(d: Option<FileDiagnostic>) -> BaselineError {
    BaselineError::Invalid(Box::new(d.unwrap_or_else(|| {
        FileDiagnostic::error(Path::new("baseline"), "unreadable baseline")
    })))
}

fn git_missing(rev: &str, e: &std::io::Error) -> BaselineError {
    BaselineError::Git {
        rev: rev.to_owned(),
        message: format!("cannot run `git`: {e}"),
        help: "install git, or pass `--baseline-ref worktree`".to_owned(),
    }
}

/// A revision from the user: refuse what git would take as an option or a
/// path expression.
pub(crate) fn check_rev(rev: &str) -> Result<String, BaselineError> {
    if rev.is_empty()
        || rev.starts_with('-')
        || rev.contains(':')
        || rev.chars().any(|c| c.is_control() || c.is_whitespace())
    {
        return Err(BaselineError::Git {
            rev: rev.to_owned(),
            message: "not a revision".to_owned(),
            help: "pass a commit sha, a branch (`main`), a remote branch (`origin/agenteval-baselines`) or `worktree`"
                .to_owned(),
        });
    }
    Ok(rev.to_owned())
}

/// The base sha of the pull request, inside a `pull_request` or
/// `pull_request_target` event.
pub(crate) fn pull_request_base(
    env: &impl Fn(&str) -> Option<String>,
) -> Result<Option<String>, BaselineError> {
    let event = env("GITHUB_EVENT_NAME").unwrap_or_default();
    if !matches!(event.trim(), "pull_request" | "pull_request_target") {
        return Ok(None);
    }
    let Some(path) = env("GITHUB_EVENT_PATH").filter(|p| !p.trim().is_empty()) else {
        return Ok(None);
    };
    let path = PathBuf::from(path.trim());
    let text = crate::fsutil::read_input_text(&path).map_err(|e| {
        invalid(e.diagnostic(&path).or_else(|| {
            Some(FileDiagnostic::error(
                &path,
                format!("cannot read the event payload (`GITHUB_EVENT_PATH`): {e}"),
            ))
        }))
    })?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        invalid(Some(FileDiagnostic::error(
            &path,
            format!("the event payload is not JSON: {e}"),
        )))
    })?;
    let sha = value
        .pointer("/pull_request/base/sha")
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned);
    match sha {
        Some(sha) if sha.len() >= 7 && sha.chars().all(|c| c.is_ascii_hexdigit()) => Ok(Some(sha)),
        _ => Err(BaselineError::Git {
            rev: String::new(),
            message: format!(
                "the `{}` event payload has no `pull_request.base.sha`",
                event.trim()
            ),
            help: "pass `--baseline-ref REF` (or `worktree`) to say where the baseline is"
                .to_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_that_git_would_misread_are_refused() {
        for bad in ["", "-p", "--output=x", "HEAD:../x", "a b", "x\n"] {
            assert!(check_rev(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            check_rev("origin/agenteval-baselines").unwrap(),
            "origin/agenteval-baselines"
        );
    }

    #[test]
    fn the_pull_request_base_comes_from_the_event() {
        let dir = tempfile::tempdir().unwrap();
        let event = dir.path().join("event.json");
        std::fs::write(
            &event,
            r#"{"pull_request": {"number": 3, "base": {"sha": "0123456789abcdef0123456789abcdef01234567"}}}"#,
        )
        .unwrap();
        let ev = event.display().to_string();
        let env = |k: &str| match k {
            "GITHUB_EVENT_NAME" => Some("pull_request".to_owned()),
            "GITHUB_EVENT_PATH" => Some(ev.clone()),
            _ => None,
        };
        assert_eq!(
            pull_request_base(&env).unwrap().as_deref(),
            Some("0123456789abcdef0123456789abcdef01234567")
        );
        let push = |k: &str| match k {
            "GITHUB_EVENT_NAME" => Some("push".to_owned()),
            _ => env(k),
        };
        assert_eq!(pull_request_base(&push).unwrap(), None);
        std::fs::write(&event, r#"{"pull_request": {"number": 3}}"#).unwrap();
        assert!(
            pull_request_base(&env).is_err(),
            "fail closed without a base sha"
        );
    }
}
