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

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::compare::engine::SuiteInput;
use crate::model::compare::{MetricComparison, MetricStatus};
use crate::model::run::{
    CaseError, CaseReport, CaseStatus, CheckpointResult, CheckpointState, DagInfo, RunReport,
    StepResult, TaskResult,
};

use crate::model::views::{
    CaseDetail, CaseRow, CompareViews, HistorySeries, SuiteViews, state_code,
};

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

fn detail(c: &CaseReport, base: Option<&CaseReport>, reasons: Vec<String>) -> CaseDetail {
    let (head, steps_omitted) = trimmed(c);
    let head_by_id = first_by_id(&c.checkpoints);
    let base_checkpoints = base
        .map(|b| {
            b.checkpoints
                .iter()
                .filter(|bc| {
                    head_by_id
                        .get(bc.id.as_str())
                        .is_some_and(|h| h.result != bc.result)
                })
                .map(|bc| {
                    let mut bc = bc.clone();
                    bc.notes = cut(&bc.notes);
                    bc
                })
                .collect()
        })
        .unwrap_or_default();
    CaseDetail {
        reasons,
        head,
        base_checkpoints,
        base_compliance: base.and_then(|b| b.scores.compliance_percent),
        steps_omitted,
    }
}

/// A case's checkpoint results by id, the first of each id (a lookup per
/// checkpoint instead of a scan: 10,000 checkpoints were quadratic, issue 25).
fn first_by_id(checkpoints: &[CheckpointResult]) -> HashMap<&str, &CheckpointResult> {
    let mut by_id = HashMap::with_capacity(checkpoints.len());
    for cp in checkpoints {
        by_id.entry(cp.id.as_str()).or_insert(cp);
    }
    by_id
}

/// A copy of `case` under the per-case caps, and how many steps it left out.
/// Only the steps and edges kept are copied: a copy of the whole case, cut
/// afterwards, held every step of a large trace twice at the peak of a
/// compare (issue 25).
fn trimmed(case: &CaseReport) -> (CaseReport, usize) {
    let CaseReport {
        id,
        tags,
        trial,
        status,
        error,
        trace,
        scores,
        summary,
        checkpoints,
        steps,
        dag,
        tool_use,
        cost,
        task,
        trace_judges,
        position_dropout,
        evaluator_audit,
        warnings,
        root_cause,
    } = case;
    let all = steps.len() <= MAX_DETAIL_STEPS;
    let kept: Vec<StepResult> = steps
        .iter()
        .enumerate()
        .filter(|(i, s)| all || *i < MAX_DETAIL_STEPS || s.failed || s.root_cause)
        .map(|(_, s)| {
            let mut s = s.clone();
            s.notes = cut(&s.notes).into();
            s
        })
        .collect();
    let edges = if all {
        dag.edges.clone()
    } else {
        let ids: BTreeSet<&str> = kept.iter().map(|s| s.id.as_str()).collect();
        dag.edges
            .iter()
            .filter(|[a, b]| ids.contains(a.as_str()) && ids.contains(b.as_str()))
            .cloned()
            .collect()
    };
    let omitted = steps.len() - kept.len();
    let copy = CaseReport {
        id: id.clone(),
        tags: tags.clone(),
        trial: *trial,
        status: *status,
        error: error.as_ref().map(|e| CaseError {
            message: cut(&e.message),
            exit_code: e.exit_code,
            stdout_tail: e.stdout_tail.as_deref().map(cut),
            stderr_tail: e.stderr_tail.as_deref().map(cut),
        }),
        trace: trace.clone(),
        scores: scores.clone(),
        summary: *summary,
        checkpoints: checkpoints
            .iter()
            .map(|cp| {
                let mut cp = cp.clone();
                cp.notes = cut(&cp.notes);
                cp
            })
            .collect(),
        steps: kept,
        dag: DagInfo {
            status: dag.status,
            nodes: dag.nodes,
            edges,
            deviations: dag.deviations.clone(),
        },
        tool_use: tool_use.clone(),
        cost: cost.clone(),
        task: task.as_ref().map(|t| TaskResult {
            matcher: t.matcher.clone(),
            success: t.success,
            detail: cut(&t.detail),
        }),
        trace_judges: trace_judges.clone(),
        position_dropout: position_dropout.clone(),
        evaluator_audit: evaluator_audit.clone(),
        warnings: warnings.iter().map(|w| cut(w)).collect(),
        root_cause: root_cause.clone(),
    };
    (copy, omitted)
}

/// At most [`MAX_NOTE_CHARS`] characters, with an ellipsis when cut.
pub(crate) fn cut(text: &str) -> String {
    if text.chars().count() <= MAX_NOTE_CHARS {
        text.to_owned()
    } else {
        let mut s: String = text.chars().take(MAX_NOTE_CHARS).collect();
        s.push('…');
        s
    }
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

    /// A case of `n` steps in a chain: every 50th from the 8th fails, the
    /// 308th is a root cause, two notes and every other text are long.
    fn long_case(n: usize) -> CaseReport {
        let long = "x".repeat(MAX_NOTE_CHARS + 20);
        let steps: Vec<StepResult> = (0..n)
            .map(|i| {
                let mut s: StepResult = serde_json::from_value(serde_json::json!({
                    "id": format!("s{}", i + 1), "type": "EXEC", "name": "lookup",
                    "score": 4.0, "scored_by": "rules", "failed": i % 50 == 7,
                    "root_cause": i == 307, "notes": if i == 3 || i == 307 { long.as_str() } else { "" },
                }))
                .unwrap();
                s.agent = Some("bot".into());
                s
            })
            .collect();
        let mut case = CaseReport {
            id: "c1".into(),
            tags: vec!["t".into()],
            trial: 0,
            status: CaseStatus::Ok,
            error: Some(CaseError {
                message: long.clone(),
                exit_code: Some(3),
                stdout_tail: Some(long.clone()),
                stderr_tail: None,
            }),
            trace: None,
            scores: crate::model::run::Scores::default(),
            summary: crate::model::run::CheckpointSummary::default(),
            checkpoints: Vec::new(),
            steps: Vec::new(),
            dag: DagInfo::default(),
            tool_use: crate::model::run::ToolUse::default(),
            cost: crate::model::run::Cost::default(),
            task: Some(TaskResult {
                matcher: "exact".into(),
                success: Some(false),
                detail: long.clone(),
            }),
            trace_judges: Vec::new(),
            position_dropout: crate::model::run::Quartiles::default(),
            evaluator_audit: crate::model::run::EvaluatorAudit::default(),
            warnings: vec![long, "short".into()],
            root_cause: None,
        };
        case.dag.edges = (1..n)
            .map(|i| [format!("s{i}").into(), format!("s{}", i + 1).into()])
            .collect();
        case.dag.nodes = n;
        case.steps = steps;
        case
    }

    /// The trimmed copy is the case with its texts cut, the first
    /// [`MAX_DETAIL_STEPS`] steps and every failing or root-cause step after
    /// them, and the edges between the steps kept.
    #[test]
    fn a_trimmed_case_keeps_the_first_steps_and_every_failing_one() {
        for n in [5, MAX_DETAIL_STEPS, 450] {
            let case = long_case(n);
            let (copy, omitted) = trimmed(&case);
            let mut expected = case.clone();
            expected.steps.retain(|s| {
                s.id[1..].parse::<usize>().unwrap() <= MAX_DETAIL_STEPS || s.failed || s.root_cause
            });
            for s in &mut expected.steps {
                s.notes = cut(&s.notes).into();
            }
            let ids: BTreeSet<&str> = expected.steps.iter().map(|s| s.id.as_str()).collect();
            let edges = case
                .dag
                .edges
                .iter()
                .filter(|[a, b]| ids.contains(a.as_str()) && ids.contains(b.as_str()));
            expected.dag.edges = edges.cloned().collect();
            let error = expected.error.as_mut().unwrap();
            error.message = cut(&error.message);
            error.stdout_tail = error.stdout_tail.as_deref().map(cut);
            let task = expected.task.as_mut().unwrap();
            task.detail = cut(&task.detail);
            expected.warnings = expected.warnings.iter().map(|w| cut(w)).collect();
            assert_eq!(copy, expected, "{n} steps");
            assert_eq!(omitted, n - copy.steps.len());
            let kept = if n == 450 { MAX_DETAIL_STEPS + 5 } else { n };
            assert_eq!(
                copy.steps.len(),
                kept,
                "200 first, then s208 s258 s308 (root) s358 s408"
            );
            assert_eq!(copy.steps[3].notes.chars().count(), MAX_NOTE_CHARS + 1);
        }
    }

    #[test]
    fn notes_are_cut_on_character_boundaries() {
        let long = "é".repeat(MAX_NOTE_CHARS + 10);
        let c = cut(&long);
        assert_eq!(c.chars().count(), MAX_NOTE_CHARS + 1);
        assert!(c.ends_with('…'));
        assert_eq!(cut("short"), "short");
    }
}
