//! A small map kept as a list sorted by key.
//!
//! A trace of a million spans has a million attribute sets and a million
//! steps' sub-scores, each of one to four entries. A `BTreeMap` spends a
//! node of 370–630 bytes on each, whatever it holds; this spends the
//! entries. Lookups are a binary search; it reads and writes the same JSON
//! object as the map, keys in order (issue 25). Use it for maps that stay
//! small: an insert shifts the entries after it.

use std::borrow::Borrow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Entries sorted by key, one per key.
#[derive(Debug, Clone, PartialEq)]
pub struct SortedMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.position(key).ok().map(|i| &self.0[i].1)
    }

    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.position(key).is_ok()
    }

    /// Set `key` to `value`; the value it had before, if any.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.position(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            Err(i) => {
                // One at a time: these maps hold a few entries, and `Vec`'s
                // first growth would make room for four.
                self.0.reserve_exact(1);
                self.0.insert(i, (key, value));
                None
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// `(key, value)` in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    fn position<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.0.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }
}

/// `map["key"]`, as on a `BTreeMap`: panics when the key is missing.
impl<K: Ord + Borrow<Q>, Q: Ord + fmt::Display + ?Sized, V> std::ops::Index<&Q>
    for SortedMap<K, V>
{
    type Output = V;
    fn index(&self, key: &Q) -> &V {
        self.get(key)
            .unwrap_or_else(|| panic!("no entry `{key}` in the map"))
    }
}

/// Adds like a map: a key already present takes the later value. Appends
/// and sorts once, so adding many entries costs n log n, not n².
impl<K: Ord, V> Extend<(K, V)> for SortedMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        let before = self.0.len();
        self.0.extend(iter);
        if self.0.len() == before {
            return;
        }
        // Stable: of equal keys the one added last stays last, and is kept.
        self.0.sort_by(|a, b| a.0.cmp(&b.0));
        let mut kept: Vec<(K, V)> = Vec::with_capacity(self.0.len());
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

impl<K: Ord, V> FromIterator<(K, V)> for SortedMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut out = Self::default();
        out.extend(iter);
        out
    }
}

impl<K: Serialize, V: Serialize> Serialize for SortedMap<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de, K: Deserialize<'de> + Ord, V: Deserialize<'de>> Deserialize<'de> for SortedMap<K, V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Deserialize<'de> + Ord, V: Deserialize<'de>> Visitor<'de> for Entries<K, V> {
            type Value = SortedMap<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = access.next_entry::<K, V>()? {
                    entries.push(entry);
                }
                Ok(entries.into_iter().collect())
            }
        }
        deserializer.deserialize_map(Entries(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::collections::BTreeMap;

    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn behaves_like_the_map_it_replaces() {
        let adds = [
            ("b.x", json!(1)),
            ("a", json!("one")),
            ("c", json!([1, 2])),
            ("a", json!("two")),
        ];
        let mut sorted = SortedMap::default();
        let mut map = BTreeMap::new();
        for (k, v) in adds.clone() {
            assert_eq!(
                sorted.insert(k.to_owned(), v.clone()),
                map.insert(k.to_owned(), v)
            );
        }
        assert_eq!(
            serde_json::to_string(&sorted).unwrap(),
            serde_json::to_string(&map).unwrap()
        );
        assert_eq!(sorted.get("a"), Some(&json!("two")));
        assert_eq!(sorted["a"], json!("two"));
        assert!(sorted.contains_key("c") && !sorted.contains_key("z"));
        assert_eq!(sorted.get("z"), None);

        let collected: SortedMap<String, Value> = adds
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect();
        assert_eq!(collected, sorted);
        assert_eq!(collected.len(), 3);
    }

    #[test]
    fn extending_merges_later_values_over_earlier_ones() {
        let mut sorted: SortedMap<String, Value> =
            [("k".to_owned(), json!(1)), ("m".to_owned(), json!(2))]
                .into_iter()
                .collect();
        sorted.extend([("k".to_owned(), json!(3)), ("a".to_owned(), json!(0))]);
        assert_eq!(
            sorted
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>(),
            ["a=0", "k=3", "m=2"]
        );
        let read: SortedMap<String, Value> =
            serde_json::from_str(r#"{"z":1,"a":{"b":2},"z":3}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&read).unwrap(),
            r#"{"a":{"b":2},"z":3}"#
        );
    }

    #[test]
    fn static_keys_read_back_as_owned_ones() {
        let text = r#"{"success":5.0,"completeness":3.5,"result_validity":1.0}"#;
        let scores: SortedMap<Cow<'static, str>, f64> = serde_json::from_str(text).unwrap();
        let map: BTreeMap<String, f64> = serde_json::from_str(text).unwrap();
        assert_eq!(
            serde_json::to_string(&scores).unwrap(),
            serde_json::to_string(&map).unwrap()
        );
        assert_eq!(scores.get("completeness"), Some(&3.5));
        let built: SortedMap<Cow<'static, str>, f64> = [
            (Cow::Borrowed("success"), 5.0),
            (Cow::Borrowed("completeness"), 3.5),
        ]
        .into_iter()
        .collect();
        assert_eq!(built.get("success"), scores.get("success"));
        assert!(serde_json::from_str::<SortedMap<String, f64>>(r#"{"x":"high"}"#).is_err());
    }
}
