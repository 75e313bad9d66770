//! GitHub Actions workflow files and commands: the job summary
//! (`GITHUB_STEP_SUMMARY`), step outputs (`GITHUB_OUTPUT`) and
//! `::error`/`::warning`/`::notice` annotations.
//! <https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions>

use std::fmt;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

use crate::github::error::GitHubError;
use crate::output::escape::{workflow_data, workflow_property};

/// Append `markdown` to the job summary file, ending it with a line break so
/// a later append starts on its own line. Empty markdown writes nothing.
pub fn write_step_summary(path: &Path, markdown: &str) -> Result<(), GitHubError> {
    if markdown.is_empty() {
        return Ok(());
    }
    let mut text = markdown.to_owned();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    append(path, &text)
}

/// Append step outputs to the `GITHUB_OUTPUT` file: `name=value` for one-line
/// values, and `name<<DELIMITER` … `DELIMITER` for values with line breaks.
/// The delimiter is deterministic (no randomness) and chosen so that no line
/// of the value equals it. Every name is checked before anything is written.
pub fn write_outputs<K: AsRef<str>, V: AsRef<str>>(
    path: &Path,
    outputs: &[(K, V)],
) -> Result<(), GitHubError> {
    let mut text = String::new();
    for (key, value) in outputs {
        text.push_str(&format_output(key.as_ref(), value.as_ref())?);
    }
    append(path, &text)
}

/// One output in `GITHUB_OUTPUT` syntax, newline-terminated.
pub fn format_output(key: &str, value: &str) -> Result<String, GitHubError> {
    if key.trim().is_empty() || key.contains(['=', '\n', '\r']) || key.contains("<<") {
        return Err(GitHubError::InvalidOutputKey {
            key: key.to_owned(),
        });
    }
    if !value.contains(['\n', '\r']) {
        return Ok(format!("{key}={value}\n"));
    }
    let delimiter = heredoc_delimiter(value);
    Ok(format!("{key}<<{delimiter}\n{value}\n{delimiter}\n"))
}

/// `AGENTEVAL_EOF`, or `AGENTEVAL_EOF_<n>` with the smallest `n` such that
/// no line of `value` equals it. The runner ends the value at the first line
/// equal to the delimiter, so this is exactly the collision to avoid.
fn heredoc_delimiter(value: &str) -> String {
    let lines: Vec<&str> = value
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut delimiter = "AGENTEVAL_EOF".to_owned();
    let mut n = 0u64;
    while lines.contains(&delimiter.as_str()) {
        n += 1;
        delimiter = format!("AGENTEVAL_EOF_{n}");
    }
    delimiter
}

fn append(path: &Path, text: &str) -> Result<(), GitHubError> {
    let io_err = |source| GitHubError::Io {
        action: "append to",
        path: path.to_path_buf(),
        source,
    };
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io_err)?;
    file.write_all(text.as_bytes()).map_err(io_err)
}

/// Severity of an annotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnnotationLevel {
    Error,
    Warning,
    Notice,
}

impl fmt::Display for AnnotationLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Notice => "notice",
        })
    }
}

/// A workflow command such as `::error file=suite.yaml,title=Regression::compliance fell`.
/// Properties escape `%`, CR, LF, `:` and `,`; the message escapes `%`, CR
/// and LF. An empty title is left out.
pub fn annotation(
    level: AnnotationLevel,
    title: &str,
    message: &str,
    file: Option<&str>,
) -> String {
    located_annotation(level, title, message, file, None)
}

/// [`annotation`] at a 1-based `(line, column)` of `file` (a 0 is left out), so GitHub shows
/// it on that line of the pull request's diff.
pub fn located_annotation(
    level: AnnotationLevel,
    title: &str,
    message: &str,
    file: Option<&str>,
    at: Option<(usize, usize)>,
) -> String {
    let mut props = Vec::new();
    if let Some(file) = file.filter(|f| !f.is_empty()) {
        props.push(format!("file={}", workflow_property(file)));
        if let Some((line, column)) = at.filter(|(line, _)| *line > 0) {
            props.push(format!("line={line}"));
            if column > 0 {
                props.push(format!("col={column}"));
            }
        }
    }
    if !title.is_empty() {
        props.push(format!("title={}", workflow_property(title)));
    }
    let props = if props.is_empty() {
        String::new()
    } else {
        format!(" {}", props.join(","))
    };
    format!("::{level}{props}::{}", workflow_data(message))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model of how the Linux runner reads `GITHUB_OUTPUT` (actions/runner
    /// `FileCommandManager.cs`): lines end at LF; a line is `k=v` when its
    /// first `=` comes before any `<<`, else `k<<D` and the value runs to the
    /// first line equal to `D`.
    fn runner_parse(text: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut lines = text.split('\n');
        while let Some(line) = lines.next() {
            if line.is_empty() {
                continue;
            }
            let eq = line.find('=');
            let heredoc = line.find("<<");
            match (eq, heredoc) {
                (Some(e), h) if h.is_none_or(|h| e < h) => {
                    out.push((line[..e].to_owned(), line[e + 1..].to_owned()));
                }
                (_, Some(h)) => {
                    let delimiter = &line[h + 2..];
                    let mut value = Vec::new();
                    for l in lines.by_ref() {
                        if l == delimiter {
                            break;
                        }
                        value.push(l);
                    }
                    out.push((line[..h].to_owned(), value.join("\n")));
                }
                _ => panic!("invalid line {line:?}"),
            }
        }
        out
    }

    #[test]
    fn outputs_round_trip_through_the_runner_format() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("output");
        std::fs::write(&path, "earlier=1\n").unwrap();
        let tricky = "line one\nAGENTEVAL_EOF\nAGENTEVAL_EOF_1\nx=<<y\n";
        let outputs = [
            ("verdict", "fail"),
            ("summary", "a = b << c"),
            ("report", tricky),
            ("empty", ""),
            ("crlf", "a\r\nb"),
        ];
        write_outputs(&path, &outputs).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("report<<AGENTEVAL_EOF_2\n"), "{text}");
        let parsed = runner_parse(&text);
        let expected: Vec<(String, String)> = std::iter::once(("earlier", "1"))
            .chain(outputs.iter().copied())
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        assert_eq!(parsed, expected);
    }

    #[test]
    fn bad_output_names_write_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("output");
        for key in ["", "a=b", "a<<b", "a\nb"] {
            let err = write_outputs(&path, &[("ok", "1"), (key, "v")]).unwrap_err();
            assert!(
                matches!(err, GitHubError::InvalidOutputKey { .. }),
                "{key:?}: {err}"
            );
        }
        assert!(!path.exists());
    }

    #[test]
    fn summary_appends_with_line_breaks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.md");
        write_step_summary(&path, "# One").unwrap();
        write_step_summary(&path, "## Two\n").unwrap();
        write_step_summary(&path, "").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "# One\n## Two\n");
        let missing = dir.path().join("no/such/dir/summary.md");
        let err = write_step_summary(&missing, "x").unwrap_err();
        assert!(err.to_string().starts_with("cannot append to `"), "{err}");
    }

    #[test]
    fn located_annotations_name_the_line_and_column() {
        assert_eq!(
            located_annotation(
                AnnotationLevel::Error,
                "lint",
                "bad",
                Some("suites/a,b/suite.yaml"),
                Some((12, 3))
            ),
            "::error file=suites/a%2Cb/suite.yaml,line=12,col=3,title=lint::bad"
        );
        assert_eq!(
            located_annotation(AnnotationLevel::Warning, "", "w", Some("f"), Some((0, 4))),
            "::warning file=f::w"
        );
    }

    #[test]
    fn annotations_escape_data_and_properties() {
        assert_eq!(
            annotation(
                AnnotationLevel::Error,
                "Regression: compliance, -4%",
                "100% → 96%\nsee report\r",
                Some("suites/a,b/suite.yaml")
            ),
            "::error file=suites/a%2Cb/suite.yaml,title=Regression%3A compliance%2C -4%25::100%25 → 96%25%0Asee report%0D"
        );
        assert_eq!(
            annotation(AnnotationLevel::Warning, "", "a:b,c", None),
            "::warning::a:b,c"
        );
        assert_eq!(
            annotation(AnnotationLevel::Notice, "T", "m", Some("")),
            "::notice title=T::m"
        );
    }
}
