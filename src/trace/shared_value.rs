//! [`SharedValue`]: a JSON value shared between the trace and the steps read
//! from it (a tool call's arguments and result appear in the span, its
//! PARAMGEN and its EXEC), kept compact.
//!
//! Objects and arrays are held as their canonical JSON text (what
//! `serde_json::to_string` writes for the decoded value: keys sorted, no
//! spaces), not as a decoded [`Value`]: a decoded object is a `BTreeMap`
//! whose nodes are sized for eleven entries, so a tool result of 300 bytes
//! took about 4 KB in memory, most of a large trace's peak (issue 22 item 7,
//! issue 25 item 8). Scalars stay decoded. Serializing walks the text and
//! calls the serializer exactly as the decoded value would (same key order,
//! same number types), so every output is unchanged; code that reads fields
//! decodes with [`SharedValue::value`].

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::sync::Arc;

use serde::ser::{Error as _, SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A JSON value, cheap to clone (one reference count) and compact in memory.
#[derive(Clone)]
pub struct SharedValue(Arc<Repr>);

enum Repr {
    /// `null`, booleans, numbers and strings.
    Scalar(Value),
    /// An object or array as canonical JSON text.
    Text(Box<str>),
}

impl SharedValue {
    pub fn new(value: Value) -> Self {
        let repr = match value {
            Value::Object(_) | Value::Array(_) => {
                // Serializing a `Value` cannot fail (its keys are strings).
                Repr::Text(value.to_string().into_boxed_str())
            }
            scalar => Repr::Scalar(scalar),
        };
        Self(Arc::new(repr))
    }

    /// The value, decoded when it is an object or array.
    pub fn value(&self) -> Cow<'_, Value> {
        match &*self.0 {
            Repr::Scalar(v) => Cow::Borrowed(v),
            // The text is `serde_json`'s own output, so it decodes; were it
            // ever not to, `null` is what a caller sees rather than a panic.
            Repr::Text(t) => Cow::Owned(serde_json::from_str(t).unwrap_or(Value::Null)),
        }
    }

    /// The value as compact JSON text (`Value::to_string`), without decoding.
    pub fn compact(&self) -> Cow<'_, str> {
        match &*self.0 {
            Repr::Scalar(v) => Cow::Owned(v.to_string()),
            Repr::Text(t) => Cow::Borrowed(t),
        }
    }

    /// Strings as they are, anything else as compact JSON (`null` too).
    pub fn to_text(&self) -> String {
        match &*self.0 {
            Repr::Scalar(Value::String(s)) => s.clone(),
            Repr::Scalar(other) => other.to_string(),
            Repr::Text(t) => t.to_string(),
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(&*self.0, Repr::Scalar(Value::Null))
    }

    pub fn is_object(&self) -> bool {
        matches!(&*self.0, Repr::Text(t) if t.starts_with('{'))
    }

    pub fn is_array(&self) -> bool {
        matches!(&*self.0, Repr::Text(t) if t.starts_with('['))
    }

    pub fn is_string(&self) -> bool {
        matches!(&*self.0, Repr::Scalar(Value::String(_)))
    }

    pub fn as_str(&self) -> Option<&str> {
        match &*self.0 {
            Repr::Scalar(Value::String(s)) => Some(s),
            _ => None,
        }
    }

    /// The scalar, when the value is not an object or array.
    pub fn as_scalar(&self) -> Option<&Value> {
        match &*self.0 {
            Repr::Scalar(v) => Some(v),
            Repr::Text(_) => None,
        }
    }
}

impl Default for SharedValue {
    fn default() -> Self {
        Self::new(Value::Null)
    }
}

impl From<Value> for SharedValue {
    fn from(value: Value) -> Self {
        Self::new(value)
    }
}

impl From<Box<Value>> for SharedValue {
    fn from(value: Box<Value>) -> Self {
        Self::new(*value)
    }
}

impl PartialEq for SharedValue {
    /// Equal exactly when the decoded values are: canonical text is one
    /// text per value (keys sorted, numbers in their shortest form), except
    /// that `-0.0` equals `0.0` as a number, so texts holding it are decoded.
    fn eq(&self, other: &Self) -> bool {
        match (&*self.0, &*other.0) {
            (Repr::Scalar(a), Repr::Scalar(b)) => a == b,
            (Repr::Text(a), Repr::Text(b)) => {
                a == b
                    || ((a.contains("-0.0") || b.contains("-0.0"))
                        && *self.value() == *other.value())
            }
            _ => false,
        }
    }
}

impl PartialEq<Value> for SharedValue {
    fn eq(&self, other: &Value) -> bool {
        match (&*self.0, other) {
            (Repr::Scalar(a), b) => a == b,
            (Repr::Text(_), Value::Object(_) | Value::Array(_)) => *self.value() == *other,
            (Repr::Text(_), _) => false,
        }
    }
}

impl fmt::Debug for SharedValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.value(), f)
    }
}

impl<'de> Deserialize<'de> for SharedValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Self::new)
    }
}

impl Serialize for SharedValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &*self.0 {
            Repr::Scalar(v) => v.serialize(serializer),
            Repr::Text(t) => {
                let at = Cell::new(0);
                let done = Walk { text: t, at: &at }.serialize(serializer)?;
                if at.get() == t.len() {
                    Ok(done)
                } else {
                    Err(S::Error::custom("shared JSON text has trailing bytes"))
                }
            }
        }
    }
}

/// Serializes the JSON value that starts at `at` in canonical `text` and
/// moves `at` past it. Each value is read once: a container hands the same
/// cursor to its members, so nesting costs nothing extra.
struct Walk<'a> {
    text: &'a str,
    at: &'a Cell<usize>,
}

impl Walk<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at.get()).copied()
    }

    fn bump(&self) {
        self.at.set(self.at.get() + 1);
    }

    /// The string starting at the cursor (an opening quote), unescaped.
    fn string<E: serde::ser::Error>(&self) -> Result<Cow<'_, str>, E> {
        let start = self.at.get() + 1;
        let bytes = self.text.as_bytes();
        let mut i = start;
        let mut escaped = false;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    i += 2;
                }
                _ => i += 1,
            }
        }
        let quoted = self
            .text
            .get(start - 1..=i)
            .ok_or_else(|| E::custom("unterminated string in shared JSON text"))?;
        self.at.set(i + 1);
        if escaped {
            serde_json::from_str::<String>(quoted)
                .map(Cow::Owned)
                .map_err(E::custom)
        } else {
            Ok(Cow::Borrowed(&quoted[1..quoted.len() - 1]))
        }
    }

    fn expect<E: serde::ser::Error>(&self, byte: u8) -> Result<(), E> {
        if self.peek() == Some(byte) {
            self.bump();
            Ok(())
        } else {
            Err(E::custom("malformed shared JSON text"))
        }
    }
}

impl Serialize for Walk<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let start = self.at.get();
        match self.peek() {
            Some(b'{') => {
                self.bump();
                let mut map = serializer.serialize_map(None)?;
                if self.peek() == Some(b'}') {
                    self.bump();
                    return map.end();
                }
                loop {
                    let key = self.string::<S::Error>()?;
                    self.expect::<S::Error>(b':')?;
                    map.serialize_entry(&*key, self)?;
                    match self.peek() {
                        Some(b',') => self.bump(),
                        Some(b'}') => {
                            self.bump();
                            return map.end();
                        }
                        _ => return Err(S::Error::custom("malformed shared JSON object")),
                    }
                }
            }
            Some(b'[') => {
                self.bump();
                let mut seq = serializer.serialize_seq(None)?;
                if self.peek() == Some(b']') {
                    self.bump();
                    return seq.end();
                }
                loop {
                    seq.serialize_element(self)?;
                    match self.peek() {
                        Some(b',') => self.bump(),
                        Some(b']') => {
                            self.bump();
                            return seq.end();
                        }
                        _ => return Err(S::Error::custom("malformed shared JSON array")),
                    }
                }
            }
            Some(b'"') => serializer.serialize_str(&self.string::<S::Error>()?),
            Some(_) => {
                let bytes = self.text.as_bytes();
                let mut end = start;
                while bytes
                    .get(end)
                    .is_some_and(|b| !matches!(b, b',' | b'}' | b']'))
                {
                    end += 1;
                }
                self.at.set(end);
                let token = &self.text[start..end];
                // Read back as `serde_json` would: the token is its output,
                // so an integer is digits with an optional minus and fits
                // (non-negative as u64, negative as i64); anything else is
                // read by `serde_json` itself.
                let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
                match token {
                    "null" => return serializer.serialize_unit(),
                    "true" => return serializer.serialize_bool(true),
                    "false" => return serializer.serialize_bool(false),
                    t if digits(t) => {
                        if let Ok(n) = t.parse::<u64>() {
                            return serializer.serialize_u64(n);
                        }
                    }
                    t if t.strip_prefix('-').is_some_and(digits) => {
                        if let Ok(n) = t.parse::<i64>() {
                            return serializer.serialize_i64(n);
                        }
                    }
                    _ => {}
                }
                match serde_json::from_str::<Value>(token).map_err(S::Error::custom)? {
                    Value::Null => serializer.serialize_unit(),
                    Value::Bool(b) => serializer.serialize_bool(b),
                    Value::Number(n) => n.serialize(serializer),
                    _ => Err(S::Error::custom("malformed shared JSON scalar")),
                }
            }
            None => Err(S::Error::custom("truncated shared JSON text")),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn values() -> Vec<Value> {
        vec![
            json!(null),
            json!(true),
            json!(-7),
            json!(18_446_744_073_709_551_615_u64),
            json!(-9_223_372_036_854_775_808_i64),
            json!(0.1),
            json!(1e300),
            json!(-0.0),
            json!("plain"),
            json!({}),
            json!([]),
            json!({"b": 1, "a": [1, 2.5, "x", null, true, {}], "é\"\\\n\u{1}": {"z": []}}),
            json!([[[[{"k": "v\u{200e}::", "": -1.5e-7}]]], "\u{2028}", 12]),
            json!({"id": "inv-2-0", "amount": 0, "nested": {"deep": [{"x": {"y": [1, [2, [3]]]}}]}}),
        ]
    }

    #[test]
    fn serializing_is_the_decoded_values_output_compact_and_pretty() {
        for v in values() {
            let shared = SharedValue::new(v.clone());
            assert_eq!(serde_json::to_string(&shared).unwrap(), v.to_string());
            assert_eq!(
                serde_json::to_string_pretty(&shared).unwrap(),
                serde_json::to_string_pretty(&v).unwrap()
            );
            assert_eq!(serde_json::to_value(&shared).unwrap(), v);
            assert_eq!(*shared.value(), v);
            assert_eq!(shared.compact(), v.to_string());
            assert_eq!(shared, v);
        }
    }

    #[test]
    fn equality_is_the_decoded_values_equality() {
        let all = values();
        for (i, a) in all.iter().enumerate() {
            for (j, b) in all.iter().enumerate() {
                let (sa, sb) = (SharedValue::new(a.clone()), SharedValue::new(b.clone()));
                // -0.0 and 0 are different texts and different numbers.
                assert_eq!(sa == sb, i == j, "{a} vs {b}");
            }
        }
        // As numbers, -0.0 is 0.0 (serde_json compares floats by value).
        assert_eq!(
            SharedValue::new(json!({"x": [-0.0]})),
            SharedValue::new(json!({"x": [0.0]}))
        );
        assert_ne!(
            SharedValue::new(json!({"x": "-0.0"})),
            SharedValue::new(json!({"x": "0.0"}))
        );
        let reordered: Value = serde_json::from_str(r#"{"a": 1, "b": 2}"#).unwrap();
        assert_eq!(
            SharedValue::new(reordered),
            SharedValue::new(json!({"b": 2, "a": 1}))
        );
    }

    #[test]
    fn kinds_and_text_are_read_without_decoding() {
        let object = SharedValue::new(json!({"a": 1}));
        assert!(object.is_object() && !object.is_array() && !object.is_null());
        assert_eq!(object.as_str(), None);
        let array = SharedValue::new(json!([1]));
        assert!(array.is_array() && !array.is_object());
        let text = SharedValue::new(json!("Paris"));
        assert_eq!(text.as_str(), Some("Paris"));
        assert!(text.is_string());
        assert!(SharedValue::default().is_null());
        assert_eq!(
            serde_json::from_str::<SharedValue>(r#"{"b":[1],"a":null}"#).unwrap(),
            SharedValue::new(json!({"a": null, "b": [1]}))
        );
    }
}
