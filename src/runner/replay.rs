//! Replay mode: find each case's recorded trace and evidence.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::diagnostic::{FileDiagnostic, named_source};
use crate::eval::case::TraceOutcome;
use crate::model::run::{CaseError, CaseStatus, TraceInfo};
use crate::runner::RunnerError;
use crate::runner::settings::EvidenceOverride;
use crate::spec::suite::{Case, Suite};
use crate::trace::TraceError;

/// Trace file extensions tried, in order.
pub(crate) const TRACE_EXTENSIONS: [&str; 3] = ["json", "jsonl", "traj"];

/// The `trial-<i>/` directories of a recording, in the order of `i` (empty when it has none
/// or cannot be read).
pub(crate) fn trial_dirs(root: &Path) -> Vec<(u64, PathBuf)> {
    let mut trials: Vec<(u64, PathBuf)> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let i: u64 = name.strip_prefix("trial-")?.parse().ok()?;
            Some((i, e.path()))
        })
        .collect();
    trials.sort();
    trials
}

/// Where a case's trace should be: `--traces DIR` wins, then the case's
/// `trace:`, then `<suite traces>/<id>.<ext>`.
pub(crate) fn trace_path(
    suite: &Suite,
    case: &Case,
    traces_override: Option<&Path>,
) -> (PathBuf, Vec<String>) {
    let dir = match (traces_override, &case.trace) {
        (Some(dir), _) => dir.to_path_buf(),
        (None, Some(explicit)) => return (explicit.clone(), Vec::new()),
        (None, None) => suite
            .traces_dir
            .clone()
            .unwrap_or_else(|| suite.dir.join("traces")),
    };
    let found: Vec<PathBuf> = TRACE_EXTENSIONS
        .iter()
        .map(|ext| dir.join(format!("{}.{ext}", case.id)))
        .filter(|p| p.is_file())
        .collect();
    let mut warnings = Vec::new();
    if found.len() > 1 {
        warnings.push(format!(
            "case `{}` has several trace files ({}); using `{}`",
            case.id,
            found
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            found[0].display()
        ));
    }
    let path = found
        .into_iter()
        .next()
        .unwrap_or_else(|| dir.join(format!("{}.json", case.id)));
    (path, warnings)
}

/// Read a case's trace; problems become a failed outcome, never an abort.
pub(crate) fn load_trace(path: &Path, display: &str) -> TraceOutcome {
    let failed = |status, message: String| TraceOutcome::Failed {
        status,
        error: CaseError {
            message,
            exit_code: None,
            stdout_tail: None,
            stderr_tail: None,
        },
        info: Some(TraceInfo {
            path: display.to_owned(),
            format: String::new(),
            spans: 0,
        }),
        elapsed_ms: None,
    };
    // Errors name `display` (relative), never the file's absolute path: in
    // run mode that is a random scratch directory, which would make two
    // identical `--deterministic` runs differ.
    let shown = Path::new(display);
    let bytes = match crate::fsutil::read_input(path) {
        Ok(bytes) => bytes,
        Err(crate::fsutil::InputError::NotFound(_)) => {
            return failed(
                CaseStatus::TraceMissing,
                format!("no trace file `{display}`"),
            );
        }
        Err(e) => {
            return match e.diagnostic(shown) {
                Some(d) => failed(CaseStatus::ParseError, describe(&TraceError::invalid(d))),
                None => failed(
                    CaseStatus::TraceMissing,
                    format!("cannot read trace `{display}`: {e}"),
                ),
            };
        }
    };
    match crate::trace::parse_trace(&bytes, shown) {
        Ok(trace) => {
            let info = TraceInfo {
                path: display.to_owned(),
                format: trace.format.to_string(),
                spans: trace.spans.len(),
            };
            if trace.spans.is_empty() {
                return failed(
                    CaseStatus::TraceMissing,
                    format!("trace `{display}` has no spans"),
                );
            }
            TraceOutcome::Loaded {
                trace: Box::new(trace),
                info,
            }
        }
        Err(TraceError::Empty { .. }) => failed(
            CaseStatus::TraceMissing,
            format!("trace `{display}` is empty"),
        ),
        Err(e @ TraceError::Io { .. }) => failed(CaseStatus::TraceMissing, e.to_string()),
        Err(e) => failed(CaseStatus::ParseError, describe(&e)),
    }
}

/// One line: the located message and its hint.
fn describe(e: &TraceError) -> String {
    match e {
        TraceError::Invalid(d) | TraceError::UnknownFormat(d) if d.help.is_some() => {
            format!(
                "{} (hint: {})",
                e.one_line(),
                d.help.as_deref().unwrap_or_default()
            )
        }
        other => other.one_line(),
    }
}

/// The case's evidence (`--evidence DIR|none` wins over the case's `evidence:`
/// and the suite's directory): `None` when there is no file. A file that is not
/// valid JSON is an error (exit 65): a verdict is never reached on broken data.
pub(crate) fn load_evidence(
    suite: &Suite,
    case: &Case,
    evidence: Option<&EvidenceOverride>,
) -> Result<Option<Value>, RunnerError> {
    let path = match (evidence, &case.evidence, &suite.evidence_dir) {
        (Some(EvidenceOverride::Disabled), _, _) | (None, None, None) => return Ok(None),
        (None, Some(p), _) => p.clone(),
        (Some(EvidenceOverride::Dir(dir)), _, _) | (None, None, Some(dir)) => {
            dir.join(format!("{}.json", case.id))
        }
    };
    load_evidence_file(&path)
}

/// The evidence file at `path`: `None` when there is none, an error when it is not JSON.
pub(crate) fn load_evidence_file(path: &Path) -> Result<Option<Value>, RunnerError> {
    let path = path.to_path_buf();
    let text = match crate::fsutil::read_input_text(&path) {
        Ok(t) => t,
        Err(crate::fsutil::InputError::NotFound(_)) => return Ok(None),
        Err(e) => {
            return Err(match e.diagnostic(&path) {
                Some(d) => RunnerError::Evidence(Box::new(d)),
                None => RunnerError::Io {
                    action: "read evidence",
                    path,
                    source: e.into_io(),
                },
            });
        }
    };
    serde_json::from_str(&text).map(Some).map_err(|e| {
        let message = format!(
            "invalid evidence JSON: {}",
            crate::spec::load::strip_json_location(&e.to_string())
        );
        let source = named_source(&path, text);
        RunnerError::Evidence(Box::new(
            FileDiagnostic::error(&path, message)
                .at(&source, e.line(), e.column())
                .with_help(
                    "evidence files hold one JSON document per case; fix the evidence collector",
                ),
        ))
    })
}
