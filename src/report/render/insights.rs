//! The recurring-issue section of a compare (Markdown for the PR comment,
//! plain lines for the terminal): issues new since the baseline and issues
//! that grew lead; issues gone follow; the head run's most widespread
//! issues, per node and system-wide, are folded away.
//!
//! Every issue text, node name, case id and span id comes from traces and
//! suites: each is escaped for its sink by [`esc`].

use std::fmt::Write as _;

use crate::insights::{
    GREW_MIN_CASES, GREW_MIN_SHARE, InsightStatus, IssueChange, IssueGroup, SuiteInsights,
};
use crate::model::compare::CompareReport;
use crate::output::plural;

use crate::output::escape as esc;

/// Characters of an issue's example message shown in a table cell.
const CELL_CHARS: usize = 160;
/// Rows per table in the comment.
const ROWS: usize = 10;

/// The `### Recurring issues` section, or nothing when no suite has data.
pub(crate) fn markdown(md: &mut String, r: &CompareReport, details: bool) {
    if r.insights.is_empty() {
        return;
    }
    md.push_str("\n### Recurring issues\n\n");
    let with_suite = r.insights.len() > 1;
    for s in &r.insights {
        suite_markdown(md, s, with_suite, details);
    }
}

/// One line per suite for the PR comment: how many issues are new (the
/// first two named by node), grew and are gone; the tables are in the job
/// summary and the HTML report.
pub(crate) fn summary_line(md: &mut String, r: &CompareReport) {
    for s in &r.insights {
        if s.status == InsightStatus::BaselineWithoutInsights {
            let _ = writeln!(
                md,
                "\n**Recurring issues** in {}: the baseline was written before recurring issues were recorded, so none is called new.",
                esc::md_code(&s.suite)
            );
            continue;
        }
        if s.status != InsightStatus::Compared
            || (s.new.is_empty() && s.grew.is_empty() && s.gone.is_empty())
        {
            continue;
        }
        let named: Vec<String> = s
            .new
            .iter()
            .take(2)
            .map(|c| {
                format!(
                    "{} in {}",
                    esc::md_code(&c.group.node.display()),
                    plural(c.head_cases, "case", "cases")
                )
            })
            .collect();
        let _ = writeln!(
            md,
            "\n**Recurring issues** in {}: {} new since the baseline{}, {} grew, {} gone.",
            esc::md_code(&s.suite),
            s.new.len(),
            if named.is_empty() {
                String::new()
            } else {
                format!(" ({})", named.join(", "))
            },
            s.grew.len(),
            s.gone.len(),
        );
    }
}

fn suite_markdown(md: &mut String, s: &SuiteInsights, with_suite: bool, details: bool) {
    let prefix = if with_suite {
        format!("{}: ", esc::md_code(&s.suite))
    } else {
        String::new()
    };
    match s.status {
        InsightStatus::BaselineWithoutInsights => {
            let _ = writeln!(
                md,
                "{prefix}the baseline was written before recurring issues were recorded, so none is called new; they will be once the baseline is updated.\n"
            );
        }
        InsightStatus::HeadWithoutInsights => {
            let _ = writeln!(md, "{prefix}the head run has no recurring-issue data.\n");
            return;
        }
        InsightStatus::Compared => {
            let scope = if s.restricted_to_paired {
                format!(" (over the {} paired cases)", s.head_cases)
            } else {
                String::new()
            };
            let _ = writeln!(
                md,
                "{prefix}{} new since the baseline, {} grew, {} gone{scope}.\n",
                plural(s.new.len(), "issue", "issues"),
                s.grew.len(),
                s.gone.len(),
            );
        }
    }
    if !s.new.is_empty() {
        md.push_str("**New since baseline**\n\n");
        change_table(md, &s.new, false);
    }
    if !s.grew.is_empty() {
        let _ = writeln!(
            md,
            "**Grew** (at least {GREW_MIN_CASES} more cases and a share {:.0} pp higher)\n",
            GREW_MIN_SHARE * 100.0
        );
        change_table(md, &s.grew, true);
    }
    if !s.gone.is_empty() {
        let mut body = String::new();
        for c in s.gone.iter().take(if details { ROWS } else { 3 }) {
            let _ = writeln!(
                body,
                "- {} on {}: was in {} ({})",
                esc::md_prose(&cell(&c.group.example_message)),
                esc::md_code(&c.group.node.display()),
                plural(c.base_cases, "case", "cases"),
                share(c.base_share)
            );
        }
        if s.gone.len() > ROWS {
            let _ = writeln!(body, "- and {} more", s.gone.len() - ROWS);
        }
        let _ = writeln!(
            md,
            "<details><summary>Gone since baseline ({})</summary>\n\n{body}\n</details>\n",
            s.gone.len()
        );
    }
    if details && !s.top.is_empty() {
        let mut body = String::new();
        body.push_str(
            "Per node:\n\n| issue | node | cases | share | e.g. |\n|---|---|---:|---:|---|\n",
        );
        for g in s.top.iter().take(ROWS) {
            let _ = writeln!(
                body,
                "| {} | {} | {} | {} | {} |",
                issue_cell(g),
                esc::md_code_cell(&g.node.display()),
                g.cases,
                share(g.share),
                examples(g)
            );
        }
        if !s.system.is_empty() {
            body.push_str("\nSystem-wide (the same issue over every node):\n\n| issue | nodes | cases | share |\n|---|---|---:|---:|\n");
            for i in s.system.iter().take(ROWS) {
                let nodes: Vec<String> = i
                    .nodes
                    .iter()
                    .take(4)
                    .map(|n| esc::md_code_cell(n))
                    .collect();
                let more = i.nodes.len().saturating_sub(4);
                let _ = writeln!(
                    body,
                    "| {} · {} | {}{} | {} | {} |",
                    esc::md_prose_cell(&cell(&i.message)),
                    esc::md_text(&i.label),
                    nodes.join(", "),
                    if more > 0 {
                        format!(" +{more}")
                    } else {
                        String::new()
                    },
                    i.cases,
                    share(i.share)
                );
            }
        }
        let _ = writeln!(
            md,
            "<details><summary>Most widespread issues in this run</summary>\n\n{body}\n</details>\n"
        );
    }
}

fn change_table(md: &mut String, rows: &[IssueChange], grew: bool) {
    md.push_str("| issue | node | cases | share | e.g. |\n|---|---|---:|---:|---|\n");
    for c in rows.iter().take(ROWS) {
        let (cases, shares) = if grew {
            (
                format!("{} → {}", c.base_cases, c.head_cases),
                format!("{} → {}", share(c.base_share), share(c.head_share)),
            )
        } else {
            (c.head_cases.to_string(), share(c.head_share))
        };
        let _ = writeln!(
            md,
            "| {} | {} | {cases} | {shares} | {} |",
            issue_cell(&c.group),
            esc::md_code_cell(&c.group.node.display()),
            examples(&c.group)
        );
    }
    if rows.len() > ROWS {
        let _ = writeln!(md, "\n_and {} more in the JSON report_", rows.len() - ROWS);
    }
    md.push('\n');
}

fn issue_cell(g: &IssueGroup) -> String {
    match &g.summary {
        Some(s) => format!(
            "**{}**: {} <sub>{} · e.g. {} · named by {}</sub>",
            esc::md_text(&s.name),
            esc::md_text(&cell(&s.summary)),
            esc::md_text(&g.label),
            esc::md_prose_cell(&cell(&g.example_message)),
            esc::md_text(&s.by)
        ),
        None => format!(
            "{} <sub>{}</sub>",
            esc::md_prose_cell(&cell(&g.example_message)),
            esc::md_text(&g.label)
        ),
    }
}

fn examples(g: &IssueGroup) -> String {
    g.examples
        .iter()
        .map(|e| match e.spans.first() {
            Some(span) => format!(
                "{} (span {})",
                esc::md_code_cell(&e.case),
                esc::md_code_cell(span)
            ),
            None => esc::md_code_cell(&e.case),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn cell(text: &str) -> String {
    if text.chars().count() <= CELL_CHARS {
        return text.to_owned();
    }
    let mut s: String = text.chars().take(CELL_CHARS - 1).collect();
    s.push('…');
    s
}

fn share(v: f64) -> String {
    format!("{:.1}%", v * 100.0)
}

/// Terminal lines: counts, then the new and grown issues (one line each).
pub(crate) fn text(out: &mut String, r: &CompareReport) {
    for s in &r.insights {
        if s.status != InsightStatus::Compared {
            if s.status == InsightStatus::BaselineWithoutInsights {
                let _ = writeln!(
                    out,
                    "recurring issues {}: the baseline predates them; none is called new",
                    esc::terminal(&s.suite)
                );
            }
            continue;
        }
        let _ = writeln!(
            out,
            "recurring issues {}: {} new, {} grew, {} gone",
            esc::terminal(&s.suite),
            s.new.len(),
            s.grew.len(),
            s.gone.len()
        );
        for (tag, rows) in [("new", &s.new), ("grew", &s.grew)] {
            for c in rows.iter().take(ROWS) {
                let _ = writeln!(
                    out,
                    "  {tag}: {} — {} ({} → {}, e.g. {})",
                    esc::terminal(&c.group.node.display()),
                    esc::terminal(&cell(&c.group.example_message)),
                    c.base_cases,
                    plural(c.head_cases, "case", "cases"),
                    c.group
                        .examples
                        .first()
                        .map_or_else(String::new, |e| esc::terminal(&e.case).into_owned())
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::insights::{IssueExample, IssueNode, IssueSource, NodeKind};

    fn hostile() -> SuiteInsights {
        let group = IssueGroup {
            id: "I-0123456789".into(),
            source: IssueSource::Step,
            label: "Execution/x/<b>y</b>".into(),
            node: IssueNode {
                kind: NodeKind::Tool,
                step_type: Some(crate::spec::model::StepType::Exec),
                name: "evil|`tool`".into(),
                agent: Some("@admin".into()),
            },
            message: "m".into(),
            example_message: "<script>alert(1)</script> | **bold** @octocat\n## heading <!-- x"
                .into(),
            count: 2,
            cases: 2,
            share: 0.5,
            examples: vec![IssueExample {
                case: "c|1`".into(),
                step: Some("s1".into()),
                spans: vec!["##[error]x".into()],
            }],
            summary: None,
        };
        let change = IssueChange {
            group: group.clone(),
            base_cases: 0,
            head_cases: 2,
            base_share: 0.0,
            head_share: 0.5,
        };
        SuiteInsights {
            suite: "s".into(),
            status: InsightStatus::Compared,
            restricted_to_paired: false,
            new: vec![change.clone()],
            grew: Vec::new(),
            gone: vec![change],
            top: vec![group],
            system: Vec::new(),
            head_cases: 4,
            base_cases: 4,
        }
    }

    #[test]
    fn trace_text_cannot_break_out_of_its_cell_or_the_comment() {
        let mut md = String::new();
        suite_markdown(&mut md, &hostile(), false, true);
        assert!(!md.contains("<script>"), "{md}");
        assert!(!md.contains("<b>"), "{md}");
        assert!(!md.contains("<!--"), "{md}");
        assert!(!md.contains("##[error]"), "{md}");
        assert!(!md.contains("@octocat"), "{md}");
        assert!(!md.contains("\n## heading"), "{md}");
        // Every table row keeps its five cells: no unescaped pipe got through.
        for row in md.lines().filter(|l| l.starts_with("| ")) {
            let bytes = row.as_bytes();
            let unescaped = row
                .match_indices('|')
                .filter(|(i, _)| *i == 0 || bytes[i - 1] != b'\\')
                .count();
            assert_eq!(unescaped, 6, "{row}");
        }
    }

    #[test]
    fn terminal_lines_show_control_characters() {
        let mut s = hostile();
        s.new[0].group.example_message = "red \u{1b}[31m text\u{202e}".into();
        let r = crate::model::compare::CompareReport {
            insights: vec![s],
            ..crate::compare::decide::no_baseline_report(
                "main",
                crate::spec::model::FailOn::Critical,
                &[],
            )
        };
        let mut out = String::new();
        text(&mut out, &r);
        assert!(
            !out.contains('\u{1b}') && !out.contains('\u{202e}'),
            "{out:?}"
        );
        assert!(out.contains("\\x1b[31m"), "{out}");
    }
}
