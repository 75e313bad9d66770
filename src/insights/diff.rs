//! The recurring issues of a head run against its baseline's.
//!
//! Groups pair by id (the same source, label, node and normalised message).
//! - **new**: in the head run, not in the baseline;
//! - **grew**: in both, and the head run has at least [`GREW_MIN_CASES`] more
//!   cases with it *and* a share of cases at least [`GREW_MIN_SHARE`] higher
//!   (both, so that neither a bigger suite nor one extra case in a small one
//!   makes an issue "grow"); the share test is done in integers, exactly;
//! - **gone**: in the baseline, not in the head run.
//!
//! A baseline written before recurring issues existed has none to pair:
//! nothing is then called new or gone, and the report says why.

use std::collections::{BTreeMap, BTreeSet};

use super::collect::collect_insights_of;
use crate::model::insights::{InsightStatus, Insights, IssueChange, IssueGroup, SuiteInsights};
use crate::model::run::{CaseReport, RunReport};

/// "Grew" needs at least this many more cases…
pub(crate) const GREW_MIN_CASES: usize = 2;
/// …and a share of cases this much higher (10 percentage points).
pub(crate) const GREW_MIN_SHARE: f64 = 0.10;
/// `GREW_MIN_SHARE` as a fraction `num / den`, for the exact integer test.
const GREW_SHARE_NUM: usize = 1;
const GREW_SHARE_DEN: usize = 10;
/// Head issues (per node and system-wide) listed in a compare.
pub(crate) const TOP_ISSUES: usize = 10;

/// The recurring-issue section of `suite` in a compare.
///
/// When both runs hold the same cases, their stored groups are diffed.
/// Otherwise (a smoke tier against a full baseline, added or removed cases)
/// both sides are regrouped over the paired cases only, as the metrics are.
pub(crate) fn suite_insights(suite: &str, head: &RunReport, base: &RunReport) -> SuiteInsights {
    let head_i = head.aggregate.insights.as_ref();
    let base_i = base.aggregate.insights.as_ref();
    let status = match (head_i, base_i) {
        (None, _) => InsightStatus::HeadWithoutInsights,
        (Some(_), None) => InsightStatus::BaselineWithoutInsights,
        (Some(_), Some(_)) => InsightStatus::Compared,
    };
    let head_ids: BTreeSet<&str> = head.cases.iter().map(|c| c.id.as_str()).collect();
    let base_ids: BTreeSet<&str> = base.cases.iter().map(|c| c.id.as_str()).collect();
    let paired: BTreeSet<&str> = head_ids.intersection(&base_ids).copied().collect();
    let restricted =
        status == InsightStatus::Compared && (paired != head_ids || paired != base_ids);
    let only_paired = |r: &RunReport| -> Insights {
        let cases: Vec<&CaseReport> = r
            .cases
            .iter()
            .filter(|c| paired.contains(c.id.as_str()))
            .collect();
        collect_insights_of(&cases)
    };
    let (h, b) = if restricted {
        (only_paired(head), Some(only_paired(base)))
    } else {
        (head_i.cloned().unwrap_or_default(), base_i.cloned())
    };
    let mut out = SuiteInsights {
        suite: suite.to_owned(),
        status,
        restricted_to_paired: restricted,
        new: Vec::new(),
        grew: Vec::new(),
        gone: Vec::new(),
        top: h.groups.iter().take(TOP_ISSUES).cloned().collect(),
        system: h.system.iter().take(TOP_ISSUES).cloned().collect(),
        head_cases: h.cases,
        base_cases: b.as_ref().map_or(0, |b| b.cases),
    };
    if let (InsightStatus::Compared, Some(b)) = (status, b.as_ref()) {
        let (new, grew, gone) = diff(&h, b);
        out.new = new;
        out.grew = grew;
        out.gone = gone;
    }
    out
}

type Changes = (Vec<IssueChange>, Vec<IssueChange>, Vec<IssueChange>);

/// New, grew and gone issues of `head` against `base`.
pub(crate) fn diff(head: &Insights, base: &Insights) -> Changes {
    let base_by_id: BTreeMap<&str, &IssueGroup> =
        base.groups.iter().map(|g| (g.id.as_str(), g)).collect();
    let head_by_id: BTreeMap<&str, &IssueGroup> =
        head.groups.iter().map(|g| (g.id.as_str(), g)).collect();
    let change = |group: &IssueGroup, base_cases: usize, head_cases: usize| IssueChange {
        group: group.clone(),
        base_cases,
        head_cases,
        base_share: share(base_cases, base.cases),
        head_share: share(head_cases, head.cases),
    };
    let mut new = Vec::new();
    let mut grew = Vec::new();
    for g in &head.groups {
        match base_by_id.get(g.id.as_str()) {
            None => new.push(change(g, 0, g.cases)),
            Some(b) if grew_rule(b.cases, base.cases, g.cases, head.cases) => {
                grew.push(change(g, b.cases, g.cases));
            }
            Some(_) => {}
        }
    }
    let mut gone: Vec<IssueChange> = base
        .groups
        .iter()
        .filter(|g| !head_by_id.contains_key(g.id.as_str()))
        .map(|g| change(g, g.cases, 0))
        .collect();
    // Head groups are already in order (most cases first); "grew" leads with the largest rise.
    grew.sort_by(|a, b| {
        (b.head_cases - b.base_cases)
            .cmp(&(a.head_cases - a.base_cases))
            .then_with(|| a.group.id.cmp(&b.group.id))
    });
    gone.sort_by(|a, b| {
        b.base_cases
            .cmp(&a.base_cases)
            .then_with(|| a.group.id.cmp(&b.group.id))
    });
    (new, grew, gone)
}

/// Whether an issue in `bc` of `bt` baseline cases grew to `hc` of `ht` head cases.
pub(crate) fn grew_rule(bc: usize, bt: usize, hc: usize, ht: usize) -> bool {
    if hc < bc + GREW_MIN_CASES || ht == 0 {
        return false;
    }
    if bt == 0 {
        return true;
    }
    // hc/ht − bc/bt ≥ num/den  ⇔  den·(hc·bt − bc·ht) ≥ num·ht·bt
    let lhs = GREW_SHARE_DEN as u128 * (hc as u128 * bt as u128);
    let rhs = GREW_SHARE_DEN as u128 * (bc as u128 * ht as u128)
        + GREW_SHARE_NUM as u128 * ht as u128 * bt as u128;
    lhs >= rhs
}

fn share(n: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        n as f64 / total as f64
    }
}
