//! JSON output: pretty, stable key order (structs and `BTreeMap`s), trailing newline.

use serde::Serialize;

/// Serialize `value` as pretty JSON with a trailing newline.
pub fn to_json<T: Serialize>(value: &T) -> String {
    // Serializing our own report types cannot fail: every map key is a string.
    let mut s =
        serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}
