//! The first lines of the PR comment (issue 23): what blocks the merge,
//! where, and why, in plain words, so a reviewer has the answer before any
//! table. Also the "gate" cell of the metric tables (whether a row blocks).
//!
//! Everything quoted from the report (metric and case ids, checkpoint
//! instructions, verdict notes, reasons) is escaped for Markdown here.

use std::fmt::Write as _;

use crate::model::compare::{CompareReport, MetricComparison, MetricStatus, Verdict};
use crate::output::escape::{md_code, md_prose};
use crate::output::plural;

use super::fmt::{delta, metric, pvalue};

/// Case ids named in the lead before "and N more".
const CASES_SHOWN: usize = 3;
/// Blockers named in the "What blocks" line before "and N more".
const BLOCKERS_SHOWN: usize = 4;

/// Whether `m` is one of the regressions that fail the gate (its severity is
/// at or above `fail_on`); under `--warn-only` it would.
pub(crate) fn blocks(r: &CompareReport, m: &MetricComparison) -> bool {
    m.status == MetricStatus::Regression && r.fail_on.fails(m.severity)
}

/// The gate cell of a metric row: whether this row blocks the merge.
pub(crate) fn gate_cell(r: &CompareReport, m: &MetricComparison) -> String {
    match m.status {
        MetricStatus::Regression if blocks(r, m) => {
            if r.warn_only {
                "🛑 **would block**".to_owned()
            } else {
                "🛑 **blocks**".to_owned()
            }
        }
        MetricStatus::Regression => format!("tolerated: below {}", r.fail_on),
        MetricStatus::Suspected => "no: inside the noise band".to_owned(),
        _ => "—".to_owned(),
    }
}

/// One thing that fails the gate, as Markdown fragments.
struct Blocker {
    what: String,
    place: String,
    why: String,
}

/// The three lines under the title: what blocks, where, why. Nothing when
/// nothing blocks (or would, under `--warn-only`).
pub(crate) fn lead(md: &mut String, r: &CompareReport) {
    let blockers = blockers(r);
    let Some(first) = blockers.first() else {
        return;
    };
    let label = if r.warn_only && r.verdict == Verdict::Fail {
        "What would block (warn-only)"
    } else {
        "What blocks"
    };
    let mut what: Vec<&str> = blockers
        .iter()
        .take(BLOCKERS_SHOWN)
        .map(|b| b.what.as_str())
        .collect();
    let more = blockers.len().saturating_sub(BLOCKERS_SHOWN);
    let more_text = format!("and {more} more");
    if more > 0 {
        what.push(&more_text);
    }
    let _ = writeln!(md, "- **{label}:** {}", what.join("; "));
    let _ = writeln!(md, "- **Where:** {}", first.place);
    let _ = writeln!(md, "- **Why:** {}\n", first.why);
}

fn blockers(r: &CompareReport) -> Vec<Blocker> {
    let fails = match r.verdict {
        Verdict::Fail | Verdict::CouldNotEvaluate => true,
        Verdict::Inconclusive => r.inconclusive.iter().any(|u| u.fails),
        Verdict::Pass => false,
    };
    if !fails {
        return Vec::new();
    }
    let mut out = Vec::new();
    // The regression with a checkpoint leads: its instruction is the plainest why.
    let mut metrics: Vec<&MetricComparison> = r.metrics.iter().filter(|m| blocks(r, m)).collect();
    metrics.sort_by_key(|m| {
        m.localization
            .as_ref()
            .is_none_or(|l| l.checkpoint.is_none())
    });
    for m in metrics {
        out.push(metric_blocker(m));
    }
    for b in r.absolute_breaches.iter().filter(|b| b.fails) {
        out.push(Blocker {
            what: format!(
                "absolute gate {} ({})",
                md_code(&format!("{}/{}", b.suite, b.breach.metric)),
                b.breach.severity
            ),
            place: format!("the head run of {}", md_code(&b.suite)),
            why: md_prose(&b.breach.message),
        });
    }
    if r.settings.unevaluated == crate::spec::model::UnevaluatedPolicy::Fail {
        for c in r.coverage.iter().filter(|c| c.unevaluated) {
            out.push(Blocker {
                what: format!(
                    "checkpoint {} ({}) {}",
                    md_code(&format!("{}/{}", c.suite, c.id)),
                    c.severity,
                    if c.decided == 0 {
                        "was checked in no case"
                    } else {
                        "could not be checked in some case"
                    }
                ),
                place: format!(
                    "{} of {}",
                    if c.decided == 0 {
                        "every case"
                    } else {
                        "a case"
                    },
                    md_code(&c.suite)
                ),
                why: md_prose(&c.reason),
            });
        }
    }
    for u in r.unreadable.iter().filter(|u| u.fails) {
        out.push(Blocker {
            what: format!("case {} could not be read ({})", md_code(&u.case), u.status),
            place: format!("the head run of {}", md_code(&u.suite)),
            why: md_prose(&u.message),
        });
    }
    for u in r.inconclusive.iter().filter(|u| u.fails) {
        out.push(Blocker {
            what: format!(
                "{} ({}) got worse but too few cases to decide",
                md_code(&format!("{}/{}", u.suite, u.metric)),
                u.severity
            ),
            place: cases_text(&u.cases, u.n),
            why: format!(
                "it got worse in {} of {} paired cases and better in none, too few for the test to tell a real drop from chance; about {} paired cases would decide it",
                u.cases.len(),
                u.n,
                u.cases_needed
            ),
        });
    }
    if out.is_empty() {
        // Another cause (a removed suite, a judge that failed, no verdict on the agent).
        let why = r
            .reasons
            .first()
            .map_or_else(|| "see below".to_owned(), |s| md_prose(s));
        out.push(Blocker {
            what: md_prose(&super::compare_text::headline(r)),
            place: "the whole run".to_owned(),
            why,
        });
    }
    out
}

fn metric_blocker(m: &MetricComparison) -> Blocker {
    let what = format!(
        "{} ({}) fell {} → {}",
        md_code(&m.qualified_name()),
        m.severity,
        metric(&m.name, m.base_mean),
        metric(&m.name, m.head_mean)
    );
    let Some(loc) = &m.localization else {
        return Blocker {
            what,
            place: format!("{} paired cases", m.n),
            why: drop_words(m),
        };
    };
    let cases: Vec<String> = loc.flipped_cases.iter().map(|c| c.case.clone()).collect();
    let mut place = cases_text(&cases, m.n);
    if let Some(rc) = &loc.root_cause {
        let _ = write!(
            place,
            "; in {} the first step to go wrong is {}",
            plural(rc.cases, "newly failing case", "newly failing cases"),
            step_words(&rc.step)
        );
    }
    let why = match (&loc.checkpoint, loc.flipped_cases.first()) {
        (Some(cp), Some(case)) if !case.note.is_empty() => format!(
            "the rule “{}” broke; in {}: {}",
            md_prose(&cp.instruction),
            md_code(&case.case),
            md_prose(strip_verdict(&case.note))
        ),
        (Some(cp), _) => format!(
            "the rule “{}” passed in fewer cases",
            md_prose(&cp.instruction)
        ),
        (None, _) => {
            let mut s = drop_words(m);
            if let Some(cp) = loc.checkpoints_moved.first() {
                let id = crate::model::metric_id::MetricId::parse(&cp.metric)
                    .checkpoint_id()
                    .unwrap_or(&cp.metric)
                    .to_owned();
                let _ = write!(
                    s,
                    ", most of it from checkpoint {} ({})",
                    md_code(&id),
                    delta(&cp.metric, cp.delta)
                );
            }
            s
        }
    };
    Blocker { what, place, why }
}

/// `the average over cases fell by 7.5 pp, more than chance explains (q 0.0005)`.
fn drop_words(m: &MetricComparison) -> String {
    let by = m
        .delta
        .map_or_else(|| "—".to_owned(), |d| delta(&m.name, d));
    format!(
        "{} changed by {by} over the paired cases, more than chance explains (q {})",
        md_code(&m.name),
        pvalue(m.q_value)
    )
}

/// `5 of 24 paired cases got worse: `a`, `b`, `c` and 2 more`.
fn cases_text(cases: &[String], n: usize) -> String {
    if cases.is_empty() {
        return format!("{n} paired cases");
    }
    let shown: Vec<String> = cases.iter().take(CASES_SHOWN).map(|c| md_code(c)).collect();
    let more = cases.len().saturating_sub(CASES_SHOWN);
    format!(
        "{} of {n} paired cases got worse: {}{}",
        cases.len(),
        shown.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}

/// A verdict note without its `FAIL: ` tag.
fn strip_verdict(note: &str) -> &str {
    note.strip_prefix("FAIL: ").unwrap_or(note)
}

/// A DAG step in words: ``PARAMGEN issue_refund`` becomes "the arguments
/// given to" the tool, followed by the step itself as code.
pub(crate) fn step_words(step: &str) -> String {
    let (kind, name) = step.split_once(' ').unwrap_or((step, ""));
    let name_code = if name.is_empty() {
        String::new()
    } else {
        md_code(name)
    };
    let words = match kind {
        "PLAN" => "the plan".to_owned(),
        "TOOLSEL" if !name.is_empty() => format!("choosing the tool {name_code}"),
        "PARAMGEN" if !name.is_empty() => format!("the arguments given to {name_code}"),
        "EXEC" if !name.is_empty() => format!("running {name_code}"),
        "SYNTH" => "the final answer".to_owned(),
        _ => return md_code(step),
    };
    format!("{words} ({})", md_code(step))
}
