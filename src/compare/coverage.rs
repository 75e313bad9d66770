//! What the head run could actually evaluate: per checkpoint, in how many cases it was
//! decided, N/A (and why) or BLOCKED; and whether most cases failed for one infrastructure
//! cause. Counting only: the decisions taken on these numbers are in [`super::decide`].

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::model::compare::{CheckpointCoverage, CoverageChange, CoverageChangeKind};
use crate::model::run::{CaseStatus, CheckpointState, NaKind, RunReport};
use crate::spec::model::FailOn;

/// Coverage of every checkpoint of `head`, in catalog order. `unevaluated` is set for a
/// checkpoint at or above `fail_on` decided in no case although some case could not
/// evaluate it (N/A for want of a judge, evidence or trace, or BLOCKED), for one whose
/// evaluation broke down in some case even if others decided it (N/A `expr_error` or
/// `search_limit`: that case might have failed), and for one whose
/// [`CoverageChange`] against `base` hides a result (`may_be_vacuous` lists the ids that may).
pub(crate) fn checkpoint_coverage(
    suite: &str,
    head: &RunReport,
    base: &RunReport,
    fail_on: FailOn,
    may_be_vacuous: &[String],
) -> Vec<CheckpointCoverage> {
    let head_counts = count(head);
    let base_counts = count(base);
    let base_ids: HashSet<&str> = base
        .checkpoint_catalog
        .iter()
        .map(|b| b.id.as_str())
        .collect();
    head.checkpoint_catalog
        .iter()
        .map(|info| {
            let (n, reasons) = &head_counts[info.id.as_str()];
            let mut c = CheckpointCoverage {
                suite: suite.to_owned(),
                id: info.id.clone(),
                severity: info.severity,
                decided: n.decided,
                vacuous: n.vacuous,
                not_evaluated: n.not_evaluated,
                blocked: n.blocked,
                reason: String::new(),
                unevaluated: false,
                change: None,
            };
            if c.decided == 0 {
                c.reason = most_common(reasons)
                    .map(|(reason, n)| format!("{reason} ({n} of {})", head.cases.len()))
                    .unwrap_or_default();
                c.unevaluated = c.not_evaluated + c.blocked > 0 && fail_on.fails(info.severity);
            } else if n.broken > 0 && fail_on.fails(info.severity) {
                // Decided elsewhere, but its evaluation broke down in some case (a `where`
                // error, a search out of budget): that case could hide a failure.
                c.reason = most_common(&n.broken_reasons)
                    .map(|(reason, k)| format!("{reason} ({k} of {})", head.cases.len()))
                    .unwrap_or_default();
                c.unevaluated = true;
            }
            if base_ids.contains(info.id.as_str()) && !c.unevaluated && fail_on.fails(info.severity)
            {
                let none = Counts::default();
                let b = base_counts.get(info.id.as_str()).map_or(&none, |(b, _)| b);
                c.change = coverage_change(b, n, may_be_vacuous.contains(&info.id));
                c.unevaluated = c
                    .change
                    .as_ref()
                    .is_some_and(CoverageChange::hides_a_result);
            }
            c
        })
        .collect()
}

/// A checkpoint decided on one side only, where the other side had nothing to check (N/A:
/// vacuous) in every case that ran it.
fn coverage_change(base: &Counts, head: &Counts, allowed: bool) -> Option<CoverageChange> {
    let kind = match (base.decided > 0, head.decided > 0) {
        (true, false) if head.vacuous > 0 && head.not_evaluated + head.blocked == 0 => {
            CoverageChangeKind::NoLongerChecked
        }
        (false, true) if base.vacuous > 0 && base.not_evaluated + base.blocked == 0 => {
            CoverageChangeKind::NewlyChecked
        }
        _ => return None,
    };
    Some(CoverageChange {
        kind,
        base_decided: base.decided,
        head_decided: head.decided,
        head_not_passed: head.not_passed,
        allowed,
    })
}

/// Per checkpoint id: how its results went over `run`'s cases, and why it was not decided.
fn count(run: &RunReport) -> HashMap<&str, (Counts, BTreeMap<String, usize>)> {
    // One pass over every case's results, counted per checkpoint id: catalog entry `k` is
    // counted in `counts[of[k]]`.
    let catalog = &run.checkpoint_catalog;
    let mut index: HashMap<&str, usize> = HashMap::new();
    let of: Vec<usize> = catalog
        .iter()
        .map(|info| {
            let next = index.len();
            *index.entry(info.id.as_str()).or_insert(next)
        })
        .collect();
    let mut counts: Vec<(Counts, BTreeMap<String, usize>)> =
        (0..index.len()).map(|_| Default::default()).collect();
    for case in &run.cases {
        for (k, r) in case.checkpoints.iter().enumerate() {
            // A case's results usually come in catalog order.
            let slot = match catalog.get(k) {
                Some(info) if info.id == r.id => Some(of[k]),
                _ => index.get(r.id.as_str()).copied(),
            };
            let Some(slot) = slot else {
                continue;
            };
            let (c, reasons) = &mut counts[slot];
            match r.result {
                CheckpointState::Pass => c.decided += 1,
                CheckpointState::Partial | CheckpointState::Fail => {
                    c.decided += 1;
                    c.not_passed += 1;
                }
                CheckpointState::NotApplicable if r.na_kind.is_some_and(NaKind::is_vacuous) => {
                    c.vacuous += 1;
                }
                CheckpointState::NotApplicable => {
                    c.not_evaluated += 1;
                    *reasons.entry(format!("N/A: {}", r.notes)).or_default() += 1;
                    if r.na_kind.is_some_and(NaKind::broke_down) {
                        c.broken += 1;
                        *c.broken_reasons
                            .entry(format!("N/A: {}", r.notes))
                            .or_default() += 1;
                    }
                }
                CheckpointState::Blocked => {
                    c.blocked += 1;
                    *reasons.entry(r.notes.clone()).or_default() += 1;
                }
            }
        }
    }
    index
        .into_iter()
        .map(|(id, slot)| (id, std::mem::take(&mut counts[slot])))
        .collect()
}

/// How one checkpoint's results went over the cases.
#[derive(Debug, Default)]
struct Counts {
    decided: usize,
    /// Decided PARTIAL or FAIL.
    not_passed: usize,
    vacuous: usize,
    not_evaluated: usize,
    /// Of those, N/A because the evaluation itself broke down ([`NaKind::broke_down`]),
    /// with their reasons.
    broken: usize,
    broken_reasons: BTreeMap<String, usize>,
    blocked: usize,
}

/// The most frequent key; ties go to the first in order.
fn most_common(counts: &BTreeMap<String, usize>) -> Option<(&str, usize)> {
    counts
        .iter()
        .fold(None, |best: Option<(&str, usize)>, (k, &n)| match best {
            Some((_, m)) if m >= n => best,
            _ => Some((k.as_str(), n)),
        })
}

/// The head cases whose trace could not be read (missing, empty or unparsable), as
/// `(case, trial, status, message)` in run order: no checkpoint or metric was evaluated on
/// them. Cases the agent itself failed (`agent_error`, `timeout`) are not listed: those are
/// the agent's behaviour, which the metrics measure.
pub(crate) fn unreadable_cases(head: &RunReport) -> Vec<(String, u32, CaseStatus, String)> {
    head.cases
        .iter()
        .filter(|c| matches!(c.status, CaseStatus::ParseError | CaseStatus::TraceMissing))
        .map(|c| {
            let message = c
                .error
                .as_ref()
                .map_or_else(|| c.status.to_string(), |e| e.message.clone());
            (c.id.clone(), c.trial, c.status, message)
        })
        .collect()
}

/// When more than half of the head cases did not complete for one and the same reason
/// before producing a trace (the agent could not start, exited with the same error, left
/// no trace), that cause, with how many cases it hit: the run says nothing about the agent's
/// quality (DESIGN §11).
pub(crate) fn infrastructure_failure(head: &RunReport) -> Option<String> {
    let mut groups: BTreeMap<String, usize> = BTreeMap::new();
    for case in &head.cases {
        if !matches!(
            case.status,
            CaseStatus::AgentError | CaseStatus::TraceMissing
        ) || case.trace.as_ref().is_some_and(|t| t.spans > 0)
        {
            continue;
        }
        let Some(error) = &case.error else { continue };
        let last_line = |tail: &Option<String>| {
            tail.as_deref()
                .and_then(|t| t.lines().rev().find(|l| !l.trim().is_empty()))
                .map(str::trim)
                .map(str::to_owned)
        };
        let detail = last_line(&error.stderr_tail)
            .or_else(|| last_line(&error.stdout_tail))
            .map(|l| format!(": {l}"))
            .unwrap_or_default();
        let key = format!("{}: {}{detail}", case.status, error.message);
        *groups.entry(key).or_default() += 1;
    }
    let (cause, count) = most_common(&groups)?;
    (2 * count > head.cases.len()).then(|| {
        format!(
            "{count} of {} cases failed the same way before producing a trace ({cause})",
            head.cases.len()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_pick_the_first_key() {
        let counts: BTreeMap<String, usize> = [
            ("a".to_owned(), 2),
            ("b".to_owned(), 2),
            ("c".to_owned(), 1),
        ]
        .into();
        assert_eq!(most_common(&counts), Some(("a", 2)));
        assert_eq!(most_common(&BTreeMap::new()), None);
    }
}
