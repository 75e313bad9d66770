//! Sections of the compare Markdown: the metric table (with the gate
//! column: which rows block), a metric's localization, and the minimum
//! detectable effect. Every report string is escaped for its place.

use std::fmt::Write as _;

use crate::model::compare::{CompareReport, MetricComparison};
use crate::model::metric_id::MetricId;
use crate::output::escape::{md_code, md_code_cell, md_prose, md_text};
use crate::output::plural;

use super::compare_lead::gate_cell;
use super::compare_text::{effect, sigma, sigma_cell, status_icon, test_line};
use super::fmt::{delta, metric, pvalue};

/// The metric table. `compact` (the PR comment): base → head, Δ, q,
/// status and gate; otherwise also the 95% CI and the 2σ band.
pub(super) fn table(md: &mut String, r: &CompareReport, rows: &[&MetricComparison], compact: bool) {
    let with_suite = r.suites.len() > 1;
    let suite_col = if with_suite { "suite | " } else { "" };
    let suite_sep = if with_suite { "---|" } else { "" };
    if compact {
        let _ = writeln!(
            md,
            "| {suite_col}metric | severity | base → head | Δ | q | status | gate |"
        );
        let _ = writeln!(md, "|{suite_sep}---|---|---|---:|---:|---|---|");
    } else {
        let _ = writeln!(
            md,
            "| {suite_col}metric | severity | base | head | Δ | 95% CI | q | 2σ band | status | gate |"
        );
        let _ = writeln!(
            md,
            "|{suite_sep}---|---|---:|---:|---:|---|---:|---|---|---|"
        );
    }
    for m in rows {
        let suite = if with_suite {
            format!("{} | ", md_text(&m.suite))
        } else {
            String::new()
        };
        let d = m
            .delta
            .map_or_else(|| "—".to_owned(), |d| delta(&m.name, d));
        let status = format!("{} {}", status_icon(m.status), m.status);
        let gate = gate_cell(r, m);
        if compact {
            let _ = writeln!(
                md,
                "| {suite}{} | {} | {} → {} | {d} | {} | {status} | {gate} |",
                md_code_cell(&m.name),
                m.severity,
                metric(&m.name, m.base_mean),
                metric(&m.name, m.head_mean),
                pvalue(m.q_value),
            );
        } else {
            let ci = m.ci95.map_or_else(
                || "—".to_owned(),
                |[lo, hi]| format!("{} … {}", delta(&m.name, lo), delta(&m.name, hi)),
            );
            let _ = writeln!(
                md,
                "| {suite}{} | {} | {} | {} | {d} | {ci} | {} | {} | {status} | {gate} |",
                md_code_cell(&m.name),
                m.severity,
                metric(&m.name, m.base_mean),
                metric(&m.name, m.head_mean),
                pvalue(m.q_value),
                sigma_cell(m),
            );
        }
    }
}

/// A regressed or suspected metric: its checkpoint, effect, test, what moved
/// with it and the cases that got worse (all of them with `details`, else 3).
/// `compact` (the PR comment) leaves out the steps that moved.
pub(super) fn localization(md: &mut String, m: &MetricComparison, details: bool, compact: bool) {
    let _ = writeln!(
        md,
        "\n#### {} {} — {} ({})\n",
        status_icon(m.status),
        md_code(&m.qualified_name()),
        m.status,
        m.severity
    );
    let Some(loc) = &m.localization else { return };
    if let Some(cp) = &loc.checkpoint {
        let _ = writeln!(md, "> {}\n", md_prose(&cp.instruction));
    }
    // With a band the words are ours; without one, the note comes from the report.
    let sigma_md = if m.sigma_band.is_some() {
        sigma(m)
    } else {
        md_prose(&sigma(m))
    };
    let _ = writeln!(md, "- {}; 2σ: {sigma_md}", effect(m));
    let _ = writeln!(md, "- test: {}", md_prose(&test_line(m)));
    for moved in loc.checkpoints_moved.iter().take(3) {
        let _ = writeln!(
            md,
            "- checkpoint {} moved {}",
            md_code(
                MetricId::parse(&moved.metric)
                    .checkpoint_id()
                    .unwrap_or(&moved.metric)
            ),
            delta(&moved.metric, moved.delta)
        );
    }
    let scope = if loc.checkpoint.is_some() {
        " in those cases"
    } else {
        ""
    };
    for moved in loc.steps_moved.iter().take(if compact { 0 } else { 3 }) {
        let _ = writeln!(
            md,
            "- {} moved {}{scope}",
            md_code(&moved.metric),
            delta(&moved.metric, moved.delta)
        );
    }
    if let Some(rc) = &loc.root_cause {
        let _ = writeln!(
            md,
            "- most common new root cause: **{}** in {} (e.g. {})",
            md_code(&rc.step),
            plural(rc.cases, "newly failing case", "newly failing cases"),
            md_code(&rc.example_case)
        );
    }
    if !loc.flipped_cases.is_empty() {
        let shown = if details {
            loc.flipped_cases.len()
        } else {
            loc.flipped_cases.len().min(3)
        };
        let _ = writeln!(
            md,
            "- cases that got worse: {}",
            plural(loc.flipped_cases.len(), "case", "cases")
        );
        for c in loc.flipped_cases.iter().take(shown) {
            let mut note = if c.note.is_empty() {
                String::new()
            } else {
                format!(" — {}", md_prose(&c.note))
            };
            if !c.cited_spans.is_empty() {
                let spans: Vec<String> = c.cited_spans.iter().map(|s| md_code(s)).collect();
                note.push_str(&format!(" (cited spans {})", spans.join(", ")));
            }
            let history = super::flaky::case_history(&m.name, c, md_code)
                .map(|h| format!(" ({h})"))
                .unwrap_or_default();
            let _ = writeln!(
                md,
                "  - {}: {} → {}{history}{note}",
                md_code(&c.case),
                metric(&m.name, Some(c.base)),
                metric(&m.name, Some(c.head))
            );
        }
    }
    super::flaky::carried_markdown(md, loc);
}

pub(super) fn mde(md: &mut String, r: &CompareReport) {
    let lines: Vec<String> = r
        .metrics
        .iter()
        .filter(|m| {
            matches!(
                m.name.as_str(),
                "compliance_percent" | "task_success" | "workflow_quality"
            )
        })
        .filter_map(|m| {
            Some(format!(
                "{} {} (n = {})",
                md_code(&format!("{}/{}", m.suite, m.name)),
                delta(&m.name, m.mde?).trim_start_matches(['+', '−', '±']),
                m.n
            ))
        })
        .collect();
    if !lines.is_empty() {
        let _ = writeln!(
            md,
            "\n**Minimum detectable effect** (80% power, α = {}): {}. Smaller drops can pass unnoticed; add cases to tighten it.",
            r.settings.alpha,
            lines.join(" · ")
        );
    }
}
