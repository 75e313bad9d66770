//! A cheap sketch of a JSON document's structure, used to sniff its format.
//!
//! Keys are recorded for the first few levels and for the first element of
//! each array; everything deeper is skipped without allocating. One pass
//! over the bytes, no `Value` tree.

use std::fmt;

use serde::Deserializer;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// Levels whose object keys are recorded (root = 0).
const KEY_DEPTH: usize = 3;

/// The sketch of one JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Shape {
    Null,
    Bool,
    Number,
    String,
    /// An array, its length and the sketch of its first element.
    Array {
        len: usize,
        first: Option<Box<Shape>>,
    },
    /// An object and its keys in file order (empty below [`KEY_DEPTH`]).
    Object(Vec<(String, Shape)>),
}

impl Shape {
    /// Sketch a complete JSON text.
    pub(crate) fn of(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let shape = ShapeSeed { depth: 0 }.deserialize(&mut de)?;
        de.end()?;
        Ok(shape)
    }

    pub(crate) fn get(&self, key: &str) -> Option<&Shape> {
        match self {
            Self::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Keys of an object, in file order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> {
        let entries: &[(String, Shape)] = match self {
            Self::Object(entries) => entries,
            _ => &[],
        };
        entries.iter().map(|(k, _)| k.as_str())
    }

    /// The first element of an array.
    pub(crate) fn first(&self) -> Option<&Shape> {
        match self {
            Self::Array { first, .. } => first.as_deref(),
            _ => None,
        }
    }

    pub(crate) fn is_array(&self) -> bool {
        matches!(self, Self::Array { .. })
    }

    /// "an array", "a string"… for messages.
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            Self::Null => "null",
            Self::Bool => "a boolean",
            Self::Number => "a number",
            Self::String => "a string",
            Self::Array { .. } => "an array",
            Self::Object(_) => "an object",
        }
    }
}

impl<'de> de::Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ShapeSeed { depth: 0 }.deserialize(deserializer)
    }
}

struct ShapeSeed {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for ShapeSeed {
    type Value = Shape;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Shape, D::Error> {
        deserializer.deserialize_any(ShapeVisitor { depth: self.depth })
    }
}

struct ShapeVisitor {
    depth: usize,
}

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Shape, E> {
        Ok(Shape::Bool)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Shape, E> {
        Ok(Shape::Number)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Shape, E> {
        Ok(Shape::Number)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Shape, E> {
        Ok(Shape::Number)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Shape, E> {
        Ok(Shape::String)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Shape, E> {
        Ok(Shape::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Shape, E> {
        Ok(Shape::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        let first = if self.depth < KEY_DEPTH {
            seq.next_element_seed(ShapeSeed {
                depth: self.depth + 1,
            })?
        } else {
            seq.next_element::<IgnoredAny>()?.map(|_| Shape::Null)
        };
        let mut len = usize::from(first.is_some());
        while seq.next_element::<IgnoredAny>()?.is_some() {
            len += 1;
        }
        Ok(Shape::Array {
            len,
            first: first.map(Box::new),
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        let mut entries = Vec::new();
        if self.depth < KEY_DEPTH {
            while let Some(key) = map.next_key::<String>()? {
                let value = map.next_value_seed(ShapeSeed {
                    depth: self.depth + 1,
                })?;
                entries.push((key, value));
            }
        } else {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        }
        Ok(Shape::Object(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_keys_and_first_elements() {
        let shape =
            Shape::of(br#"{"spans": [{"context": {"span_id": 1}}, 2, 3], "final_output": "x"}"#)
                .unwrap();
        assert_eq!(shape.keys().collect::<Vec<_>>(), ["spans", "final_output"]);
        let spans = shape.get("spans").unwrap();
        assert!(matches!(spans, Shape::Array { len: 3, .. }));
        assert!(spans.first().unwrap().has("context"));
        assert_eq!(shape.get("final_output"), Some(&Shape::String));
    }

    #[test]
    fn deep_levels_are_skipped_but_still_validated() {
        let shape = Shape::of(br#"[[[[{"a": 1}]]]]"#).unwrap();
        assert!(shape.is_array());
        assert!(Shape::of(br#"[[[[{"a": }]]]]"#).is_err());
        assert!(Shape::of(b"{} {}").is_err());
    }
}
