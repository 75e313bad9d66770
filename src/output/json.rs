//! JSON output: pretty, stable key order (structs and `BTreeMap`s), trailing newline.
//! A `##[` inside a string is written `#\u0023[` (the same JSON value), so
//! no line of a JSON report is a legacy workflow command when printed in CI;
//! a pretty-printed line can never start with `::`.

use serde::Serialize;

/// Serialize `value` as pretty JSON with a trailing newline.
pub fn to_json<T: Serialize>(value: &T) -> String {
    // Serializing our own report types cannot fail: every map key is a string.
    let mut s =
        serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    if s.contains("##[") {
        // `#` only occurs inside strings in JSON: this changes no value.
        s = s.replace("##[", "#\\u0023[");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_workflow_commands_are_escaped_without_changing_the_value() {
        let v = serde_json::json!({"name": "x ##[error]forged"});
        let s = to_json(&v);
        assert!(!s.contains("##["), "{s}");
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }
}
