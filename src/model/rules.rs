//! Where the rules that decided a compare came from, and what a pull request
//! changes in them (issue 25: a pull request cannot change the rules it is
//! judged by). In a `pull_request` event the suites, their checkpoints and
//! gates and `agenteval.yaml` are read from the PR's base commit; the PR's own
//! versions are checked and their differences listed as "changes to the gate,
//! effective after merge".

use serde::{Deserialize, Serialize};

use crate::model::compare::SourceKind;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RulesInfo {
    pub kind: SourceKind,
    /// The revision the rules were read from (the PR's base sha, or `--rules-ref`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rev: Option<String>,
    /// `pull request base`, `--rules-ref`, `default`.
    pub chosen_by: String,
    /// What the working tree (the pull request) changes in the rules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<GateChange>,
    /// Suites the rules' revision has and the working tree lacks (removed or
    /// renamed): the gate fails closed for them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed_suites: Vec<String>,
}

/// One difference between the rules' revision and the working tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateChange {
    /// The suite (by name) or `None` for `agenteval.yaml`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<String>,
    pub kind: ChangeKind,
    /// Where: `gates.fail_on`, `checkpoints[P2-02].severity`, `cases`, `judge.base_url`.
    pub path: String,
    /// The value at the rules' revision (compact JSON, capped), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// The value in the working tree, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// Makes the gate more lenient: a lower severity or `fail_on`, a smaller α, a
    /// larger `min_cases` or `min_effect`, a removed checkpoint or gate.
    Weakened,
    Removed,
    Changed,
    Added,
    Strengthened,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Weakened => "weakened",
            Self::Removed => "removed",
            Self::Changed => "changed",
            Self::Added => "added",
            Self::Strengthened => "strengthened",
        }
    }
}
