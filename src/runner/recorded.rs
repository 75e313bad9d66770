//! What `lint` reads of a suite's recordings (issue 23 item 5): every case's trace, in each
//! recorded trial, parses; no trace or evidence file belongs to no case; every evidence file
//! is JSON. A replay would otherwise score a missing or broken trace as a failed case and
//! leave the user to find it in the report.
//!
//! Only what the suite points at is read: the `traces:` directory (or `traces/` beside the
//! suite when it exists), each `trial-<i>/` inside it, a case's own `trace:`, and the
//! `evidence:` directory with its `trial-<i>/`. A suite for run mode with no recordings has
//! nothing to check.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::diagnostic::FileDiagnostic;
use crate::output::{SIMILAR, closest};
use crate::runner::replay::{TRACE_EXTENSIONS, trace_path, trial_dirs};
use crate::spec::suite::Suite;
use crate::trace::TraceError;

/// Every problem with the suite's recorded traces and evidence, as errors.
pub(crate) fn check_recorded(suite: &Suite) -> Vec<FileDiagnostic> {
    let mut out = Vec::new();
    let ids: BTreeSet<&str> = suite.cases.iter().map(|c| c.id.as_str()).collect();
    let traces = suite
        .traces_dir
        .clone()
        .unwrap_or_else(|| suite.dir.join("traces"));
    if traces.is_dir() {
        for dir in layout(&traces) {
            for case in suite.cases.iter().filter(|c| c.trace.is_none()) {
                // Where replay looks: `<dir>/<id>.<ext>`, the first extension that exists.
                let (path, _) = trace_path(suite, case, Some(&dir));
                if path.is_file() {
                    out.extend(check_trace(&path));
                } else {
                    out.push(
                        FileDiagnostic::error(
                            &dir,
                            format!(
                                "case `{}` has no trace here (looked for `{}.json`, `.jsonl` and `.traj`)",
                                case.id, case.id
                            ),
                        )
                        .with_help(
                            "record the case's trace into this directory, give the case its own `trace:`, or remove the case",
                        ),
                    );
                }
            }
            out.extend(orphans(&dir, &ids, &TRACE_EXTENSIONS, "trace"));
        }
    } else if suite.traces_dir.is_some() {
        out.push(
            FileDiagnostic::error(&traces, "the suite's `traces:` directory does not exist")
                .with_help("record the traces there, or point `traces:` at where they are"),
        );
    }
    for case in &suite.cases {
        if let Some(path) = &case.trace {
            if path.is_file() {
                out.extend(check_trace(path));
            } else {
                out.push(
                    FileDiagnostic::error(
                        path,
                        format!("case `{}`: its `trace:` file does not exist", case.id),
                    )
                    .with_help(
                        "fix the path (relative to the suite's directory) or record the trace",
                    ),
                );
            }
        }
    }
    for path in suite.cases.iter().filter_map(|c| c.evidence.as_ref()) {
        if path.is_file() {
            out.extend(check_evidence(path));
        }
    }
    if let Some(evidence) = suite.evidence_dir.as_ref().filter(|d| d.is_dir()) {
        for dir in layout(evidence) {
            for path in files(&dir, &["json"]) {
                out.extend(check_evidence(&path));
            }
            out.extend(orphans(&dir, &ids, &["json"], "evidence"));
        }
    }
    out
}

/// The directories of a recording: its `trial-<i>/` directories in the order of `i` when it
/// has any, else itself.
fn layout(root: &Path) -> Vec<PathBuf> {
    let trials = trial_dirs(root);
    if trials.is_empty() {
        return vec![root.to_path_buf()];
    }
    trials.into_iter().map(|(_, p)| p).collect()
}

/// The files of `dir` with one of `extensions`, sorted.
fn files(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.contains(&e))
        })
        .collect();
    out.sort();
    out
}

/// Files of `dir` named after no case.
fn orphans(
    dir: &Path,
    ids: &BTreeSet<&str>,
    extensions: &[&str],
    what: &str,
) -> Vec<FileDiagnostic> {
    files(dir, extensions)
        .into_iter()
        .filter_map(|path| {
            let stem = path.file_stem()?.to_string_lossy().into_owned();
            if ids.contains(stem.as_str()) {
                return None;
            }
            let help = match closest(&stem, ids.iter().copied(), SIMILAR) {
                Some(id) => format!("did you mean `{id}`? a {what} file is named after its case's id"),
                None => format!(
                    "a {what} file is named after its case's id: rename it, add the case, or remove the file"
                ),
            };
            Some(
                FileDiagnostic::error(&path, format!("no case has the id `{stem}`"))
                    .with_help(help),
            )
        })
        .collect()
}

/// The trace at `path` parses, as replay reads it, and has spans.
fn check_trace(path: &Path) -> Option<FileDiagnostic> {
    let no_spans = || {
        FileDiagnostic::error(path, "the trace has no spans").with_help(
            "the agent wrote no spans; check that it flushes its exporter before exiting",
        )
    };
    match crate::trace::read_trace(path) {
        Ok(trace) if trace.spans.is_empty() => Some(no_spans()),
        Ok(_) => None,
        Err(TraceError::Invalid(d) | TraceError::UnknownFormat(d)) => Some(*d),
        Err(TraceError::Empty { .. }) => Some(no_spans()),
        Err(e @ TraceError::Io { .. }) => Some(FileDiagnostic::error(path, e.to_string())),
    }
}

/// The evidence file at `path` is one JSON document.
fn check_evidence(path: &Path) -> Option<FileDiagnostic> {
    let text = match crate::fsutil::read_input_text(path) {
        Ok(text) => text,
        Err(e) => {
            return Some(e.diagnostic(path).unwrap_or_else(|| {
                FileDiagnostic::error(path, format!("cannot read the evidence: {e}"))
            }));
        }
    };
    let e = serde_json::from_str::<serde_json::Value>(&text).err()?;
    let source = crate::diagnostic::named_source(path, text);
    Some(
        FileDiagnostic::error(
            path,
            format!(
                "evidence file is not valid JSON ({}); `run` and `compare` stop on it",
                crate::spec::load::strip_json_location(&e.to_string())
            ),
        )
        .at(&source, e.line(), e.column())
        .with_help("evidence files hold one JSON document per case; fix the evidence collector"),
    )
}
