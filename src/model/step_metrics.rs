//! A step's per-metric sub-scores (`success`, `completeness`, …).
//!
//! A step has two to four of them, and a report holds one set per step of
//! every case: tens of thousands in a large trace. A `BTreeMap<String, f64>`
//! costs a node of some 370 bytes plus a heap string per name for each step;
//! this is a sorted list whose names are usually `'static` (issue 25). It
//! reads and writes the same JSON object as the map did.

use std::borrow::Cow;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Sub-scores sorted by metric name, one per name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepMetrics(Vec<(Cow<'static, str>, f64)>);

impl StepMetrics {
    /// The score of metric `name`, if the step has one.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0
            .binary_search_by(|(n, _)| n.as_ref().cmp(name))
            .ok()
            .map(|i| self.0[i].1)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// `(name, score)` in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> {
        self.0.iter().map(|(n, v)| (n.as_ref(), *v))
    }

    /// Set metric `name` to `score`, replacing an earlier score of it.
    pub fn insert(&mut self, name: impl Into<Cow<'static, str>>, score: f64) {
        let name = name.into();
        match self.0.binary_search_by(|(n, _)| n.as_ref().cmp(&name)) {
            Ok(i) => self.0[i].1 = score,
            Err(i) => self.0.insert(i, (name, score)),
        }
    }
}

/// Collects like a map: sorted by name, the last score of a repeated name kept.
impl<N: Into<Cow<'static, str>>> FromIterator<(N, f64)> for StepMetrics {
    fn from_iter<I: IntoIterator<Item = (N, f64)>>(iter: I) -> Self {
        let mut out = Self::default();
        for (name, score) in iter {
            out.insert(name, score);
        }
        out
    }
}

impl Serialize for StepMetrics {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, score) in &self.0 {
            map.serialize_entry(name.as_ref(), score)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for StepMetrics {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Scores;
        impl<'de> Visitor<'de> for Scores {
            type Value = StepMetrics;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of metric names and scores")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<StepMetrics, A::Error> {
                let mut out = StepMetrics::default();
                while let Some((name, score)) = access.next_entry::<String, f64>()? {
                    out.insert(name, score);
                }
                Ok(out)
            }
        }
        deserializer.deserialize_map(Scores)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_the_object_a_map_did() {
        let text = r#"{"success":5.0,"completeness":3.5,"result_validity":1.0}"#;
        let metrics: StepMetrics = serde_json::from_str(text).unwrap();
        let map: std::collections::BTreeMap<String, f64> = serde_json::from_str(text).unwrap();
        assert_eq!(
            serde_json::to_string(&metrics).unwrap(),
            serde_json::to_string(&map).unwrap()
        );
        assert_eq!(metrics.get("completeness"), Some(3.5));
        assert_eq!(metrics.get("missing"), None);
        assert_eq!(
            metrics.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            ["completeness", "result_validity", "success"]
        );
    }

    #[test]
    fn a_repeated_name_keeps_the_last_score_as_a_map_would() {
        let metrics: StepMetrics = [("b", 1.0), ("a", 2.0), ("b", 4.0)].into_iter().collect();
        assert_eq!(metrics.len(), 2);
        assert_eq!(metrics.get("b"), Some(4.0));
        let repeated: StepMetrics = serde_json::from_str(r#"{"x":1.0,"x":2.0}"#).unwrap();
        assert_eq!(repeated.get("x"), Some(2.0));
        assert!(serde_json::from_str::<StepMetrics>(r#"{"x":"high"}"#).is_err());
    }
}
