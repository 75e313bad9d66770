//! The metrics a step is scored on (DESIGN §6), and a step's sub-scores
//! as a report keeps them.

use std::borrow::Cow;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::model::sorted_map::SortedMap;
use crate::model::vocab::StepType;

/// The metrics of each step type (DESIGN §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Metric {
    /// PLAN, PARAMGEN, SYNTH.
    Completeness,
    /// PLAN.
    Feasibility,
    /// TOOLSEL.
    SelectionAccuracy,
    /// TOOLSEL.
    Relevance,
    /// PARAMGEN.
    Correctness,
    /// EXEC.
    Success,
    /// EXEC.
    ResultValidity,
    /// SYNTH.
    Faithfulness,
    /// SYNTH.
    Coherence,
}

impl Metric {
    /// The metrics scored for a step type, in rubric order.
    pub fn for_type(step_type: StepType) -> &'static [Metric] {
        match step_type {
            StepType::Plan => &[Self::Completeness, Self::Feasibility],
            StepType::ToolSel => &[Self::SelectionAccuracy, Self::Relevance],
            StepType::ParamGen => &[Self::Correctness, Self::Completeness],
            StepType::Exec => &[Self::Success, Self::ResultValidity],
            StepType::Synth => &[Self::Faithfulness, Self::Completeness, Self::Coherence],
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Completeness => "completeness",
            Self::Feasibility => "feasibility",
            Self::SelectionAccuracy => "selection_accuracy",
            Self::Relevance => "relevance",
            Self::Correctness => "correctness",
            Self::Success => "success",
            Self::ResultValidity => "result_validity",
            Self::Faithfulness => "faithfulness",
            Self::Coherence => "coherence",
        }
    }
}

/// Every metric, for reading one by name.
const ALL: [Metric; 9] = [
    Metric::Completeness,
    Metric::Feasibility,
    Metric::SelectionAccuracy,
    Metric::Relevance,
    Metric::Correctness,
    Metric::Success,
    Metric::ResultValidity,
    Metric::Faithfulness,
    Metric::Coherence,
];

impl Metric {
    /// The metric named `name`, as [`Metric::as_str`] writes it.
    pub fn from_name(name: &str) -> Option<Self> {
        ALL.into_iter().find(|m| m.as_str() == name)
    }
}

/// The most sub-scores a step gets from the rules and judges: the metrics
/// of its type ([`Metric::for_type`]).
const KEPT: usize = 3;

/// A step's per-metric sub-scores (1–5) by name, read and written as a
/// JSON object with its keys in order.
///
/// The sub-scores the gate gives (metrics of the step's type, three at
/// most) are kept inline: a sorted list on the heap cost an allocation
/// and some 80 bytes per step of a large trace (issue 25). Other names,
/// or more entries, read from a file are kept as read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StepMetrics(Repr);

#[derive(Debug, Clone, PartialEq)]
enum Repr {
    /// Sorted by name; the first `None` ends the list.
    Known {
        metrics: [Option<Metric>; KEPT],
        values: [f64; KEPT],
    },
    Other(Box<SortedMap<Cow<'static, str>, f64>>),
}

impl Default for Repr {
    fn default() -> Self {
        Self::Known {
            metrics: [None; KEPT],
            values: [0.0; KEPT],
        }
    }
}

impl StepMetrics {
    pub fn is_empty(&self) -> bool {
        match &self.0 {
            Repr::Known { metrics, .. } => metrics[0].is_none(),
            Repr::Other(map) => map.is_empty(),
        }
    }

    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// The sub-score of the metric named `name`.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// `(name, sub-score)` in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> + '_ {
        let (known, other) = match &self.0 {
            Repr::Known { metrics, values } => (Some((metrics, values)), None),
            Repr::Other(map) => (None, Some(map)),
        };
        let known = known.into_iter().flat_map(|(metrics, values)| {
            metrics
                .iter()
                .map_while(|m| m.map(Metric::as_str))
                .zip(values.iter().copied())
        });
        let other = other
            .into_iter()
            .flat_map(|map| map.iter().map(|(k, v)| (k.as_ref(), *v)));
        known.chain(other)
    }

    /// The entries of `map`, inline when they are metrics the gate scores.
    fn from_map(map: SortedMap<Cow<'static, str>, f64>) -> Self {
        let known: Option<Vec<(Metric, f64)>> = map
            .iter()
            .map(|(k, v)| Metric::from_name(k).map(|m| (m, *v)))
            .collect();
        match known {
            Some(known) if known.len() <= KEPT => known.into_iter().collect(),
            _ => Self(Repr::Other(Box::new(map))),
        }
    }
}

/// Adds like a map: a metric given twice keeps its later sub-score.
impl FromIterator<(Metric, f64)> for StepMetrics {
    fn from_iter<I: IntoIterator<Item = (Metric, f64)>>(iter: I) -> Self {
        let mut metrics = [None; KEPT];
        let mut values = [0.0; KEPT];
        let mut len = 0;
        for (metric, value) in iter {
            let at = metrics[..len]
                .binary_search_by(|m| m.map(Metric::as_str).cmp(&Some(metric.as_str())));
            match at {
                Ok(i) => values[i] = value,
                Err(_) if len == KEPT => {
                    // More than a step type has: kept on the heap, nothing dropped.
                    let mut map: SortedMap<Cow<'static, str>, f64> = metrics
                        .iter()
                        .flatten()
                        .zip(values)
                        .map(|(m, v)| (Cow::Borrowed(m.as_str()), v))
                        .collect();
                    map.insert(Cow::Borrowed(metric.as_str()), value);
                    return Self(Repr::Other(Box::new(map)));
                }
                Err(i) => {
                    metrics.copy_within(i..len, i + 1);
                    values.copy_within(i..len, i + 1);
                    metrics[i] = Some(metric);
                    values[i] = value;
                    len += 1;
                }
            }
        }
        Self(Repr::Known { metrics, values })
    }
}

impl Serialize for StepMetrics {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (name, value) in self.iter() {
            map.serialize_entry(name, &value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for StepMetrics {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = StepMetrics;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                // The gate's metrics, read without a list on the heap; on the
                // first other name, or a fourth entry, all go to a map.
                let mut known = [(Metric::Completeness, 0.0); KEPT];
                let mut len = 0;
                let mut other: Option<SortedMap<Cow<'static, str>, f64>> = None;
                while let Some((name, value)) = access.next_entry::<Name, f64>()? {
                    match (&mut other, name) {
                        (None, Name::Known(metric)) if len < KEPT => {
                            known[len] = (metric, value);
                            len += 1;
                        }
                        (None, name) => {
                            let mut map: SortedMap<Cow<'static, str>, f64> = known[..len]
                                .iter()
                                .map(|(m, v)| (Cow::Borrowed(m.as_str()), *v))
                                .collect();
                            map.insert(name.text(), value);
                            other = Some(map);
                        }
                        (Some(map), name) => {
                            map.insert(name.text(), value);
                        }
                    }
                }
                Ok(match other {
                    Some(map) => StepMetrics::from_map(map),
                    None => known[..len].iter().copied().collect(),
                })
            }
        }
        deserializer.deserialize_map(Entries)
    }
}

/// A sub-score's name as read: a metric's name as static text, others as
/// their own (no allocation for the names the gate writes).
enum Name {
    Known(Metric),
    Other(String),
}

impl Name {
    fn text(self) -> Cow<'static, str> {
        match self {
            Self::Known(m) => Cow::Borrowed(m.as_str()),
            Self::Other(name) => Cow::Owned(name),
        }
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a metric name")
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Name, E> {
                Ok(Metric::from_name(name)
                    .map_or_else(|| Name::Other(name.to_owned()), Name::Known))
            }
        }
        deserializer.deserialize_str(Text)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// The JSON a `BTreeMap` of the same entries reads and writes.
    fn as_map(json: &str) -> String {
        let map: BTreeMap<String, f64> = serde_json::from_str(json).unwrap();
        serde_json::to_string(&map).unwrap()
    }

    #[test]
    fn reads_and_writes_the_json_of_a_map() {
        for json in [
            "{}",
            r#"{"success": 5.0}"#,
            r#"{"success": 5.0, "result_validity": 1.0}"#,
            r#"{"faithfulness": 2.0, "completeness": 4.5, "coherence": 3.0}"#,
            // Four entries, names the gate does not give, a name twice.
            r#"{"faithfulness": 2.0, "completeness": 4.5, "coherence": 3.0, "success": 1.0}"#,
            r#"{"tone": 2.0, "completeness": 4.0}"#,
            r#"{"success": 5.0, "success": 1.0}"#,
            r#"{"completeness": 4.0, "tone": 2.0}"#,
            r#"{"success": 1.0, "coherence": 2.0, "completeness": 3.0, "success": 5.0}"#,
        ] {
            let metrics: StepMetrics = serde_json::from_str(json).unwrap();
            assert_eq!(
                serde_json::to_string(&metrics).unwrap(),
                as_map(json),
                "{json}"
            );
            let map: BTreeMap<String, f64> = serde_json::from_str(json).unwrap();
            assert_eq!(metrics.len(), map.len(), "{json}");
            assert_eq!(metrics.is_empty(), map.is_empty(), "{json}");
            for (name, value) in &map {
                assert_eq!(metrics.get(name), Some(*value), "{json}");
            }
            assert_eq!(metrics.get("absent"), None);
        }
        assert!(serde_json::from_str::<StepMetrics>(r#"{"success": "high"}"#).is_err());
        assert!(serde_json::from_str::<StepMetrics>("[]").is_err());
    }

    #[test]
    fn the_gates_sub_scores_are_kept_inline() {
        let inline = |m: &StepMetrics| matches!(m.0, Repr::Known { .. });
        let read: StepMetrics =
            serde_json::from_str(r#"{"faithfulness": 2.0, "completeness": 4.5, "coherence": 3.0}"#)
                .unwrap();
        assert!(inline(&read));
        let made: StepMetrics = [
            (Metric::Faithfulness, 2.0),
            (Metric::Completeness, 4.5),
            (Metric::Coherence, 3.0),
        ]
        .into_iter()
        .collect();
        assert_eq!(made, read);
        assert_eq!(
            made.iter().collect::<Vec<_>>(),
            [
                ("coherence", 3.0),
                ("completeness", 4.5),
                ("faithfulness", 2.0)
            ]
        );
        // A metric given twice keeps its later sub-score, as a map would.
        let twice: StepMetrics = [(Metric::Success, 5.0), (Metric::Success, 1.0)]
            .into_iter()
            .collect();
        assert_eq!(twice.iter().collect::<Vec<_>>(), [("success", 1.0)]);
        // More than a step type has is kept on the heap, none dropped.
        let four: StepMetrics = [
            (Metric::Success, 1.0),
            (Metric::Faithfulness, 2.0),
            (Metric::Completeness, 4.5),
            (Metric::Coherence, 3.0),
        ]
        .into_iter()
        .collect();
        assert!(!inline(&four));
        assert_eq!(four.len(), 4);
        assert_eq!(four.get("success"), Some(1.0));
        // A fourth entry that names a metric again leaves three: inline.
        let again: StepMetrics = serde_json::from_str(
            r#"{"success": 1.0, "coherence": 2.0, "completeness": 3.0, "success": 5.0}"#,
        )
        .unwrap();
        assert!(inline(&again));
        assert_eq!(again.get("success"), Some(5.0));
        let other: StepMetrics = serde_json::from_str(r#"{"tone": 2.0}"#).unwrap();
        assert!(!inline(&other));
        assert!(
            std::mem::size_of::<StepMetrics>() <= 32,
            "{}",
            std::mem::size_of::<StepMetrics>()
        );
    }

    #[test]
    fn every_metric_reads_back_from_its_name() {
        for m in ALL {
            assert_eq!(Metric::from_name(m.as_str()), Some(m));
        }
        assert_eq!(Metric::from_name("Success"), None);
    }
}
