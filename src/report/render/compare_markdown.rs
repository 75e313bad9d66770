//! The PR comment (and step summary): verdict line, the metrics that moved,
//! regressions first with their localization, a Mermaid DAG of the worst
//! regressed case, and collapsible details. Capped at 65,536 characters.
//! Every string from the report is escaped for its place (`output::escape`):
//! ids and names as inline code, prose as Markdown text (quoted names stay
//! code), the stored Mermaid DAG inside a fence it cannot close.

use std::fmt::Write as _;

use crate::model::compare::{CompareReport, MetricComparison, MetricStatus, Verdict};
use crate::output::escape::{md_code, md_code_cell, md_prose, md_text, mermaid_block};
use crate::output::plural;

use super::compare_sections::{localization, mde, table};
use super::compare_text::{headline, judge_reason, method_line, moved, status_icon, tier_line};
use super::fmt::metric;

/// GitHub's limit on a comment body, in characters.
pub const MAX_COMMENT_CHARS: usize = 65_536;
/// Mermaid history charts in the full comment (the short one drops them).
const MAX_HISTORY_CHARTS: usize = 2;
/// GitHub's limit on one step's job summary, in bytes.
/// <https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions#step-isolation-and-limits>
pub const MAX_SUMMARY_BYTES: usize = 1024 * 1024;
const COMMENT_TRUNCATED: &str = "\n\n_… report truncated to fit GitHub's 65,536-character comment limit. \
The full report is in this run's job summary (the workflow run's **Summary** page) and in the JSON report \
uploaded as the run's artifact._\n";
const SUMMARY_TRUNCATED: &str = "\n\n_… report truncated to fit the job summary's 1 MiB limit. The full report is \
the JSON report uploaded as the run's artifact (`agenteval-gate report FILE --format html` renders it)._\n";

/// The PR comment: at most [`MAX_COMMENT_CHARS`] characters.
pub fn render_compare_markdown(r: &CompareReport) -> String {
    capped(
        render(r, COMMENT),
        || render(r, COMMENT),
        |_| 1,
        MAX_COMMENT_CHARS,
        COMMENT_TRUNCATED,
    )
}

/// The job summary: the same report with its own, larger cap
/// ([`MAX_SUMMARY_BYTES`]), so a comment cut to fit still has its full
/// report one click away.
pub fn render_compare_summary(r: &CompareReport) -> String {
    capped(
        render(r, FULL),
        || render(r, SHORT),
        char::len_utf8,
        MAX_SUMMARY_BYTES,
        SUMMARY_TRUNCATED,
    )
}

/// `full` if it fits `max` (each character weighing `weight`), else
/// `short()` (the report without its long tables), else that cut at a line
/// boundary and followed by `notice`.
fn capped(
    full: String,
    short: impl FnOnce() -> String,
    weight: fn(char) -> usize,
    max: usize,
    notice: &str,
) -> String {
    let size = |s: &str| s.chars().map(weight).sum::<usize>();
    if size(&full) <= max {
        return full;
    }
    let short = short();
    if size(&short) <= max {
        return short;
    }
    let budget = max - size(notice);
    let mut used = 0;
    let mut cut = String::new();
    for c in short.chars() {
        used += weight(c);
        if used > budget {
            break;
        }
        cut.push(c);
    }
    if let Some(i) = cut.rfind('\n') {
        cut.truncate(i);
    }
    cut.push_str(notice);
    cut
}

/// How much of the report a rendering holds.
#[derive(Clone, Copy)]
struct Mode {
    /// Every flipped case and the history charts (else 3 cases, no charts).
    details: bool,
    /// The PR comment: the blocking findings open, the rest folded or left to
    /// the job summary and the HTML report (issue 23).
    compact: bool,
}

const COMMENT: Mode = Mode {
    details: false,
    compact: true,
};
const FULL: Mode = Mode {
    details: true,
    compact: false,
};
const SHORT: Mode = Mode {
    details: false,
    compact: false,
};

fn render(r: &CompareReport, mode: Mode) -> String {
    let mut md = String::new();
    let (icon, word) = match (r.verdict, r.warn_only) {
        (Verdict::Fail, false) => ("❌", "failed"),
        (Verdict::Fail, true) => ("⚠️", "would fail (warn-only)"),
        (Verdict::Pass, _) => ("✅", "passed"),
        (Verdict::CouldNotEvaluate, _) => ("⛔", "could not evaluate the agent"),
        (Verdict::Inconclusive, _) => ("⚠️", "inconclusive"),
    };
    let _ = writeln!(md, "## {icon} agenteval-gate {word}: {}\n", headline(r));
    super::compare_lead::lead(&mut md, r);
    let paired: usize = r.suites.iter().map(|s| s.paired_cases).sum();
    let sha = r
        .baseline
        .git_sha
        .as_deref()
        .map(|s| format!(" @ {}", md_code(&s.chars().take(12).collect::<String>())))
        .unwrap_or_default();
    let _ = writeln!(
        md,
        "Baseline {}{sha} · {} · {} · fail on **{}**\n",
        md_code(&r.baseline.name),
        plural(paired, "paired case", "paired cases"),
        plural(r.baseline.history_points, "history point", "history points"),
        r.fail_on
    );
    super::gate_changes::markdown(&mut md, r);
    baseline_source(&mut md, r);
    tiers(&mut md, r);
    if r.verdict == Verdict::CouldNotEvaluate || !r.missing_baselines.is_empty() {
        for reason in &r.reasons {
            let _ = writeln!(md, "- {}", md_prose(reason));
        }
        for suite in &r.missing_baselines {
            let _ = writeln!(
                md,
                "- {}: no baseline {} yet, not compared; it is created when this change merges to the default branch",
                md_code(suite),
                md_code(&r.baseline.name)
            );
        }
    }
    inconclusive(&mut md, r);
    unevaluated(&mut md, r);
    if r.verdict != Verdict::CouldNotEvaluate {
        for reason in r.reasons.iter().filter(|l| judge_reason(l)) {
            let _ = writeln!(md, "- ⚖️ {}", md_prose(reason));
        }
    }
    for b in &r.absolute_breaches {
        let _ = writeln!(
            md,
            "- {} absolute gate {}: {}",
            if b.fails { "🔴" } else { "🟠" },
            md_code(&format!("{}/{}", b.suite, b.breach.metric)),
            md_prose(&b.breach.message)
        );
    }

    let moved = moved(r);
    if moved.is_empty() {
        md.push_str("\nNo metric moved beyond noise.\n");
    } else {
        md.push_str("\n### Metrics that moved\n\n");
        table(&mut md, r, &moved, mode.compact);
    }
    regressions(&mut md, r, mode);
    if mode.compact {
        super::insights::summary_line(&mut md, r);
    } else {
        super::insights::markdown(&mut md, r, mode.details);
        if let Some(w) = &r.worst_case {
            let _ = writeln!(
                md,
                "\n### Worst regressed case: {} ({})\n\nRoot cause in red, propagated failures in orange.\n\n{}",
                md_code(&w.case),
                md_code(&w.metric),
                mermaid_block(&w.mermaid)
            );
        }
    }
    mde(&mut md, r);
    super::flaky::markdown(&mut md, r);
    if mode.compact {
        md.push_str(FULL_REPORT_NOTE);
    } else {
        if mode.details {
            let _ = writeln!(
                md,
                "\n<details><summary>All {} metrics</summary>\n",
                r.metrics.len()
            );
            let all: Vec<&MetricComparison> = r.metrics.iter().collect();
            table(&mut md, r, &all, false);
            md.push_str("\n</details>\n");
        }
        coverage(&mut md, r);
        pairing(&mut md, r);
    }
    if !r.metrics.is_empty() {
        let _ = writeln!(
            md,
            "\n<sub>{} · agenteval-gate {}</sub>",
            md_prose(&method_line(r)),
            md_text(&r.tool_version)
        );
    }
    md
}

/// Where the rest of a compact comment is.
const FULL_REPORT_NOTE: &str = "\n<sub>All metrics, recurring issues, the worst case's step graph, checkpoint coverage and pairing: \
this run's job summary (the workflow run's **Summary** page) and the HTML report \
(`agenteval-gate report FILE --format html` on the JSON report artifact).</sub>\n";

/// Regressed and suspected metrics with their localization: the blocking ones
/// open; in the comment the others folded into one `<details>`.
fn regressions(md: &mut String, r: &CompareReport, mode: Mode) {
    let regressions: Vec<&MetricComparison> = r
        .metrics
        .iter()
        .filter(|m| matches!(m.status, MetricStatus::Regression | MetricStatus::Suspected))
        .collect();
    if regressions.is_empty() {
        return;
    }
    let (blocking, other): (Vec<&MetricComparison>, Vec<&MetricComparison>) = regressions
        .iter()
        .partition(|m| super::compare_lead::blocks(r, m));
    let mut charts = 0;
    let mut section = |md: &mut String, list: &[&MetricComparison]| {
        for m in list {
            localization(md, m, mode.details, mode.compact);
            if mode.details
                && charts < MAX_HISTORY_CHARTS
                && m.status == MetricStatus::Regression
                && let Some(chart) = history_chart_of(r, m)
            {
                md.push('\n');
                md.push_str(&chart);
                charts += 1;
            }
        }
    };
    if !blocking.is_empty() {
        md.push_str("\n### What blocks, and where\n");
        section(md, &blocking);
    }
    if other.is_empty() {
        return;
    }
    if mode.compact {
        let _ = writeln!(
            md,
            "\n<details><summary>Not blocking: {} more that moved</summary>\n",
            other.len()
        );
        for m in &other {
            short_localization(md, r, m);
        }
        md.push_str("\n</details>\n");
    } else {
        md.push_str("\n### Not blocking\n");
        section(md, &other);
    }
}

/// One line for a metric that moved but does not block: in the comment.
fn short_localization(md: &mut String, r: &CompareReport, m: &MetricComparison) {
    let mut line = format!(
        "- {} {} ({}, {}): {} → {}",
        status_icon(m.status),
        md_code(&m.qualified_name()),
        m.severity,
        super::compare_lead::gate_cell(r, m),
        metric(&m.name, m.base_mean),
        metric(&m.name, m.head_mean)
    );
    if let Some(loc) = &m.localization {
        if let Some(cp) = &loc.checkpoint {
            let _ = write!(line, " · “{}”", md_prose(&cp.instruction));
        }
        if let Some(c) = loc.flipped_cases.first() {
            let _ = write!(
                line,
                " · {} worse, e.g. {}",
                plural(loc.flipped_cases.len(), "case", "cases"),
                md_code(&c.case)
            );
            if !c.note.is_empty() {
                let _ = write!(
                    line,
                    ": {}",
                    md_prose(c.note.strip_prefix("FAIL: ").unwrap_or(&c.note))
                );
            }
        }
    }
    let _ = writeln!(md, "{line}");
}

/// Checkpoints at or above `fail_on` that no case could evaluate: said up front.
fn unevaluated(md: &mut String, r: &CompareReport) {
    for c in r.coverage.iter().filter(|c| c.unevaluated) {
        let _ = writeln!(
            md,
            "- {} checkpoint {} ({}) {}",
            if r.settings.unevaluated == crate::spec::model::UnevaluatedPolicy::Fail {
                "🔴"
            } else {
                "🟠"
            },
            md_code(&format!("{}/{}", c.suite, c.id)),
            c.severity,
            c.change.as_ref().map_or_else(
                || c.unevaluated_sentence(&md_prose(&c.reason)),
                |change| md_prose(&change.sentence())
            )
        );
    }
}

/// Per checkpoint: decided / N/A / BLOCKED in the head run.
fn coverage(md: &mut String, r: &CompareReport) {
    if r.coverage.is_empty() {
        return;
    }
    let with_suite = r.suites.len() > 1;
    let mut body = String::new();
    let _ = writeln!(
        body,
        "| {}checkpoint | severity | decided | N/A: nothing to check | N/A: not evaluated | BLOCKED |",
        if with_suite { "suite | " } else { "" }
    );
    let _ = writeln!(
        body,
        "|{}---|---|---:|---:|---:|---:|",
        if with_suite { "---|" } else { "" }
    );
    for c in &r.coverage {
        let _ = writeln!(
            body,
            "| {}{}{} | {} | {} | {} | {} | {} |",
            if with_suite {
                format!("{} | ", md_text(&c.suite))
            } else {
                String::new()
            },
            md_code_cell(&c.id),
            if c.unevaluated { " 🔴" } else { "" },
            c.severity,
            c.decided,
            c.vacuous,
            c.not_evaluated,
            c.blocked
        );
    }
    let _ = writeln!(
        md,
        "\n<details><summary>Checkpoint coverage</summary>\n\n{body}\n</details>"
    );
}

/// Where the baseline was read from, and a warning when the pull request
/// changes baseline files (they do not count until merged).
fn baseline_source(md: &mut String, r: &CompareReport) {
    let Some(source) = &r.baseline.source else {
        return;
    };
    if let Some(rev) = &source.rev {
        let why = if source.chosen_by == "pull request base" {
            "the pull request's base commit"
        } else {
            "`--baseline-ref`"
        };
        let _ = writeln!(md, "Baseline read from {} ({why}).\n", md_code(rev));
    }
    if !source.edited.is_empty() {
        let files: Vec<String> = source.edited.iter().take(20).map(|f| md_code(f)).collect();
        let more = source.edited.len().saturating_sub(20);
        let _ = writeln!(
            md,
            "> [!WARNING]\n> This pull request changes baseline files: {}{}. The gate compared with the baseline at {}; the changes take effect only after merge.\n",
            files.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            },
            source.rev.as_deref().map_or_else(String::new, md_code)
        );
    }
}

/// The history band chart of a regressed metric, from the report's saved views.
fn history_chart_of(r: &CompareReport, m: &MetricComparison) -> Option<String> {
    let views = r
        .views
        .as_ref()?
        .suites
        .iter()
        .find(|s| s.suite == m.suite)?;
    super::mermaid_history::history_chart(m, &views.history)
}

fn tiers(md: &mut String, r: &CompareReport) {
    for t in &r.tiers {
        let _ = writeln!(
            md,
            "- {} {} tier: {}",
            md_code(&t.suite),
            t.tier,
            tier_line(t)
        );
    }
}

fn pairing(md: &mut String, r: &CompareReport) {
    let mut body = String::new();
    for s in &r.suites {
        let _ = writeln!(
            body,
            "- {}: {} paired",
            md_code(&s.suite),
            plural(s.paired_cases, "case", "cases")
        );
        let list = |v: &[String]| v.iter().map(|c| md_code(c)).collect::<Vec<_>>().join(", ");
        for (label, v) in [
            ("new cases (not compared)", &s.new_cases),
            ("removed cases", &s.removed_cases),
            ("cases that did not complete", &s.failed_cases),
            ("new checkpoints", &s.new_checkpoints),
            ("removed checkpoints", &s.removed_checkpoints),
            (
                "checkpoints whose instruction changed (not compared)",
                &s.changed_checkpoints,
            ),
        ] {
            if !v.is_empty() {
                let _ = writeln!(body, "  - {label}: {}", list(v));
            }
        }
        for (tag, [b, h]) in &s.config_changes {
            let _ = writeln!(
                body,
                "  - config {}: {} → {}",
                md_code(tag),
                md_text(b.as_deref().unwrap_or("—")),
                md_text(h.as_deref().unwrap_or("—"))
            );
        }
        if s.spec_changed {
            body.push_str("  - the suite spec changed since the baseline\n");
        }
    }
    let _ = writeln!(
        md,
        "\n<details><summary>Pairing and spec changes</summary>\n\n{body}\n</details>"
    );
}

/// The inconclusive gating metrics, with their cases and what would decide them.
fn inconclusive(md: &mut String, r: &CompareReport) {
    for u in &r.inconclusive {
        let shown: Vec<String> = u.cases.iter().take(8).map(|c| md_code(c)).collect();
        let more = u.cases.len().saturating_sub(8);
        let _ = writeln!(
            md,
            "- ⚠️ {} ({}): worse in {}{} ({} of {} paired cases, none better), too few for the test to decide: {}; about {} paired cases, or more trials per case, would decide it{}",
            md_code(&format!("{}/{}", u.suite, u.metric)),
            u.severity,
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            },
            u.cases.len(),
            u.n,
            if u.n < u.min_cases {
                format!("`gates.min_cases` is {}", u.min_cases)
            } else {
                format!(
                    "it needs {} changed cases in one direction",
                    u.needed_changed
                )
            },
            u.cases_needed,
            if u.fails {
                String::new()
            } else {
                format!(" ({})", u.not_blocking())
            }
        );
    }
    if !r.inconclusive.is_empty() {
        md.push('\n');
    }
}

#[cfg(test)]
mod cap_tests {
    use super::*;

    fn lines(n: usize, line: &str) -> String {
        let mut text = String::new();
        for i in 0..n {
            let _ = writeln!(text, "{i} {line}");
        }
        text
    }

    #[test]
    fn the_summary_keeps_the_full_report_the_comment_had_to_shorten() {
        let full = lines(2_000, "| a metric row with its numbers |"); // ~70 kB
        let short = lines(100, "a regression");
        let comment = capped(
            full.clone(),
            || short.clone(),
            |_| 1,
            MAX_COMMENT_CHARS,
            COMMENT_TRUNCATED,
        );
        assert_eq!(comment, short);
        let summary = capped(
            full.clone(),
            || short.clone(),
            char::len_utf8,
            MAX_SUMMARY_BYTES,
            SUMMARY_TRUNCATED,
        );
        assert_eq!(summary, full);
    }

    #[test]
    fn each_cap_is_kept_in_its_own_unit_with_a_notice_saying_where_the_rest_is() {
        // Two bytes per character: the comment counts characters, the summary bytes.
        let huge = lines(40_000, "é".repeat(40).as_str()); // ~3.4 MB
        let comment = capped(
            huge.clone(),
            || huge.clone(),
            |_| 1,
            MAX_COMMENT_CHARS,
            COMMENT_TRUNCATED,
        );
        assert!(comment.chars().count() <= MAX_COMMENT_CHARS);
        assert!(
            comment.chars().count() > MAX_COMMENT_CHARS - 200,
            "cut at the last whole line"
        );
        assert!(comment.ends_with(COMMENT_TRUNCATED));
        assert!(COMMENT_TRUNCATED.contains("The full report is in this run's job summary"));
        let summary = capped(
            huge.clone(),
            || huge.clone(),
            char::len_utf8,
            MAX_SUMMARY_BYTES,
            SUMMARY_TRUNCATED,
        );
        assert!(summary.len() <= MAX_SUMMARY_BYTES, "{}", summary.len());
        assert!(summary.len() > MAX_SUMMARY_BYTES - 300);
        assert!(summary.ends_with(SUMMARY_TRUNCATED));
        assert!(SUMMARY_TRUNCATED.contains("JSON report uploaded as the run's artifact"));
        let kept = summary.strip_suffix(SUMMARY_TRUNCATED).unwrap();
        assert!(huge.starts_with(kept), "a prefix of the report");
        assert!(
            huge[kept.len()..].starts_with('\n'),
            "cut at a line boundary"
        );
    }
}
