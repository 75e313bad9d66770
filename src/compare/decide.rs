//! Phase 2 of a compare: Benjamini–Hochberg across every metric, the status
//! of each metric, localization of what regressed, and the verdict.
//!
//! Status rules (DESIGN §8), with Δ oriented so negative is worse:
//! - `insufficient_data`: fewer than `min_cases` pairs;
//! - a leg "fires" only when |Δ| ≥ `min_effect` and Δ < 0: the bootstrap leg
//!   when q < α (p with `--fdr off`), the 2σ leg when the head suite mean is
//!   below the band (above, for lower-is-better metrics);
//! - `regression`: both legs, or the bootstrap alone when the band is unavailable;
//! - `suspected`: exactly one leg;
//! - `improvement`: Δ > 0, |Δ| ≥ `min_effect`, and the 95% CI excludes 0;
//! - `unchanged`: everything else.

use crate::compare::absolute::check_absolute;
use crate::compare::engine::{MetricStats, SuiteInput, suite_stats};
use crate::compare::localize::localize;
use crate::compare::model::{
    BaselineRef, COMPARE_REPORT_SCHEMA_VERSION, CompareReport, CompareSettings, Direction,
    MetricComparison, MetricStatus, SuiteBreach, Verdict,
};
use crate::compare::pairing::Paired;
use crate::spec::model::{FailOn, Severity};
use crate::stats::benjamini_hochberg;

#[derive(Debug, Clone)]
pub struct CompareOptions {
    pub baseline_name: String,
    pub resamples: u32,
    pub seed: u64,
    pub fdr: bool,
    pub fail_on: FailOn,
    pub warn_only: bool,
}

/// Compare every suite and decide. `tiers` is filled in by the caller.
pub fn compare(inputs: &[SuiteInput<'_>], options: &CompareOptions) -> CompareReport {
    let mut pairings: Vec<Paired> = Vec::with_capacity(inputs.len());
    let mut all: Vec<MetricStats> = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let (paired, stats) = suite_stats(i, input, options.resamples, options.seed);
        pairings.push(paired);
        all.extend(stats);
    }

    // BH over every tested metric of the compare.
    let tested: Vec<usize> = (0..all.len())
        .filter(|&i| all[i].bootstrap.is_some())
        .collect();
    let ps: Vec<f64> = tested
        .iter()
        .filter_map(|&i| all[i].bootstrap.map(|b| b.p_value))
        .collect();
    let qs = if options.fdr {
        benjamini_hochberg(&ps).unwrap_or_else(|_| ps.clone())
    } else {
        ps.clone()
    };
    let mut q_of = vec![None; all.len()];
    for (k, &i) in tested.iter().enumerate() {
        q_of[i] = qs.get(k).copied();
    }

    let mut metrics: Vec<MetricComparison> = all
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let status = status(s, q_of[i]);
            let b = s.bootstrap;
            let orient = |v: f64| {
                if s.direction == Direction::Higher {
                    v
                } else {
                    -v
                }
            };
            let ci95 = b.map(|b| {
                let (lo, hi) = (orient(b.ci_low), orient(b.ci_high));
                [lo.min(hi), lo.max(hi)]
            });
            let input = &inputs[s.suite_index];
            let localization = matches!(status, MetricStatus::Regression | MetricStatus::Suspected)
                .then(|| {
                    let siblings: Vec<&MetricStats> = all
                        .iter()
                        .filter(|o| o.suite_index == s.suite_index)
                        .collect();
                    localize(
                        s,
                        &siblings,
                        &pairings[s.suite_index],
                        input.head,
                        input.base,
                    )
                });
            MetricComparison {
                suite: input.suite.to_owned(),
                name: s.name.clone(),
                direction: s.direction,
                severity: s.severity,
                n: s.n,
                base_mean: s.base_mean,
                head_mean: s.head_mean,
                delta: s.oriented_delta.map(orient),
                ci95,
                p_value: b.map(|b| b.p_value),
                q_value: q_of[i],
                sigma_band: s.sigma.clone(),
                sigma_note: s.sigma_note.clone(),
                min_effect: s.min_effect,
                mde: s.mde,
                status,
                localization,
            }
        })
        .collect();
    metrics.sort_by(|a, b| {
        rank(a)
            .cmp(&rank(b))
            .then_with(|| a.suite.cmp(&b.suite))
            .then_with(|| a.name.cmp(&b.name))
    });

    let mut reasons = Vec::new();
    let mut fail = false;
    let regressions: Vec<String> = metrics
        .iter()
        .filter(|m| m.status == MetricStatus::Regression)
        .map(MetricComparison::qualified_name)
        .collect();
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
    }
    if !fail {
        reasons.push(format!(
            "no confirmed regression or absolute breach at or above `{}`",
            options.fail_on
        ));
    }
    let first = inputs.first();
    let views = crate::report::views::compare_views(&metrics, inputs);
    CompareReport {
        schema_version: COMPARE_REPORT_SCHEMA_VERSION,
        tool_version: crate::VERSION.to_owned(),
        verdict: if fail { Verdict::Fail } else { Verdict::Pass },
        fail_on: options.fail_on,
        warn_only: options.warn_only,
        baseline: BaselineRef {
            name: options.baseline_name.clone(),
            git_sha: first.and_then(|i| i.meta.git_sha.clone()),
            updated_at: first.and_then(|i| i.meta.updated_at.clone()),
            history_points: inputs.iter().map(|i| i.history.len()).min().unwrap_or(0),
        },
        tiers: Vec::new(),
        metrics,
        regressions,
        absolute_breaches,
        judge_error_rate: None,
        suites: pairings.into_iter().map(|p| p.pairing).collect(),
        settings: CompareSettings {
            resamples: options.resamples,
            seed: options.seed,
            alpha: first.map_or(crate::compare::engine::DEFAULT_ALPHA, SuiteInput::alpha),
            fdr: options.fdr,
            min_cases: first.map_or(
                crate::compare::engine::DEFAULT_MIN_CASES,
                SuiteInput::min_cases,
            ),
            history_window: first.map_or(
                crate::compare::engine::DEFAULT_HISTORY_WINDOW,
                SuiteInput::history_window,
            ),
            k_sigma: crate::compare::engine::K_SIGMA,
        },
        reasons,
        worst_case: None,
        evaluated_at: None,
        views: Some(views),
    }
}

/// Sort order: regressions first (by severity), then suspected, improvements, the rest.
fn rank(m: &MetricComparison) -> (u8, std::cmp::Reverse<Severity>) {
    let r = match m.status {
        MetricStatus::Regression => 0,
        MetricStatus::Suspected => 1,
        MetricStatus::Improvement => 2,
        MetricStatus::Unchanged => 3,
        MetricStatus::InsufficientData => 4,
    };
    (r, std::cmp::Reverse(m.severity))
}

fn status(s: &MetricStats, q: Option<f64>) -> MetricStatus {
    if s.n < s.min_cases {
        return MetricStatus::InsufficientData;
    }
    let Some(d) = s.oriented_delta else {
        return MetricStatus::InsufficientData;
    };
    let large_enough = s.min_effect.is_none_or(|e| d.abs() >= e);
    let boot = large_enough && d < 0.0 && q.is_some_and(|q| q < s.alpha);
    let sigma = s
        .sigma
        .as_ref()
        .map(|band| large_enough && d < 0.0 && band.fired);
    match (boot, sigma) {
        (true, Some(true) | None) => MetricStatus::Regression,
        (true, Some(false)) | (false, Some(true)) => MetricStatus::Suspected,
        (false, _) => {
            let ci_excludes_zero = s.bootstrap.is_some_and(|b| b.ci_low > 0.0);
            if large_enough && d > 0.0 && ci_excludes_zero {
                MetricStatus::Improvement
            } else {
                MetricStatus::Unchanged
            }
        }
    }
}
