//! Lint of matcher arguments against the tool catalog's JSON Schemas: keys
//! of `args_contains` and `/args/…` capture pointers must be arguments the
//! tool has, and values must fit the argument's type and `enum`. A matcher
//! that names an argument the tool does not have can never match.
//!
//! Only plain schemas are read (`properties`, `items`, `enum`, `const`,
//! `type`); a schema with `$ref`, `anyOf`, `oneOf`, `allOf` or open
//! `additionalProperties` is trusted and not checked further.

use serde_json::Value;

use super::context::did_you_mean;

/// Why a pattern cannot match arguments valid under the schema.
pub(super) fn check_value(pattern: &Value, schema: &Value, at: &str) -> Option<String> {
    if opaque(schema) {
        return None;
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array)
        && !pattern.is_object()
        && !pattern.is_array()
        && !options
            .iter()
            .any(|o| crate::spec::json::json_eq(o, pattern))
    {
        let names: Vec<String> = options.iter().map(|o| format!("`{}`", text(o))).collect();
        return Some(format!(
            "value {pattern} for `{at}` is not one of {}{}",
            names.join(", "),
            did_you_mean(&text(pattern), options.iter().filter_map(Value::as_str))
        ));
    }
    if let Some(want) = schema.get("const")
        && !pattern.is_object()
        && !crate::spec::json::json_eq(want, pattern)
    {
        return Some(format!(
            "value {pattern} for `{at}` is not the only allowed value {want}"
        ));
    }
    if let Some(kind) = type_mismatch(pattern, schema) {
        return Some(format!(
            "value {pattern} for `{at}` is {}, but the schema says {kind}",
            json_type(pattern)
        ));
    }
    match pattern {
        Value::Object(map) => {
            let props = schema.get("properties").and_then(Value::as_object)?;
            for (key, value) in map {
                let child = if at.is_empty() {
                    key.clone()
                } else {
                    format!("{at}.{key}")
                };
                match props.get(key) {
                    Some(sub) => {
                        if let Some(problem) = check_value(value, sub, &child) {
                            return Some(problem);
                        }
                    }
                    None if closed(schema) => {
                        return Some(format!(
                            "key `{child}` is not an argument{}",
                            did_you_mean(key, props.keys().map(String::as_str))
                        ));
                    }
                    None => {}
                }
            }
            None
        }
        Value::Array(items) => {
            let item_schema = schema.get("items")?;
            items
                .iter()
                .find_map(|item| check_value(item, item_schema, &format!("{at}[]")))
        }
        _ => None,
    }
}

/// Why a JSON Pointer (inside the arguments) names no argument.
pub(super) fn check_pointer(pointer: &str, schema: &Value) -> Option<String> {
    let mut schema = schema;
    let mut walked = String::new();
    for raw in pointer.split('/').skip(1) {
        let segment = raw.replace("~1", "/").replace("~0", "~");
        if opaque(schema) {
            return None;
        }
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            match props.get(&segment) {
                Some(sub) => schema = sub,
                None if closed(schema) => {
                    return Some(format!(
                        "`{walked}/{segment}` is not an argument{}",
                        did_you_mean(&segment, props.keys().map(String::as_str))
                    ));
                }
                None => return None,
            }
        } else if let Some(items) = schema.get("items") {
            if segment.parse::<usize>().is_err() {
                return Some(format!(
                    "`{walked}` is an array; `{segment}` is not an index"
                ));
            }
            schema = items;
        } else {
            return None;
        }
        walked.push('/');
        walked.push_str(raw);
    }
    None
}

/// The `type` the schema declares at `pointer` (inside the arguments), when it declares one
/// plain type and every schema on the way is one this lint follows.
pub(super) fn schema_type_at<'s>(pointer: &str, schema: &'s Value) -> Option<&'s str> {
    let mut schema = schema;
    for raw in pointer.split('/').skip(1) {
        let segment = raw.replace("~1", "/").replace("~0", "~");
        if opaque(schema) {
            return None;
        }
        schema = schema.get("properties")?.get(&segment)?;
    }
    if opaque(schema) {
        return None;
    }
    schema.get("type")?.as_str()
}

/// A schema whose shape this lint does not follow.
fn opaque(schema: &Value) -> bool {
    [
        "$ref",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "if",
        "patternProperties",
    ]
    .iter()
    .any(|k| schema.get(k).is_some())
}

/// `properties` lists every key (no `additionalProperties: true` or schema).
fn closed(schema: &Value) -> bool {
    match schema.get("additionalProperties") {
        None | Some(Value::Bool(false)) => true,
        Some(_) => false,
    }
}

fn type_mismatch(pattern: &Value, schema: &Value) -> Option<String> {
    let declared: Vec<&str> = match schema.get("type")? {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    let fits = declared.iter().any(|t| match *t {
        "string" => pattern.is_string(),
        "number" => pattern.is_number(),
        "integer" => pattern.as_f64().is_some_and(|f| f.fract() == 0.0),
        "boolean" => pattern.is_boolean(),
        "array" => pattern.is_array(),
        "object" => pattern.is_object(),
        "null" => pattern.is_null(),
        _ => true,
    });
    (!fits).then(|| format!("`{}`", declared.join("` or `")))
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "cabin": {"type": "string", "enum": ["basic_economy", "economy", "business"]},
            "flights": {"type": "array", "items": {"type": "object", "properties": {"flight_number": {"type": "string"}}}},
            "amount": {"type": "number"},
            "meta": {"type": "object", "additionalProperties": true, "properties": {}}
        }})
    }

    #[test]
    fn keys_enums_and_types_are_checked() {
        let s = schema();
        assert_eq!(check_value(&json!({"cabin": "economy"}), &s, ""), None);
        let p = check_value(&json!({"cabins": "economy"}), &s, "").unwrap();
        assert_eq!(p, "key `cabins` is not an argument (did you mean `cabin`?)");
        let p = check_value(&json!({"cabin": "basic_econom"}), &s, "").unwrap();
        assert!(p.starts_with("value \"basic_econom\" for `cabin` is not one of `basic_economy`, `economy`, `business`"), "{p}");
        assert!(p.ends_with("(did you mean `basic_economy`?)"), "{p}");
        let p = check_value(&json!({"flights": [{"flight_numbr": "HAT1"}]}), &s, "").unwrap();
        assert!(p.starts_with("key `flights[].flight_numbr`"), "{p}");
        let p = check_value(&json!({"amount": "5"}), &s, "").unwrap();
        assert_eq!(
            p,
            "value \"5\" for `amount` is a string, but the schema says `number`"
        );
        assert_eq!(check_value(&json!({"meta": {"anything": 1}}), &s, ""), None);
        assert_eq!(
            check_value(&json!({"x": 1}), &json!({"$ref": "#/defs/a"}), ""),
            None
        );
    }

    #[test]
    fn pointers_walk_properties_and_items() {
        let s = schema();
        assert_eq!(check_pointer("/cabin", &s), None);
        assert_eq!(check_pointer("/flights/0/flight_number", &s), None);
        assert!(
            check_pointer("/reservation", &s)
                .unwrap()
                .starts_with("`/reservation` is not an argument")
        );
        assert!(
            check_pointer("/flights/first", &s)
                .unwrap()
                .contains("not an index")
        );
        assert_eq!(check_pointer("/meta/anything", &s), None);
    }
}
