//! A suite with a drafted rubric's checkpoints appended (`rubric generate`
//! checks that its draft lints clean this way; `rubric verify` judges the
//! drafted checkpoints this way). The suite file on disk is never changed:
//! the merged spec is written to a hidden temporary file next to it (so
//! `include:`, `traces:` and `evidence:` resolve as they do for the suite),
//! loaded and validated like any suite, and removed.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::SpecError;
use super::discover::{Checked, load_checked};
use crate::diagnostic::{FileDiagnostic, named_source};

/// A draft file as `rubric generate` writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DraftFile {
    suite: String,
    drafted_by: String,
    checkpoints: Vec<Value>,
}

/// Removes the temporary file however the load ends.
struct Remove(PathBuf);

impl Drop for Remove {
    fn drop(&mut self) {
        let _ignored = std::fs::remove_file(&self.0);
    }
}

/// Read a draft file: its suite name, who drafted it, and its checkpoints.
pub(crate) fn read_draft(path: &Path) -> Result<(String, String, Vec<Value>), SpecError> {
    let text = std::fs::read_to_string(path).map_err(|source| SpecError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_text(path, &text)
}

pub(crate) fn parse_text(
    path: &Path,
    text: &str,
) -> Result<(String, String, Vec<Value>), SpecError> {
    let source = named_source(path, text.to_owned());
    let draft: DraftFile =
        serde_saphyr::from_str_with_options(source.inner(), super::load::yaml_options()).map_err(
            |e| {
                SpecError::invalid(
                    path,
                    vec![super::load::yaml_error(path, &source, &e).with_help(
                        "a draft is `suite`, `drafted_by` and `checkpoints`, as `agenteval-gate rubric generate` writes it",
                    )],
                )
            },
        )?;
    Ok((draft.suite, draft.drafted_by, draft.checkpoints))
}

/// The suite at `suite_path` with `checkpoints` (suite-file checkpoint
/// objects) appended, loaded and validated. Errors are the suite's own
/// errors, or the drafted items' (reported against `draft_path`).
pub(crate) fn with_checkpoints(
    suite_path: &Path,
    draft_path: &Path,
    checkpoints: &[Value],
) -> Result<Checked, SpecError> {
    let text = std::fs::read_to_string(suite_path).map_err(|source| SpecError::Io {
        path: suite_path.to_path_buf(),
        source,
    })?;
    let mut spec: Value = serde_saphyr::from_str_with_options(&text, super::load::yaml_options())
        .map_err(|e| {
        let source = named_source(suite_path, text.clone());
        SpecError::invalid(
            suite_path,
            vec![super::load::yaml_error(suite_path, &source, &e)],
        )
    })?;
    let Some(map) = spec.as_object_mut() else {
        return Err(SpecError::invalid(
            suite_path,
            vec![FileDiagnostic::error(
                suite_path,
                "the suite file is not a mapping".to_owned(),
            )],
        ));
    };
    let list = map
        .entry("checkpoints")
        .or_insert_with(|| Value::Array(Vec::new()));
    let Some(list) = list.as_array_mut() else {
        return Err(SpecError::invalid(
            suite_path,
            vec![FileDiagnostic::error(
                suite_path,
                "`checkpoints` is not a list".to_owned(),
            )],
        ));
    };
    list.extend(checkpoints.iter().cloned());
    let dir = suite_path.parent().unwrap_or_else(|| Path::new("."));
    let temp = dir.join(format!(
        ".agenteval-draft-check-{}.yaml",
        std::process::id()
    ));
    // JSON is YAML: the merged spec goes through the suite loader unchanged.
    let body = serde_json::to_string_pretty(&spec).map_err(|e| SpecError::Io {
        path: temp.clone(),
        source: std::io::Error::other(e),
    })?;
    // `create_new` (O_EXCL): a link committed at the temp name is not
    // followed (issue 25).
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut f| std::io::Write::write_all(&mut f, body.as_bytes()))
        .map_err(|source| SpecError::Io {
            path: temp.clone(),
            source,
        })?;
    let _remove = Remove(temp.clone());
    load_checked(&temp).map_err(|e| match e {
        SpecError::Invalid { diagnostics, .. } => SpecError::invalid(
            draft_path,
            diagnostics
                .into_iter()
                .map(|d| {
                    FileDiagnostic::error(
                        draft_path,
                        format!("with the drafted checkpoints appended, the suite does not lint: {}", d.message),
                    )
                    .with_help("fix the drafted item in the draft file (or drop it), then run `rubric verify` again")
                })
                .collect(),
        ),
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draft_file_needs_its_three_keys() {
        let p = Path::new("draft.yaml");
        let ok = "suite: s\ndrafted_by: \"judge:x/y\"\ncheckpoints:\n  - {id: R3-01, tier: 3}\n";
        let (suite, by, cps) = parse_text(p, ok).unwrap();
        assert_eq!(
            (suite.as_str(), by.as_str(), cps.len()),
            ("s", "judge:x/y", 1)
        );
        assert!(parse_text(p, "suite: s\ncheckpoints: []\n").is_err());
        assert!(parse_text(p, "suite: s\ndrafted_by: x\ncheckpoints: []\nextra: 1\n").is_err());
    }
}
