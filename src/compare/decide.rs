//! Phase 2 of a compare, and every decision of the gate (DESIGN §8): which metrics form the
//! multiple-comparison family, their q-values and statuses, the α of each progressive tier,
//! whether the smoke tier stops the run, which checkpoints the gate cannot vouch for, and
//! the verdict.
//!
//! # Two families
//!
//! Benjamini–Hochberg runs over the testable metrics that can fail the gate (severity at or
//! above `fail_on`), and separately over the other testable metrics. Only the first family
//! decides the verdict, so its error rate is the gate's; mixing in metrics that can never
//! fail the gate (a `low` cost metric under `--fail-on critical`) would only dilute the power
//! to see a critical regression. The second family's q-values make "tolerated" regressions
//! as trustworthy as the gating ones.
//!
//! Status rules, with Δ oriented so negative is worse:
//! - `insufficient_data`: fewer than `min_cases` pairs;
//! - outside the family (`test: no_variation`, no q): every paired difference is zero, or
//!   the smallest p-value the test could give with these cases is above the tier's α
//!   (Tarone's rule for discrete tests): `unchanged`;
//! - a leg "fires" only when |Δ| ≥ `min_effect` and Δ < 0: the test leg when q ≤ α
//!   (Benjamini–Hochberg's step-up rule `p₍ᵢ₎ ≤ i·α/m`; raw p with `--fdr off`), the 2σ leg
//!   when the head suite mean is outside the band;
//! - `regression`: both legs, or the test alone when the band is unavailable;
//! - `suspected`: exactly one leg;
//! - `improvement`: Δ > 0, |Δ| ≥ `min_effect`, and the 95% CI excludes 0;
//! - `unchanged`: everything else.
//!
//! # Progressive tiers spend α instead of doubling it
//!
//! The smoke tier may stop the run, and a stop fails the gate, so on null data
//! `P(smoke stops) + P(full tier fails)` must stay at or below α. The smoke tier tests at
//! `α_s = SMOKE_ALPHA_SHARE · α`; the full tier then tests at `α − α_s` if the smoke tier
//! could have stopped (some metric at or above `fail_on` had a smallest achievable p at or
//! below `α_s`), and at the whole α if it could not. Both tests are sign-flip tests, valid
//! conditionally on the magnitudes of the differences, and whether the smoke tier could stop
//! depends only on those magnitudes, so the bound holds in both branches. A smoke tier can
//! only stop when at least `⌈log₂(1/α_s)⌉` of its cases changed (7 at α = 0.05).

use crate::compare::absolute::check_absolute;
use crate::compare::coverage::{checkpoint_coverage, infrastructure_failure, unreadable_cases};
use crate::compare::engine::{SuiteInput, suite_metrics};
use crate::compare::error::CompareError;
use crate::compare::inconclusive::undecided;
use crate::compare::localize::localize;
use crate::compare::pairing::Paired;
use crate::model::compare::{
    BaselineRef, COMPARE_REPORT_SCHEMA_VERSION, CompareReport, CompareSettings, Family,
    Inconclusive, MetricComparison, MetricStatus, SuiteBreach, TestName, UnreadableCase, Verdict,
};
use crate::model::run::CaseStatus;
use crate::output::plural;
use crate::spec::gates::{DEFAULT_ALPHA, DEFAULT_HISTORY_WINDOW, DEFAULT_MIN_CASES};
use crate::spec::model::{FailOn, Severity, UnevaluatedPolicy};
use crate::stats::{DEFAULT_K_SIGMA, benjamini_hochberg};

/// Share of α the smoke tier of a progressive compare may spend.
pub(crate) const SMOKE_ALPHA_SHARE: f64 = 0.2;

/// Which α a compare tests at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlphaPlan {
    /// A single tier (`--tier smoke` or `--tier full`): all of α.
    Whole,
    /// The smoke tier of a progressive compare: `SMOKE_ALPHA_SHARE · α`.
    Smoke,
    /// The full tier after the smoke tier; `smoke_spent` when the smoke tier could have stopped.
    FullAfterSmoke { smoke_spent: bool },
}

impl AlphaPlan {
    fn factor(self) -> f64 {
        match self {
            Self::Whole | Self::FullAfterSmoke { smoke_spent: false } => 1.0,
            Self::Smoke => SMOKE_ALPHA_SHARE,
            Self::FullAfterSmoke { smoke_spent: true } => 1.0 - SMOKE_ALPHA_SHARE,
        }
    }

    fn note(self) -> &'static str {
        match self {
            Self::Whole => "one tier tests at the whole α",
            Self::Smoke => "the smoke tier's share of α under progressive α-spending",
            Self::FullAfterSmoke { smoke_spent: true } => {
                "α minus the smoke tier's share, since the smoke tier could have stopped the run"
            }
            Self::FullAfterSmoke { smoke_spent: false } => {
                "the whole α, since the smoke tier had too few changed cases to stop the run"
            }
        }
    }
}

#[derive(Debug, Clone)]
pub struct CompareOptions {
    pub baseline_name: String,
    pub resamples: u32,
    pub seed: u64,
    pub fdr: bool,
    pub fail_on: FailOn,
    pub warn_only: bool,
    pub alpha_plan: AlphaPlan,
}

/// Compare every suite and decide. `tiers` is filled in by the caller.
pub fn compare(
    inputs: &[SuiteInput<'_>],
    options: &CompareOptions,
) -> Result<CompareReport, CompareError> {
    // No decision reads a p-value above the largest α of the compared suites (a q-value at
    // or below α needs a p-value at or below it), so Monte Carlo p-values may stop there.
    let stop_above = inputs.iter().map(SuiteInput::alpha).fold(0.0, f64::max);
    let mut pairings: Vec<Paired> = Vec::with_capacity(inputs.len());
    let mut metrics: Vec<MetricComparison> = Vec::new();
    let mut suite_of: Vec<usize> = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let (paired, m) = suite_metrics(input, options.resamples, options.seed, stop_above)?;
        suite_of.extend(std::iter::repeat_n(i, m.len()));
        pairings.push(paired);
        metrics.extend(m);
    }
    for (i, m) in metrics.iter_mut().enumerate() {
        let min_cases = inputs[suite_of[i]].min_cases();
        crate::compare::judge_coverage::annotate(m, &pairings[suite_of[i]], min_cases);
    }
    let factor = options.alpha_plan.factor();
    let alpha_of = |i: usize| inputs[suite_of[i]].alpha() * factor;

    // The families: tested metrics that could reach significance at all (Tarone), split
    // into those that can fail the gate (severity at or above `fail_on`) and the rest.
    let gating = |i: usize, m: &MetricComparison| inputs[suite_of[i]].fail_on.fails(m.severity);
    let mut family: Vec<usize> = Vec::new();
    let mut informational: Vec<usize> = Vec::new();
    let mut family_info = Family {
        alpha: inputs.first().map_or(DEFAULT_ALPHA, SuiteInput::alpha) * factor,
        alpha_note: options.alpha_plan.note().to_owned(),
        ..Family::default()
    };
    for (i, m) in metrics.iter_mut().enumerate() {
        let (Some(test), Some(min_p), Some(k)) = (m.test, m.min_p, m.nonzero) else {
            family_info.insufficient += 1;
            continue;
        };
        let alpha = alpha_of(i);
        if test == TestName::NoVariation || min_p > alpha {
            m.test = Some(TestName::NoVariation);
            m.test_note = if k == 0 {
                format!("all {} paired values are equal", m.n)
            } else {
                format!(
                    "only {} changed: the smallest p-value that can give is {min_p:.3}, above α = {alpha:.3}",
                    plural(k, "case", "cases")
                )
            };
            family_info.untestable += 1;
        } else if gating(i, m) {
            family.push(i);
        } else {
            informational.push(i);
        }
    }
    family_info.size = family.len();
    family_info.informational = informational.len();
    for members in [&family, &informational] {
        check_resamples(&metrics, members, options.resamples, alpha_of)?;
        let ps: Vec<f64> = members.iter().filter_map(|&i| metrics[i].p_value).collect();
        let qs = if options.fdr {
            benjamini_hochberg(&ps).map_err(|source| CompareError::Stats {
                metric: "the family's p-values".into(),
                source,
            })?
        } else {
            ps
        };
        for (&i, q) in members.iter().zip(qs) {
            metrics[i].q_value = Some(q);
        }
    }
    for (i, m) in metrics.iter_mut().enumerate() {
        m.status = status(m, inputs[suite_of[i]].min_cases(), alpha_of(i));
    }
    let inconclusive: Vec<Inconclusive> = metrics
        .iter()
        .enumerate()
        .filter(|&(i, m)| gating(i, m))
        .filter_map(|(i, m)| {
            let input = &inputs[suite_of[i]];
            let u = undecided(m, &pairings[suite_of[i]], input.min_cases(), alpha_of(i))?;
            Some(Inconclusive {
                suite: m.suite.clone(),
                metric: m.name.clone(),
                severity: m.severity,
                n: m.n,
                cases: u.cases,
                needed_changed: u.needed_changed,
                cases_needed: u.cases_needed,
                min_cases: input.min_cases(),
                undecidable: u.undecidable,
                majority_worse: u.majority_worse,
                policy: input.inconclusive(),
                fails: input.inconclusive().fails(u.undecidable, u.majority_worse),
            })
        })
        .collect();
    let localizations: Vec<_> = (0..metrics.len())
        .map(|i| {
            let m = &metrics[i];
            matches!(m.status, MetricStatus::Regression | MetricStatus::Suspected).then(|| {
                let s = suite_of[i];
                let siblings: Vec<&MetricComparison> = (0..metrics.len())
                    .filter(|&j| suite_of[j] == s)
                    .map(|j| &metrics[j])
                    .collect();
                localize(m, &siblings, &pairings[s], inputs[s].head, inputs[s].base)
            })
        })
        .collect();
    for (m, l) in metrics.iter_mut().zip(localizations) {
        m.localization = l;
    }
    let flakiness = crate::compare::flaky::annotate(inputs, &pairings, &suite_of, &mut metrics);
    metrics.sort_by(|a, b| {
        rank(a)
            .cmp(&rank(b))
            .then_with(|| a.suite.cmp(&b.suite))
            .then_with(|| a.name.cmp(&b.name))
    });

    let alpha_of_suite = |suite: &str| {
        inputs
            .iter()
            .find(|i| i.suite == suite)
            .map_or(DEFAULT_ALPHA, SuiteInput::alpha)
            * factor
    };
    let mut reasons = Vec::new();
    let mut fail = false;
    let fail_on_of = |suite: &str| {
        inputs
            .iter()
            .find(|i| i.suite == suite)
            .map_or(options.fail_on, |i| i.fail_on)
    };
    for m in metrics
        .iter()
        .filter(|m| m.status == MetricStatus::Regression)
    {
        let fail_on = fail_on_of(&m.suite);
        let fails = fail_on.fails(m.severity);
        fail |= fails;
        reasons.push(format!(
            "{} regression in `{}` ({} severity){}",
            if fails { "confirmed" } else { "tolerated" },
            m.qualified_name(),
            m.severity,
            if fails {
                String::new()
            } else {
                format!(", below --fail-on {fail_on}")
            }
        ));
    }
    let mut absolute_breaches = Vec::new();
    let mut coverage = Vec::new();
    let mut infrastructure = Vec::new();
    let mut unreadable: Vec<UnreadableCase> = Vec::new();
    for input in inputs {
        for breach in check_absolute(input.gates, &input.head.aggregate.metrics) {
            let fails = input.fail_on.fails(breach.severity);
            fail |= fails;
            reasons.push(format!(
                "absolute gate on `{}/{}`: {}",
                input.suite, breach.metric, breach.message
            ));
            absolute_breaches.push(SuiteBreach {
                suite: input.suite.to_owned(),
                breach,
                fails,
            });
        }
        let suite_coverage = checkpoint_coverage(
            input.suite,
            input.head,
            input.base,
            input.fail_on,
            &input.gates.may_be_vacuous,
        );
        for c in suite_coverage.iter().filter(|c| c.unevaluated) {
            let fails = input.unevaluated() == UnevaluatedPolicy::Fail;
            fail |= fails;
            let what = c.change.as_ref().map_or_else(
                || c.unevaluated_sentence(&c.reason),
                |change| {
                    format!(
                        "{} (`gates.may_be_vacuous: [{}]` accepts this)",
                        change.sentence(),
                        c.id
                    )
                },
            );
            reasons.push(format!(
                "{}checkpoint `{}/{}` ({} severity) {what}{}",
                if fails { "" } else { "warning: " },
                input.suite,
                c.id,
                c.severity,
                if fails {
                    "; the gate cannot vouch for it (`gates.unevaluated: warn` relaxes this)"
                } else {
                    ""
                }
            ));
        }
        for c in suite_coverage.iter().filter(|c| !c.unevaluated) {
            if let Some(change) = &c.change {
                reasons.push(format!(
                    "checkpoint `{}/{}` ({} severity) {}{}",
                    input.suite,
                    c.id,
                    c.severity,
                    change.sentence(),
                    if change.allowed {
                        " (listed in `gates.may_be_vacuous`: not blocking)"
                    } else {
                        ""
                    }
                ));
            }
        }
        coverage.extend(suite_coverage);
        if let Some(cause) = infrastructure_failure(input.head) {
            infrastructure.push(format!("suite `{}`: {cause}", input.suite));
        } else {
            // A case the gate could not read was evaluated on nothing: it cannot vouch for it.
            let fails = input.unevaluated() == UnevaluatedPolicy::Fail;
            let cases = unreadable_cases(input.head);
            if !cases.is_empty() {
                fail |= fails;
                reasons.push(unreadable_reason(input.suite, &cases, fails));
            }
            unreadable.extend(cases.into_iter().map(|(case, trial, status, message)| {
                UnreadableCase {
                    suite: input.suite.to_owned(),
                    case,
                    trial,
                    status,
                    message,
                    fails,
                }
            }));
        }
    }
    let policy_of = |suite: &str| {
        inputs
            .iter()
            .find(|i| i.suite == suite)
            .map_or((options.fail_on, UnevaluatedPolicy::Fail), |i| {
                (i.fail_on, i.unevaluated())
            })
    };
    for (reason, fails) in crate::compare::judge_gate::not_comparable_gate(&metrics, policy_of) {
        fail |= fails;
        reasons.push(reason);
    }
    let (judge_error_rate, judge_breaches) = crate::compare::judge_gate::judge_error_gate(inputs);
    for (reason, fails) in judge_breaches {
        fail |= fails;
        reasons.push(reason);
    }
    for u in &inconclusive {
        reasons.push(inconclusive_reason(u, alpha_of_suite(&u.suite)));
    }
    let verdict = if !infrastructure.is_empty() {
        reasons.insert(
            0,
            "could not evaluate: most cases failed for one infrastructure cause, so the run says nothing about the agent (check the agent's command, environment and secrets)".into(),
        );
        reasons.extend(infrastructure);
        Verdict::CouldNotEvaluate
    } else if fail {
        Verdict::Fail
    } else if !inconclusive.is_empty() {
        Verdict::Inconclusive
    } else {
        reasons.push(format!(
            "no confirmed regression or absolute breach at or above `{}`",
            options.fail_on
        ));
        Verdict::Pass
    };
    let regressions: Vec<String> = metrics
        .iter()
        .filter(|m| m.status == MetricStatus::Regression)
        .map(MetricComparison::qualified_name)
        .collect();
    let first = inputs.first();
    Ok(CompareReport {
        schema_version: COMPARE_REPORT_SCHEMA_VERSION,
        tool_version: crate::VERSION.to_owned(),
        verdict,
        fail_on: options.fail_on,
        warn_only: options.warn_only,
        baseline: BaselineRef {
            name: options.baseline_name.clone(),
            git_sha: first.and_then(|i| i.meta.git_sha.clone()),
            updated_at: first.and_then(|i| i.meta.updated_at.clone()),
            history_points: inputs.iter().map(|i| i.history.len()).min().unwrap_or(0),
            source: None, // set by the command from the baseline loader
        },
        tiers: Vec::new(),
        metrics,
        family: family_info,
        coverage,
        regressions,
        absolute_breaches,
        judge_error_rate,
        suites: pairings.into_iter().map(|p| p.pairing).collect(),
        settings: CompareSettings {
            resamples: options.resamples,
            seed: options.seed,
            alpha: first.map_or(DEFAULT_ALPHA, SuiteInput::alpha),
            fdr: options.fdr,
            min_cases: first.map_or(DEFAULT_MIN_CASES, SuiteInput::min_cases),
            history_window: first.map_or(DEFAULT_HISTORY_WINDOW, SuiteInput::history_window),
            k_sigma: DEFAULT_K_SIGMA,
            unevaluated: first.map_or(UnevaluatedPolicy::Fail, SuiteInput::unevaluated),
        },
        reasons,
        missing_baselines: Vec::new(),
        inconclusive,
        unreadable,
        rules: None,
        insights: inputs
            .iter()
            .map(|i| crate::insights::suite_insights(i.suite, i.head, i.base))
            .collect(),
        flakiness,
        worst_case: None,
        evaluated_at: None,
        views: None,
    })
}

/// The report when no selected suite has a baseline yet (a repository's first pull request):
/// nothing to compare, so the gate passes and says how the baseline gets created.
pub(crate) fn no_baseline_report(
    baseline: &str,
    fail_on: FailOn,
    suites: &[String],
) -> CompareReport {
    CompareReport {
        schema_version: COMPARE_REPORT_SCHEMA_VERSION,
        tool_version: crate::VERSION.to_owned(),
        verdict: Verdict::Pass,
        fail_on,
        warn_only: false,
        baseline: BaselineRef {
            name: baseline.to_owned(),
            git_sha: None,
            updated_at: None,
            history_points: 0,
            source: None,
        },
        tiers: Vec::new(),
        metrics: Vec::new(),
        family: Family::default(),
        coverage: Vec::new(),
        regressions: Vec::new(),
        absolute_breaches: Vec::new(),
        judge_error_rate: None,
        suites: Vec::new(),
        settings: CompareSettings {
            resamples: 0,
            seed: 0,
            alpha: DEFAULT_ALPHA,
            fdr: true,
            min_cases: DEFAULT_MIN_CASES,
            history_window: DEFAULT_HISTORY_WINDOW,
            k_sigma: DEFAULT_K_SIGMA,
            unevaluated: UnevaluatedPolicy::Fail,
        },
        reasons: vec![format!(
            "no baseline `{baseline}` yet: nothing to compare, so the gate passes; the baseline is created when this change merges (`agenteval-gate baseline update --name {baseline}` on the default branch, see docs/github.md)"
        )],
        missing_baselines: suites.to_vec(),
        inconclusive: Vec::new(),
        unreadable: Vec::new(),
        rules: None,
        insights: Vec::new(),
        flakiness: Vec::new(),
        worst_case: None,
        evaluated_at: None,
        views: None,
    }
}

/// Monte Carlo p-values are at least `1/(B+1)`; Benjamini–Hochberg needs the smallest p of
/// the family below `α/m` to reject anything. A `B` that cannot get there would switch the
/// test off without a word, so it is an error naming the `B` needed.
fn check_resamples(
    metrics: &[MetricComparison],
    family: &[usize],
    resamples: u32,
    alpha_of: impl Fn(usize) -> f64,
) -> Result<(), CompareError> {
    let m = family.len();
    let Some(alpha) = family
        .iter()
        .filter(|&&i| metrics[i].test.is_some_and(TestName::is_monte_carlo))
        .map(|&i| alpha_of(i))
        .min_by(f64::total_cmp)
    else {
        return Ok(());
    };
    let floor = 1.0 / (f64::from(resamples) + 1.0);
    if floor < alpha / m as f64 {
        return Ok(());
    }
    Err(CompareError::TooFewResamples {
        resamples,
        needed: (m as f64 / alpha).ceil() as u64,
        family: m,
        alpha,
    })
}

/// Whether the smoke tier found a regression that fails the gate: the progressive run stops.
pub(crate) fn smoke_stops(report: &CompareReport, fail_on_of: impl Fn(&str) -> FailOn) -> bool {
    report
        .metrics
        .iter()
        .any(|m| m.status == MetricStatus::Regression && fail_on_of(&m.suite).fails(m.severity))
}

/// Whether the smoke tier could have stopped the run: it then spent its share of α.
pub(crate) fn smoke_spent_alpha(smoke: &CompareReport) -> bool {
    smoke.family.size > 0
}

/// Whether `suite` failed in this report: a regression at or above its `fail_on`, a failing
/// absolute breach, or an unevaluated checkpoint under `gates.unevaluated: fail`.
pub(crate) fn suite_fails(report: &CompareReport, suite: &str, fail_on: FailOn) -> bool {
    report.metrics.iter().any(|m| {
        m.suite == suite && m.status == MetricStatus::Regression && fail_on.fails(m.severity)
    }) || report
        .absolute_breaches
        .iter()
        .any(|b| b.suite == suite && b.fails)
        || report
            .unreadable
            .iter()
            .any(|u| u.suite == suite && u.fails)
        || (report.settings.unevaluated == UnevaluatedPolicy::Fail
            && (report
                .coverage
                .iter()
                .any(|c| c.suite == suite && c.unevaluated)
                || report.metrics.iter().any(|m| {
                    m.suite == suite
                        && m.status == MetricStatus::NotComparable
                        && fail_on.fails(m.severity)
                })))
}

/// Sort order: regressions first (by severity), then suspected, improvements, the rest.
fn rank(m: &MetricComparison) -> (u8, std::cmp::Reverse<Severity>) {
    let r = match m.status {
        MetricStatus::Regression => 0,
        MetricStatus::Suspected => 1,
        MetricStatus::Improvement => 2,
        MetricStatus::Unchanged => 3,
        MetricStatus::NotComparable => 4,
        MetricStatus::InsufficientData => 5,
    };
    (r, std::cmp::Reverse(m.severity))
}

/// `q ≤ α`, allowing for the rounding of `p · m / i` (exact p-values are multiples of 2⁻ᵏ,
/// so a q-value can land on α exactly).
fn significant(q: f64, alpha: f64) -> bool {
    q <= alpha * (1.0 + 1e-12)
}

fn status(m: &MetricComparison, min_cases: usize, alpha: f64) -> MetricStatus {
    if m.status == MetricStatus::NotComparable {
        return MetricStatus::NotComparable;
    }
    if m.n < min_cases {
        return MetricStatus::InsufficientData;
    }
    let Some(d) = m.oriented_delta() else {
        return MetricStatus::InsufficientData;
    };
    let large_enough = m.min_effect.is_none_or(|e| d.abs() >= e);
    let test = large_enough && d < 0.0 && m.q_value.is_some_and(|q| significant(q, alpha));
    let sigma = m
        .sigma_band
        .as_ref()
        .map(|band| large_enough && d < 0.0 && band.fired);
    match (test, sigma) {
        (true, Some(true) | None) => MetricStatus::Regression,
        (true, Some(false)) | (false, Some(true)) => MetricStatus::Suspected,
        (false, _) => {
            let ci_excludes_zero = m.q_value.is_some()
                && m.ci95.is_some_and(|[lo, hi]| match m.direction {
                    crate::model::compare::Direction::Higher => lo > 0.0,
                    crate::model::compare::Direction::Lower => hi < 0.0,
                });
            if large_enough && d > 0.0 && ci_excludes_zero {
                MetricStatus::Improvement
            } else {
                MetricStatus::Unchanged
            }
        }
    }
}

/// Record where the rules came from; a suite that the rules' revision gates and the
/// working tree removed (or renamed) fails the gate closed: after the merge nothing
/// would check it. `fail_on: never` still never fails.
pub(crate) fn apply_rules(report: &mut CompareReport, rules: crate::model::rules::RulesInfo) {
    if !rules.removed_suites.is_empty() {
        let rev = rules.rev.as_deref().unwrap_or("the rules' revision");
        for suite in &rules.removed_suites {
            report.reasons.push(format!(
                "suite `{suite}` is gated at {rev} and missing from this change (removed, or renamed in `suite:`): nothing would check it after the merge; a maintainer can accept the change with `--rules-ref worktree`"
            ));
        }
        if report.fail_on != FailOn::Never && report.verdict == Verdict::Pass {
            report.verdict = Verdict::Fail;
        }
    }
    report.rules = Some(rules);
}

/// Why unreadable head cases fail (or only warn), naming the first few.
fn unreadable_reason(
    suite: &str,
    cases: &[(String, u32, CaseStatus, String)],
    fails: bool,
) -> String {
    let shown: Vec<String> = cases
        .iter()
        .take(5)
        .map(|(case, trial, status, message)| {
            let trial = if *trial > 0 {
                format!(" trial {trial}")
            } else {
                String::new()
            };
            format!("`{case}`{trial} ({status}: {message})")
        })
        .collect();
    let more = cases.len().saturating_sub(5);
    format!(
        "{}suite `{suite}`: {} could not be read ({}{}): {} as failed in every metric, but nothing was evaluated on {}{}",
        if fails { "" } else { "warning: " },
        plural(cases.len(), "head case", "head cases"),
        shown.join("; "),
        if more > 0 {
            format!("; and {more} more")
        } else {
            String::new()
        },
        if cases.len() == 1 {
            "it counts"
        } else {
            "they count"
        },
        if cases.len() == 1 { "it" } else { "them" },
        if fails {
            ", so the gate cannot vouch for the run (fix the trace; `gates.unevaluated: warn` relaxes this)"
        } else {
            ""
        }
    )
}

/// Why a metric is inconclusive and what would decide it, for the reasons list.
fn inconclusive_reason(u: &Inconclusive, alpha: f64) -> String {
    let shown: Vec<String> = u.cases.iter().take(5).map(|c| format!("`{c}`")).collect();
    let more = u.cases.len().saturating_sub(5);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let why = if u.n < u.min_cases {
        format!(
            "{} paired cases are fewer than `gates.min_cases` ({})",
            u.n, u.min_cases
        )
    } else {
        format!(
            "{} of {} paired cannot reach α = {alpha:.3}: the test needs at least {} changed cases in one direction",
            plural(u.cases.len(), "changed case", "changed cases"),
            u.n,
            u.needed_changed
        )
    };
    format!(
        "{}inconclusive: `{}/{}` ({} severity) got worse in every case that changed ({}{more}), but {why}; about {} paired cases, or more trials per case (`agent.trials`), would decide it{}",
        if u.fails { "" } else { "warning: " },
        u.suite,
        u.metric,
        u.severity,
        shown.join(", "),
        u.cases_needed,
        if u.fails {
            String::new()
        } else {
            format!(" ({})", u.not_blocking())
        }
    )
}
