//! Checkpoints (workflow framework): severity, the tier-1 assertion, the
//! tier-2 sequence, tier-3 partial criteria, scoping with `applies_to`, and
//! the environment constraints that make checkpoints BLOCKED.

use crate::model::vocab::Severity;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;

use super::{SequenceSpec, SpannedString};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckpointSpec {
    /// Immutable ID, e.g. `P1-01`.
    #[schemars(with = "String")]
    pub id: SpannedString,
    /// 1 = state assertion on evidence, 2 = sequence assertion on the trace,
    /// 3 = semantic (LLM judge).
    pub tier: u8,
    pub instruction: String,
    pub severity: Severity,
    /// Where the evidence comes from (`trace`, `final_answer`, or an evidence key).
    #[serde(default)]
    pub evidence_sources: Vec<String>,
    /// Scope: the cases this checkpoint applies to (every given selector must
    /// hold). Elsewhere it is N/A "not applicable to this case", which does
    /// not lower spec health. Absent = every case.
    #[serde(default)]
    pub applies_to: Option<AppliesToSpec>,
    /// Tier 1: assertion on the evidence JSON.
    #[serde(default)]
    pub assert: Option<AssertSpec>,
    /// Tier 2: assertion on the trace's events (tool, LLM, agent calls and
    /// user/assistant/system messages) in time order.
    #[serde(default)]
    #[schemars(with = "Option<SequenceSpec>")]
    pub sequence: Option<Spanned<SequenceSpec>>,
    /// Tier 3: conditions that earn partial credit.
    #[serde(default)]
    pub partial_criteria: Vec<PartialCriterionSpec>,
    /// Not supported: read so that lint can say to use `applies_to.tags`
    /// instead of silently ignoring it. Not in the JSON Schema.
    #[serde(default)]
    #[schemars(skip)]
    pub tags: Option<Spanned<serde::de::IgnoredAny>>,
}

/// Which cases a checkpoint applies to. Every selector given must hold; a
/// list holds when any of its entries does.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AppliesToSpec {
    /// The case carries at least one of these tags.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub tags: Vec<SpannedString>,
    /// The case id is one of these.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub cases: Vec<SpannedString>,
    /// A condition on the case's evidence (tier-1 operators). A case without
    /// an evidence file cannot be scoped this way: the checkpoint is N/A with
    /// that reason.
    #[serde(default)]
    pub evidence: Option<AssertSpec>,
    /// A CEL predicate over the case: `evidence`, `metadata`, `tags`, `case`
    /// (its id), `expected_tools`. An error makes the checkpoint unevaluated.
    #[serde(default, rename = "where")]
    #[schemars(with = "Option<String>")]
    pub where_: Option<SpannedString>,
    /// At least one of these conditions holds.
    #[serde(default)]
    pub any_of: Vec<AppliesToSpec>,
    /// Every one of these conditions holds.
    #[serde(default)]
    pub all_of: Vec<AppliesToSpec>,
    /// This condition does not hold.
    #[serde(default)]
    pub not: Option<Box<AppliesToSpec>>,
}

/// Tier-1 assertion: a JSON Pointer and one or more operators (all must hold).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AssertSpec {
    /// JSON Pointer into the evidence, e.g. `/ticket/status`.
    #[schemars(with = "String")]
    pub path: SpannedString,
    #[serde(default)]
    pub equals: Option<Value>,
    #[serde(default)]
    pub not_equals: Option<Value>,
    #[serde(default)]
    pub exists: Option<bool>,
    /// Substring of a string, element of an array, or key of an object.
    #[serde(default)]
    pub contains: Option<Value>,
    /// Regular expression the string value must match.
    #[serde(default)]
    pub matches: Option<String>,
    #[serde(default, rename = "in")]
    pub in_: Option<Vec<Value>>,
    #[serde(default)]
    pub gte: Option<f64>,
    #[serde(default)]
    pub lte: Option<f64>,
}

impl AssertSpec {
    /// Names of the operators present, in a fixed order.
    pub fn operators(&self) -> Vec<&'static str> {
        let present = [
            ("equals", self.equals.is_some()),
            ("not_equals", self.not_equals.is_some()),
            ("exists", self.exists.is_some()),
            ("contains", self.contains.is_some()),
            ("matches", self.matches.is_some()),
            ("in", self.in_.is_some()),
            ("gte", self.gte.is_some()),
            ("lte", self.lte.is_some()),
        ];
        present
            .into_iter()
            .filter_map(|(name, set)| set.then_some(name))
            .collect()
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PartialCriterionSpec {
    pub condition: String,
    /// Weight earned when this criterion matches (0 < w < 1; default 0.5).
    #[serde(default)]
    pub weight: Option<f64>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvConstraintSpec {
    #[schemars(with = "String")]
    pub id: SpannedString,
    /// What the environment cannot do.
    pub constraint: String,
    /// Checkpoint IDs that become BLOCKED while the constraint is active.
    #[schemars(with = "Vec<String>")]
    pub affects: Vec<SpannedString>,
    /// Evaluated on the case's evidence; absent = always active.
    #[serde(default)]
    pub active_when: Option<AssertSpec>,
}
