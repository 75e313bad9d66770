//! Flakiness in words (issue 20): a regressed case's history ("failed
//! 3 of 3 trials; passed 9 of 9 before"), a regression carried only by
//! flaky cases, and the flakiest cases of each suite — folded in the PR
//! comment, one line in the terminal, a table in `baseline show`.
//!
//! Case ids and metric names come from suites and traces: every one passes
//! the escaper of its sink (`code` below: [`esc::md_code`] for Markdown,
//! [`esc::terminal`] for the terminal); the numbers and words are ours.

use std::fmt::Write as _;

use comfy_table::{ContentArrangement, Table, presets};

use crate::model::compare::{
    CompareReport, FlakyCase, FlippedCase, Localization, MetricOutcomes, Outcomes, SuiteFlakiness,
};
use crate::output::escape as esc;
use crate::output::plural;

/// Flaky cases listed per suite in the comment and the terminal.
const SHOWN: usize = 10;
/// Flaky metrics listed per case.
const METRICS_SHOWN: usize = 3;

/// `passed 12 of 12 before`, `flaky: passed 3 of 6 before`, `failed 6 of 6 before`.
fn before(o: Outcomes) -> String {
    if o.passed == 0 {
        format!("failed {} of {} before", o.trials, o.trials)
    } else if o.is_flaky() {
        format!("flaky: passed {} of {} before", o.passed, o.trials)
    } else {
        format!("passed {} of {} before", o.passed, o.trials)
    }
}

/// A flipped case's trials and history, e.g. `failed 2 of 3 trials; passed
/// 9 of 9 before`, or `flaky on checkpoint:P2-01: passed 1 of 3 before` for
/// a metric that is not pass/fail; `None` without either.
pub(crate) fn case_history(
    metric: &str,
    c: &FlippedCase,
    code: impl Fn(&str) -> String,
) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(h) = c.head_outcomes {
        parts.push(format!("failed {} of {} trials", h.failed(), h.trials));
    }
    if let Some(h) = &c.history {
        if h.metric == metric {
            parts.push(before(h.outcomes));
        } else {
            parts.push(format!(
                "flaky on {}: passed {} of {} before",
                code(&h.metric),
                h.outcomes.passed,
                h.outcomes.trials
            ));
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// `3 of 24 cases flaky in up to 3 earlier trials per case (1 history point pooled)`.
pub(crate) fn suite_words(f: &SuiteFlakiness) -> String {
    format!(
        "{} of {} flaky in up to {} earlier trials per case ({})",
        f.flaky.len(),
        plural(f.cases, "case", "cases"),
        f.max_trials,
        if f.history_points == 0 {
            "the baseline's own trials".to_owned()
        } else {
            format!(
                "{} pooled",
                plural(f.history_points, "history point", "history points")
            )
        }
    )
}

/// `sb-002: task_success passed 1 of 3, checkpoint:P2-01 passed 1 of 3`.
pub(crate) fn case_words(c: &FlakyCase, code: impl Fn(&str) -> String) -> String {
    let mut metrics: Vec<String> = c
        .metrics
        .iter()
        .take(METRICS_SHOWN)
        .map(|m| outcome_words(m, &code))
        .collect();
    if c.metrics.len() > METRICS_SHOWN {
        metrics.push(format!("{} more", c.metrics.len() - METRICS_SHOWN));
    }
    format!("{}: {}", code(&c.case), metrics.join(", "))
}

fn outcome_words(m: &MetricOutcomes, code: impl Fn(&str) -> String) -> String {
    format!(
        "{} passed {} of {}",
        code(&m.metric),
        m.outcomes.passed,
        m.outcomes.trials
    )
}

/// `sb-007, sb-011` (at most [`SHOWN`], then `and N more`).
fn ids(cases: &[String], code: impl Fn(&str) -> String) -> String {
    let mut s: Vec<String> = cases.iter().take(SHOWN).map(|c| code(c)).collect();
    if cases.len() > SHOWN {
        s.push(format!("and {} more", cases.len() - SHOWN));
    }
    s.join(", ")
}

/// A regressed or suspected metric carried only by flaky cases: one list item.
pub(crate) fn carried_markdown(md: &mut String, loc: &Localization) {
    if loc.carried_by_flaky.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "- ⚠️ carried only by flaky cases: {} — their earlier trials disagree, so this change may be their noise (information only: the status is the test's)",
        ids(&loc.carried_by_flaky, esc::md_code)
    );
}

/// The same for the terminal (indented under the metric).
pub(crate) fn carried_text(out: &mut String, loc: &Localization) {
    if loc.carried_by_flaky.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "    carried only by flaky cases: {}",
        ids(&loc.carried_by_flaky, |s| esc::terminal(s).into_owned())
    );
}

/// The flakiest cases of each suite, folded; nothing when no suite has a flaky case.
pub(crate) fn markdown(md: &mut String, r: &CompareReport) {
    let flaky: usize = r.flakiness.iter().map(|f| f.flaky.len()).sum();
    if flaky == 0 {
        return;
    }
    let _ = writeln!(md, "\n<details><summary>Flaky cases ({flaky})</summary>\n");
    for f in r.flakiness.iter().filter(|f| !f.flaky.is_empty()) {
        let _ = writeln!(
            md,
            "- {}: {}; flakiest first:",
            esc::md_code(&f.suite),
            suite_words(f)
        );
        for c in f.flaky.iter().take(SHOWN) {
            let _ = writeln!(md, "  - {}", case_words(c, esc::md_code));
        }
        if f.flaky.len() > SHOWN {
            let _ = writeln!(
                md,
                "  - … and {} more in the JSON report",
                f.flaky.len() - SHOWN
            );
        }
    }
    md.push_str("\n</details>\n");
}

/// One line per suite with flaky cases, for the terminal.
pub(crate) fn text(out: &mut String, r: &CompareReport) {
    for f in r.flakiness.iter().filter(|f| !f.flaky.is_empty()) {
        let cases: Vec<String> = f.flaky.iter().map(|c| c.case.clone()).collect();
        let _ = writeln!(
            out,
            "flaky: {}: {}: {}",
            esc::terminal(&f.suite),
            suite_words(f),
            ids(&cases, |s| esc::terminal(s).into_owned())
        );
    }
}

/// For `JUnit`: a failing metric's worse cases with their trials and history, and whether
/// only flaky cases carry it, one per line (plain text; the caller escapes for XML).
pub(crate) fn junit_detail(metric: &str, loc: &Localization) -> String {
    let mut lines: Vec<String> = loc
        .flipped_cases
        .iter()
        .map(|c| {
            let history = case_history(metric, c, str::to_owned)
                .map(|h| format!(" ({h})"))
                .unwrap_or_default();
            let short = |v: f64| (v * 1000.0).round() / 1000.0;
            format!(
                "worse: {} {} → {}{history}",
                c.case,
                short(c.base),
                short(c.head)
            )
        })
        .collect();
    if !loc.carried_by_flaky.is_empty() {
        lines.push(format!(
            "carried only by flaky cases: {} (their earlier trials disagree: this change may be their noise)",
            ids(&loc.carried_by_flaky, str::to_owned)
        ));
    }
    lines.join("\n")
}

/// For `JUnit`: a suite's flaky cases, flakiest first, one per line; empty without any.
pub(crate) fn junit_suite(r: &CompareReport, suite: &str) -> String {
    let Some(f) = r
        .flakiness
        .iter()
        .find(|f| f.suite == suite && !f.flaky.is_empty())
    else {
        return String::new();
    };
    let mut lines = vec![format!("flaky: {}", suite_words(f))];
    lines.extend(
        f.flaky
            .iter()
            .take(SHOWN)
            .map(|c| format!("  {}", case_words(c, str::to_owned))),
    );
    if f.flaky.len() > SHOWN {
        lines.push(format!(
            "  … and {} more in the JSON report",
            f.flaky.len() - SHOWN
        ));
    }
    lines.join("\n")
}

/// `baseline show`: the baseline's flaky cases with their rates, as a table.
pub(crate) fn baseline_table(f: &SuiteFlakiness) -> String {
    let mut out = format!("  {}\n", suite_words(f));
    if f.flaky.is_empty() {
        return out;
    }
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled);
    t.set_header(vec!["flaky case", "metric", "passed", "rate"]);
    for c in &f.flaky {
        for m in &c.metrics {
            t.add_row(vec![
                esc::terminal(&c.case).into_owned(),
                esc::terminal(&m.metric).into_owned(),
                format!("{} of {}", m.outcomes.passed, m.outcomes.trials),
                format!(
                    "{:.0}%",
                    100.0 * m.outcomes.passed as f64 / m.outcomes.trials as f64
                ),
            ]);
        }
    }
    out.push_str(&t.to_string());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use pulldown_cmark::{Event, Parser};

    use super::*;
    use crate::model::compare::MetricStatus;
    use crate::report::render::compare_markdown::render_compare_markdown;
    use crate::report::render::compare_table::render_compare_table;

    const COMPARE_JSON: &str = include_str!("testdata/compare-support-bot-regressed.json");
    const HOSTILE: &str = "<img src=x onerror=alert(1)> | `code` @octocat ` *end*";
    const CONTROL: &str = "red\u{1b}[31m\nnext\u{202e}";

    fn outcomes(passed: usize, trials: usize) -> Outcomes {
        Outcomes { passed, trials }
    }

    /// The regressed support-bot compare with trials and history on its
    /// P2-02 regression; the first flipped case id is `evil`.
    fn with_history(evil: &str) -> CompareReport {
        let mut r: CompareReport = serde_json::from_str(COMPARE_JSON).expect("fixture");
        let m = r
            .metrics
            .iter_mut()
            .find(|m| m.name == "checkpoint:P2-02")
            .expect("P2-02");
        assert_eq!(m.status, MetricStatus::Regression);
        let loc = m.localization.as_mut().expect("localized");
        for (i, c) in loc.flipped_cases.iter_mut().enumerate() {
            if i == 0 {
                c.case = evil.to_owned();
            }
            c.head_outcomes = Some(outcomes(1, 3));
            c.history = Some(MetricOutcomes {
                metric: "checkpoint:P2-02".into(),
                outcomes: if i == 1 {
                    outcomes(3, 6)
                } else {
                    outcomes(12, 12)
                },
            });
        }
        loc.carried_by_flaky = vec![evil.to_owned(), "sb-011".into()];
        r.flakiness = vec![SuiteFlakiness {
            suite: "support-bot".into(),
            cases: 24,
            history_points: 4,
            max_trials: 12,
            flaky: vec![
                FlakyCase {
                    case: evil.to_owned(),
                    metrics: vec![MetricOutcomes {
                        metric: format!("checkpoint:{evil}"),
                        outcomes: outcomes(3, 6),
                    }],
                },
                FlakyCase {
                    case: "sb-011".into(),
                    metrics: vec![MetricOutcomes {
                        metric: "task_success".into(),
                        outcomes: outcomes(5, 12),
                    }],
                },
            ],
        }];
        r
    }

    #[test]
    fn the_comment_names_each_regressed_case_with_its_history() {
        let md = render_compare_markdown(&with_history("sb-003"));
        assert!(
            md.contains("`sb-003`: 100.0% → 0.0% (failed 2 of 3 trials; passed 12 of 12 before)"),
            "{md}"
        );
        assert!(
            md.contains("(failed 2 of 3 trials; flaky: passed 3 of 6 before)"),
            "{md}"
        );
        assert!(
            md.contains("- ⚠️ carried only by flaky cases: `sb-003`, `sb-011` —"),
            "{md}"
        );
        assert!(
            md.contains("<details><summary>Flaky cases (2)</summary>"),
            "{md}"
        );
        assert!(
            md.contains(
                "- `support-bot`: 2 of 24 cases flaky in up to 12 earlier trials per case (4 history points pooled); flakiest first:\n  - `sb-003`: `checkpoint:sb-003` passed 3 of 6\n  - `sb-011`: `task_success` passed 5 of 12\n"
            ),
            "{md}"
        );
    }

    #[test]
    fn the_html_page_shows_histories_flaky_carriers_and_the_flaky_cases_escaped() {
        let html = crate::report::render::html::render_compare_html(&with_history(HOSTILE))
            .expect("renders");
        assert!(!html.contains("<img src=x"), "a raw tag from a case id");
        let evil = "&lt;img src=x onerror=alert(1)&gt;";
        assert!(
            html.contains(&format!(
                "<li class=\"flakywarn\">⚠ carried only by flaky cases: <code>{evil}"
            )),
            "{html}"
        );
        assert!(
            html.contains(
                "<span class=\"muted small\">(failed 2 of 3 trials; flaky: passed 3 of 6 before)</span>"
            ),
            "{html}"
        );
        assert!(
            html.contains("<summary>Flaky cases (2)</summary>"),
            "{html}"
        );
        assert!(
            html.contains("<li>sb-011: task_success passed 5 of 12</li>"),
            "{html}"
        );
    }

    #[test]
    fn hostile_case_ids_stay_code() {
        let md = render_compare_markdown(&with_history(HOSTILE));
        let html: Vec<String> = Parser::new(&md)
            .filter_map(|e| match e {
                Event::Html(h) | Event::InlineHtml(h) => Some(h.into_string()),
                _ => None,
            })
            .collect();
        assert!(html.iter().all(|h| !h.contains("<img")), "{html:?}");
        let plain: String = Parser::new(&md)
            .filter_map(|e| match e {
                Event::Text(t) => Some(t.into_string()),
                _ => None,
            })
            .collect();
        assert!(!plain.contains("@octocat"), "a mention outside code: {md}");
        let text = render_compare_table(&with_history(CONTROL));
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202e}'),
            "{text:?}"
        );
        assert!(
            text.contains(
                "    carried only by flaky cases: red\\x1b[31m\\nnext\\u{202e}, sb-011\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("flaky: support-bot: 2 of 24 cases flaky in up to 12 earlier trials per case (4 history points pooled): red\\x1b[31m\\nnext\\u{202e}, sb-011\n"),
            "{text}"
        );
    }

    #[test]
    fn a_metric_that_is_not_pass_fail_names_the_flaky_metric() {
        let c = FlippedCase {
            case: "sb-002".into(),
            base: 90.0,
            head: 80.0,
            note: String::new(),
            cited_spans: Vec::new(),
            head_outcomes: None,
            history: Some(MetricOutcomes {
                metric: "checkpoint:P2-01".into(),
                outcomes: outcomes(1, 3),
            }),
        };
        assert_eq!(
            case_history("compliance_percent", &c, esc::md_code).as_deref(),
            Some("flaky on `checkpoint:P2-01`: passed 1 of 3 before")
        );
        let none = FlippedCase { history: None, ..c };
        assert_eq!(
            case_history("compliance_percent", &none, esc::md_code),
            None
        );
    }

    #[test]
    fn baseline_table_lists_rates() {
        let r = with_history("sb-003");
        let t = baseline_table(&r.flakiness[0]);
        assert!(t.starts_with("  2 of 24 cases flaky"), "{t}");
        assert!(
            t.contains("sb-011") && t.contains("5 of 12") && t.contains("42%"),
            "{t}"
        );
    }
}
