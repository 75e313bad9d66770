//! The judge's prompt templates as a suite sees them: their names, the
//! built-in texts (compiled into the binary from `src/spec/templates/`), and
//! a suite's `judge.prompts` directory replacing any of them by name. Lint
//! checks an override directory here; `llm::prompts` renders the set.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use minijinja::{Environment, UndefinedBehavior};

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

/// The compiled templates of one suite.
#[derive(Debug)]
pub(crate) struct TemplateSet {
    pub env: Environment<'static>,
    /// Names replaced by the suite, with their files.
    pub overridden: BTreeMap<&'static str, PathBuf>,
}

impl TemplateSet {
    /// The built-in templates, with the files of `dir` (if given) replacing
    /// those of the same name.
    pub(crate) fn load(dir: Option<&Path>) -> Result<Self, PromptError> {
        let mut sources: BTreeMap<&'static str, (String, Option<PathBuf>)> = TEMPLATE_NAMES
            .iter()
            .zip(BUILT_IN)
            .map(|(n, s)| (*n, (s.to_owned(), None)))
            .collect();
        if let Some(dir) = dir {
            let entries = std::fs::read_dir(dir).map_err(|source| PromptError::Io {
                action: "read the prompt directory",
                path: dir.to_path_buf(),
                source,
            })?;
            let mut files: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "j2"))
                .collect();
            files.sort();
            for path in files {
                let file_name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let Some(name) = TEMPLATE_NAMES.iter().find(|n| **n == file_name) else {
                    return Err(PromptError::Template {
                        name: file_name,
                        path: Some(path),
                        message: format!(
                            "not a template name; the templates are {}",
                            TEMPLATE_NAMES.join(", ")
                        ),
                    });
                };
                let text = std::fs::read_to_string(&path).map_err(|source| PromptError::Io {
                    action: "read the prompt template",
                    path: path.clone(),
                    source,
                })?;
                sources.insert(name, (text, Some(path)));
            }
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
