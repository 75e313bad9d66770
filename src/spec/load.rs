//! Reading a suite from disk: parse `suite.yaml` (unknown keys and wrong
//! types are located errors), expand `include:` case files (JSONL, one case
//! per line), and hash every byte that defines the suite.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use miette::NamedSource;
use sha2::{Digest, Sha256};

use crate::diagnostic::{FileDiagnostic, named_source};
use crate::spec::SpecError;
use crate::spec::model::{CaseEntry, SuiteFile};
use crate::spec::prompts::{PromptError, PromptFile, read_overrides};

/// A parsed suite file with its includes expanded. Not yet validated: see
/// [`crate::spec::lint`] and [`crate::spec::suite::Suite`].
#[derive(Debug, Clone)]
pub struct LoadedSuite {
    pub file: SuiteFile,
    /// `suite.yaml`.
    pub path: PathBuf,
    /// The suite directory: relative paths in the file resolve against it.
    pub dir: PathBuf,
    pub source: Arc<NamedSource<String>>,
    /// Every case in suite order, includes expanded in place.
    pub cases: Vec<LoadedCase>,
    /// Included files, for diagnostics that point into them.
    pub includes: Vec<IncludedFile>,
    /// `sha256:<hex>` over `suite.yaml`, every included file and every
    /// `judge.prompts` override.
    pub hash: String,
    /// The `judge.prompts` override files, read from `from` (validation
    /// reports an error reading them).
    pub(crate) prompt_files: Result<Vec<PromptFile>, Arc<PromptError>>,
}

/// A case and where it was written.
#[derive(Debug, Clone)]
pub struct LoadedCase {
    pub entry: CaseEntry,
    pub origin: Origin,
}

/// A position in the suite file or an included file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// Index into `LoadedSuite::includes`, or `None` for `suite.yaml`.
    pub include: Option<usize>,
    pub line: usize,
    pub column: usize,
}

#[derive(Debug, Clone)]
pub struct IncludedFile {
    pub path: PathBuf,
    pub source: Arc<NamedSource<String>>,
}

impl LoadedSuite {
    /// A diagnostic at `origin` (in `suite.yaml` or the include it names).
    pub fn diagnostic_at(
        &self,
        origin: &Origin,
        error: bool,
        message: impl Into<String>,
    ) -> FileDiagnostic {
        let (path, source) = match origin.include.and_then(|i| self.includes.get(i)) {
            Some(inc) => (inc.path.as_path(), &inc.source),
            None => (self.path.as_path(), &self.source),
        };
        let d = if error {
            FileDiagnostic::error(path, message)
        } else {
            FileDiagnostic::warning(path, message)
        };
        d.at(source, origin.line, origin.column)
    }

    /// Origin of a YAML location in `suite.yaml`.
    pub fn yaml_origin(location: serde_saphyr::Location) -> Origin {
        Origin {
            include: None,
            line: location.line() as usize,
            column: location.column() as usize,
        }
    }
}

/// Options shared by every YAML read: duplicate keys are errors and only
/// `true`/`false` are booleans (so `yes` in evidence stays a string).
pub(crate) fn yaml_options() -> serde_saphyr::Options {
    serde_saphyr::options! { with_snippet: false, strict_booleans: true }
}

/// Turn a serde-saphyr error into a located diagnostic with a hint.
pub(crate) fn yaml_error(
    path: &Path,
    source: &Arc<NamedSource<String>>,
    err: &serde_saphyr::Error,
) -> FileDiagnostic {
    let (line, column) = err
        .location()
        .map_or((0, 0), |l| (l.line() as usize, l.column() as usize));
    if let Some((message, hint)) = super::yaml_budget::budget_message(err) {
        return FileDiagnostic::error(path, message)
            .at(source, line, column)
            .with_help(hint);
    }
    let full = err.to_string();
    let message = strip_location_suffix(&full);
    let hint = if message.starts_with("unknown field") {
        "remove the key or fix its spelling; every key is listed in schema/suite.schema.json"
    } else if message.starts_with("missing field") {
        "add the field; required fields are listed in schema/suite.schema.json"
    } else if message.starts_with("duplicate mapping key") {
        "each key may appear once per mapping; remove one of them"
    } else if message.starts_with("unknown variant") {
        "use one of the values listed in the message; see schema/suite.schema.json"
    } else if message.starts_with("invalid") {
        "the value has the wrong type for this key; see schema/suite.schema.json"
    } else {
        "fix the YAML syntax at this position"
    };
    FileDiagnostic::error(path, message.to_owned())
        .at(source, line, column)
        .with_help(hint)
}

/// serde-saphyr appends ` at line L, column C`; the diagnostic shows the position itself.
fn strip_location_suffix(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(i) if message[i..].contains(", column ") => &message[..i],
        _ => message,
    }
}

/// Where a suite's files are read from: the working tree, or a git revision (the
/// pull request's base commit, whose rules judge the pull request). Paths stay
/// working-tree paths either way, so `traces:` and `evidence:` resolve to the
/// data under test.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum SpecSource {
    #[default]
    Worktree,
    Git(String),
}

impl SpecSource {
    pub(crate) fn read(&self, path: &Path) -> Result<String, crate::fsutil::InputError> {
        match self {
            Self::Worktree => crate::fsutil::read_input_text(path),
            Self::Git(rev) => crate::fsutil::git::read_text_at(rev, path),
        }
    }
}

/// Read and parse `path` (a `suite.yaml`), expanding includes.
pub(crate) fn load_suite(path: &Path) -> Result<LoadedSuite, SpecError> {
    load_suite_from(path, &SpecSource::Worktree)
}

/// [`load_suite`] with the files read from `from`.
pub(crate) fn load_suite_from(path: &Path, from: &SpecSource) -> Result<LoadedSuite, SpecError> {
    let text = match from.read(path) {
        Ok(t) => t,
        Err(crate::fsutil::InputError::NotFound(_)) => {
            return Err(SpecError::NotFound {
                path: path.to_path_buf(),
                help: "suites live in `<suites-dir>/<name>/suite.yaml`; check `--suite` and `--suites-dir`".into(),
            });
        }
        Err(e) => {
            return Err(match e.diagnostic(path) {
                Some(d) => SpecError::invalid(path, vec![d]),
                None => SpecError::Io {
                    path: path.to_path_buf(),
                    source: e.into_io(),
                },
            });
        }
    };
    let source = named_source(path, text);
    let file: SuiteFile = serde_saphyr::from_str_with_options(source.inner(), yaml_options())
        .map_err(|e| SpecError::invalid(path, vec![yaml_error(path, &source, &e)]))?;
    let dir = path
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);

    let mut hasher = Sha256::new();
    hasher.update(source.inner().as_bytes());
    let mut cases = Vec::new();
    let mut includes = Vec::new();
    let mut errors = Vec::new();
    for entry in &file.cases {
        let Some(include) = &entry.include else {
            let origin = entry.id.as_ref().map_or(
                Origin {
                    include: None,
                    line: 0,
                    column: 0,
                },
                |id| LoadedSuite::yaml_origin(id.referenced),
            );
            cases.push(LoadedCase {
                entry: entry.clone(),
                origin,
            });
            continue;
        };
        let origin = LoadedSuite::yaml_origin(include.referenced);
        if entry.id.is_some()
            || entry.input.is_some()
            || !entry.tags.is_empty()
            || entry.expected_output.is_some()
        {
            errors.push(
                FileDiagnostic::error(path, "an `include:` entry cannot also define a case")
                    .at(&source, origin.line, origin.column)
                    .with_help("write `- include: cases.jsonl` alone and put case fields in the JSONL file"),
            );
            continue;
        }
        let inc_path = dir.join(&include.value);
        match from.read(&inc_path) {
            Ok(inc_text) => {
                hasher.update(b"\0include\0");
                hasher.update(include.value.as_bytes());
                hasher.update(b"\0");
                hasher.update(inc_text.as_bytes());
                let inc_source = named_source(&inc_path, inc_text);
                let index = includes.len();
                parse_jsonl_cases(&inc_path, &inc_source, index, &mut cases, &mut errors);
                includes.push(IncludedFile {
                    path: inc_path,
                    source: inc_source,
                });
            }
            Err(e) => errors.push(e.diagnostic(&inc_path).unwrap_or_else(|| {
                FileDiagnostic::error(
                    path,
                    format!("cannot read included file `{}`: {e}", include.value),
                )
                .at(&source, origin.line, origin.column)
                .with_label("included here")
                .with_help("paths in `include:` are relative to the suite directory")
            })),
        }
    }
    if !errors.is_empty() {
        return Err(SpecError::invalid(path, errors));
    }
    let prompt_files = match file.judge.as_ref().and_then(|j| j.prompts.as_ref()) {
        Some(d) => read_overrides(&dir.join(d), from).map_err(Arc::new),
        None => Ok(Vec::new()),
    };
    // A prompt decides judged verdicts: an override is part of the suite's identity
    // (suites without overrides hash as before).
    for f in prompt_files.iter().flatten() {
        hasher.update(b"\0prompt\0");
        hasher.update(f.name.as_bytes());
        hasher.update(b"\0");
        hasher.update(f.text.as_bytes());
    }
    let hash = format!("sha256:{}", crate::digest::hex(&hasher.finalize()));
    Ok(LoadedSuite {
        file,
        path: path.to_path_buf(),
        dir,
        source,
        cases,
        includes,
        hash,
        prompt_files,
    })
}

/// Parse a JSONL file of cases; a bad line is an error at that line, never skipped.
fn parse_jsonl_cases(
    path: &Path,
    source: &Arc<NamedSource<String>>,
    include_index: usize,
    cases: &mut Vec<LoadedCase>,
    errors: &mut Vec<FileDiagnostic>,
) {
    for (i, line) in source.inner().lines().enumerate() {
        let line_no = i + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        match serde_json::from_str::<CaseEntry>(trimmed) {
            Ok(entry) if entry.include.is_some() => errors.push(
                FileDiagnostic::error(path, "nested `include` is not supported")
                    .at(source, line_no, 1)
                    .with_help("list every case file in `suite.yaml` instead"),
            ),
            Ok(entry) => cases.push(LoadedCase {
                entry,
                origin: Origin {
                    include: Some(include_index),
                    line: line_no,
                    column: 1,
                },
            }),
            Err(e) => {
                let column = line.len() - line.trim_start().len() + e.column();
                errors.push(
                    FileDiagnostic::error(path, format!("invalid case: {}", strip_json_location(&e.to_string())))
                        .at(source, line_no, column.max(1))
                        .with_help("each line must be one JSON case object: {\"id\": …, \"input\": …, \"tags\": […]}"),
                );
            }
        }
    }
}

/// `serde_json` appends ` at line L column C`.
pub(crate) fn strip_json_location(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(i) if message[i..].contains(" column ") => &message[..i],
        _ => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn includes_expand_in_place_with_origins_and_hash() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "more.jsonl",
            "{\"id\":\"c2\",\"input\":\"x\"}\n\n{\"id\":\"c3\",\"input\":\"y\",\"tags\":[\"smoke\"]}\n",
        );
        let p = write(
            dir.path(),
            "suite.yaml",
            "suite: s\nspec_version: \"1\"\ncases:\n  - id: c1\n    input: hi\n  - include: more.jsonl\n",
        );
        let s = load_suite(&p).unwrap();
        let ids: Vec<_> = s
            .cases
            .iter()
            .map(|c| c.entry.id.as_ref().unwrap().value.clone())
            .collect();
        assert_eq!(ids, ["c1", "c2", "c3"]);
        assert_eq!(
            s.cases[0].origin,
            Origin {
                include: None,
                line: 4,
                column: 9
            }
        );
        assert_eq!(
            s.cases[2].origin,
            Origin {
                include: Some(0),
                line: 3,
                column: 1
            }
        );
        assert!(s.hash.starts_with("sha256:"));
        // The hash covers the included file.
        write(
            dir.path(),
            "more.jsonl",
            "{\"id\":\"c2\",\"input\":\"changed\"}\n",
        );
        assert_ne!(load_suite(&p).unwrap().hash, s.hash);
    }

    #[test]
    fn bad_jsonl_line_reports_its_line() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "c.jsonl",
            "{\"id\":\"a\"}\n{\"id\": \"b\", oops}\n",
        );
        let p = write(
            dir.path(),
            "suite.yaml",
            "suite: s\nspec_version: \"1\"\ncases:\n  - include: c.jsonl\n",
        );
        let SpecError::Invalid { diagnostics, .. } = load_suite(&p).unwrap_err() else {
            panic!()
        };
        assert_eq!(diagnostics.len(), 1);
        assert!(
            diagnostics[0].location().ends_with("c.jsonl:2:13"),
            "{}",
            diagnostics[0].location()
        );
    }

    #[test]
    fn unknown_key_is_located_with_hint() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "suite.yaml",
            "suite: s\nspec_version: \"1\"\ncheckpointz: []\n",
        );
        let SpecError::Invalid { diagnostics, .. } = load_suite(&p).unwrap_err() else {
            panic!()
        };
        assert!(
            diagnostics[0]
                .message
                .starts_with("unknown field `checkpointz`"),
            "{}",
            diagnostics[0].message
        );
        assert_eq!((diagnostics[0].line, diagnostics[0].column), (3, 1));
        assert!(diagnostics[0].help.as_deref().unwrap().contains("schema"));
    }

    #[test]
    fn missing_file_is_not_found() {
        let err = load_suite(Path::new("/nonexistent/suite.yaml")).unwrap_err();
        assert!(matches!(err, SpecError::NotFound { .. }));
    }
}
