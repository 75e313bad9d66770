//! Finding suites: `--suite NAME|DIR` or every `<suites-dir>/*/suite.yaml`,
//! then loading and validating each.

use std::path::{Path, PathBuf};

use crate::diagnostic::{FileDiagnostic, Level};
use crate::spec::SpecError;
use crate::spec::load::{LoadedSuite, SpecSource, load_suite_from};
use crate::spec::suite::Suite;
use crate::spec::validate::validate;

pub(crate) const SUITE_FILE: &str = "suite.yaml";

/// Paths of the `suite.yaml` files selected, in a stable order.
pub(crate) fn suite_paths(
    suites_dir: &Path,
    selected: &[String],
) -> Result<Vec<PathBuf>, SpecError> {
    if selected.is_empty() {
        let entries = std::fs::read_dir(suites_dir).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => SpecError::NotFound {
                path: suites_dir.to_path_buf(),
                help: "run from the repository root, or pass `--suites-dir DIR` (or set `suites_dir` in agenteval.yaml)".into(),
            },
            _ => SpecError::Io { path: suites_dir.to_path_buf(), source: e },
        })?;
        let mut paths: Vec<PathBuf> = entries
            .filter_map(std::result::Result::ok)
            .map(|e| e.path().join(SUITE_FILE))
            .filter(|p| p.is_file())
            .collect();
        paths.sort();
        if paths.is_empty() {
            return Err(SpecError::NotFound {
                path: suites_dir.join("*").join(SUITE_FILE),
                help: format!("create `{}/<name>/{SUITE_FILE}`", suites_dir.display()),
            });
        }
        return Ok(paths);
    }
    let mut paths = Vec::new();
    for s in selected {
        let as_path = PathBuf::from(s);
        let path = if as_path.is_file() {
            as_path
        } else if as_path.join(SUITE_FILE).is_file() {
            as_path.join(SUITE_FILE)
        } else {
            let by_name = suites_dir.join(s).join(SUITE_FILE);
            if !by_name.is_file() {
                return Err(SpecError::NotFound {
                    path: by_name,
                    help: available(suites_dir),
                });
            }
            by_name
        };
        if !paths.contains(&path) {
            paths.push(path);
        }
    }
    Ok(paths)
}

/// [`suite_paths`] as revision `rev` has them: every `<suites-dir>/*/suite.yaml`
/// that `rev` holds, or the selected ones (a name, a suite directory or a
/// `suite.yaml`). A selected suite that `rev` lacks is left out (the caller
/// says it is new); no suite at all is `NotFound`.
pub(crate) fn suite_paths_at(
    rev: &str,
    suites_dir: &Path,
    selected: &[String],
) -> Result<Vec<PathBuf>, SpecError> {
    let io = |path: &Path, e: crate::fsutil::InputError| SpecError::Io {
        path: path.to_path_buf(),
        source: e.into_io(),
    };
    let has = |p: &Path| -> Result<bool, SpecError> {
        match crate::fsutil::git::read_text_at(rev, p) {
            Ok(_) => Ok(true),
            Err(
                crate::fsutil::InputError::NotFound(_)
                | crate::fsutil::InputError::NotRegular { .. },
            ) => Ok(false),
            Err(e) => Err(io(p, e)),
        }
    };
    let mut paths = Vec::new();
    if selected.is_empty() {
        for name in
            crate::fsutil::git::list_dir_at(rev, suites_dir).map_err(|e| io(suites_dir, e))?
        {
            let path = suites_dir.join(name).join(SUITE_FILE);
            if has(&path)? {
                paths.push(path);
            }
        }
        return Ok(paths);
    }
    for s in selected {
        let as_path = PathBuf::from(s);
        let candidates = [
            as_path.clone(),
            as_path.join(SUITE_FILE),
            suites_dir.join(s).join(SUITE_FILE),
        ];
        for path in candidates {
            if has(&path)? {
                if !paths.contains(&path) {
                    paths.push(path);
                }
                break;
            }
        }
    }
    Ok(paths)
}

fn available(suites_dir: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(suites_dir)
        .into_iter()
        .flatten()
        .filter_map(std::result::Result::ok)
        .filter(|e| e.path().join(SUITE_FILE).is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    if names.is_empty() {
        format!(
            "no suites under `{}`; pass `--suite DIR` or `--suites-dir`",
            suites_dir.display()
        )
    } else {
        format!(
            "suites under `{}`: {}",
            suites_dir.display(),
            names.join(", ")
        )
    }
}

/// A loaded, validated suite and the warnings validation found.
#[derive(Debug)]
pub struct Checked {
    pub loaded: LoadedSuite,
    pub suite: Suite,
    pub warnings: Vec<FileDiagnostic>,
}

/// Load and validate one suite; errors become `SpecError::Invalid`.
pub fn load_checked(path: &Path) -> Result<Checked, SpecError> {
    load_checked_from(path, &SpecSource::Worktree)
}

/// [`load_checked`] with the files read from `from`.
pub(crate) fn load_checked_from(path: &Path, from: &SpecSource) -> Result<Checked, SpecError> {
    let loaded = load_suite_from(path, from)?;
    let validation = validate(&loaded);
    let (errors, warnings): (Vec<_>, Vec<_>) = validation
        .diagnostics
        .into_iter()
        .partition(|d| d.level == Level::Error);
    match validation.suite {
        Some(suite) if errors.is_empty() => Ok(Checked {
            loaded,
            suite,
            warnings,
        }),
        _ => Err(SpecError::invalid(path, errors)),
    }
}
