//! JSON comparisons used by assertions: numeric-aware equality, containment,
//! subset matching and number coercion.

use serde_json::Value;

/// Equality where numbers compare by value (`1` == `1.0`).
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y,
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// `haystack` contains `needle`: substring of a string, element of an array,
/// key of an object.
pub(crate) fn json_contains(haystack: &Value, needle: &Value) -> bool {
    match (haystack, needle) {
        (Value::String(h), Value::String(n)) => h.contains(n.as_str()),
        (Value::String(h), other) => h.contains(&scalar_text(other)),
        (Value::Array(items), n) => items.iter().any(|i| json_eq(i, n)),
        (Value::Object(map), Value::String(k)) => map.contains_key(k),
        _ => false,
    }
}

/// Every key/value of `pattern` appears in `value`, recursively; arrays in
/// the pattern must each match some element. Scalars compare with [`json_eq`].
pub(crate) fn json_subset(pattern: &Value, value: &Value) -> bool {
    match (pattern, value) {
        (Value::Object(p), Value::Object(v)) => p
            .iter()
            .all(|(k, pv)| v.get(k).is_some_and(|vv| json_subset(pv, vv))),
        (Value::Array(p), Value::Array(v)) => {
            p.iter().all(|pv| v.iter().any(|vv| json_subset(pv, vv)))
        }
        _ => json_eq(pattern, value),
    }
}

/// A number, or a string holding one.
pub(crate) fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    }
}

/// Text of a scalar for matching: strings as is, others as compact JSON.
pub(crate) fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Short rendering for notes: compact JSON cut at 80 characters.
pub(crate) fn brief(v: &Value) -> String {
    crate::output::truncate_chars(&v.to_string(), 80)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_by_value() {
        assert!(json_eq(&json!(1), &json!(1.0)));
        assert!(json_eq(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert!(!json_eq(&json!("1"), &json!(1)));
    }

    #[test]
    fn contains_and_subset() {
        assert!(json_contains(&json!("hello world"), &json!("lo w")));
        assert!(json_contains(&json!([1, "a"]), &json!("a")));
        assert!(json_contains(&json!({"k": 1}), &json!("k")));
        assert!(!json_contains(&json!(5), &json!(5)));
        assert!(json_subset(
            &json!({"a": {"b": 1}}),
            &json!({"a": {"b": 1.0, "c": 2}, "d": 3})
        ));
        assert!(!json_subset(
            &json!({"a": {"b": 2}}),
            &json!({"a": {"b": 1}})
        ));
        assert!(json_subset(&json!({"xs": [2]}), &json!({"xs": [1, 2, 3]})));
    }

    #[test]
    fn numbers_from_strings() {
        assert_eq!(as_number(&json!(" 4.5 ")), Some(4.5));
        assert_eq!(as_number(&json!("NaN")), None);
        assert_eq!(as_number(&json!(true)), None);
    }
}
