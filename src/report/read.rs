//! Reading saved reports (`report FILE`, `baseline update --from-report`, `merge`).

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::diagnostic::{FileDiagnostic, named_source};
use crate::report::ReportError;
use crate::report::model::{RUN_REPORT_SCHEMA_VERSION, RunReport};
use crate::spec::load::strip_json_location;

/// What kind of report a JSON file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportKind {
    Run,
    Compare,
}

/// Read `path` as JSON of type `T` with located errors.
pub fn read_json<T: DeserializeOwned>(
    path: &Path,
    what: &str,
) -> Result<(T, serde_json::Value), ReportError> {
    let text = std::fs::read_to_string(path).map_err(|e| ReportError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let located = |e: &serde_json::Error, text: String| {
        let source = named_source(path, text);
        ReportError::Invalid(Box::new(
            FileDiagnostic::error(
                path,
                format!("invalid {what}: {}", strip_json_location(&e.to_string())),
            )
            .at(&source, e.line(), e.column())
            .with_help(format!(
                "pass a {what} written by agenteval-gate (`--out FILE`)"
            )),
        ))
    };
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| located(&e, text.clone()))?;
    let typed = T::deserialize(&value).map_err(|e| {
        ReportError::Invalid(Box::new(
            FileDiagnostic::error(path, format!("invalid {what}: {e}")).with_help(format!(
                "pass a {what} written by agenteval-gate (`--out FILE`)"
            )),
        ))
    })?;
    Ok((typed, value))
}

/// Sniff the kind of a parsed report.
pub fn kind_of(value: &serde_json::Value) -> Option<ReportKind> {
    let obj = value.as_object()?;
    if obj.contains_key("verdict") && obj.contains_key("metrics") {
        Some(ReportKind::Compare)
    } else if obj.contains_key("cases") && obj.contains_key("aggregate") {
        Some(ReportKind::Run)
    } else {
        None
    }
}

/// Read a run report, checking its schema version.
pub fn read_run_report(path: &Path) -> Result<RunReport, ReportError> {
    check_version(path)?;
    read_json::<RunReport>(path, "run report").map(|(r, _)| r)
}

/// Check `schema_version` first, so an old report gets the right message
/// rather than a missing-field error.
fn check_version(path: &Path) -> Result<(), ReportError> {
    let text = std::fs::read_to_string(path).map_err(|e| ReportError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text)
        && let Some(found) = v.get("schema_version").and_then(serde_json::Value::as_u64)
        && found != u64::from(RUN_REPORT_SCHEMA_VERSION)
        && kind_of(&v) == Some(ReportKind::Run)
    {
        return Err(ReportError::SchemaVersion {
            path: path.to_path_buf(),
            found: found as u32,
            expected: RUN_REPORT_SCHEMA_VERSION,
        });
    }
    Ok(())
}
