//! Self-contained HTML for run and compare reports: one file, inline CSS, no
//! scripts or external resources, so it can be attached to a CI run and
//! opened anywhere. The Mermaid source of the worst case is shown as text.

use std::fmt::Write as _;

use crate::compare::model::{CompareReport, MetricStatus, Verdict};
use crate::report::model::{CaseStatus, CheckpointState, RunReport};

use super::compare_text::{effect, headline, sigma};
use super::fmt::{delta, metric, pct, pvalue};

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1b1f24;max-width:1200px}\
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #d0d7de;padding:.3rem .6rem;text-align:left}\
th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}.regression{background:#ffebe9}\
.suspected{background:#fff8c5}.improvement{background:#dafbe1}.fail{color:#cf222e;font-weight:600}\
.pass{color:#1a7f37;font-weight:600}code,pre{font-family:ui-monospace,monospace;font-size:12px}\
pre{background:#f6f8fa;padding:.8rem;overflow:auto}";

/// HTML-escape text.
pub fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head>\n<body>\n{body}</body></html>\n",
        esc(title)
    )
}

pub fn render_compare_html(r: &CompareReport) -> String {
    let mut b = String::new();
    let (class, word) = match r.verdict {
        Verdict::Fail => ("fail", "FAIL"),
        Verdict::Pass => ("pass", "PASS"),
        Verdict::CouldNotEvaluate => ("fail", "COULD NOT EVALUATE"),
    };
    let _ = writeln!(
        b,
        "<h1>agenteval-gate: <span class=\"{class}\">{word}</span></h1>"
    );
    let _ = writeln!(
        b,
        "<p>{} · baseline <code>{}</code> · fail on <b>{}</b></p>",
        esc(&headline(r)),
        esc(&r.baseline.name),
        r.fail_on
    );
    b.push_str("<ul>");
    for t in &r.tiers {
        let _ = write!(
            b,
            "<li><code>{}</code> {} tier: {} cases → {}",
            esc(&t.suite),
            t.tier,
            t.cases,
            t.verdict.as_str()
        );
        if t.stopped_early {
            let _ = write!(
                b,
                " (stopped before the full tier; {} runs saved)",
                t.runs_saved
            );
        }
        b.push_str("</li>");
    }
    b.push_str("</ul>\n<h2>Metrics</h2>\n<table><tr><th>suite</th><th>metric</th><th>base</th><th>head</th><th>Δ</th><th>95% CI</th><th>q</th><th>2σ</th><th>severity</th><th>status</th></tr>\n");
    for m in &r.metrics {
        let ci = m.ci95.map_or_else(
            || "—".into(),
            |[lo, hi]| format!("{} … {}", delta(&m.name, lo), delta(&m.name, hi)),
        );
        let _ = writeln!(
            b,
            "<tr class=\"{}\"><td>{}</td><td><code>{}</code></td><td class=num>{}</td><td class=num>{}</td><td class=num>{}</td><td>{}</td><td class=num>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            m.status.as_str(),
            esc(&m.suite),
            esc(&m.name),
            metric(&m.name, m.base_mean),
            metric(&m.name, m.head_mean),
            m.delta.map_or_else(|| "—".into(), |d| delta(&m.name, d)),
            esc(&ci),
            pvalue(m.q_value),
            esc(&sigma(m)),
            m.severity,
            m.status
        );
    }
    b.push_str("</table>\n");
    for m in r
        .metrics
        .iter()
        .filter(|m| matches!(m.status, MetricStatus::Regression | MetricStatus::Suspected))
    {
        let _ = writeln!(
            b,
            "<h3><code>{}</code> — {} ({})</h3>",
            esc(&m.qualified_name()),
            m.status,
            m.severity
        );
        let _ = writeln!(b, "<p>{}</p>", esc(&effect(m)));
        if let Some(loc) = &m.localization {
            if let Some(cp) = &loc.checkpoint {
                let _ = writeln!(b, "<blockquote>{}</blockquote>", esc(&cp.instruction));
            }
            if let Some(rc) = &loc.root_cause {
                let _ = writeln!(
                    b,
                    "<p>Most common new root cause: <code>{}</code> in {} cases (e.g. <code>{}</code>)</p>",
                    esc(&rc.step),
                    rc.cases,
                    esc(&rc.example_case)
                );
            }
            b.push_str("<ul>");
            for c in &loc.flipped_cases {
                let _ = write!(
                    b,
                    "<li><code>{}</code>: {} → {} {}</li>",
                    esc(&c.case),
                    metric(&m.name, Some(c.base)),
                    metric(&m.name, Some(c.head)),
                    esc(&c.note)
                );
            }
            b.push_str("</ul>\n");
        }
    }
    if let Some(w) = &r.worst_case {
        let _ = writeln!(
            b,
            "<h2>Worst regressed case: <code>{}</code></h2>\n<p>Mermaid source (paste into a Mermaid viewer):</p><pre>{}</pre>",
            esc(&w.case),
            esc(&w.mermaid)
        );
    }
    b.push_str("<h2>Why</h2><ul>");
    for reason in &r.reasons {
        let _ = write!(b, "<li>{}</li>", esc(reason));
    }
    b.push_str("</ul>\n");
    page("agenteval-gate compare", &b)
}

pub fn render_run_html(r: &RunReport) -> String {
    let mut b = String::new();
    let a = &r.aggregate;
    let _ = writeln!(
        b,
        "<h1>agenteval-gate run: <code>{}</code></h1>",
        esc(&r.suite)
    );
    let _ = writeln!(
        b,
        "<p>{} tier · {} cases ({} ok, {} failed) · spec {}</p>",
        r.tier,
        a.cases,
        a.cases_ok,
        a.cases_failed,
        esc(&r.spec_version)
    );
    b.push_str("<table><tr><th>metric</th><th>mean</th></tr>");
    for (name, v) in a
        .metrics
        .iter()
        .filter(|(n, _)| !n.starts_with("checkpoint:"))
    {
        let _ = write!(
            b,
            "<tr><td><code>{}</code></td><td class=num>{}</td></tr>",
            esc(name),
            metric(name, Some(*v))
        );
    }
    b.push_str("</table>\n<h2>Cases</h2><table><tr><th>case</th><th>status</th><th>compliance</th><th>task</th><th>Q</th><th>failed checkpoints</th></tr>\n");
    for c in &r.cases {
        let failed: Vec<String> = c
            .checkpoints
            .iter()
            .filter(|x| x.result == CheckpointState::Fail)
            .map(|x| esc(&x.id))
            .collect();
        let class = if c.status == CaseStatus::Ok {
            ""
        } else {
            " class=\"regression\""
        };
        let _ = writeln!(
            b,
            "<tr{class}><td><code>{}</code></td><td>{}</td><td class=num>{}</td><td class=num>{}</td><td class=num>{}</td><td>{}</td></tr>",
            esc(&c.id),
            c.status,
            pct(c.scores.compliance_percent),
            c.scores
                .task_success
                .map_or("—", |t| if t >= 1.0 { "pass" } else { "fail" }),
            c.scores
                .workflow_quality
                .map_or_else(|| "—".to_owned(), |q| format!("{q:.2}")),
            failed.join(", ")
        );
    }
    b.push_str("</table>\n<h2>Checkpoints</h2><table><tr><th>id</th><th>severity</th><th>pass</th><th>partial</th><th>fail</th><th>n/a</th><th>blocked</th><th>instruction</th></tr>\n");
    for info in &r.checkpoint_catalog {
        let s = a.checkpoints.get(&info.id).copied().unwrap_or_default();
        let _ = writeln!(
            b,
            "<tr><td><code>{}</code></td><td>{}</td><td class=num>{}</td><td class=num>{}</td><td class=num>{}</td><td class=num>{}</td><td class=num>{}</td><td>{}</td></tr>",
            esc(&info.id),
            info.severity,
            s.passed,
            s.partial,
            s.failed,
            s.na,
            s.blocked,
            esc(&info.instruction)
        );
    }
    b.push_str("</table>\n");
    page(&format!("agenteval-gate run: {}", r.suite), &b)
}

#[cfg(test)]
mod tests {
    use super::esc;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            esc("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
    }
}
