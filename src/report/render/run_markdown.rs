//! Markdown for a run report (step summary, `report --format markdown`).
//! Strings from the report are escaped for Markdown (`output::escape`).

use crate::model::run::{CaseStatus, CheckpointState, RunReport};
use crate::output::escape::{md_code, md_code_cell, md_prose_cell};
use crate::output::plural;

use super::fmt::{metric, pct};
use super::run_trials::trial_lines;
use crate::model::metric_id::MetricId;

pub fn render_run_markdown(report: &RunReport) -> String {
    let a = &report.aggregate;
    let mut md = format!(
        "### {} · {} tier · {} ({} ok, {} failed)\n\n",
        md_code(&report.suite),
        report.tier,
        plural(a.cases, "case", "cases"),
        a.cases_ok,
        a.cases_failed
    );
    md.push_str("| metric | mean |\n|---|---:|\n");
    for (name, v) in a
        .metrics
        .iter()
        .filter(|(n, _)| MetricId::parse(n).checkpoint_id().is_none())
    {
        md.push_str(&format!(
            "| {} | {} |\n",
            md_code_cell(name),
            metric(name, Some(*v))
        ));
    }
    if let Some(t) = &a.trials {
        let [first, second] = trial_lines(t, md_code);
        md.push_str(&format!("\n**Trials**: {first}\n\n{second}\n"));
    }
    if !report.checkpoint_catalog.is_empty() {
        md.push_str("\n| checkpoint | severity | pass | partial | fail | n/a | blocked |\n|---|---|---:|---:|---:|---:|---:|\n");
        for info in &report.checkpoint_catalog {
            let s = a.checkpoints.get(&info.id).copied().unwrap_or_default();
            md.push_str(&format!(
                "| {} {} | {} | {} | {} | {} | {} | {} |\n",
                md_code_cell(&info.id),
                md_prose_cell(&info.instruction),
                info.severity,
                s.passed,
                s.partial,
                s.failed,
                s.na,
                s.blocked
            ));
        }
    }
    let failing: Vec<String> = report
        .cases
        .iter()
        .filter(|c| {
            c.status != CaseStatus::Ok
                || c.checkpoints
                    .iter()
                    .any(|r| r.result == CheckpointState::Fail)
        })
        .map(|c| {
            let failed: Vec<String> = c
                .checkpoints
                .iter()
                .filter(|r| r.result == CheckpointState::Fail)
                .map(|r| md_code(&r.id))
                .collect();
            format!(
                "- {} ({}, compliance {}): {}",
                md_code(&c.id),
                c.status,
                pct(c.scores.compliance_percent),
                failed.join(", ")
            )
        })
        .collect();
    if !failing.is_empty() {
        md.push_str(&format!(
            "\n<details><summary>{} with failures</summary>\n\n{}\n\n</details>\n",
            plural(failing.len(), "case", "cases"),
            failing.join("\n")
        ));
    }
    md
}
