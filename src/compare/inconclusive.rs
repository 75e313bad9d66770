//! Inconclusive gating metrics (issue 23): a metric that can fail the gate, got worse in
//! every case that changed, and changed in too few cases for the test to reach α (or the
//! suite has fewer paired cases than `min_cases`). The gate cannot tell such a change from
//! noise, so it must not show a pass; [`crate::compare::decide`] turns these into the
//! `inconclusive` verdict.

use crate::compare::localize::worse_cases;
use crate::compare::pairing::Paired;
use crate::model::compare::{MetricComparison, MetricStatus, TestName};
use crate::stats::needed_changed;

/// What makes a metric inconclusive: the cases that got worse, worst first, and how many
/// changed cases (all in one direction) and paired cases would let the test decide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Undecided {
    pub cases: Vec<String>,
    pub needed_changed: usize,
    pub cases_needed: usize,
    /// Even had every paired case got worse, the test could not have reached α (fewer paired
    /// cases than it needs, or than `min_cases`).
    pub undecidable: bool,
    /// More than half of the paired cases got worse.
    pub majority_worse: bool,
}

/// `Some` when `m` (already given its status) got worse in every case that changed and its
/// test could not have fired: fewer paired cases than `min_cases`, or too few changed
/// cases for any p-value at or below `alpha` (Tarone's rule marked it `no_variation`).
pub(crate) fn undecided(
    m: &MetricComparison,
    paired: &Paired,
    min_cases: usize,
    alpha: f64,
) -> Option<Undecided> {
    if matches!(
        m.status,
        MetricStatus::Regression | MetricStatus::NotComparable
    ) {
        return None;
    }
    let d = m.oriented_delta()?;
    if d >= 0.0 || m.min_effect.is_some_and(|e| d.abs() < e) {
        return None;
    }
    let untestable = m.n < min_cases || m.test.is_none_or(|t| t == TestName::NoVariation);
    if !untestable {
        return None;
    }
    let worse = worse_cases(paired, &m.name);
    let higher = crate::model::metric::higher_is_better(&m.name);
    let better = paired
        .values(&m.name)
        .into_iter()
        .filter(|(_, b, h)| if higher { h > b } else { h < b })
        .count();
    if worse.is_empty() || better > 0 {
        return None;
    }
    let needed = needed_changed(alpha);
    let worse_count = worse.len();
    let rate_cases = (needed * m.n.max(1)).div_ceil(worse.len());
    Some(Undecided {
        cases: worse.into_iter().map(|(c, ..)| c).collect(),
        needed_changed: needed,
        cases_needed: rate_cases.max(min_cases).max(m.n + 1),
        undecidable: m.n < min_cases || m.n < needed,
        majority_worse: 2 * worse_count > m.n,
    })
}
