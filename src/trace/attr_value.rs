//! A span attribute's value ([`AttrValue`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::ShortText;

/// A span attribute's value: text as [`ShortText`] (kept inline up to 24
/// bytes: most attributes a span keeps are a word such as `span.kind` or
/// `gen_ai.operation.name`, each a heap allocation as a JSON string; issue
/// 25), anything else as JSON. Serialized as the JSON value it was made
/// from.
#[derive(Debug, Clone, PartialEq)]
pub enum AttrValue {
    Text(ShortText),
    Json(Value),
}

impl AttrValue {
    /// The text, when the value is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(t),
            Self::Json(_) => None,
        }
    }

    /// The value as JSON.
    pub fn to_value(&self) -> Value {
        match self {
            Self::Text(t) => Value::String(t.to_string()),
            Self::Json(v) => v.clone(),
        }
    }

    /// The number, when the value is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Self::Text(_) => None,
            Self::Json(v) => v.as_f64(),
        }
    }
}

/// Equal when the JSON values are.
impl PartialEq<Value> for AttrValue {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Self::Text(t), Value::String(o)) => t == o,
            (Self::Text(_), _) => false,
            (Self::Json(v), o) => v == o,
        }
    }
}

/// A member of an object value, `null` when there is none (as [`Value`]'s index).
impl<I: serde_json::value::Index> std::ops::Index<I> for AttrValue {
    type Output = Value;

    fn index(&self, key: I) -> &Value {
        static NULL: Value = Value::Null;
        match self {
            Self::Json(v) => &v[key],
            Self::Text(_) => &NULL,
        }
    }
}

impl From<Value> for AttrValue {
    fn from(value: Value) -> Self {
        match value {
            Value::String(s) => Self::Text(s.into()),
            other => Self::Json(other),
        }
    }
}

impl From<String> for AttrValue {
    fn from(text: String) -> Self {
        Self::Text(text.into())
    }
}

impl Serialize for AttrValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Text(t) => serializer.serialize_str(t),
            Self::Json(v) => v.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for AttrValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Self::from)
    }
}
