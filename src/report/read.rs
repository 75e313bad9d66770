//! Reading saved reports (`report FILE`, `baseline update --from-report`,
//! `merge`, `comment --report`).

use std::path::Path;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::diagnostic::FileDiagnostic;
use crate::model::compare::{COMPARE_REPORT_SCHEMA_VERSION, CompareReport};
use crate::model::run::{RUN_REPORT_SCHEMA_VERSION, RunReport};
use crate::report::ReportError;
use crate::spec::load::strip_json_location;

/// What kind of report a JSON file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReportKind {
    Run,
    Compare,
}

/// Read `path` as JSON of type `T` with located errors.
pub(crate) fn read_json<T: DeserializeOwned>(
    path: &Path,
    what: &str,
) -> Result<(T, serde_json::Value), ReportError> {
    let text = read_text(path)?;
    let located = |e: &serde_json::Error, text: &str| {
        ReportError::Invalid(Box::new(
            FileDiagnostic::error(
                path,
                format!("invalid {what}: {}", strip_json_location(&e.to_string())),
            )
            .at_bytes(
                &path.display().to_string(),
                text.as_bytes(),
                e.line(),
                e.column(),
            )
            .with_help(format!(
                "pass a {what} written by agenteval-gate (`--out FILE`)"
            )),
        ))
    };
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| located(&e, &text))?;
    let typed = T::deserialize(&value).map_err(|e| {
        ReportError::Invalid(Box::new(
            FileDiagnostic::error(path, format!("invalid {what}: {e}")).with_help(format!(
                "pass a {what} written by agenteval-gate (`--out FILE`)"
            )),
        ))
    })?;
    Ok((typed, value))
}

/// The report's text: a regular file within the size cap, UTF-8 (a bad
/// byte is a located error, exit 65).
fn read_text(path: &Path) -> Result<String, ReportError> {
    crate::fsutil::read_input_text(path).map_err(|e| match e.diagnostic(path) {
        Some(d) => ReportError::Invalid(Box::new(d)),
        None => ReportError::Io {
            path: path.to_path_buf(),
            source: e.into_io(),
        },
    })
}

/// Sniff the kind of a parsed report.
pub(crate) fn kind_of(value: &serde_json::Value) -> Option<ReportKind> {
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

/// Read a compare report (`compare --out F`): a run report or any other
/// JSON is rejected with a message naming what the file is, and a report
/// of another `schema_version` is rejected before its fields are checked.
pub fn read_compare_report(path: &Path) -> Result<CompareReport, ReportError> {
    let (value, _) = read_json::<serde_json::Value>(path, "compare report")?;
    let wrong_kind = |what: &str| {
        ReportError::Invalid(Box::new(
            FileDiagnostic::error(path, format!("{what}, not a compare report"))
                .with_help("pass the JSON file written by `agenteval-gate compare --out FILE`"),
        ))
    };
    match kind_of(&value) {
        Some(ReportKind::Compare) => {}
        Some(ReportKind::Run) => return Err(wrong_kind("this is a run report")),
        None => return Err(wrong_kind("this is not an agenteval-gate report")),
    }
    if let Some(found) = value
        .get("schema_version")
        .and_then(serde_json::Value::as_u64)
        && found != u64::from(COMPARE_REPORT_SCHEMA_VERSION)
    {
        return Err(ReportError::SchemaVersion {
            path: path.to_path_buf(),
            found: u32::try_from(found).unwrap_or(u32::MAX),
            expected: COMPARE_REPORT_SCHEMA_VERSION,
        });
    }
    CompareReport::deserialize(&value).map_err(|e| {
        ReportError::Invalid(Box::new(
            FileDiagnostic::error(path, format!("invalid compare report: {e}"))
                .with_help("pass the JSON file written by `agenteval-gate compare --out FILE`"),
        ))
    })
}

/// Check `schema_version` first, so an old report gets the right message
/// rather than a missing-field error.
fn check_version(path: &Path) -> Result<(), ReportError> {
    let text = read_text(path)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<CompareReport, ReportError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.json");
        std::fs::write(&path, text).unwrap();
        read_compare_report(&path)
    }

    #[test]
    fn compare_reader_names_what_it_got() {
        let run = read(r#"{"schema_version": 1, "cases": [], "aggregate": {}}"#).unwrap_err();
        assert!(
            run.to_string()
                .contains("this is a run report, not a compare report"),
            "{run}"
        );
        let other = read("[1, 2]").unwrap_err();
        assert!(
            other.to_string().contains("not an agenteval-gate report"),
            "{other}"
        );
        let newer = read(r#"{"schema_version": 9, "verdict": "pass", "metrics": []}"#).unwrap_err();
        assert!(
            matches!(
                newer,
                ReportError::SchemaVersion {
                    found: 9,
                    expected: COMPARE_REPORT_SCHEMA_VERSION,
                    ..
                }
            ),
            "{newer:?}"
        );
        let partial =
            read(r#"{"schema_version": 2, "verdict": "pass", "metrics": []}"#).unwrap_err();
        assert!(
            partial
                .to_string()
                .contains("invalid compare report: missing field `tool_version`"),
            "{partial}"
        );
        assert_eq!(partial.exit_code(), crate::exit_code::ExitCode::DataError);
        let broken = read("{\n  \"verdict\": \n").unwrap_err();
        assert!(matches!(broken, ReportError::Invalid(_)), "{broken:?}");
    }
}
