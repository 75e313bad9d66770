//! Building the views of a report.
//!
//! Size policy (a 1,000-case suite must stay a file one can open):
//! - the matrix covers **every** head case: one character per checkpoint per
//!   run, so 1,000 cases × 20 checkpoints cost about 60 KB of JSON;
//! - the history keeps the last `history_window` baseline points (the ones the
//!   2σ band is computed from) of the metrics the compare reports;
//! - full case details (DAG steps and edges, checkpoint notes, cited spans)
//!   are kept for at most [`MAX_DETAILS`] cases per suite, chosen worst first:
//!   the cases a regressed (then suspected) metric names, in the order of its
//!   localization; then cases whose checkpoint states got worse, most flips
//!   first; then cases that did not complete; then cases with failing
//!   checkpoints or a root-cause step, lowest compliance first. The number
//!   left out is recorded in `details_omitted`;
//! - a case keeps at most [`MAX_DETAIL_STEPS`] steps (failing and root-cause
//!   steps are always kept), notes at most [`MAX_NOTE_CHARS`] characters.

use std::collections::BTreeMap;

use super::detail::{detail, first_by_id};
use crate::compare::engine::SuiteInput;
use crate::model::compare::{MetricComparison, MetricStatus};
use crate::model::run::{CaseReport, CaseStatus, CheckpointState, RunReport};

use crate::model::views::{CaseRow, CompareViews, HistorySeries, SuiteViews, state_code};

/// Cases drawn in full per suite.
pub(crate) const MAX_DETAILS: usize = 20;
/// Steps kept per drawn case (failing ones always).
pub(crate) const MAX_DETAIL_STEPS: usize = 200;
/// Characters kept of a note, a message or an output tail.
pub(crate) const MAX_NOTE_CHARS: usize = 500;
/// A passing run report still draws this many cases (its weakest).
const MIN_RUN_DETAILS: usize = 3;

/// Views of a compare: one entry per suite input, in input order.
pub fn compare_views(metrics: &[MetricComparison], inputs: &[SuiteInput<'_>]) -> CompareViews {
    CompareViews {
        suites: inputs.iter().map(|i| suite_views(metrics, i)).collect(),
    }
}

/// Views of a run report (no baseline, no history).
pub(crate) fn run_views(report: &RunReport) -> SuiteViews {
    let mut ranked: Vec<(Key, Vec<String>, &CaseReport)> = report
        .cases
        .iter()
        .map(|c| {
            let mut reasons = Vec::new();
            let tier = problems(c, &mut reasons).unwrap_or(9);
            (key(tier, c), reasons, c)
        })
        .collect();
    ranked.sort_by(|a, b| a.0.cmp(&b.0));
    let qualified = ranked.iter().filter(|r| r.0.0 < 9).count();
    let take = qualified.clamp(MIN_RUN_DETAILS, MAX_DETAILS);
    let details = ranked
        .into_iter()
        .take(take)
        .map(|(_, reasons, c)| detail(c, None, reasons))
        .collect();
    SuiteViews {
        suite: report.suite.clone(),
        history: HistorySeries::default(),
        checkpoints: report.checkpoint_catalog.clone(),
        cases: rows(report, None),
        details,
        details_omitted: qualified.saturating_sub(MAX_DETAILS),
    }
}

/// Sort key of a candidate case: tier, then two ranks, then the id.
type Key = (u8, usize, usize, String);

fn key(tier: u8, c: &CaseReport) -> Key {
    // Lowest compliance first; undefined compliance sorts last within the tier.
    let compliance = c
        .scores
        .compliance_percent
        .filter(|v| v.is_finite())
        .map_or(usize::MAX, |v| (v.clamp(0.0, 100.0) * 100.0) as usize);
    (tier, compliance, 0, c.id.clone())
}

fn suite_views(metrics: &[MetricComparison], input: &SuiteInput<'_>) -> SuiteViews {
    let head = input.head;
    let base_cases: BTreeMap<&str, &CaseReport> = input
        .base
        .cases
        .iter()
        .map(|c| (c.id.as_str(), c))
        .collect();
    let ours: Vec<&MetricComparison> = metrics.iter().filter(|m| m.suite == input.suite).collect();

    let mut candidates: BTreeMap<String, (Key, Vec<String>)> = BTreeMap::new();

    // Tier 0: the cases each regressed (then suspected) metric names.
    for (mi, m) in ours.iter().enumerate() {
        if !matches!(m.status, MetricStatus::Regression | MetricStatus::Suspected) {
            continue;
        }
        let Some(loc) = &m.localization else { continue };
        for (fi, f) in loc.flipped_cases.iter().enumerate() {
            let Some(c) = head.cases.iter().find(|c| c.id == f.case) else {
                continue;
            };
            offer(
                &mut candidates,
                c.id.as_str(),
                (0, mi, fi, c.id.clone()),
                format!("{} {}", m.status, m.name),
            );
        }
    }
    for c in &head.cases {
        // Tier 1: checkpoint states that got worse than in the baseline.
        if let Some(b) = base_cases.get(c.id.as_str()) {
            let b_by_id = first_by_id(&b.checkpoints);
            let worse: Vec<String> = c
                .checkpoints
                .iter()
                .filter_map(|h| {
                    let bs = b_by_id.get(h.id.as_str())?.result;
                    is_worse(bs, h.result).then(|| format!("{} {bs} → {}", h.id, h.result))
                })
                .collect();
            if !worse.is_empty() {
                let k = key(1, c);
                offer(
                    &mut candidates,
                    c.id.as_str(),
                    (1, usize::MAX - worse.len(), k.1, c.id.clone()),
                    format!("got worse: {}", worse.join(", ")),
                );
            }
        }
        // Tiers 2 and 3: what is wrong with the head run alone.
        let mut reasons = Vec::new();
        if let Some(tier) = problems(c, &mut reasons) {
            let k = key(tier + 2, c);
            let known = candidates.contains_key(&c.id);
            for r in reasons {
                // "FAIL: …" repeats what an earlier reason already says.
                if !(known && r.starts_with("FAIL:")) {
                    offer(&mut candidates, c.id.as_str(), k.clone(), r);
                }
            }
        }
    }
    let mut ranked: Vec<(String, (Key, Vec<String>))> = candidates.into_iter().collect();
    ranked.sort_by(|a, b| a.1.0.cmp(&b.1.0));
    let omitted = ranked.len().saturating_sub(MAX_DETAILS);
    let details = ranked
        .into_iter()
        .take(MAX_DETAILS)
        .filter_map(|(id, (_, reasons))| {
            let c = head.cases.iter().find(|c| c.id == id)?;
            Some(detail(c, base_cases.get(id.as_str()).copied(), reasons))
        })
        .collect();

    SuiteViews {
        suite: input.suite.to_owned(),
        history: history(input, &ours),
        checkpoints: head.checkpoint_catalog.clone(),
        cases: rows(head, Some(&base_cases)),
        details,
        details_omitted: omitted,
    }
}

/// Add a candidate case (keeping its best key) with one more reason.
fn offer(candidates: &mut BTreeMap<String, (Key, Vec<String>)>, id: &str, k: Key, reason: String) {
    let entry = candidates
        .entry(id.to_owned())
        .or_insert_with(|| (k.clone(), Vec::new()));
    if k < entry.0 {
        entry.0 = k;
    }
    entry.1.push(reason);
}

/// `Some(0)` for a case that did not complete, `Some(1)` for one with failing
/// checkpoints or a root-cause step, `None` otherwise; reasons are appended.
fn problems(c: &CaseReport, reasons: &mut Vec<String>) -> Option<u8> {
    if c.status != CaseStatus::Ok {
        reasons.push(format!("did not complete: {}", c.status));
        return Some(0);
    }
    let failed: Vec<&str> = c
        .checkpoints
        .iter()
        .filter(|x| x.result == CheckpointState::Fail)
        .map(|x| x.id.as_str())
        .collect();
    let roots: Vec<String> = c
        .steps
        .iter()
        .filter(|s| s.root_cause)
        .map(|s| format!("{} {} {}", s.id, s.step_type, s.name))
        .collect();
    if !failed.is_empty() {
        reasons.push(format!("FAIL: {}", failed.join(", ")));
    }
    if !roots.is_empty() {
        reasons.push(format!("root cause: {}", roots.join("; ")));
    }
    (!failed.is_empty() || !roots.is_empty()).then_some(1)
}

/// A decided state that lost weight, or any state that became FAIL.
pub(crate) fn is_worse(base: CheckpointState, head: CheckpointState) -> bool {
    let weight = |s: CheckpointState| match s {
        CheckpointState::Pass => Some(2),
        CheckpointState::Partial => Some(1),
        CheckpointState::Fail => Some(0),
        CheckpointState::NotApplicable | CheckpointState::Blocked => None,
    };
    match (weight(base), weight(head)) {
        (Some(b), Some(h)) => h < b,
        (_, Some(0)) => true,
        _ => false,
    }
}

fn history(input: &SuiteInput<'_>, metrics: &[&MetricComparison]) -> HistorySeries {
    let window = input.history_window().max(1);
    let lines = &input.history[input.history.len().saturating_sub(window)..];
    if lines.is_empty() {
        return HistorySeries::default();
    }
    let labels = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if let Some(sha) = l.git_sha.as_deref().filter(|s| !s.is_empty()) {
                sha.chars().take(7).collect()
            } else if let Some(date) = l.updated_at.as_deref().filter(|s| !s.is_empty()) {
                date.chars().take(10).collect()
            } else {
                format!("#{}", input.history.len() - lines.len() + i + 1)
            }
        })
        .collect();
    let mut series = BTreeMap::new();
    for m in metrics {
        let values: Vec<Option<f64>> = lines
            .iter()
            .map(|l| l.metrics.get(&m.name).copied().filter(|v| v.is_finite()))
            .collect();
        if values.iter().any(Option::is_some) {
            series.insert(m.name.clone(), values);
        }
    }
    HistorySeries { labels, series }
}

fn rows(head: &RunReport, base: Option<&BTreeMap<&str, &CaseReport>>) -> Vec<CaseRow> {
    let code = |c: &CaseReport| -> String {
        let by_id = first_by_id(&c.checkpoints);
        head.checkpoint_catalog
            .iter()
            .map(|info| {
                by_id
                    .get(info.id.as_str())
                    .map_or('-', |r| state_code(r.result))
            })
            .collect()
    };
    head.cases
        .iter()
        .map(|c| {
            let b = base.and_then(|m| m.get(c.id.as_str()).copied());
            CaseRow {
                id: c.id.clone(),
                status: c.status,
                head: code(c),
                base: b.map(code).unwrap_or_default(),
                head_compliance: c.scores.compliance_percent,
                base_compliance: b.and_then(|b| b.scores.compliance_percent),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worse_means_lost_weight_or_became_fail() {
        use CheckpointState::{Blocked, Fail, NotApplicable, Partial, Pass};
        assert!(is_worse(Pass, Fail));
        assert!(is_worse(Pass, Partial));
        assert!(is_worse(NotApplicable, Fail));
        assert!(!is_worse(Fail, Pass));
        assert!(!is_worse(Pass, NotApplicable));
        assert!(!is_worse(Blocked, Pass));
        assert!(!is_worse(Fail, Fail));
    }
}
