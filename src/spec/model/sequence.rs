//! Tier-2 sequence forms (DESIGN §6, docs/suites.md): first-occurrence
//! `before/then`, `never` (an event or a forbidden subsequence),
//! `eventually`, `count`, `order`, and the per-occurrence forms `each` +
//! `preceded_by`/`followed_by`.

use std::fmt;

use schemars::JsonSchema;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_saphyr::Spanned;

use super::EventMatcher;

/// A matcher with its YAML location.
pub type SpannedMatcher = Spanned<EventMatcher>;

/// Tier-2 sequence assertion; exactly one form.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SequenceSpec {
    /// First occurrence, `{before: X, then: Y}`: N/A without a Y event; PASS
    /// if an X precedes the FIRST Y (with matching captures), else FAIL.
    /// For "before every Y" use `each`/`preceded_by`.
    #[serde(default)]
    #[schemars(with = "Option<EventMatcher>")]
    pub before: Option<SpannedMatcher>,
    #[serde(default)]
    #[schemars(with = "Option<EventMatcher>")]
    pub then: Option<SpannedMatcher>,
    /// One matcher: FAIL if any event matches. A list `[X, Y, …]`: FAIL if
    /// the events occur in that order (a forbidden subsequence, captures
    /// compared).
    #[serde(default)]
    #[schemars(with = "Option<NeverSchema>")]
    pub never: Option<Spanned<NeverSpec>>,
    /// PASS if some event matches.
    #[serde(default)]
    #[schemars(with = "Option<EventMatcher>")]
    pub eventually: Option<SpannedMatcher>,
    #[serde(default)]
    pub count: Option<CountSpec>,
    /// PASS if the matchers occur as a subsequence in this order (captures compared).
    #[serde(default)]
    #[schemars(with = "Option<Vec<EventMatcher>>")]
    pub order: Option<Vec<SpannedMatcher>>,
    /// Per occurrence: the events this form checks one by one. With
    /// `preceded_by`, EVERY `each` event needs a matching event before it
    /// (since the previous `each` event, or `since: start`); with
    /// `followed_by`, after it (until the next `each` event, or `until: end`).
    /// N/A without an `each` event.
    #[serde(default)]
    #[schemars(with = "Option<EventMatcher>")]
    pub each: Option<SpannedMatcher>,
    /// One matcher, or a list `[X1, X2, …]` that must occur in this order
    /// in the window before the `each` event.
    #[serde(default)]
    #[schemars(with = "Option<NeverSchema>")]
    pub preceded_by: Option<Spanned<NeverSpec>>,
    /// One matcher, or a list that must occur in this order in the window
    /// after the `each` event.
    #[serde(default)]
    #[schemars(with = "Option<NeverSchema>")]
    pub followed_by: Option<Spanned<NeverSpec>>,
    /// Per occurrence: no event matching this may lie between the `each`
    /// event and its match (with a list, between the `each` event and the
    /// farthest step; the events the steps matched do not count), e.g.
    /// `{kind: user}` with a user-message `preceded_by`: the user's LAST
    /// message before each Y must match.
    #[serde(default)]
    #[schemars(with = "Option<EventMatcher>")]
    pub none_between: Option<SpannedMatcher>,
    /// Per occurrence: the matching event must lie within this many events of
    /// the `each` event (1 = immediately before/after). Every event counts:
    /// calls and messages.
    #[serde(default)]
    pub within: Option<u32>,
    /// With `preceded_by`: where the search starts (default `previous`).
    #[serde(default)]
    pub since: Option<Since>,
    /// With `followed_by`: where the search ends (default `next`).
    #[serde(default)]
    pub until: Option<Until>,
}

impl SequenceSpec {
    /// Names of the forms present.
    pub fn forms(&self) -> Vec<&'static str> {
        let present = [
            ("before/then", self.before.is_some() || self.then.is_some()),
            ("never", self.never.is_some()),
            ("eventually", self.eventually.is_some()),
            ("count", self.count.is_some()),
            ("order", self.order.is_some()),
            (
                "each",
                self.each.is_some() || self.preceded_by.is_some() || self.followed_by.is_some(),
            ),
        ];
        present
            .into_iter()
            .filter_map(|(name, set)| set.then_some(name))
            .collect()
    }

    /// Every matcher in the assertion, in document order.
    pub fn matchers(&self) -> Vec<&SpannedMatcher> {
        let mut all: Vec<&SpannedMatcher> = Vec::new();
        all.extend(self.before.iter());
        all.extend(self.then.iter());
        if let Some(never) = &self.never {
            all.extend(never.value.matchers());
        }
        all.extend(self.eventually.iter());
        all.extend(self.count.iter().map(|c| &c.of));
        if let Some(order) = &self.order {
            all.extend(order.iter());
        }
        all.extend(self.each.iter());
        for steps in [&self.preceded_by, &self.followed_by].into_iter().flatten() {
            all.extend(steps.value.matchers());
        }
        all.extend(self.none_between.iter());
        all
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CountSpec {
    #[schemars(with = "EventMatcher")]
    pub of: SpannedMatcher,
    #[serde(default)]
    pub min: Option<u32>,
    #[serde(default)]
    pub max: Option<u32>,
}

/// Where `preceded_by` looks for its event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Since {
    /// After the previous `each` event (the first one: from the start).
    #[default]
    Previous,
    /// Anywhere before the `each` event.
    Start,
}

/// Where `followed_by` looks for its event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Until {
    /// Before the next `each` event (the last one: to the end).
    #[default]
    Next,
    /// Anywhere after the `each` event.
    End,
}

/// `never: X` or `never: [X, Y, …]` (also `preceded_by`/`followed_by`).
#[derive(Debug, Clone)]
pub enum NeverSpec {
    One(Box<EventMatcher>),
    Sequence(Vec<SpannedMatcher>),
}

impl NeverSpec {
    /// The matchers of a forbidden subsequence (the single matcher has its
    /// location on the enclosing `Spanned`).
    pub fn matchers(&self) -> Vec<&SpannedMatcher> {
        match self {
            Self::One(_) => Vec::new(),
            Self::Sequence(items) => items.iter().collect(),
        }
    }
}

impl<'de> Deserialize<'de> for NeverSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NeverVisitor;

        impl<'de> Visitor<'de> for NeverVisitor {
            type Value = NeverSpec;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an event matcher or a list of event matchers")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<NeverSpec, A::Error> {
                EventMatcher::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|m| NeverSpec::One(Box::new(m)))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<NeverSpec, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<SpannedMatcher>()? {
                    items.push(item);
                }
                Ok(NeverSpec::Sequence(items))
            }
        }

        deserializer.deserialize_any(NeverVisitor)
    }
}

/// The JSON Schema of `never` (the type above deserializes by hand).
#[derive(JsonSchema)]
#[serde(untagged)]
#[expect(dead_code, reason = "only its JSON Schema is used")]
enum NeverSchema {
    One(Box<EventMatcher>),
    Sequence(Vec<EventMatcher>),
}
