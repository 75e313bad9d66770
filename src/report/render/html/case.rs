//! One case drawn in full: its DAG, why it is shown, its checkpoints (head
//! against baseline, notes, cited spans), failing steps and deviations.

use serde::Serialize;

use crate::model::run::{CheckpointInfo, CheckpointState};
use crate::report::render::fmt::{delta, pct};
use crate::report::svg::dag::{DagDrawing, draw_case};
use crate::report::views::CaseDetail;

#[derive(Debug, Clone, Serialize)]
pub(super) struct CaseView {
    pub anchor: String,
    pub id: String,
    pub open: bool,
    pub reasons: Vec<String>,
    pub status: String,
    pub ok: bool,
    pub compliance: String,
    pub compliance_change: String,
    pub dag: Option<DagDrawing>,
    pub dag_status: String,
    pub steps_omitted: usize,
    /// Checkpoints that need a look: worse than the baseline, failing, partial, blocked, changed.
    pub checkpoints: Vec<CheckpointView>,
    /// The rest (passing or N/A, unchanged), folded away.
    pub quiet: Vec<CheckpointView>,
    pub root: Option<String>,
    pub steps: Vec<StepView>,
    pub deviations: Vec<String>,
    pub task: Option<String>,
    pub error: Option<String>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(super) struct CheckpointView {
    pub id: String,
    pub instruction: String,
    pub severity: String,
    pub head: String,
    pub head_class: &'static str,
    pub base: Option<String>,
    pub base_class: &'static str,
    /// `worse`, `better`, `changed` or empty.
    pub flip: &'static str,
    pub notes: String,
    pub base_notes: Option<String>,
    pub evaluated_by: String,
    pub cited: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(super) struct StepView {
    pub id: String,
    pub kind: String,
    pub label: String,
    pub score: String,
    pub role: &'static str,
    pub failure: Option<String>,
    pub notes: String,
}

pub(super) fn case_view(
    d: &CaseDetail,
    anchor: String,
    open: bool,
    catalog: &[CheckpointInfo],
) -> CaseView {
    let c = &d.head;
    let mut checkpoints: Vec<CheckpointView> = c
        .checkpoints
        .iter()
        .map(|r| {
            let info = catalog.iter().find(|i| i.id == r.id);
            let base = d.base_checkpoints.iter().find(|b| b.id == r.id);
            let flip = match base {
                Some(b) if crate::report::views::build::is_worse(b.result, r.result) => "worse",
                Some(b) if crate::report::views::build::is_worse(r.result, b.result) => "better",
                Some(_) => "changed",
                None => "",
            };
            let mut notes = r.notes.clone();
            if let Some(m) = &r.matched_criterion {
                notes.push_str(&format!(" (criterion: {m})"));
            }
            if let Some(b) = &r.blocked_by {
                notes.push_str(&format!(" (blocked by {b})"));
            }
            CheckpointView {
                id: r.id.clone(),
                instruction: info.map(|i| i.instruction.clone()).unwrap_or_default(),
                severity: r.severity.to_string(),
                head: r.result.as_str().to_owned(),
                head_class: class(r.result),
                base: base.map(|b| b.result.as_str().to_owned()),
                base_class: base.map_or("", |b| class(b.result)),
                flip,
                notes,
                base_notes: base.map(|b| b.notes.clone()),
                evaluated_by: r.evaluated_by.clone(),
                cited: r.cited_spans.clone(),
            }
        })
        .collect();
    // Worse first, then failing, then the rest in suite order.
    let rank = |v: &CheckpointView| match (v.flip, v.head.as_str()) {
        ("worse", _) => 0,
        (_, "FAIL") => 1,
        (_, "PARTIAL" | "BLOCKED") => 2,
        ("better" | "changed", _) => 3,
        _ => 4,
    };
    checkpoints.sort_by_key(rank);
    let split = checkpoints
        .iter()
        .position(|v| rank(v) == 4)
        .unwrap_or(checkpoints.len());
    let quiet = checkpoints.split_off(split);
    let root = c.steps.iter().find(|s| s.root_cause).map(|s| {
        let what = s
            .taxonomy()
            .map_or_else(String::new, |t| format!(" ({})", t.l3));
        let spread = c
            .steps
            .iter()
            .filter(|x| x.propagated_from() == Some(s.id.as_str()))
            .count();
        let spread = if spread > 0 {
            format!(
                ", propagated to {}",
                crate::output::plural(spread, "step", "steps")
            )
        } else {
            String::new()
        };
        format!(
            "{} {} {}{what}, score {}{spread}",
            s.id,
            s.step_type,
            s.name,
            score_text(s.score)
        )
    });
    let steps = c
        .steps
        .iter()
        .filter(|s| s.failed || s.root_cause || s.propagated_from().is_some() || s.compensated())
        .map(|s| StepView {
            id: s.id.to_string(),
            kind: s.step_type.as_str().to_ascii_lowercase(),
            label: format!("{} {}", s.step_type, s.name),
            score: score_text(s.score),
            role: if s.root_cause {
                "root cause"
            } else if s.propagated_from().is_some() {
                "propagated"
            } else if s.compensated() {
                "retried attempt"
            } else {
                "failed"
            },
            failure: s
                .taxonomy()
                .map(|t| format!("{} / {} / {}", t.l1, t.l2, t.l3)),
            notes: match s.propagated_from() {
                Some(root) if s.notes.is_empty() => format!("from {root}"),
                Some(root) => format!("from {root}: {}", s.notes),
                None => s.notes.clone().into_owned(),
            },
        })
        .collect();
    let compliance_change = match (d.base_compliance, c.scores.compliance_percent) {
        (Some(b), Some(h)) if (h - b).abs() >= 0.05 => format!(
            "{} → {} ({})",
            pct(Some(b)),
            pct(Some(h)),
            delta("compliance_percent", h - b)
        ),
        _ => String::new(),
    };
    CaseView {
        anchor,
        id: c.id.clone(),
        open,
        reasons: d.reasons.clone(),
        status: c.status.as_str().to_owned(),
        ok: c.status == crate::model::run::CaseStatus::Ok,
        compliance: pct(c.scores.compliance_percent),
        compliance_change,
        dag: (!c.steps.is_empty()).then(|| draw_case(c)),
        dag_status: dag_status(c.dag.status).to_owned(),
        steps_omitted: d.steps_omitted,
        checkpoints,
        quiet,
        root,
        steps,
        deviations: c
            .dag
            .deviations
            .iter()
            .map(|x| format!("{} `{}`: {}", x.kind.replace('_', " "), x.step, x.detail))
            .collect(),
        task: c.task.as_ref().map(|t| {
            let verdict = match t.success {
                Some(true) => "success",
                Some(false) => "failure",
                None => "undecided",
            };
            format!("{verdict} ({}): {}", t.matcher, t.detail)
        }),
        error: c.error.as_ref().map(|e| {
            let mut text = e.message.clone();
            if let Some(t) = &e.stderr_tail {
                text.push_str(&format!("\nstderr: {t}"));
            }
            text
        }),
        warnings: c.warnings.clone(),
    }
}

pub(super) fn class(s: CheckpointState) -> &'static str {
    match s {
        CheckpointState::Pass => "st-pass",
        CheckpointState::Partial => "st-partial",
        CheckpointState::Fail => "st-fail",
        CheckpointState::NotApplicable => "st-na",
        CheckpointState::Blocked => "st-blocked",
    }
}

fn dag_status(s: crate::model::run::DagStatus) -> &'static str {
    use crate::model::run::DagStatus;
    match s {
        DagStatus::None => "no DAG",
        DagStatus::Dag => "DAG",
        DagStatus::Unrolled => "DAG with retries unrolled",
        DagStatus::FlatFallback => "flat fallback (no DAG could be built)",
    }
}

fn score_text(v: Option<f64>) -> String {
    v.map_or_else(|| "N/A".to_owned(), |v| format!("{v:.1}"))
}
