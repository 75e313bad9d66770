//! Cases (inline or included JSONL) and how task success is decided: each
//! case's `expected_output` on the final answer, and the suite's `task.success`
//! from ground truth (an evidence condition, named checkpoints).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_saphyr::Spanned;

use super::{AssertSpec, SpannedString};

/// Task success from ground truth, for every case.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskSpec {
    #[serde(default)]
    #[schemars(with = "Option<TaskSuccessSpec>")]
    pub success: Option<Spanned<TaskSuccessSpec>>,
}

/// A case succeeds when every source given holds, and the case's
/// `expected_output` (if any) matches the final answer too.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskSuccessSpec {
    /// A condition on the case's evidence, e.g. `{path: /reward, equals: 1}`.
    /// No evidence file: undecided (left out of the mean), never a success.
    #[serde(default)]
    pub evidence: Option<AssertSpec>,
    /// Checkpoints that must all PASS. A FAIL or PARTIAL is a failure; N/A
    /// or BLOCKED leaves the case undecided.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub checkpoints: Vec<SpannedString>,
}

/// One entry of `cases:`: an inline case or `include: file.jsonl`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseEntry {
    /// Path (relative to the suite) of a JSONL file of cases; no other key allowed.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub include: Option<SpannedString>,
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub id: Option<SpannedString>,
    /// The case input: a string or any JSON value.
    #[serde(default)]
    pub input: Option<Value>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub expected_output: Option<ExpectedOutput>,
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub expected_tools: Vec<SpannedString>,
    #[serde(default)]
    pub difficulty: Option<String>,
    /// Trace file override, relative to the suite directory.
    #[serde(default)]
    pub trace: Option<String>,
    /// Evidence file override, relative to the suite directory.
    #[serde(default)]
    pub evidence: Option<String>,
    #[serde(default)]
    pub metadata: BTreeMap<String, Value>,
}

/// Task-success matcher; exactly one field.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectedOutput {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<String>,
    /// Equal after lower-casing, trimming and collapsing whitespace and punctuation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalized: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<String>,
    /// The answer parses as a JSON object with these keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_keys: Option<Vec<String>>,
    /// Graded by the judge against this reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semantic: Option<String>,
}

impl ExpectedOutput {
    pub fn matchers(&self) -> Vec<&'static str> {
        let mut m = Vec::new();
        if self.exact.is_some() {
            m.push("exact");
        }
        if self.normalized.is_some() {
            m.push("normalized");
        }
        if self.contains.is_some() {
            m.push("contains");
        }
        if self.regex.is_some() {
            m.push("regex");
        }
        if self.json_keys.is_some() {
            m.push("json_keys");
        }
        if self.semantic.is_some() {
            m.push("semantic");
        }
        m
    }
}
