//! What a tool execution's span and result say about its outcome: ok, an
//! error status, a timeout, or an "ok" status with a result that is really an
//! error. Retry unrolling, the rules scorer and the tool-use metrics all read
//! outcomes through this one function so they never disagree.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::model::Node;

/// The outcome of one EXEC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecOutcome {
    /// The span is not an error and the result does not look like one.
    Ok,
    /// The span's status is `error`.
    Error { message: String },
    /// The span failed with a timeout (status message, `error.type` or result).
    Timeout { message: String },
    /// The span did not fail but its result is an error report
    /// (`Error: …` text, an `"error"` key, `isError: true`, …).
    ErrorResult { message: String },
}

impl ExecOutcome {
    pub fn is_failure(&self) -> bool {
        !matches!(self, Self::Ok)
    }

    pub fn message(&self) -> Option<&str> {
        match self {
            Self::Ok => None,
            Self::Error { message } | Self::Timeout { message } | Self::ErrorResult { message } => {
                Some(message)
            }
        }
    }
}

static TIMEOUT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:timed?[\s_-]?out|deadline[\s_-]exceeded)").ok());

static ERROR_TEXT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:[a-z_.]*(?:error|exception)\s*:|traceback \(most recent call last\))")
        .ok()
});

fn is_timeout(text: &str) -> bool {
    TIMEOUT.as_ref().is_some_and(|re| re.is_match(text))
}

/// Classify an EXEC node (any node works: only `error`, `error_type` and `output` are read).
pub fn exec_outcome(node: &Node) -> ExecOutcome {
    if let Some(message) = &node.error {
        let timed_out = is_timeout(message) || node.error_type.as_deref().is_some_and(is_timeout);
        let message = if message.is_empty() {
            node.error_type
                .clone()
                .unwrap_or_else(|| "the span's status is error".to_owned())
        } else {
            message.clone()
        };
        return if timed_out {
            ExecOutcome::Timeout { message }
        } else {
            ExecOutcome::Error { message }
        };
    }
    match node.output.as_ref().and_then(result_error) {
        Some(message) if is_timeout(&message) => ExecOutcome::Timeout { message },
        Some(message) => ExecOutcome::ErrorResult { message },
        None => ExecOutcome::Ok,
    }
}

/// The error a tool result reports, if it reports one.
///
/// Recognised: text starting `Error:`, `SomethingError:`, `Exception:` or a
/// Python traceback; a JSON object (or text holding one) with a non-empty
/// `error`/`errors` key, `isError: true` (MCP), `status` of
/// `error`/`failed`/`failure`, or `success: false` / `ok: false`.
pub fn result_error(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => {
            let trimmed = text.trim_start();
            if trimmed.starts_with('{')
                && let Ok(parsed @ Value::Object(_)) = serde_json::from_str::<Value>(trimmed)
            {
                return result_error(&parsed);
            }
            ERROR_TEXT
                .as_ref()
                .is_some_and(|re| re.is_match(trimmed))
                .then(|| first_line(trimmed))
        }
        Value::Object(map) => {
            for (key, v) in map {
                let key = key.to_ascii_lowercase();
                let truthy = match v {
                    Value::Null | Value::Bool(false) => false,
                    Value::String(s) => !s.trim().is_empty(),
                    Value::Array(a) => !a.is_empty(),
                    Value::Object(o) => !o.is_empty(),
                    Value::Bool(true) | Value::Number(_) => true,
                };
                let found = match key.as_str() {
                    "error" | "errors" => truthy,
                    "iserror" | "is_error" => v == &Value::Bool(true),
                    "status" => v.as_str().is_some_and(|s| {
                        matches!(
                            s.to_ascii_lowercase().as_str(),
                            "error" | "failed" | "failure"
                        )
                    }),
                    "success" | "ok" => v == &Value::Bool(false),
                    _ => false,
                };
                if found {
                    return Some(first_line(&render(
                        map.get("error").or(map.get("message")).unwrap_or(value),
                    )));
                }
            }
            None
        }
        _ => None,
    }
}

fn render(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The first line, at most 200 characters.
fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() > 200 {
        let cut: String = line.chars().take(200).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::spec::model::StepType;

    fn exec(output: Value) -> Node {
        let mut n = Node::new(StepType::Exec, "t");
        n.output = Some(output);
        n
    }

    #[test]
    fn error_texts_and_error_objects_are_recognised() {
        assert_eq!(
            result_error(&json!("Error: user not found")).as_deref(),
            Some("Error: user not found")
        );
        assert_eq!(
            result_error(&json!("KeyError: 'x'\nmore")).as_deref(),
            Some("KeyError: 'x'")
        );
        assert!(result_error(&json!("Traceback (most recent call last):\n  File")).is_some());
        assert_eq!(
            result_error(&json!({"error": "bad id"})).as_deref(),
            Some("bad id")
        );
        assert_eq!(
            result_error(&json!("{\"error\": {\"code\": 4}}")).as_deref(),
            Some("{\"code\":4}")
        );
        assert!(result_error(&json!({"isError": true, "content": []})).is_some());
        assert!(result_error(&json!({"status": "FAILED"})).is_some());
        assert!(result_error(&json!({"success": false})).is_some());
    }

    #[test]
    fn ordinary_results_are_not_errors() {
        assert_eq!(
            result_error(&json!("{\"name\": \"Mia\", \"error\": null}")),
            None
        );
        assert_eq!(result_error(&json!({"errors": [], "ok": true})), None);
        assert_eq!(result_error(&json!("The error rate is 2%")), None);
        assert_eq!(result_error(&json!(42)), None);
    }

    #[test]
    fn span_status_wins_and_timeouts_are_told_apart() {
        let mut n = exec(json!("fine"));
        assert_eq!(exec_outcome(&n), ExecOutcome::Ok);
        n.error = Some("request timed out after 30s".into());
        assert!(matches!(exec_outcome(&n), ExecOutcome::Timeout { .. }));
        n.error = Some(String::new());
        n.error_type = Some("TimeoutError".into());
        assert!(matches!(exec_outcome(&n), ExecOutcome::Timeout { .. }));
        n.error_type = None;
        assert_eq!(
            exec_outcome(&n),
            ExecOutcome::Error {
                message: "the span's status is error".into()
            }
        );
        let n = exec(json!("Error: deadline exceeded"));
        assert!(matches!(exec_outcome(&n), ExecOutcome::Timeout { .. }));
        let n = exec(json!("Error: no such flight"));
        assert!(matches!(exec_outcome(&n), ExecOutcome::ErrorResult { .. }));
    }
}
