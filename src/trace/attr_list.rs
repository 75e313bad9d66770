//! The attributes a span keeps after its adapter has read what it knows.
//!
//! Most spans keep one to three (`gen_ai.operation.name`, `span_type`, …),
//! and a large trace has hundreds of thousands of spans: a
//! `BTreeMap<String, Value>` spends a node of some 630 bytes on each span
//! that keeps any, more than the whole span's line in an `OTel` SDK dump.
//! This is a list sorted by key, with the same lookups and the same JSON
//! object (keys in order) as the map had (issue 25).

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// Span attributes: flattened dotted keys in key order, one value per key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attributes(Vec<(String, Value)>);

impl Attributes {
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.position(key).ok().map(|i| &self.0[i].1)
    }

    /// Set `key` to `value`; the value it had before, if any.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        match self.position(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            Err(i) => {
                // One at a time: a span keeps a few, and `Vec`'s first
                // growth would make room for four.
                self.0.reserve_exact(1);
                self.0.insert(i, (key, value));
                None
            }
        }
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_ok()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// `(key, value)` in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    fn position(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }
}

/// `attributes["key"]`, as on a map: panics when the span has no such key.
impl std::ops::Index<&str> for Attributes {
    type Output = Value;
    fn index(&self, key: &str) -> &Value {
        self.get(key)
            .unwrap_or_else(|| panic!("the span has no attribute `{key}`"))
    }
}

/// Adds like a map: a key already present takes the later value. Appends
/// and sorts once, so a span with many attributes costs n log n, not n².
impl Extend<(String, Value)> for Attributes {
    fn extend<I: IntoIterator<Item = (String, Value)>>(&mut self, iter: I) {
        let before = self.0.len();
        self.0.extend(iter);
        if self.0.len() == before {
            return;
        }
        // Stable: of equal keys the one added last stays last, and is kept.
        self.0.sort_by(|a, b| a.0.cmp(&b.0));
        let mut kept: Vec<(String, Value)> = Vec::with_capacity(self.0.len());
        for entry in self.0.drain(..) {
            match kept.last_mut() {
                Some(last) if last.0 == entry.0 => *last = entry,
                _ => kept.push(entry),
            }
        }
        kept.shrink_to_fit();
        self.0 = kept;
    }
}

impl FromIterator<(String, Value)> for Attributes {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        let mut out = Self::default();
        out.extend(iter);
        out
    }
}

impl Serialize for Attributes {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Attributes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Attributes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of span attributes")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Attributes, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = access.next_entry::<String, Value>()? {
                    entries.push(entry);
                }
                Ok(entries.into_iter().collect())
            }
        }
        deserializer.deserialize_map(Entries)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;

    #[test]
    fn behaves_like_the_map_it_replaces() {
        let adds = [
            ("b.x", json!(1)),
            ("a", json!("one")),
            ("c", json!([1, 2])),
            ("a", json!("two")),
        ];
        let mut list = Attributes::default();
        let mut map = BTreeMap::new();
        for (k, v) in adds.clone() {
            assert_eq!(
                list.insert(k.to_owned(), v.clone()),
                map.insert(k.to_owned(), v)
            );
        }
        assert_eq!(
            serde_json::to_string(&list).unwrap(),
            serde_json::to_string(&map).unwrap()
        );
        assert_eq!(list.get("a"), Some(&json!("two")));
        assert_eq!(list.get("z"), None);

        let extended: Attributes = adds
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect();
        let collected: BTreeMap<String, Value> = adds
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect();
        assert_eq!(extended, list);
        assert_eq!(
            serde_json::to_string(&extended).unwrap(),
            serde_json::to_string(&collected).unwrap()
        );
        assert_eq!(extended.len(), 3);
    }

    #[test]
    fn extending_merges_later_values_over_earlier_ones() {
        let mut list: Attributes = [("k".to_owned(), json!(1)), ("m".to_owned(), json!(2))]
            .into_iter()
            .collect();
        list.extend([("k".to_owned(), json!(3)), ("a".to_owned(), json!(0))]);
        assert_eq!(
            list.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>(),
            ["a=0", "k=3", "m=2"]
        );
        let read: Attributes = serde_json::from_str(r#"{"z":1,"a":{"b":2},"z":3}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&read).unwrap(),
            r#"{"a":{"b":2},"z":3}"#
        );
    }
}
