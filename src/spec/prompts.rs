//! The judge's prompt templates as a suite sees them: their names, the
//! built-in texts (compiled into the binary from `src/spec/templates/`), and
//! a suite's `judge.prompts` directory replacing any of them by name. Lint
//! checks an override directory here; `llm::prompts` renders the set. The
//! override files are read where the suite's rules are (the pull request's
//! base commit in a `pull_request` event, DESIGN §9).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use minijinja::{Environment, UndefinedBehavior};

use crate::spec::load::SpecSource;

/// Every template, by file name. A suite's `judge.prompts` directory may
/// hold any of these; other `.j2` names are an error (a typo would
/// otherwise be silently ignored).
pub(crate) const TEMPLATE_NAMES: [&str; 15] = [
    "checkpoint.system.j2",
    "checkpoint.user.j2",
    "gpa.system.j2",
    "gpa.user.j2",
    "issue.system.j2",
    "issue.user.j2",
    "rca.system.j2",
    "rca.user.j2",
    "rubric.system.j2",
    "rubric.user.j2",
    "step.system.j2",
    "step.user.j2",
    "step_rubric.j2",
    "task.system.j2",
    "task.user.j2",
];

const BUILT_IN: [&str; 15] = [
    include_str!("templates/checkpoint.system.j2"),
    include_str!("templates/checkpoint.user.j2"),
    include_str!("templates/gpa.system.j2"),
    include_str!("templates/gpa.user.j2"),
    include_str!("templates/issue.system.j2"),
    include_str!("templates/issue.user.j2"),
    include_str!("templates/rca.system.j2"),
    include_str!("templates/rca.user.j2"),
    include_str!("templates/rubric.system.j2"),
    include_str!("templates/rubric.user.j2"),
    include_str!("templates/step.system.j2"),
    include_str!("templates/step.user.j2"),
    include_str!("templates/step_rubric.j2"),
    include_str!("templates/task.system.j2"),
    include_str!("templates/task.user.j2"),
];

/// A prompt directory that cannot be used. The judge's error turns each
/// variant into its own `Template` / `Io` variant (same message, exit 78 / 74).
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("cannot {action} `{}`", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("judge prompt template `{name}`{}: {message}", path.as_ref().map(|p| format!(" (`{}`)", p.display())).unwrap_or_default())]
    Template {
        name: String,
        path: Option<PathBuf>,
        message: String,
    },
}

/// One override file of a suite's `judge.prompts` directory, read from where
/// the suite's rules come from (the working tree, or in a pull request the
/// base commit: a prompt decides judged verdicts, so it is one of the rules).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PromptFile {
    pub name: &'static str,
    /// Where it was read: the path, or `rev:path` for a git revision.
    pub path: PathBuf,
    pub text: String,
}

/// The `*.j2` files of `dir`, read from `from`, sorted by name. A name that
/// is not a template's is an error (a typo would otherwise be silently
/// ignored); so is a directory `from` does not have.
pub(crate) fn read_overrides(
    dir: &Path,
    from: &SpecSource,
) -> Result<Vec<PromptFile>, PromptError> {
    let mut files: Vec<(String, PathBuf)> = match from {
        SpecSource::Worktree => {
            let entries = std::fs::read_dir(dir).map_err(|source| PromptError::Io {
                action: "read the prompt directory",
                path: dir.to_path_buf(),
                source,
            })?;
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .map(|p| {
                    let name = p
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    (name, p)
                })
                .collect()
        }
        SpecSource::Git(rev) => {
            let shown = crate::fsutil::git::shown_at(rev, dir);
            let names = crate::fsutil::git::list_dir_at(rev, dir).map_err(|e| PromptError::Io {
                action: "read the prompt directory",
                path: shown.clone(),
                source: std::io::Error::other(e.to_string()),
            })?;
            // git has no empty directories: nothing listed is no directory.
            if names.is_empty() {
                return Err(PromptError::Io {
                    action: "read the prompt directory",
                    path: shown,
                    source: std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        format!("`{rev}` has no such directory"),
                    ),
                });
            }
            names
                .into_iter()
                .map(|n| (n.clone(), dir.join(n)))
                .collect()
        }
    };
    files.retain(|(n, _)| Path::new(n).extension().is_some_and(|e| e == "j2"));
    files.sort();
    let mut out = Vec::new();
    for (file_name, path) in files {
        let shown = match from {
            SpecSource::Worktree => path.clone(),
            SpecSource::Git(rev) => crate::fsutil::git::shown_at(rev, &path),
        };
        let Some(name) = TEMPLATE_NAMES.iter().find(|n| **n == file_name) else {
            return Err(PromptError::Template {
                name: file_name,
                path: Some(shown),
                message: format!(
                    "not a template name; the templates are {}",
                    TEMPLATE_NAMES.join(", ")
                ),
            });
        };
        let text = from.read(&path).map_err(|e| PromptError::Io {
            action: "read the prompt template",
            path: shown.clone(),
            source: e.into_io(),
        })?;
        out.push(PromptFile {
            name,
            path: shown,
            text,
        });
    }
    Ok(out)
}

/// The compiled templates of one suite.
#[derive(Debug)]
pub(crate) struct TemplateSet {
    pub env: Environment<'static>,
    /// Names replaced by the suite, with their files.
    pub overridden: BTreeMap<&'static str, PathBuf>,
}

impl TemplateSet {
    /// The built-in templates, with the working tree's files of `dir` (if
    /// given) replacing those of the same name.
    pub(crate) fn load(dir: Option<&Path>) -> Result<Self, PromptError> {
        let files = match dir {
            Some(dir) => read_overrides(dir, &SpecSource::Worktree)?,
            None => Vec::new(),
        };
        Self::build(&files)
    }

    /// The built-in templates with `files` replacing those of the same name.
    pub(crate) fn build(files: &[PromptFile]) -> Result<Self, PromptError> {
        let mut sources: BTreeMap<&'static str, (String, Option<PathBuf>)> = TEMPLATE_NAMES
            .iter()
            .zip(BUILT_IN)
            .map(|(n, s)| (*n, (s.to_owned(), None)))
            .collect();
        for f in files {
            sources.insert(f.name, (f.text.clone(), Some(f.path.clone())));
        }
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        let mut overridden = BTreeMap::new();
        for (name, (text, path)) in sources {
            env.add_template_owned(name, text)
                .map_err(|e| PromptError::Template {
                    name: name.to_owned(),
                    path: path.clone(),
                    message: e.to_string(),
                })?;
            if let Some(p) = path {
                overridden.insert(name, p);
            }
        }
        Ok(Self { env, overridden })
    }
}
