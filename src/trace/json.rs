//! Small JSON helpers shared by the adapters: JSON inside JSON strings,
//! numbers written as strings, and flattening nested attribute objects to
//! dotted keys.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// Deepest dotted key [`take_unflattened`] rebuilds into a nested value.
const MAX_KEY_DEPTH: usize = 24;

/// Attributes keyed by dotted name.
pub(crate) type Attrs = BTreeMap<String, Value>;

/// Decode a string that holds a JSON object or array (agents often encode
/// arguments and messages that way); any other value is returned unchanged.
pub(crate) fn decode_embedded(value: Value) -> Value {
    match value {
        Value::String(s) => decode_str(s),
        other => other,
    }
}

/// Like [`decode_embedded`] for an owned string.
pub(crate) fn decode_str(s: String) -> Value {
    let t = s.trim_start();
    if (t.starts_with('{') || t.starts_with('['))
        && let Ok(v) = serde_json::from_str::<Value>(&s)
    {
        return v;
    }
    Value::String(s)
}

/// Decode a string declared to be JSON (`gen_ai.output.type = json`,
/// `application/json` mime types): scalars are decoded too, so `"null"`
/// becomes `null`. Text that is not JSON stays a string.
pub(crate) fn decode_declared_json(value: Value) -> Value {
    match value {
        Value::String(s) => match serde_json::from_str::<Value>(&s) {
            Ok(v) => v,
            Err(_) => Value::String(s),
        },
        other => other,
    }
}

/// Compact JSON text, keeping the original key order (the input must be
/// valid JSON, e.g. a [`serde_json::value::RawValue`]).
pub(crate) fn minify(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in raw.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}

/// The text of a raw JSON value: a string's content, `None` for `null`,
/// anything else as compact JSON in its original key order.
pub(crate) fn raw_text(raw: &serde_json::value::RawValue) -> Option<String> {
    let text = raw.get().trim();
    if text == "null" {
        return None;
    }
    if text.starts_with('"') {
        return serde_json::from_str::<String>(text).ok();
    }
    Some(minify(text))
}

/// A non-negative integer written as a number or a string (`"672"`, `672`,
/// `672.0`).
pub(crate) fn lenient_u64(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && *f >= 0.0 && f.fract() == 0.0 && *f < 1.8e19)
                .map(|f| f as u64)
        }),
        Value::String(s) => {
            let t = s.trim();
            t.parse::<u64>()
                .ok()
                .or_else(|| lenient_u64(&Value::from(t.parse::<f64>().ok()?)))
        }
        _ => None,
    }
}

/// A finite float written as a number or a string (`"3.95e-05"`).
pub(crate) fn lenient_f64(value: &Value) -> Option<f64> {
    let f = match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }?;
    f.is_finite().then_some(f)
}

/// Text of a value: strings as they are, `null` as nothing, anything else
/// as compact JSON.
pub(crate) fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A string field of an object.
pub(crate) fn str_field<'v>(object: &'v Map<String, Value>, key: &str) -> Option<&'v str> {
    object.get(key).and_then(Value::as_str)
}

/// Flatten nested objects into dotted keys (`{"llm": {"model_name": x}}` →
/// `llm.model_name`). Arrays and scalars are kept as values.
pub(crate) fn flatten_into(prefix: &str, value: Value, out: &mut Attrs) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (k, v) in map {
                let key = if prefix.is_empty() {
                    k
                } else {
                    format!("{prefix}.{k}")
                };
                flatten_into(&key, v, out);
            }
        }
        other => {
            out.insert(prefix.to_owned(), other);
        }
    }
}

/// Flatten an attribute map whose values may be nested objects.
pub(crate) fn flatten_attrs(map: impl IntoIterator<Item = (String, Value)>) -> Attrs {
    let mut out = Attrs::new();
    for (k, v) in map {
        flatten_into(&k, v, &mut out);
    }
    out
}

/// Remove every key under `prefix.` and rebuild the nested value they
/// describe: `p.0.message.role = "user"` becomes
/// `[{"message": {"role": "user"}}]`. Objects whose keys are all indexes become arrays in index
/// order. Also accepts the key `prefix` itself holding the nested value.
pub(crate) fn take_unflattened(attrs: &mut Attrs, prefix: &str) -> Option<Value> {
    let dotted = format!("{prefix}.");
    // Keys nested absurdly deep stay flat: rebuilding them would make a
    // value too deep to walk (or drop) without recursion limits.
    let keys: Vec<String> = attrs
        .range(dotted.clone()..)
        .take_while(|(k, _)| k.starts_with(&dotted))
        .filter(|(k, _)| k.matches('.').count() <= MAX_KEY_DEPTH)
        .map(|(k, _)| k.clone())
        .collect();
    let mut root = match attrs.remove(prefix) {
        Some(Value::String(s)) => decode_str(s),
        Some(v) => v,
        None if keys.is_empty() => return None,
        None => Value::Object(Map::new()),
    };
    if !keys.is_empty()
        && let Value::Array(items) = root
    {
        root = Value::Object(
            items
                .into_iter()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v))
                .collect(),
        );
    }
    for key in keys {
        let Some(value) = attrs.remove(&key) else {
            continue;
        };
        insert_path(&mut root, &key[dotted.len()..], value);
    }
    Some(arrays_from_indexes(root))
}

fn insert_path(root: &mut Value, path: &str, value: Value) {
    let mut node = root;
    let mut segments = path.split('.').peekable();
    while let Some(segment) = segments.next() {
        if !node.is_object() {
            *node = Value::Object(Map::new());
        }
        let Value::Object(map) = node else { return };
        if segments.peek().is_none() {
            map.insert(segment.to_owned(), value);
            return;
        }
        node = map
            .entry(segment.to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
    }
}

fn arrays_from_indexes(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let all_indexes = !map.is_empty() && map.keys().all(|k| k.parse::<usize>().is_ok());
            if all_indexes {
                let mut items: Vec<(usize, Value)> = map
                    .into_iter()
                    .map(|(k, v)| {
                        (
                            k.parse::<usize>().unwrap_or(usize::MAX),
                            arrays_from_indexes(v),
                        )
                    })
                    .collect();
                items.sort_by_key(|(i, _)| *i);
                Value::Array(items.into_iter().map(|(_, v)| v).collect())
            } else {
                Value::Object(
                    map.into_iter()
                        .map(|(k, v)| (k, arrays_from_indexes(v)))
                        .collect(),
                )
            }
        }
        Value::Array(items) => Value::Array(items.into_iter().map(arrays_from_indexes).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn embedded_json_objects_are_decoded_but_plain_text_is_kept() {
        assert_eq!(
            decode_embedded(json!("{\"timezone\": \"UTC\"}")),
            json!({"timezone": "UTC"})
        );
        assert_eq!(decode_embedded(json!("[1, 2]")), json!([1, 2]));
        assert_eq!(decode_embedded(json!("255.0")), json!("255.0"));
        assert_eq!(decode_embedded(json!("{not json")), json!("{not json"));
        assert_eq!(decode_declared_json(json!("null")), Value::Null);
        assert_eq!(decode_declared_json(json!("None")), json!("None"));
    }

    #[test]
    fn raw_values_keep_key_order_and_strings_unquote() {
        let raw = serde_json::value::RawValue::from_string(
            "{\n  \"steps\": [1, 2],\n  \"a b\": \"x \\\" y\"\n}".to_owned(),
        )
        .unwrap();
        assert_eq!(
            raw_text(&raw).as_deref(),
            Some(r#"{"steps":[1,2],"a b":"x \" y"}"#)
        );
        let s = serde_json::value::RawValue::from_string("\"plain\"".to_owned()).unwrap();
        assert_eq!(raw_text(&s).as_deref(), Some("plain"));
    }

    #[test]
    fn numbers_may_be_strings() {
        assert_eq!(lenient_u64(&json!("672")), Some(672));
        assert_eq!(lenient_u64(&json!(16)), Some(16));
        assert_eq!(lenient_u64(&json!(16.0)), Some(16));
        assert_eq!(lenient_u64(&json!(-1)), None);
        assert_eq!(lenient_u64(&json!("1.5")), None);
        assert_eq!(lenient_f64(&json!("3.95e-05")), Some(3.95e-05));
        assert_eq!(lenient_f64(&json!("NaN")), None);
    }

    #[test]
    fn flattened_keys_rebuild_in_index_order() {
        let mut attrs = flatten_attrs([
            ("p.10.message.role".to_owned(), json!("tool")),
            ("p.2.message.role".to_owned(), json!("user")),
            (
                "p.2.message.contents.0.message_content.text".to_owned(),
                json!("hi"),
            ),
            ("other".to_owned(), json!(1)),
        ]);
        let value = take_unflattened(&mut attrs, "p").unwrap();
        assert_eq!(
            value,
            json!([
                {"message": {"role": "user", "contents": [{"message_content": {"text": "hi"}}]}},
                {"message": {"role": "tool"}}
            ])
        );
        assert_eq!(attrs.keys().collect::<Vec<_>>(), ["other"]);
        assert!(take_unflattened(&mut attrs, "p").is_none());
        let deep = format!("p.{}x", "0.".repeat(100_000));
        let mut attrs = flatten_attrs([(deep.clone(), json!(1))]);
        assert_eq!(take_unflattened(&mut attrs, "p"), None);
        assert!(attrs.contains_key(&deep));
    }

    #[test]
    fn nested_objects_flatten_to_dotted_keys() {
        let attrs = flatten_attrs([(
            "llm".to_owned(),
            json!({"model_name": "m", "token_count": {"prompt": 3}}),
        )]);
        assert_eq!(attrs.get("llm.model_name"), Some(&json!("m")));
        assert_eq!(attrs.get("llm.token_count.prompt"), Some(&json!(3)));
    }
}
