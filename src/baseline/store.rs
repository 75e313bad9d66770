//! Reading and writing baseline files. Writes are atomic (temp file +
//! rename); history is append-only and capped.

use std::path::{Path, PathBuf};

use crate::baseline::BaselineError;
use crate::baseline::model::{BASELINE_SCHEMA_VERSION, BaselineFile, HistoryLine};
use crate::diagnostic::{FileDiagnostic, named_source};
use crate::spec::load::strip_json_location;

/// Default number of history lines kept per suite.
pub const DEFAULT_HISTORY_CAP: usize = 50;

pub fn baseline_path(dir: &Path, name: &str, suite: &str) -> PathBuf {
    dir.join(name).join(format!("{suite}.json"))
}

pub fn history_path(dir: &Path, name: &str, suite: &str) -> PathBuf {
    dir.join(name).join(format!("{suite}.history.jsonl"))
}

fn invalid(path: &Path, text: String, e: &serde_json::Error, help: &str) -> BaselineError {
    let source = named_source(path, text);
    BaselineError::Invalid(Box::new(
        FileDiagnostic::error(
            path,
            format!(
                "invalid baseline file: {}",
                strip_json_location(&e.to_string())
            ),
        )
        .at(&source, e.line(), e.column())
        .with_help(help.to_owned()),
    ))
}

/// A baseline file's text; `None` when it does not exist. Not UTF-8, too
/// large or not a regular file is bad data (exit 65) with its location.
fn read_text(path: &Path) -> Result<Option<String>, BaselineError> {
    match crate::fsutil::read_input_text(path) {
        Ok(t) => Ok(Some(t)),
        Err(crate::fsutil::InputError::NotFound(_)) => Ok(None),
        Err(e) => Err(match e.diagnostic(path) {
            Some(d) => BaselineError::Invalid(Box::new(d)),
            None => BaselineError::Io {
                action: "read",
                path: path.to_path_buf(),
                source: e.into_io(),
            },
        }),
    }
}

/// Read a baseline; `Ok(None)` when it does not exist.
pub fn read_baseline(path: &Path) -> Result<Option<BaselineFile>, BaselineError> {
    let text = match read_text(path)? {
        Some(t) => t,
        None => return Ok(None),
    };
    let file: BaselineFile = serde_json::from_str(&text).map_err(|e| {
        invalid(
            path,
            text.clone(),
            &e,
            "baseline files are written by `agenteval-gate baseline update`; regenerate it",
        )
    })?;
    if file.schema_version != BASELINE_SCHEMA_VERSION {
        return Err(BaselineError::Invalid(Box::new(
            FileDiagnostic::error(
                path,
                format!(
                    "baseline schema_version {} is not {BASELINE_SCHEMA_VERSION}",
                    file.schema_version
                ),
            )
            .with_help("regenerate it with this version: `agenteval-gate baseline update`"),
        )));
    }
    Ok(Some(file))
}

/// Read the history; a missing file is an empty history. A malformed line is
/// an error at that line, never skipped.
pub fn read_history(path: &Path) -> Result<Vec<HistoryLine>, BaselineError> {
    let Some(text) = read_text(path)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let entry: HistoryLine = serde_json::from_str(line).map_err(|e| {
            let source = named_source(path, text.clone());
            BaselineError::Invalid(Box::new(
                FileDiagnostic::error(path, format!("invalid history line: {}", strip_json_location(&e.to_string())))
                    .at(&source, i + 1, e.column())
                    .with_help("each line is one JSON object written by `baseline update`; fix or delete the line"),
            ))
        })?;
        out.push(entry);
    }
    Ok(out)
}

/// Write the baseline file and append to the history (keeping the last
/// `cap` lines), both atomically.
pub fn write_baseline(
    dir: &Path,
    file: &BaselineFile,
    cap: usize,
) -> Result<(PathBuf, usize), BaselineError> {
    let name = &file.baseline.name;
    let suite = &file.baseline.suite;
    let path = baseline_path(dir, name, suite);
    let hist_path = history_path(dir, name, suite);
    let mut history = read_history(&hist_path)?;
    history.push(HistoryLine {
        updated_at: file.baseline.updated_at.clone(),
        git_sha: file.baseline.git_sha.clone(),
        git_ref: file.baseline.git_ref.clone(),
        spec_hash: file.baseline.spec_hash.clone(),
        cases: file.report.cases.len(),
        config_tags: file.baseline.config_tags.clone(),
        metrics: file.report.aggregate.metrics.clone(),
    });
    if history.len() > cap {
        history.drain(..history.len() - cap);
    }
    let mut hist_text = String::new();
    for line in &history {
        // Our own types always serialize.
        hist_text.push_str(&serde_json::to_string(line).unwrap_or_default());
        hist_text.push('\n');
    }
    let json = crate::report::render::json::to_json(file);
    crate::fsutil::write_atomic(&path, json.as_bytes()).map_err(|e| BaselineError::Io {
        action: "write",
        path: path.clone(),
        source: e,
    })?;
    crate::fsutil::write_atomic(&hist_path, hist_text.as_bytes()).map_err(|e| {
        BaselineError::Io {
            action: "write",
            path: hist_path.clone(),
            source: e,
        }
    })?;
    Ok((path, history.len()))
}

/// Baseline names under `dir` (sub-directories), sorted.
pub fn list_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(std::result::Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names
}
