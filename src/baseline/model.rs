//! Baseline files (DESIGN §9): `baselines/<name>/<suite>.json` holds the run
//! report at update time plus metadata; `<suite>.history.jsonl` holds one
//! line of suite means per update (for the 2σ band).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::run::RunReport;

/// Version of the baseline file format.
pub(crate) const BASELINE_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaselineFile {
    pub schema_version: u32,
    pub baseline: BaselineMeta,
    pub report: RunReport,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaselineMeta {
    pub name: String,
    pub suite: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_sha: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_ref: Option<String>,
    /// RFC 3339; absent when written with `--deterministic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    pub tool_version: String,
    pub spec_version: String,
    pub spec_hash: String,
    pub config_tags: BTreeMap<String, String>,
    /// Sequence number of the update that wrote this file; its history line
    /// carries the same number. History lines with a higher number belong
    /// to an update that was killed before it committed (the baseline file
    /// is written last), so readers ignore them. Set by `write_baseline`;
    /// absent in files written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update: Option<u64>,
}

/// One line of `<suite>.history.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryLine {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_sha: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_ref: Option<String>,
    pub spec_hash: String,
    pub cases: usize,
    pub config_tags: BTreeMap<String, String>,
    /// Suite mean of every metric.
    pub metrics: BTreeMap<String, f64>,
    /// The update that wrote this line (see [`BaselineMeta::update`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update: Option<u64>,
    /// Per-case outcomes of this update (issue 20): case id → metric → the
    /// value of each trial. Lines written before it existed have none; a
    /// compare then tests with the baseline report's own trials only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case_values: Option<CaseValues>,
}

/// Case id → metric → one value per trial.
pub(crate) type CaseValues = BTreeMap<String, BTreeMap<String, Vec<f64>>>;

impl HistoryLine {
    /// Whether this line describes the same agent setup as `meta`: the same
    /// spec and config tags, so its trials are exchangeable with the
    /// baseline's (a changed prompt or model tag starts a new history).
    pub fn same_setup(&self, meta: &BaselineMeta) -> bool {
        self.spec_hash == meta.spec_hash && self.config_tags == meta.config_tags
    }
}
