//! A drawn case: a copy of the case under the per-case caps of
//! [`super::build`] (steps, notes), with the baseline's checkpoint results
//! that differ from the head's.

use std::collections::{BTreeSet, HashMap};

use super::build::{MAX_DETAIL_STEPS, MAX_NOTE_CHARS};
use crate::model::run::{CaseError, CaseReport, CheckpointResult, DagInfo, StepResult, TaskResult};
use crate::model::views::CaseDetail;

/// The drawn copy of `c`, listed for `reasons`; with `base`, the
/// baseline's results of the checkpoints whose state differs.
pub(super) fn detail(
    c: &CaseReport,
    base: Option<&CaseReport>,
    reasons: Vec<String>,
) -> CaseDetail {
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
pub(super) fn first_by_id(checkpoints: &[CheckpointResult]) -> HashMap<&str, &CheckpointResult> {
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
            .filter(|e| ids.contains(e.from().as_str()) && ids.contains(e.to().as_str()))
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
    use crate::model::run::CaseStatus;

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
            .map(|i| crate::model::StepEdge::new(&format!("s{i}"), &format!("s{}", i + 1)))
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
                .filter(|e| ids.contains(e.from().as_str()) && ids.contains(e.to().as_str()));
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
