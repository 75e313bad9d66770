//! An edge of a report's DAG: the ids of the two steps it joins.

use std::fmt;

use serde::de::{SeqAccess, Visitor};
use serde::ser::SerializeTuple as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::model::ShortText;

/// `[from, to]` step ids, read and written as a JSON array of two strings.
///
/// Ids of the form `s<n>` (every id the gate gives a step) are kept as
/// their numbers, 16 bytes an edge instead of the 48 of two inline short
/// texts: a large trace's report has an edge or two per step (issue 25).
/// Other ids are kept as read.
#[derive(Clone, PartialEq, Eq)]
pub struct StepEdge(Repr);

#[derive(Clone, PartialEq, Eq)]
enum Repr {
    Numbered(u32, u32),
    Named(Box<[ShortText; 2]>),
}

impl StepEdge {
    /// The edge from step `from` to step `to`.
    pub fn new(from: &str, to: &str) -> Self {
        match (number(from), number(to)) {
            (Some(a), Some(b)) => Self(Repr::Numbered(a, b)),
            _ => Self(Repr::Named(Box::new([from.into(), to.into()]))),
        }
    }

    /// The edge between the steps at 0-based positions `from` and `to`,
    /// whose ids are `s<position + 1>`.
    pub fn between(from: usize, to: usize) -> Self {
        let id = |i: usize| u32::try_from(i + 1).ok();
        match (id(from), id(to)) {
            (Some(a), Some(b)) => Self(Repr::Numbered(a, b)),
            _ => Self::new(&format!("s{}", from + 1), &format!("s{}", to + 1)),
        }
    }

    /// The id of the step the edge leaves.
    pub fn from(&self) -> ShortText {
        match &self.0 {
            Repr::Numbered(a, _) => id(*a),
            Repr::Named(ids) => ids[0].clone(),
        }
    }

    /// The id of the step the edge enters.
    pub fn to(&self) -> ShortText {
        match &self.0 {
            Repr::Numbered(_, b) => id(*b),
            Repr::Named(ids) => ids[1].clone(),
        }
    }

    /// `[from, to]`.
    pub fn ids(&self) -> [ShortText; 2] {
        [self.from(), self.to()]
    }
}

fn id(n: u32) -> ShortText {
    compact_str::format_compact!("s{n}")
}

/// `n` of an id `s<n>` written as the gate writes it (no sign, no leading
/// zero, from 1), so that the id reads back as the same text.
fn number(id: &str) -> Option<u32> {
    let digits = id.strip_prefix('s')?;
    if digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

impl fmt::Debug for StepEdge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{:?}, {:?}]", self.from(), self.to())
    }
}

impl Serialize for StepEdge {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut pair = serializer.serialize_tuple(2)?;
        pair.serialize_element(&self.from())?;
        pair.serialize_element(&self.to())?;
        pair.end()
    }
}

impl<'de> Deserialize<'de> for StepEdge {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Pair;
        impl<'de> Visitor<'de> for Pair {
            type Value = StepEdge;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of two step ids")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StepEdge, A::Error> {
                use serde::de::Error as _;
                let from: ShortText = seq
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(0, &self))?;
                let to: ShortText = seq
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(1, &self))?;
                if seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                    return Err(A::Error::invalid_length(3, &self));
                }
                Ok(StepEdge::new(&from, &to))
            }
        }
        deserializer.deserialize_tuple(2, Pair)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_as_the_text_it_was_read_from() {
        for json in [
            r#"["s1","s2"]"#,
            r#"["s4294967295","s7"]"#,
            r#"["s4294967296","s7"]"#,
            r#"["s01","s2"]"#,
            r#"["s0","s2"]"#,
            r#"["s","s2"]"#,
            r#"["s+1","s2"]"#,
            r#"["step one","s2"]"#,
            r#"["s1","S2"]"#,
            r#"["","s2"]"#,
        ] {
            let edge: StepEdge = serde_json::from_str(json).unwrap();
            assert_eq!(serde_json::to_string(&edge).unwrap(), json);
            let ids: [String; 2] = serde_json::from_str(json).unwrap();
            assert_eq!(edge.ids().map(|i| i.to_string()), ids, "{json}");
            assert_eq!(StepEdge::new(&ids[0], &ids[1]), edge);
        }
        for bad in [
            r#"["s1"]"#,
            r#"["s1","s2","s3"]"#,
            r#"["s1",2]"#,
            r#"{"from":"s1"}"#,
        ] {
            assert!(serde_json::from_str::<StepEdge>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_gates_ids_are_kept_as_numbers() {
        assert!(matches!(
            StepEdge::new("s1", "s12").0,
            Repr::Numbered(1, 12)
        ));
        assert!(matches!(StepEdge::new("s01", "s2").0, Repr::Named(_)));
        assert_eq!(StepEdge::between(0, 11), StepEdge::new("s1", "s12"));
        assert_eq!(StepEdge::between(0, 11).ids(), ["s1", "s12"]);
        assert_eq!(std::mem::size_of::<StepEdge>(), 16);
    }
}
