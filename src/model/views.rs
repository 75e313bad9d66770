//! Serde types of the `views` block of the compare report (additive to the
//! DESIGN §13 contract: every field is optional when reading).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::run::{
    CaseReport, CaseStatus, CheckpointInfo, CheckpointResult, CheckpointState,
};

/// Views of every suite of a compare, in suite order.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CompareViews {
    pub suites: Vec<SuiteViews>,
}

/// What one suite's drawings need.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SuiteViews {
    pub suite: String,
    /// The baseline history behind the 2σ band (the last `history_window` points).
    #[serde(default, skip_serializing_if = "HistorySeries::is_empty")]
    pub history: HistorySeries,
    /// Columns of the case × checkpoint matrix, in the head run's suite order.
    #[serde(default)]
    pub checkpoints: Vec<CheckpointInfo>,
    /// One row per head case, in head order.
    #[serde(default)]
    pub cases: Vec<CaseRow>,
    /// The cases worth drawing, worst first, capped (see `build`).
    #[serde(default)]
    pub details: Vec<CaseDetail>,
    /// Cases that qualified for `details` but were left out by the cap.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub details_omitted: usize,
}

/// Suite means of each metric over the baseline history, oldest first.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HistorySeries {
    /// One label per history point: the short git sha, else the date, else `#k`.
    #[serde(default)]
    pub labels: Vec<String>,
    /// Metric → one value per label (`null` where that update lacked the metric).
    #[serde(default)]
    pub series: BTreeMap<String, Vec<Option<f64>>>,
}

impl HistorySeries {
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The points of `metric` as `(index, value)`, skipping gaps.
    pub fn points(&self, metric: &str) -> Vec<(usize, f64)> {
        self.series
            .get(metric)
            .map(|v| {
                v.iter()
                    .enumerate()
                    .filter_map(|(i, x)| x.filter(|x| x.is_finite()).map(|x| (i, x)))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// One row of the matrix. `head` and `base` hold one character per column of
/// [`SuiteViews::checkpoints`]: `P` PASS, `~` PARTIAL, `F` FAIL, `N` N/A,
/// `B` BLOCKED, `-` not in that run. `base` is empty for a case the baseline
/// does not have (and in run reports).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseRow {
    pub id: String,
    pub status: CaseStatus,
    pub head: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub base: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_compliance: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_compliance: Option<f64>,
}

/// A case drawn in full: its head report (DAG steps and edges, checkpoint
/// results with notes and cited spans) and the baseline's results of the
/// checkpoints whose state changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseDetail {
    /// Why this case is shown, most important first.
    pub reasons: Vec<String>,
    pub head: CaseReport,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub base_checkpoints: Vec<CheckpointResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_compliance: Option<f64>,
    /// Steps left out of `head.steps` by the per-case cap.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub steps_omitted: usize,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The matrix code of a checkpoint state.
pub(crate) fn state_code(state: CheckpointState) -> char {
    match state {
        CheckpointState::Pass => 'P',
        CheckpointState::Partial => '~',
        CheckpointState::Fail => 'F',
        CheckpointState::NotApplicable => 'N',
        CheckpointState::Blocked => 'B',
    }
}
