//! The run page: the suite's aggregate, a bar per checkpoint, the case ×
//! checkpoint matrix and the weakest cases drawn in full.

use serde::Serialize;

use crate::model::run::RunReport;
use crate::report::render::fmt::metric;
use crate::report::svg::scale::round1;
use crate::report::views::run_views;

use super::case::{CaseView, case_view};
use super::engine::render;
use super::matrix::{Matrix, matrix};
use crate::model::metric_id::MetricId;

#[derive(Serialize)]
struct Page {
    title: String,
    suite: String,
    meta: Vec<String>,
    failed: bool,
    metrics: Vec<(String, String)>,
    checkpoints: Vec<CheckpointBar>,
    matrix: Matrix,
    cases: Vec<CaseView>,
    details_omitted: usize,
    warnings: Vec<String>,
}

#[derive(Serialize)]
struct CheckpointBar {
    id: String,
    severity: String,
    instruction: String,
    /// `(css class, count, x, width)` segments of a 240-unit bar.
    segments: Vec<(&'static str, usize, f64, f64)>,
    counts: String,
}

pub fn render_run_html(r: &RunReport) -> Result<String, minijinja::Error> {
    render("run.html", &page(r))
}

fn page(r: &RunReport) -> Page {
    let agg = &r.aggregate;
    let views = run_views(r);
    let anchor_of = |id: &str| {
        views
            .details
            .iter()
            .position(|d| d.head.id == id)
            .map(|ci| format!("case-0-{ci}"))
    };
    let mut meta = vec![
        format!("{} tier", r.tier),
        format!(
            "{} cases ({} ok, {} did not complete)",
            agg.cases, agg.cases_ok, agg.cases_failed
        ),
        format!("spec {}", r.spec_version),
        format!("judge {}", r.judge.provider),
    ];
    if let Some(s) = r.shard {
        meta.push(format!("shard {}/{}", s.index, s.count));
    }
    if let Some(at) = &r.evaluated_at {
        meta.push(format!("evaluated {at}"));
    }
    let checkpoints = r
        .checkpoint_catalog
        .iter()
        .map(|info| {
            let counts = agg.checkpoints.get(&info.id).copied().unwrap_or_default();
            let parts = [
                ("st-pass", counts.passed),
                ("st-partial", counts.partial),
                ("st-fail", counts.failed),
                ("st-na", counts.na),
                ("st-blocked", counts.blocked),
            ];
            let total: usize = parts.iter().map(|p| p.1).sum();
            let mut left = 0.0;
            let segments = parts
                .iter()
                .filter(|p| p.1 > 0)
                .map(|&(class, n)| {
                    let width = 240.0 * n as f64 / total.max(1) as f64;
                    let seg = (class, n, round1(left), round1(width));
                    left += width;
                    seg
                })
                .collect();
            CheckpointBar {
                id: info.id.clone(),
                severity: info.severity.to_string(),
                instruction: info.instruction.clone(),
                segments,
                counts: [
                    (counts.passed, "pass"),
                    (counts.partial, "partial"),
                    (counts.failed, "fail"),
                    (counts.na, "n/a"),
                    (counts.blocked, "blocked"),
                ]
                .iter()
                .filter(|(n, _)| *n > 0)
                .map(|(n, w)| format!("{n} {w}"))
                .collect::<Vec<_>>()
                .join(" · "),
            }
        })
        .collect();
    Page {
        title: format!("agenteval-gate run: {}", r.suite),
        suite: r.suite.clone(),
        meta,
        failed: agg.cases_failed > 0,
        metrics: agg
            .metrics
            .iter()
            .filter(|(n, _)| MetricId::parse(n).checkpoint_id().is_none())
            .map(|(n, v)| (n.clone(), metric(n, Some(*v))))
            .collect(),
        checkpoints,
        matrix: matrix(&views, &anchor_of),
        cases: views
            .details
            .iter()
            .enumerate()
            .map(|(ci, d)| case_view(d, format!("case-0-{ci}"), ci == 0, &views.checkpoints))
            .collect(),
        details_omitted: views.details_omitted,
        warnings: r.warnings.clone(),
    }
}
