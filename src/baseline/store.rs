//! Reading and writing baseline files (DESIGN §9).
//!
//! An update changes the pair (`<suite>.json`, `<suite>.history.jsonl`) as
//! one unit, serialised by a lock on `baselines/<name>/`:
//!
//! 1. lock the directory (`flock`; waits for a concurrent update), remove
//!    temp files a killed writer left;
//! 2. read the committed state: the baseline file and the history lines
//!    whose `update` number is at most the baseline's;
//! 3. write the history with the new line numbered `n + 1` (atomically);
//! 4. write the baseline numbered `n + 1` (atomically): the commit point.
//!
//! A kill between 3 and 4 leaves a history line numbered above the
//! baseline: every reader ignores it (via [`committed_history`]) and the
//! next update drops it. Atomic writes are temp file + fsync + rename +
//! directory fsync, so each file is always whole.

use std::path::{Path, PathBuf};

use crate::baseline::BaselineError;
use crate::baseline::model::{BASELINE_SCHEMA_VERSION, BaselineFile, HistoryLine};
use crate::baseline::name::{NameKind, check_name};
use crate::diagnostic::{FileDiagnostic, named_source};
use crate::fsutil::{AtomicFile, CappedWriter, DirLock, sweep_temp_files, write_atomic};
use crate::interrupt::{Graceful, INTERRUPTED_WARNING};
use crate::spec::load::strip_json_location;

/// Default number of history lines kept per suite (defined with the other gate limits).
pub(crate) use crate::spec::gates::DEFAULT_HISTORY_CAP;

pub(crate) fn baseline_path(dir: &Path, name: &str, suite: &str) -> PathBuf {
    dir.join(name).join(format!("{suite}.json"))
}

pub(crate) fn history_path(dir: &Path, name: &str, suite: &str) -> PathBuf {
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
    match read_text(path)? {
        Some(text) => parse_baseline(path, text).map(Some),
        None => Ok(None),
    }
}

/// Parse a baseline file's text; `path` names it in errors.
pub fn parse_baseline(path: &Path, text: String) -> Result<BaselineFile, BaselineError> {
    let file: BaselineFile = parse_json(path, text)?;
    check_schema(path, file.schema_version)?;
    Ok(file)
}

/// What an update needs of the baseline it replaces: the number of its
/// update (0 when it has none or does not exist). The report is checked to
/// be JSON, not read into memory: on a large trace it is most of the file.
///
/// The file is parsed as it is read: its text was the peak of an update on
/// a large trace, beside the new report (issue 25). A file the stream does
/// not take (missing, not a regular file, over the cap, not UTF-8, not a
/// baseline of this schema) is read again whole, which says exactly what
/// a baseline read says about it.
fn read_committed_update(path: &Path) -> Result<u64, BaselineError> {
    #[derive(serde::Deserialize)]
    struct Head {
        schema_version: u32,
        baseline: crate::baseline::model::BaselineMeta,
        #[allow(dead_code)] // required, but only as JSON
        report: serde::de::IgnoredAny,
    }
    let streamed = crate::fsutil::open_input_text(path)
        .ok()
        .and_then(|reader| serde_json::from_reader::<_, Head>(reader).ok())
        .filter(|head| head.schema_version == BASELINE_SCHEMA_VERSION);
    if let Some(head) = streamed {
        return Ok(head.baseline.update.unwrap_or(0));
    }
    let Some(text) = read_text(path)? else {
        return Ok(0);
    };
    let head: Head = parse_json(path, text)?;
    check_schema(path, head.schema_version)?;
    Ok(head.baseline.update.unwrap_or(0))
}

fn parse_json<T: serde::de::DeserializeOwned>(
    path: &Path,
    text: String,
) -> Result<T, BaselineError> {
    serde_json::from_str(&text).map_err(|e| {
        invalid(
            path,
            text,
            &e,
            "baseline files are written by `agenteval-gate baseline update`; regenerate it",
        )
    })
}

fn check_schema(path: &Path, version: u32) -> Result<(), BaselineError> {
    if version == BASELINE_SCHEMA_VERSION {
        return Ok(());
    }
    Err(BaselineError::Invalid(Box::new(
        FileDiagnostic::error(
            path,
            format!("baseline schema_version {version} is not {BASELINE_SCHEMA_VERSION}"),
        )
        .with_help("regenerate it with this version: `agenteval-gate baseline update`"),
    )))
}

/// Read the history; a missing file is an empty history. A malformed line is
/// an error at that line, never skipped. All lines, committed or not: see
/// [`committed_history`].
pub fn read_history(path: &Path) -> Result<Vec<HistoryLine>, BaselineError> {
    match read_text(path)? {
        Some(text) => parse_history(path, &text),
        None => Ok(Vec::new()),
    }
}

/// Parse a history file's text; `path` names it in errors.
pub fn parse_history(path: &Path, text: &str) -> Result<Vec<HistoryLine>, BaselineError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let entry: HistoryLine = serde_json::from_str(line).map_err(|e| {
            BaselineError::Invalid(Box::new(
                FileDiagnostic::error(path, format!("invalid history line: {}", strip_json_location(&e.to_string())))
                    .at_bytes(&path.display().to_string(), text.as_bytes(), i + 1, e.column())
                    .with_help("each line is one JSON object written by `baseline update`; fix or delete the line"),
            ))
        })?;
        out.push(entry);
    }
    Ok(out)
}

/// The history lines that belong to the committed baseline: lines of an
/// update that was killed before writing its baseline file (numbered above
/// the baseline's `update`) are left out. Unnumbered lines (written before
/// numbering existed) are always kept.
pub fn committed_history(
    history: Vec<HistoryLine>,
    baseline: Option<&BaselineFile>,
) -> Vec<HistoryLine> {
    committed_lines(
        history,
        baseline.and_then(|b| b.baseline.update).unwrap_or(0),
    )
}

/// The lines of `history` numbered at most `committed`, or not numbered.
fn committed_lines(history: Vec<HistoryLine>, committed: u64) -> Vec<HistoryLine> {
    history
        .into_iter()
        .filter(|l| l.update.is_none_or(|n| n <= committed))
        .collect()
}

/// The committed pair of `<name>/<suite>`: the baseline and its history;
/// `None` when there is no baseline file.
pub(crate) fn read_pair(
    dir: &Path,
    name: &str,
    suite: &str,
) -> Result<Option<(BaselineFile, Vec<HistoryLine>)>, BaselineError> {
    check_name(NameKind::Baseline, name)?;
    check_name(NameKind::Suite, suite)?;
    let Some(file) = read_baseline(&baseline_path(dir, name, suite))? else {
        return Ok(None);
    };
    let history = read_history(&history_path(dir, name, suite))?;
    let history = committed_history(history, Some(&file));
    Ok(Some((file, history)))
}

/// Write the baseline file and append to the history (keeping the last
/// `cap` lines) as one unit (see the module docs), numbering `file`'s
/// update. Returns the baseline's path and the number of history points.
///
/// Memory: the baseline replaced is checked but not kept (only its update
/// number), and `file` is serialized into its temp file as it is written,
/// so an update needs little beyond the report it writes.
pub(crate) fn write_baseline(
    dir: &Path,
    file: &mut BaselineFile,
    cap: usize,
) -> Result<(PathBuf, usize), BaselineError> {
    let name = &file.baseline.name;
    let suite = &file.baseline.suite;
    check_name(NameKind::Baseline, name)?;
    check_name(NameKind::Suite, suite)?;
    if file
        .report
        .warnings
        .iter()
        .any(|w| w.starts_with(INTERRUPTED_WARNING))
    {
        return Err(BaselineError::Partial {
            suite: suite.clone(),
        });
    }
    let path = baseline_path(dir, name, suite);
    let hist_path = history_path(dir, name, suite);
    let lock_dir = dir.join(name);
    let _lock = DirLock::acquire(&lock_dir).map_err(|source| BaselineError::Lock {
        path: lock_dir.clone(),
        source,
    })?;
    // SIGINT/SIGTERM now let the pair be written, then exit 130/143.
    let _graceful = Graceful::enter();
    sweep_temp_files(&lock_dir);

    let committed = read_committed_update(&path)?;
    let mut history = committed_lines(read_history(&hist_path)?, committed);
    let update = committed + 1;
    file.baseline.update = Some(update);
    history.push(HistoryLine {
        updated_at: file.baseline.updated_at.clone(),
        git_sha: file.baseline.git_sha.clone(),
        git_ref: file.baseline.git_ref.clone(),
        spec_hash: file.baseline.spec_hash.clone(),
        cases: file.report.cases.len(),
        config_tags: file.baseline.config_tags.clone(),
        metrics: file.report.aggregate.metrics.clone(),
        update: Some(update),
        case_values: Some(
            crate::model::metric::case_trial_values(&file.report.cases)
                .into_iter()
                .collect(),
        ),
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
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| BaselineError::Io {
            action: "write",
            path,
            source,
        }
    };
    // Nothing is written that `compare` could not read back: the baseline
    // goes to its temp file first, so one over the cap is refused before the
    // history changes.
    crate::fsutil::fits_read_cap(hist_text.len()).map_err(io(&hist_path))?;
    let mut out = CappedWriter::new(AtomicFile::create(&path).map_err(io(&path))?);
    crate::output::write_json(&mut out, &*file).map_err(io(&path))?;
    let out = out.finish().map_err(io(&path))?;
    write_atomic(&hist_path, hist_text.as_bytes()).map_err(io(&hist_path))?;
    // The commit point: from here on the new history line counts.
    out.commit().map_err(io(&path))?;
    Ok((path, history.len()))
}

/// Baseline names under `dir` (sub-directories with a valid name), sorted.
pub(crate) fn list_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(std::result::Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| check_name(NameKind::Baseline, n).is_ok())
        .collect();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(update: Option<u64>) -> HistoryLine {
        HistoryLine {
            case_values: None,
            updated_at: None,
            git_sha: None,
            git_ref: None,
            spec_hash: "h".into(),
            cases: 1,
            config_tags: std::collections::BTreeMap::new(),
            metrics: std::collections::BTreeMap::new(),
            update,
        }
    }

    #[test]
    fn uncommitted_history_lines_are_ignored() {
        let history = vec![line(None), line(Some(1)), line(Some(2)), line(Some(3))];
        assert_eq!(committed_history(history.clone(), None).len(), 1);
        let text = r#"{"schema_version":1,"baseline":{"name":"m","suite":"s","tool_version":"t","spec_version":"1","spec_hash":"h","config_tags":{},"update":2},"report":{}}"#;
        // Only the meta matters here; build it through serde to stay honest.
        let meta: serde_json::Value = serde_json::from_str(text).unwrap();
        let update = meta["baseline"]["update"].as_u64();
        assert_eq!(update, Some(2));
        let kept: Vec<Option<u64>> = history
            .into_iter()
            .filter(|l| l.update.is_none_or(|n| n <= 2))
            .map(|l| l.update)
            .collect();
        assert_eq!(kept, [None, Some(1), Some(2)]);
    }
}
