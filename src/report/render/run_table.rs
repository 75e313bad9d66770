//! Terminal tables for a run report (comfy-table). Column widths never depend
//! on the terminal, so output is the same in CI logs and tests. Strings
//! from the report pass `escape::terminal` (no line break, no control character).

use comfy_table::{Cell, ContentArrangement, Table, presets};

use crate::model::run::{CaseStatus, CheckpointState, RunReport};
use crate::output::escape::terminal;
use crate::output::{plural, truncate_chars};

use super::fmt::{metric, num, pct};
use super::run_trials::trial_lines;
use crate::model::metric_id::MetricId;

fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled);
    t.set_header(header.iter().map(|h| Cell::new(*h)));
    t
}

pub fn render_run_table(report: &RunReport) -> String {
    let a = &report.aggregate;
    let mut out = format!(
        "suite {} · {} tier · {} · {} ({} ok, {} failed)\n",
        terminal(&report.suite),
        report.tier,
        match report.mode {
            crate::model::run::RunMode::Replay => "replay",
            crate::model::run::RunMode::Run => "run",
        },
        plural(a.cases, "case", "cases"),
        a.cases_ok,
        a.cases_failed
    );

    let mut cases = table(&[
        "case",
        "status",
        "compliance",
        "health",
        "task",
        "Q",
        "failed checkpoints",
    ]);
    for c in &report.cases {
        let failed: Vec<&str> = c
            .checkpoints
            .iter()
            .filter(|r| r.result == CheckpointState::Fail)
            .map(|r| r.id.as_str())
            .collect();
        let status = if c.status == CaseStatus::Ok {
            "ok".to_owned()
        } else {
            c.status.to_string()
        };
        cases.add_row(vec![
            terminal(&c.id).into_owned(),
            status,
            pct(c.scores.compliance_percent),
            pct(c.scores.spec_health_percent),
            c.scores.task_success.map_or_else(
                || "—".to_owned(),
                |t| {
                    if t >= 1.0 {
                        "pass".into()
                    } else {
                        "fail".into()
                    }
                },
            ),
            num(c.scores.workflow_quality, 2),
            truncate_chars(&terminal(&failed.join(", ")), 40),
        ]);
    }
    out.push_str(&cases.to_string());
    out.push('\n');

    if !report.checkpoint_catalog.is_empty() {
        let mut cps = table(&[
            "checkpoint",
            "tier",
            "severity",
            "pass",
            "partial",
            "fail",
            "n/a",
            "blocked",
            "instruction",
        ]);
        for info in &report.checkpoint_catalog {
            let s = a.checkpoints.get(&info.id).copied().unwrap_or_default();
            cps.add_row(vec![
                terminal(&info.id).into_owned(),
                info.tier.to_string(),
                info.severity.to_string(),
                s.passed.to_string(),
                s.partial.to_string(),
                s.failed.to_string(),
                s.na.to_string(),
                s.blocked.to_string(),
                truncate_chars(&terminal(&info.instruction), 48),
            ]);
        }
        out.push_str(&cps.to_string());
        out.push('\n');
    }

    let mut metrics = table(&["metric", "mean"]);
    for (name, v) in &a.metrics {
        if MetricId::parse(name).checkpoint_id().is_some() {
            continue;
        }
        metrics.add_row(vec![terminal(name).into_owned(), metric(name, Some(*v))]);
    }
    out.push_str(&metrics.to_string());
    out.push('\n');
    if let Some(t) = &a.trials {
        let [first, second] = trial_lines(t, |s| terminal(s).into_owned());
        out.push_str(&format!("trials: {first}\n{second}\n"));
    }
    let q = &a.position_dropout_analysis;
    out.push_str(&format!(
        "position dropout (compliance by checkpoint quartile): Q1 {} · Q2 {} · Q3 {} · Q4 {}\n",
        pct(q.quartile_1),
        pct(q.quartile_2),
        pct(q.quartile_3),
        pct(q.quartile_4)
    ));
    let audit = &a.evaluator_audit;
    out.push_str(&format!(
        "evaluator audit: tier 1 {} · tier 2 {} · tier 3 {} decided · {} N/A · {} blocked · {} deterministic\n",
        audit.tier1_evaluated,
        audit.tier2_evaluated,
        audit.tier3_evaluated,
        audit.not_applicable,
        audit.blocked,
        pct(audit.deterministic_percent)
    ));
    for (reason, n) in &audit.na_reasons {
        out.push_str(&format!("  N/A × {n}: {}\n", terminal(reason)));
    }
    if let Some(line) = crate::judged::summary::one_line(&report.judge) {
        out.push_str(&line);
        out.push('\n');
    }
    for line in crate::judged::summary::provider_lines(&report.judge) {
        out.push_str(&format!("  {}\n", terminal(&line)));
    }
    for c in report.cases.iter().filter(|c| c.status != CaseStatus::Ok) {
        if let Some(e) = &c.error {
            out.push_str(&format!(
                "case {} {}: {}\n",
                terminal(&c.id),
                c.status,
                terminal(&e.message)
            ));
        }
    }
    out
}
