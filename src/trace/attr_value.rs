//! A span attribute's value ([`AttrValue`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::ShortText;

/// A span attribute's value: text as [`ShortText`] (kept inline up to 24
/// bytes: most attributes a span keeps are a word such as `span.kind` or
/// `gen_ai.operation.name`, each a heap allocation as a JSON string; issue
/// 25), a number or a boolean as itself, anything else (null, a list, an
/// object: few attributes) as JSON behind a pointer, so the value takes 24
/// bytes, not the 32 of a JSON value. Serialized as the JSON value it was
/// made from.
#[derive(Debug, Clone, PartialEq)]
pub enum AttrValue {
    Text(ShortText),
    Number(serde_json::Number),
    Bool(bool),
    Json(Box<Value>),
}

impl AttrValue {
    /// The text, when the value is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(t),
            _ => None,
        }
    }

    /// The value as JSON.
    pub fn to_value(&self) -> Value {
        match self {
            Self::Text(t) => Value::String(t.to_string()),
            Self::Number(n) => Value::Number(n.clone()),
            Self::Bool(b) => Value::Bool(*b),
            Self::Json(v) => (**v).clone(),
        }
    }

    /// The number, when the value is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Self::Number(n) => n.as_f64(),
            _ => None,
        }
    }
}

/// Equal when the JSON values are.
impl PartialEq<Value> for AttrValue {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Self::Text(t), Value::String(o)) => t == o,
            (Self::Number(n), Value::Number(o)) => n == o,
            (Self::Bool(b), Value::Bool(o)) => b == o,
            (Self::Json(v), o) => **v == *o,
            _ => false,
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
            _ => &NULL,
        }
    }
}

impl From<Value> for AttrValue {
    fn from(value: Value) -> Self {
        match value {
            Value::String(s) => Self::Text(s.into()),
            Value::Number(n) => Self::Number(n),
            Value::Bool(b) => Self::Bool(b),
            other => Self::Json(Box::new(other)),
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
            Self::Number(n) => n.serialize(serializer),
            Self::Bool(b) => serializer.serialize_bool(*b),
            Self::Json(v) => v.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for AttrValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Self::from)
    }
}
