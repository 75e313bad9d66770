//! Terminal rendering of a compare report. Strings from the report pass
//! `escape::terminal` (no line break, no control character).

use comfy_table::{ContentArrangement, Table, presets};

use crate::model::compare::{CompareReport, MetricStatus, Verdict};
use crate::output::escape::terminal;
use crate::output::plural;

use super::compare_text::{
    effect, headline, method_line, moved, sigma, sigma_cell, test_line, tier_line,
};
use super::flaky;
use super::fmt::{delta, metric, pvalue};

pub fn render_compare_table(r: &CompareReport) -> String {
    let mut out = String::new();
    let verdict = match (r.verdict, r.warn_only) {
        (Verdict::Fail, false) => "FAIL",
        (Verdict::Fail, true) => "FAIL (warn-only: exit 0)",
        (Verdict::Pass, _) => "PASS",
        (Verdict::CouldNotEvaluate, _) => "COULD NOT EVALUATE",
        (Verdict::Inconclusive, false) if r.inconclusive.iter().any(|u| u.fails) => "INCONCLUSIVE",
        (Verdict::Inconclusive, _) => "INCONCLUSIVE (exit 0)",
    };
    out.push_str(&format!(
        "verdict: {verdict} · {} · fail-on {}\n",
        headline(r),
        r.fail_on
    ));
    out.push_str(&format!(
        "baseline `{}`{} · {}\n",
        terminal(&r.baseline.name),
        r.baseline
            .git_sha
            .as_deref()
            .map(|s| format!(" @ {}", terminal(&s.chars().take(12).collect::<String>())))
            .unwrap_or_default(),
        plural(r.baseline.history_points, "history point", "history points")
    ));
    super::gate_changes::text(&mut out, r);
    if let Some(source) = &r.baseline.source {
        if let Some(rev) = &source.rev {
            out.push_str(&format!(
                "baseline read from git `{}` ({})\n",
                terminal(rev),
                terminal(&source.chosen_by)
            ));
        }
        if !source.edited.is_empty() {
            let files: Vec<String> = source
                .edited
                .iter()
                .map(|f| terminal(f).into_owned())
                .collect();
            out.push_str(&format!(
                "warning: the working tree changes baseline files (not used): {}\n",
                files.join(", ")
            ));
        }
    }
    for t in &r.tiers {
        out.push_str(&format!(
            "tier {}/{}: {}\n",
            terminal(&t.suite),
            t.tier,
            tier_line(t)
        ));
    }
    let rows = moved(r);
    if rows.is_empty() {
        out.push_str("no metric moved beyond noise\n");
    } else {
        let mut t = Table::new();
        t.load_style(presets::UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Disabled);
        t.set_header(vec![
            "suite", "metric", "base", "head", "Δ", "95% CI", "q", "2σ band", "severity", "status",
        ]);
        for m in rows {
            t.add_row(vec![
                terminal(&m.suite).into_owned(),
                terminal(&m.name).into_owned(),
                metric(&m.name, m.base_mean),
                metric(&m.name, m.head_mean),
                m.delta.map_or_else(|| "—".into(), |d| delta(&m.name, d)),
                m.ci95.map_or_else(
                    || "—".into(),
                    |[lo, hi]| format!("{} … {}", delta(&m.name, lo), delta(&m.name, hi)),
                ),
                pvalue(m.q_value),
                sigma_cell(m),
                m.severity.to_string(),
                m.status.to_string(),
            ]);
        }
        out.push_str(&t.to_string());
        out.push('\n');
    }
    for m in r
        .metrics
        .iter()
        .filter(|m| m.status == MetricStatus::Regression)
    {
        out.push_str(&format!(
            "✗ {} ({}): {}; 2σ: {}\n",
            terminal(&m.qualified_name()),
            m.severity,
            effect(m),
            terminal(&sigma(m))
        ));
        if let Some(loc) = &m.localization {
            if let Some(cp) = &loc.checkpoint {
                out.push_str(&format!("    checkpoint: {}\n", terminal(&cp.instruction)));
            }
            out.push_str(&format!("    test: {}\n", terminal(&test_line(m))));
            if let Some(rc) = &loc.root_cause {
                out.push_str(&format!(
                    "    most common new root cause: {} in {} (e.g. {})\n",
                    terminal(&rc.step),
                    plural(rc.cases, "case", "cases"),
                    terminal(&rc.example_case)
                ));
            }
            if !loc.flipped_cases.is_empty() {
                let ids: Vec<String> = loc
                    .flipped_cases
                    .iter()
                    .map(|c| {
                        let id = terminal(&c.case).into_owned();
                        match flaky::case_history(&m.name, c, |s| terminal(s).into_owned()) {
                            Some(h) => format!("{id} ({h})"),
                            None => id,
                        }
                    })
                    .collect();
                out.push_str(&format!("    worse: {}\n", ids.join(", ")));
            }
            flaky::carried_text(&mut out, loc);
        }
    }
    for b in &r.absolute_breaches {
        out.push_str(&format!(
            "{} absolute gate {}/{}: {}\n",
            if b.fails { "✗" } else { "!" },
            terminal(&b.suite),
            terminal(&b.breach.metric),
            terminal(&b.breach.message)
        ));
    }
    flaky::text(&mut out, r);
    super::insights::text(&mut out, r);
    for reason in &r.reasons {
        out.push_str(&format!("· {}\n", terminal(reason)));
    }
    if !r.metrics.is_empty() {
        out.push_str(&format!("method: {}\n", terminal(&method_line(r))));
    }
    out
}
