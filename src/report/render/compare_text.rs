//! Phrases shared by the compare renderers, so the terminal, Markdown and
//! `JUnit` say the same thing in the same words.

use crate::model::compare::{CompareReport, MetricComparison, MetricStatus, Verdict};
use crate::output::plural;

use super::fmt::{delta, metric, pvalue};

/// One-line verdict summary.
pub(crate) fn headline(r: &CompareReport) -> String {
    let regressions = r
        .metrics
        .iter()
        .filter(|m| m.status == MetricStatus::Regression)
        .count();
    let failing = r
        .metrics
        .iter()
        .filter(|m| m.status == MetricStatus::Regression && r.fail_on.fails(m.severity))
        .count();
    let breaches = r.absolute_breaches.iter().filter(|b| b.fails).count();
    let unevaluated = unevaluated_failing(r, false);
    let broken = unevaluated_failing_decided(r);
    let unevaluated = unevaluated - broken;
    let one_sided = unevaluated_failing(r, true);
    match r.verdict {
        Verdict::CouldNotEvaluate => {
            "most cases failed for one infrastructure cause; no verdict on the agent".to_owned()
        }
        Verdict::Fail => {
            let mut parts = Vec::new();
            if failing > 0 {
                parts.push(format!(
                    "{} at or above {}",
                    plural(failing, "confirmed regression", "confirmed regressions"),
                    r.fail_on
                ));
            }
            if breaches > 0 {
                parts.push(plural(
                    breaches,
                    "absolute gate breached",
                    "absolute gates breached",
                ));
            }
            if unevaluated > 0 {
                parts.push(format!(
                    "{} that no case could evaluate",
                    plural(unevaluated, "checkpoint", "checkpoints")
                ));
            }
            if broken > 0 {
                parts.push(format!(
                    "{} that some case could not evaluate",
                    plural(broken, "checkpoint", "checkpoints")
                ));
            }
            if one_sided > 0 {
                parts.push(format!(
                    "{} checked on one side only",
                    plural(one_sided, "gating checkpoint", "gating checkpoints")
                ));
            }
            if !r.rules.as_ref().is_none_or(|x| x.removed_suites.is_empty()) {
                parts.push("a gated suite removed by this change".to_owned());
            }
            let not_comparable = not_comparable_failing(r);
            if not_comparable > 0 {
                parts.push(format!(
                    "{} not comparable (judge coverage)",
                    plural(not_comparable, "metric", "metrics")
                ));
            }
            let judge = r
                .reasons
                .iter()
                .filter(|l| l.starts_with("judge errors in `"))
                .count();
            if judge > 0 {
                parts.push(format!(
                    "judge errors above `gates.max_judge_error_rate` in {}",
                    plural(judge, "suite", "suites")
                ));
            }
            if parts.is_empty() {
                parts.push("see the reasons below".to_owned());
            }
            parts.join(", ")
        }
        Verdict::Inconclusive => format!(
            "{} got worse in too few cases to decide",
            plural(r.inconclusive.len(), "gating metric", "gating metrics")
        ),
        Verdict::Pass if regressions > 0 => format!(
            "no regression at or above {} ({} below it)",
            r.fail_on,
            plural(regressions, "tolerated regression", "tolerated regressions")
        ),
        Verdict::Pass => {
            let suspected = r
                .metrics
                .iter()
                .filter(|m| m.status == MetricStatus::Suspected)
                .count();
            if suspected > 0 {
                format!(
                    "no confirmed regression ({} to watch)",
                    plural(suspected, "suspected change", "suspected changes")
                )
            } else {
                "no regression".to_owned()
            }
        }
    }
}

/// Whether a reason line is about the judge (its error rate, replay misses, another
/// judge, judge coverage): the PR comment lists these, the terminal lists every reason.
pub(crate) fn judge_reason(line: &str) -> bool {
    [
        "judge errors in `",
        "judge replay in `",
        "judge in `",
        "not comparable in `",
    ]
    .iter()
    .any(|p| line.starts_with(p))
        || line.contains(" is not comparable: ")
        || line.contains("`: the baseline was judged by `")
}

/// Judge-fed metrics at or above `fail_on` left `not_comparable` (`gates.unevaluated: fail`).
fn not_comparable_failing(r: &CompareReport) -> usize {
    if r.settings.unevaluated == crate::spec::model::UnevaluatedPolicy::Fail {
        r.metrics
            .iter()
            .filter(|m| m.status == MetricStatus::NotComparable && r.fail_on.fails(m.severity))
            .count()
    } else {
        0
    }
}

/// Unevaluated checkpoints that fail the gate (`gates.unevaluated: fail`): those with a
/// coverage change (`changed`) or the others.
fn unevaluated_failing(r: &CompareReport, changed: bool) -> usize {
    if r.settings.unevaluated == crate::spec::model::UnevaluatedPolicy::Fail {
        r.coverage
            .iter()
            .filter(|c| c.unevaluated && c.change.is_some() == changed)
            .count()
    } else {
        0
    }
}

/// Of [`unevaluated_failing`]`(r, false)`, those decided in other cases (their evaluation
/// broke down in some case: a `where` error, a search out of budget).
fn unevaluated_failing_decided(r: &CompareReport) -> usize {
    if r.settings.unevaluated == crate::spec::model::UnevaluatedPolicy::Fail {
        r.coverage
            .iter()
            .filter(|c| c.unevaluated && c.change.is_none() && c.decided > 0)
            .count()
    } else {
        0
    }
}

/// `exact sign-flip, 7 of 29 changed` / `no variation: all 29 paired values are equal`.
pub(crate) fn test_line(m: &MetricComparison) -> String {
    let Some(test) = m.test else {
        return format!(
            "not tested: {} paired (fewer than `min_cases`)",
            plural(m.n, "case", "cases")
        );
    };
    let mut s = match test {
        crate::model::compare::TestName::NoVariation => {
            format!("{}: {}", test.as_str(), m.test_note)
        }
        _ => format!(
            "{} test, {} of {} changed",
            test.as_str(),
            m.nonzero.unwrap_or(0),
            plural(m.n, "paired case", "paired cases")
        ),
    };
    if !m.missing.is_none() {
        s.push_str(&format!(
            "; no value in {} of the head and {} of the baseline",
            plural(m.missing.head, "case", "cases"),
            plural(m.missing.base, "case", "cases")
        ));
    }
    s
}

/// The method line under a report: tests, family, α.
pub(crate) fn method_line(r: &CompareReport) -> String {
    format!(
        "one-sided paired sign-flip tests (exact when few cases changed, else {} random sign patterns; seed {}) with bootstrap 95% CIs · {} over the {} that can fail the gate (and separately over {} more; {} left out: no variation or too few changes to reach α) · α = {}: {} · 2σ band over the last {} baseline means",
        r.settings.resamples,
        r.settings.seed,
        if r.settings.fdr {
            "Benjamini–Hochberg q-values"
        } else {
            "raw p-values (--fdr off)"
        },
        plural(r.family.size, "metric", "metrics"),
        r.family.informational,
        r.family.untestable,
        trim_float(r.family.alpha),
        r.family.alpha_note,
        r.settings.history_window,
    )
}

/// `0.04`, not `0.04000000000000001`.
fn trim_float(v: f64) -> String {
    let s = format!("{v:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// `Δ −4.0 pp (95% CI −6.1 … −1.9), q 0.0031`.
pub(crate) fn effect(m: &MetricComparison) -> String {
    let mut s = match m.delta {
        Some(d) => format!("Δ {}", delta(&m.name, d)),
        None => "Δ —".to_owned(),
    };
    if let Some([lo, hi]) = m.ci95 {
        s.push_str(&format!(
            " (95% CI {} … {})",
            delta(&m.name, lo),
            delta(&m.name, hi)
        ));
    }
    if m.q_value.is_some() {
        s.push_str(&format!(", q {}", pvalue(m.q_value)));
    }
    s
}

/// The 2σ leg in words.
pub(crate) fn sigma(m: &MetricComparison) -> String {
    match &m.sigma_band {
        Some(b) => format!(
            "head {} vs band {} … {} ({} points){}",
            metric(&m.name, Some(b.head_mean)),
            metric(&m.name, Some(b.lower)),
            metric(&m.name, Some(b.upper)),
            b.points,
            if b.fired { ": outside" } else { ": inside" }
        ),
        None => m.sigma_note.clone(),
    }
}

/// Compact band for table cells.
pub(crate) fn sigma_cell(m: &MetricComparison) -> String {
    match &m.sigma_band {
        Some(b) => format!(
            "{} … {}{}",
            metric(&m.name, Some(b.lower)),
            metric(&m.name, Some(b.upper)),
            if b.fired { " ✗" } else { "" }
        ),
        None if m.sigma_note.starts_with("unavailable") => "n/a".to_owned(),
        None => "—".to_owned(),
    }
}

pub(crate) fn status_icon(s: MetricStatus) -> &'static str {
    match s {
        MetricStatus::Regression => "🔴",
        MetricStatus::Suspected => "🟠",
        MetricStatus::Improvement => "🟢",
        MetricStatus::Unchanged => "⚪",
        MetricStatus::InsufficientData => "⚫",
        MetricStatus::NotComparable => "🟡",
    }
}

/// Metrics worth a row in the summary: everything that is not unchanged.
pub(crate) fn moved(r: &CompareReport) -> Vec<&MetricComparison> {
    r.metrics
        .iter()
        .filter(|m| {
            m.status != MetricStatus::Unchanged && m.status != MetricStatus::InsufficientData
        })
        .collect()
}

/// `6 cases → pass in 3.6 s; stopped before the full tier (18 runs saved)`.
pub(crate) fn tier_line(t: &crate::model::compare::TierOutcome) -> String {
    let mut s = format!(
        "{} → {}",
        plural(t.cases, "case", "cases"),
        t.verdict.as_str()
    );
    match t.wall_time_ms {
        Some(ms) if ms < 1000 => s.push_str(&format!(" in {ms} ms")),
        Some(ms) => s.push_str(&format!(" in {:.1} s", ms as f64 / 1000.0)),
        None => {}
    }
    if t.stopped_early {
        s.push_str(&format!(
            "; {}: stopped before the full tier ({} saved)",
            if t.verdict == Verdict::CouldNotEvaluate {
                "could not evaluate"
            } else {
                "a regression that fails the gate"
            },
            plural(t.runs_saved, "run", "runs")
        ));
    }
    s
}
