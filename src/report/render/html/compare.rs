//! The compare page: verdict and tiers, what fell (with its history), the
//! forest plot, history charts, the case × checkpoint matrix and the cases
//! drawn in full, worst first.

use serde::Serialize;

use crate::model::compare::{CompareReport, MetricComparison, MetricStatus, Verdict};
use crate::output::plural;
use crate::report::render::compare_text::{headline, sigma, tier_line};
use crate::report::render::fmt::{delta, metric, pvalue};
use crate::report::svg::forest::{ForestGroup, forest};
use crate::report::svg::history::{HistoryChart, chart};
use crate::report::views::SuiteViews;

use super::case::{CaseView, case_view};
use super::engine::render;
use super::flaky::{FlakyView, flaky_views, history};
use super::matrix::{Matrix, matrix};

#[derive(Serialize)]
struct Page {
    title: String,
    verdict_class: &'static str,
    verdict_word: &'static str,
    headline: String,
    meta: Vec<String>,
    tiers: Vec<TierView>,
    findings: Vec<Finding>,
    /// The worst regressed case, drawn beside the first finding.
    worst: Option<CaseView>,
    forest_moved: Vec<ForestGroup>,
    forest_rest: Vec<ForestGroup>,
    rest_count: usize,
    charts: Vec<ChartView>,
    suites: Vec<SuiteView>,
    views_missing: bool,
    reasons: Vec<String>,
    /// Recurring issues per suite (new, grew, gone), escaped by the template.
    insights: Vec<InsightsView>,
    /// The flakiest cases of each suite (issue 20).
    flaky: Vec<FlakyView>,
    pairing: Vec<String>,
    footer: String,
}

#[derive(Serialize)]
struct TierView {
    suite: String,
    tier: String,
    line: String,
    fail: bool,
}

/// A regression or suspected change, as the page's first answer.
#[derive(Serialize)]
struct Finding {
    status: String,
    severity: String,
    name: String,
    instruction: Option<String>,
    change: String,
    delta: String,
    ci: String,
    q: String,
    sigma: String,
    cases: Vec<CaseLink>,
    more_cases: usize,
    /// Worse cases whose earlier trials disagree, when only they carry the finding.
    carried_by_flaky: Vec<String>,
    root_cause: Option<String>,
    moved: Vec<String>,
    chart: Option<HistoryChart>,
}

#[derive(Serialize)]
struct CaseLink {
    id: String,
    anchor: Option<String>,
    note: String,
    /// Its trials and history (`failed 2 of 3 trials; passed 3 of 3 before`).
    history: Option<String>,
}

#[derive(Serialize)]
struct ChartView {
    name: String,
    status: String,
    note: String,
    chart: HistoryChart,
}

#[derive(Serialize)]
struct SuiteView {
    name: String,
    matrix: Matrix,
    cases: Vec<CaseView>,
    details_omitted: usize,
}

#[derive(Serialize)]
struct InsightsView {
    suite: String,
    rows: Vec<IssueRow>,
}

/// One new, grown or gone recurring issue.
#[derive(Serialize)]
struct IssueRow {
    kind: &'static str,
    name: Option<String>,
    summary: Option<String>,
    example: String,
    label: String,
    node: String,
    cases: String,
    examples: Vec<(String, Option<String>)>,
}

/// Rows shown per kind of change.
const ISSUE_ROWS: usize = 10;

fn insights_view(s: &crate::insights::SuiteInsights) -> InsightsView {
    let mut rows = Vec::new();
    for (kind, list) in [("new", &s.new), ("grew", &s.grew), ("gone", &s.gone)] {
        for c in list.iter().take(ISSUE_ROWS) {
            let g = &c.group;
            rows.push(IssueRow {
                kind,
                name: g.summary.as_ref().map(|n| n.name.clone()),
                summary: g.summary.as_ref().map(|n| n.summary.clone()),
                example: g.example_message.clone(),
                label: g.label.clone(),
                node: g.node.display(),
                cases: format!("{} → {}", c.base_cases, c.head_cases),
                examples: g
                    .examples
                    .iter()
                    .map(|e| (e.case.clone(), e.spans.first().cloned()))
                    .collect(),
            });
        }
    }
    InsightsView {
        suite: s.suite.clone(),
        rows,
    }
}

/// Findings shown in full at the top (the rest are in the forest plot).
const MAX_FINDINGS: usize = 8;

pub fn render_compare_html(r: &CompareReport) -> Result<String, minijinja::Error> {
    render("compare.html", &page(r))
}

fn views_of<'a>(r: &'a CompareReport, suite: &str) -> Option<&'a SuiteViews> {
    r.views.as_ref()?.suites.iter().find(|s| s.suite == suite)
}

/// Anchor of a drawn case: by position, never by the (untrusted) id.
fn anchor(r: &CompareReport, suite: &str, case: &str) -> Option<String> {
    let views = r.views.as_ref()?;
    let (si, s) = views
        .suites
        .iter()
        .enumerate()
        .find(|(_, s)| s.suite == suite)?;
    let ci = s.details.iter().position(|d| d.head.id == case)?;
    Some(format!("case-{si}-{ci}"))
}

fn page(r: &CompareReport) -> Page {
    let multi = r.suites.len() > 1;
    let (verdict_class, verdict_word) = match (r.verdict, r.warn_only) {
        (Verdict::Fail, false) => ("fail", "FAIL"),
        (Verdict::Fail, true) => ("warn", "FAIL (warn-only)"),
        (Verdict::Pass, _) => ("pass", "PASS"),
        (Verdict::CouldNotEvaluate, _) => ("fail", "COULD NOT EVALUATE"),
        (Verdict::Inconclusive, _) => ("warn", "INCONCLUSIVE"),
    };
    let paired: usize = r.suites.iter().map(|s| s.paired_cases).sum();
    let mut meta = vec![
        format!(
            "baseline `{}`{}",
            r.baseline.name,
            r.baseline
                .git_sha
                .as_deref()
                .map(|s| format!(" @ {}", s.chars().take(12).collect::<String>()))
                .unwrap_or_default()
        ),
        format!("fail on {}", r.fail_on),
        plural(paired, "paired case", "paired cases"),
        plural(r.baseline.history_points, "history point", "history points"),
    ];
    if let Some(at) = &r.evaluated_at {
        meta.push(format!("evaluated {at}"));
    }
    let findings: Vec<Finding> = r
        .metrics
        .iter()
        .filter(|m| matches!(m.status, MetricStatus::Regression | MetricStatus::Suspected))
        .take(MAX_FINDINGS)
        .map(|m| finding(r, m, multi))
        .collect();
    let (moved, rest): (Vec<&MetricComparison>, Vec<&MetricComparison>) =
        r.metrics.iter().partition(|m| {
            matches!(
                m.status,
                MetricStatus::Regression | MetricStatus::Suspected | MetricStatus::Improvement
            )
        });
    let charts = r
        .metrics
        .iter()
        .filter(|m| !matches!(m.status, MetricStatus::Regression | MetricStatus::Suspected))
        .filter_map(|m| {
            let c = chart(m, views_of(r, &m.suite).map(|v| &v.history));
            c.drawable.then(|| ChartView {
                name: if multi {
                    m.qualified_name()
                } else {
                    m.name.clone()
                },
                status: m.status.as_str().to_owned(),
                note: m.sigma_note.clone(),
                chart: c,
            })
        })
        .collect();
    let suites: Vec<SuiteView> = r
        .views
        .iter()
        .flat_map(|v| v.suites.iter().enumerate())
        .map(|(si, v)| suite_view(si, v))
        .collect();
    let worst = worst(r, &suites);
    Page {
        title: format!("agenteval-gate compare: {verdict_word}"),
        verdict_class,
        verdict_word,
        headline: headline(r),
        meta,
        tiers: r
            .tiers
            .iter()
            .map(|t| TierView {
                suite: t.suite.clone(),
                tier: t.tier.as_str().to_owned(),
                line: tier_line(t),
                fail: t.verdict == Verdict::Fail,
            })
            .collect(),
        findings,
        worst,
        forest_moved: forest(&moved, multi),
        rest_count: rest.len(),
        forest_rest: forest(&rest, multi),
        charts,
        suites,
        views_missing: r.views.is_none(),
        reasons: r.reasons.clone(),
        insights: r.insights.iter().map(insights_view).collect(),
        flaky: flaky_views(r),
        pairing: pairing(r),
        footer: format!(
            "paired bootstrap (B = {}, seed {}, one-sided) · {} · α = {} · 2σ band over the last {} baseline means · agenteval-gate {}",
            r.settings.resamples,
            r.settings.seed,
            if r.settings.fdr {
                "Benjamini–Hochberg q-values"
            } else {
                "raw p-values (--fdr off)"
            },
            r.settings.alpha,
            r.settings.history_window,
            r.tool_version
        ),
    }
}

fn finding(r: &CompareReport, m: &MetricComparison, multi: bool) -> Finding {
    let loc = m.localization.as_ref();
    let cases: Vec<CaseLink> = loc
        .map(|l| {
            l.flipped_cases
                .iter()
                .map(|f| CaseLink {
                    id: f.case.clone(),
                    anchor: anchor(r, &m.suite, &f.case),
                    note: format!(
                        "{} → {}",
                        metric(&m.name, Some(f.base)),
                        metric(&m.name, Some(f.head))
                    ),
                    history: history(&m.name, f),
                })
                .collect()
        })
        .unwrap_or_default();
    let mut moved: Vec<String> = Vec::new();
    if let Some(l) = loc {
        for x in l.checkpoints_moved.iter().chain(&l.steps_moved).take(3) {
            moved.push(format!("{} {}", x.metric, delta(&x.metric, x.delta)));
        }
    }
    let c = chart(m, views_of(r, &m.suite).map(|v| &v.history));
    Finding {
        status: m.status.as_str().to_owned(),
        severity: m.severity.to_string(),
        name: if multi {
            m.qualified_name()
        } else {
            m.name.clone()
        },
        instruction: loc
            .and_then(|l| l.checkpoint.as_ref())
            .map(|c| c.instruction.clone()),
        change: format!(
            "{} → {}",
            metric(&m.name, m.base_mean),
            metric(&m.name, m.head_mean)
        ),
        delta: m
            .delta
            .map_or_else(|| "—".to_owned(), |d| delta(&m.name, d)),
        ci: m.ci95.map_or_else(
            || "no CI".to_owned(),
            |[lo, hi]| format!("95% CI {} … {}", delta(&m.name, lo), delta(&m.name, hi)),
        ),
        q: format!("q {}", pvalue(m.q_value)),
        sigma: sigma(m),
        more_cases: loc
            .map_or(0, |l| l.flipped_cases.len())
            .saturating_sub(cases.len()),
        cases,
        carried_by_flaky: loc.map(|l| l.carried_by_flaky.clone()).unwrap_or_default(),
        root_cause: loc.and_then(|l| l.root_cause.as_ref()).map(|rc| {
            format!(
                "{} in {} (e.g. {})",
                rc.step,
                plural(rc.cases, "newly failing case", "newly failing cases"),
                rc.example_case
            )
        }),
        moved,
        chart: c.drawable.then_some(c),
    }
}

/// The drawn case the first regression names first (the first drawn case
/// with steps otherwise).
fn worst(r: &CompareReport, suites: &[SuiteView]) -> Option<CaseView> {
    let first = r
        .metrics
        .iter()
        .find(|m| matches!(m.status, MetricStatus::Regression | MetricStatus::Suspected))?;
    let flipped = first.localization.as_ref()?.flipped_cases.as_slice();
    let suite = suites.iter().find(|s| s.name == first.suite)?;
    flipped
        .iter()
        .find_map(|f| {
            suite
                .cases
                .iter()
                .find(|c| c.id == f.case && c.dag.is_some())
        })
        .or_else(|| suite.cases.iter().find(|c| c.dag.is_some()))
        .cloned()
}

fn suite_view(si: usize, v: &SuiteViews) -> SuiteView {
    let anchor_of = |id: &str| {
        v.details
            .iter()
            .position(|d| d.head.id == id)
            .map(|ci| format!("case-{si}-{ci}"))
    };
    SuiteView {
        name: v.suite.clone(),
        matrix: matrix(v, &anchor_of),
        cases: v
            .details
            .iter()
            .enumerate()
            .map(|(ci, d)| {
                case_view(
                    d,
                    format!("case-{si}-{ci}"),
                    si == 0 && ci == 0,
                    &v.checkpoints,
                )
            })
            .collect(),
        details_omitted: v.details_omitted,
    }
}

fn pairing(r: &CompareReport) -> Vec<String> {
    let mut out = Vec::new();
    for s in &r.suites {
        out.push(format!(
            "{}: {} paired",
            s.suite,
            plural(s.paired_cases, "case", "cases")
        ));
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
                out.push(format!("{}: {label}: {}", s.suite, v.join(", ")));
            }
        }
        for (tag, [b, h]) in &s.config_changes {
            out.push(format!(
                "{}: config `{tag}`: {} → {}",
                s.suite,
                b.as_deref().unwrap_or("—"),
                h.as_deref().unwrap_or("—")
            ));
        }
        if s.spec_changed {
            out.push(format!(
                "{}: the suite spec changed since the baseline",
                s.suite
            ));
        }
    }
    out
}
