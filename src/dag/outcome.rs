//! What a tool execution's span and result say about its outcome: ok, an
//! error status, a timeout, or an "ok" status with a result that is really an
//! error. Retry unrolling, the rules scorer and the tool-use metrics all read
//! outcomes through this one function so they never disagree.
//!
//! [`failure_origin`] then tells whether a failed execution failed on its
//! input — code that raised, a non-zero exit, arguments the tool rejected, an
//! id it could not find — or on the infrastructure: a timeout, a 5xx, a rate
//! limit, a dropped connection, missing credentials. Root-cause attribution
//! charges the first kind to the step that produced the input.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::model::Node;
use crate::trace::SharedValue;

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
    if let Some(message) = node.error() {
        let timed_out = is_timeout(message) || node.error_type().is_some_and(is_timeout);
        let message = if message.is_empty() {
            node.error_type()
                .unwrap_or("the span's status is error")
                .to_owned()
        } else {
            message.to_string()
        };
        return if timed_out {
            ExecOutcome::Timeout { message }
        } else {
            ExecOutcome::Error { message }
        };
    }
    match node.output.as_ref().and_then(shared_result_error) {
        Some(message) if is_timeout(&message) => ExecOutcome::Timeout { message },
        Some(message) => ExecOutcome::ErrorResult { message },
        None => ExecOutcome::Ok,
    }
}

/// Why an execution failed, as far as its own record says.
///
/// Failing tests reported by a test run are [`FailureOrigin::Unknown`]: the
/// code under test was written by earlier steps, which the rules cannot
/// single out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureOrigin {
    /// The input was at fault: a code error (traceback, exception, non-zero
    /// exit), a schema-invalid or rejected argument, an id not found.
    Input,
    /// The infrastructure was: a timeout, a 5xx, a rate limit, a network
    /// failure, an authentication failure.
    Infrastructure,
    /// An error the rules cannot place; it stays on the execution.
    Unknown,
}

static INFRASTRUCTURE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?ix)
        \b(?:http|status|error|code)[\s:=]*5\d\d\b | \b5\d\d\s+(?:internal|service|bad|gateway|server)
        | internal\s+server\s+error | service\s+unavailable | bad\s+gateway | gateway\s+time
        | temporarily\s+unavailable | overloaded
        | rate[\s_-]?limit | too\s+many\s+requests | \b429\b | quota\s+exceeded
        | connection\s*(?:error|refused|reset|aborted|closed|timed) | connecttimeout | readtimeout
        | network\s+is\s+unreachable | name\s+or\s+service\s+not\s+known | temporary\s+failure\s+in\s+name
        | \b(?:http|status|error|code)[\s:=]*40[13]\b | unauthori[sz]ed | forbidden | invalid\s+api\s+key | api\s+key\s+(?:is\s+)?(?:missing|not\s+set)
        | out\s+of\s+memory | memoryerror | exit\s*code:?\s*(?:124|137|143)\b | exitcode:\s*(?:124|137|143)\b",
    )
    .ok()
});

static INPUT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?ix)
        traceback\s+\(most\s+recent\s+call\s+last\) | \b[a-z_][\w.]*(?:error|exception)\s*: 
        | exit\s*code:?\s*[1-9] | exitcode:\s*[1-9] | exited\s+with\s+(?:code|status)\s+[1-9]
        | no\s+code\s+block | not\s+found | no\s+such | does\s+not\s+exist | doesn't\s+exist | not\s+defined
        | \binvalid\b | \bunknown\b | missing\s+required | required\s+(?:argument|parameter|field) | bad\s+request
        | \b(?:http|status|error|code)[\s:=]*4(?:00|04|22)\b | \b(?:400|404|422)\s+(?:bad|not|unprocessable) | syntax\s+error | unexpected\s+(?:token|argument|keyword)",
    )
    .ok()
});

/// A test run reporting failing tests: a finding about the code under test,
/// which earlier steps wrote, not about the call's own arguments.
static TEST_FAILURES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\btests?\s+failed\b|\b\d+\s+(?:tests?\s+)?failed\b|\bfailed\s+tests?\b").ok()
});

/// Where a failed execution's failure comes from; `None` when it did not fail.
/// A timeout and an infrastructure message win over input signs (a
/// traceback that ends in a `ConnectionError` is the network's fault).
pub fn failure_origin(node: &Node) -> Option<FailureOrigin> {
    let outcome = exec_outcome(node);
    let message = outcome.message()?.to_owned();
    if matches!(outcome, ExecOutcome::Timeout { .. }) {
        return Some(FailureOrigin::Infrastructure);
    }
    let mut text = message;
    if let Some(t) = node.error_type() {
        text.push('\n');
        text.push_str(t);
    }
    if let Some(out) = &node.output {
        let rendered = out.to_text();
        // The head and the tail of the result: where an error's kind is said.
        let chars: Vec<char> = rendered.chars().collect();
        let head: String = chars.iter().take(600).collect();
        let tail: String = chars.iter().skip(chars.len().saturating_sub(600)).collect();
        text.push('\n');
        text.push_str(&head);
        text.push('\n');
        text.push_str(&tail);
    }
    let hits = |re: &LazyLock<Option<Regex>>| re.as_ref().is_some_and(|re| re.is_match(&text));
    Some(if hits(&INFRASTRUCTURE) {
        FailureOrigin::Infrastructure
    } else if hits(&TEST_FAILURES) {
        FailureOrigin::Unknown
    } else if hits(&INPUT) {
        FailureOrigin::Input
    } else {
        FailureOrigin::Unknown
    })
}

/// [`result_error`] of a shared value: an object is decoded only when it
/// reports an error (most results have no key the check reads, and of
/// those that do, such as `"status": "active"`, few report one).
pub(crate) fn shared_result_error(value: &SharedValue) -> Option<String> {
    match value.as_scalar() {
        Some(scalar) => result_error(scalar),
        None if value.is_object() => {
            let text = value.compact();
            (may_report_error(&text) && reports_error_text(&text))
                .then(|| result_error(&value.value()))?
        }
        None => None,
    }
}

/// Whether the object in canonical JSON `text` has a top-level entry that
/// reports an error ([`Check`]), reading only the values of the keys
/// checked (the rest are skipped, never decoded). Text that is not an
/// object says yes, and the full check decides.
fn reports_error_text(text: &str) -> bool {
    struct Scan;
    impl<'de> serde::de::Visitor<'de> for Scan {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let mut found = false;
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                match Check::of(&key).filter(|_| !found) {
                    Some(check) => found = check.reports(&map.next_value::<Value>()?),
                    None => {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
            }
            Ok(found)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    serde::Deserializer::deserialize_map(&mut de, Scan).unwrap_or(true)
}

/// What an entry of a result object must hold to report an error, by its
/// key (keys and statuses compare ignoring ASCII case, without a
/// lowercased copy of every key of every result).
#[derive(Clone, Copy)]
enum Check {
    /// `error`, `errors`: anything but null, false or empty.
    NonEmpty,
    /// `isError`, `is_error`: true.
    True,
    /// `status`: `error`, `failed` or `failure`.
    FailedStatus,
    /// `success`, `ok`: false.
    False,
}

impl Check {
    fn of(key: &str) -> Option<Self> {
        let is = |names: &[&str]| names.iter().any(|n| key.eq_ignore_ascii_case(n));
        if is(&["error", "errors"]) {
            Some(Self::NonEmpty)
        } else if is(&["iserror", "is_error"]) {
            Some(Self::True)
        } else if is(&["status"]) {
            Some(Self::FailedStatus)
        } else if is(&["success", "ok"]) {
            Some(Self::False)
        } else {
            None
        }
    }

    fn reports(self, v: &Value) -> bool {
        match self {
            Self::NonEmpty => match v {
                Value::Null | Value::Bool(false) => false,
                Value::String(s) => !s.trim().is_empty(),
                Value::Array(a) => !a.is_empty(),
                Value::Object(o) => !o.is_empty(),
                Value::Bool(true) | Value::Number(_) => true,
            },
            Self::True => v == &Value::Bool(true),
            Self::FailedStatus => v.as_str().is_some_and(|s| {
                ["error", "failed", "failure"]
                    .iter()
                    .any(|n| s.eq_ignore_ascii_case(n))
            }),
            Self::False => v == &Value::Bool(false),
        }
    }
}

/// Whether canonical JSON text has a key, at any depth, that
/// [`result_error`] reads on an object (ignoring ASCII case). Canonical
/// text writes keys without escapes other than for `"`, `\` and control
/// characters, none of which these keys have.
fn may_report_error(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'"', bytes).any(|at| {
        let rest = &bytes[at + 1..];
        // Most quotes start no such key: the first letter decides.
        let keys: &[&[u8]] = match rest.first().map(u8::to_ascii_lowercase) {
            Some(b'e') => &[b"error", b"errors"],
            Some(b'i') => &[b"iserror", b"is_error"],
            Some(b's') => &[b"status", b"success"],
            Some(b'o') => &[b"ok"],
            _ => return false,
        };
        keys.iter().any(|key| {
            rest.len() > key.len() + 1
                && rest[..key.len()].eq_ignore_ascii_case(key)
                && rest[key.len()..].starts_with(b"\":")
        })
    })
}

/// The error a tool result reports, if it reports one.
///
/// Recognised: text starting `Error:`, `SomethingError:`, `Exception:` or a
/// Python traceback; a JSON object (or text holding one) with a non-empty
/// `error`/`errors` key, `isError: true` (MCP), `status` of
/// `error`/`failed`/`failure`, or `success: false` / `ok: false`.
pub(crate) fn result_error(value: &Value) -> Option<String> {
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
                if Check::of(key).is_some_and(|check| check.reports(v)) {
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
        n.output = Some(output.into());
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
        // Keys and statuses in any ASCII case; other keys are not errors.
        assert!(result_error(&json!({"Is_Error": true})).is_some());
        assert!(result_error(&json!({"OK": false})).is_some());
        assert!(result_error(&json!({"ERRORS": ["x"]})).is_some());
        assert!(result_error(&json!({"Status": "Failure"})).is_some());
        assert_eq!(result_error(&json!({"Status": "ok", "errorCode": 1})), None);
    }

    #[test]
    fn the_text_filter_never_hides_an_error_the_decoded_check_finds() {
        let keys = [
            "error",
            "Errors",
            "isError",
            "IS_ERROR",
            "status",
            "Success",
            "ok",
            "okay",
            "error_code",
            "message",
            "é",
            "sta\"tus",
        ];
        let values = [
            json!(null),
            json!(true),
            json!(false),
            json!("failed"),
            json!("x"),
            json!(""),
            json!([1]),
            json!({}),
            json!(3),
        ];
        let mut errors = 0;
        for key in keys {
            for value in &values {
                for v in [
                    json!({ key: value }),
                    json!({"a": 1, key: value, "z": [{"q": value}]}),
                    json!({"outer": { key: value }}),
                    json!([{ key: value }]),
                ] {
                    let decoded = result_error(&v);
                    errors += usize::from(decoded.is_some());
                    assert_eq!(shared_result_error(&v.clone().into()), decoded, "{v}");
                }
            }
        }
        // Top-level keys only: `error`/`Errors` with 5 non-empty values,
        // `isError`/`IS_ERROR` true, `status` failed, `Success`/`ok` false,
        // each in the first two shapes: (10 + 2 + 1 + 2) × 2.
        assert_eq!(errors, 30);
        assert!(!may_report_error(r#"{"a":"error","b":1}"#));
        // The scan reads top-level values only, and only of checked keys.
        assert!(!reports_error_text(
            r#"{"invoices":[{"error":"x"}],"status":"active"}"#
        ));
        assert!(reports_error_text(r#"{"a":1,"Status":"FAILED"}"#));
        assert!(reports_error_text(r#"{"errors":[1],"ok":true}"#));
        assert!(may_report_error(r#"{"a":{"Status":"x"}}"#));
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

    fn failed(message: &str, output: &str) -> Node {
        let mut n = exec(json!(output));
        n.set_error(Some(message.into()));
        n
    }

    #[test]
    fn failures_on_the_input_are_told_from_infrastructure_failures() {
        use FailureOrigin::{Infrastructure, Input, Unknown};
        let cases = [
            (
                "exitcode: 1 (execution failed): NameError: name 'x' is not defined",
                "exitcode: 1 (execution failed)\nCode output: Traceback (most recent call last):\nNameError: name 'x' is not defined",
                Input,
            ),
            ("No code block detected in the messages.", "", Input),
            ("", "Error: user not found", Input),
            ("", "{\"error\": \"invalid reservation id\"}", Input),
            (
                "exitcode: 124 (execution failed): Timeout",
                "Timeout",
                Infrastructure,
            ),
            (
                "exitcode: 1 (execution failed): TimeoutError: [Errno 110] Connection timed out",
                "Traceback (most recent call last):\nTimeoutError: [Errno 110] Connection timed out",
                Infrastructure,
            ),
            ("503 service unavailable", "", Infrastructure),
            (
                "",
                "Error: rate limit reached, retry in 20s",
                Infrastructure,
            ),
            ("HTTP 502 Bad Gateway", "", Infrastructure),
            (
                "exitcode: 1 (execution failed): ValueError: Invalid API key provided.",
                "",
                Infrastructure,
            ),
            ("", "Error: the reservation cannot be cancelled", Unknown),
            (
                "tests failed: 1 of 72",
                "{\"exit_code\": 1, \"failures\": [\"AssertionError: expected 200, got 500\"]}",
                Unknown,
            ),
        ];
        for (message, output, want) in cases {
            let node = if message.is_empty() {
                exec(json!(output))
            } else {
                failed(message, output)
            };
            assert_eq!(failure_origin(&node), Some(want), "{message} / {output}");
        }
        assert_eq!(failure_origin(&exec(json!("fine"))), None);
    }

    #[test]
    fn span_status_wins_and_timeouts_are_told_apart() {
        let mut n = exec(json!("fine"));
        assert_eq!(exec_outcome(&n), ExecOutcome::Ok);
        n.set_error(Some("request timed out after 30s".into()));
        assert!(matches!(exec_outcome(&n), ExecOutcome::Timeout { .. }));
        n.set_error(Some("".into()));
        n.set_error_type(Some("TimeoutError".into()));
        assert!(matches!(exec_outcome(&n), ExecOutcome::Timeout { .. }));
        n.set_error_type(None);
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
