//! The gate's decisions about the judge (DESIGN §8, issue 21): the judge-error rate of each
//! head run against `gates.max_judge_error_rate`, replay misses, a baseline judged by
//! another judge, and judge-fed metrics left `not_comparable` by judge coverage
//! ([`super::judge_coverage`]). Each returns `(reason, fails)` pairs for the verdict.

use std::collections::BTreeMap;

use crate::compare::engine::SuiteInput;
use crate::model::compare::{MetricComparison, MetricStatus};
use crate::spec::gates::DEFAULT_MAX_JUDGE_ERROR_RATE;
use crate::spec::model::{FailOn, UnevaluatedPolicy};

/// The judge-error gate: per suite, the share of judge questions that got no usable answer
/// (`judge.error_rate` of the head run: judge errors and replay misses over the questions
/// that were not stopped by the budget) may not exceed `gates.max_judge_error_rate`
/// (default 0.1): those items are N/A, so too many of them leave the gate unable to vouch
/// for the run. Returns the pooled rate over every suite (`None` when no question was
/// asked) and, per suite, the reasons: over the limit fails the gate (not under
/// `--fail-on never`); replay misses within it and a head judged by another judge than
/// its baseline are said and never fail.
pub(crate) fn judge_error_gate(inputs: &[SuiteInput<'_>]) -> (Option<f64>, Vec<(String, bool)>) {
    let mut breaches = Vec::new();
    let (mut failed, mut asked) = (0u64, 0u64);
    for input in inputs {
        if let Some(note) = crate::judged::summary::mismatch(&input.base.judge, &input.head.judge) {
            breaches.push((format!("`{}`: {note}", input.suite), false));
        }
        let j = &input.head.judge;
        for note in &j.notes {
            breaches.push((format!("judge in `{}`: {note}", input.suite), false));
        }
        failed += j.errors + j.not_in_cache;
        asked += j.questions.saturating_sub(j.budget_exhausted);
        let Some(rate) = crate::judged::summary::error_rate(j) else {
            continue;
        };
        let max = input
            .gates
            .max_judge_error_rate
            .unwrap_or(DEFAULT_MAX_JUDGE_ERROR_RATE);
        let misses = if j.not_in_cache > 0 {
            format!(" ({} not in the judge cache)", j.not_in_cache)
        } else {
            String::new()
        };
        let first = match (&j.first_error, j.errors) {
            (Some(e), 1..) => format!("; first error: {e}"),
            _ => String::new(),
        };
        if rate > max {
            let fails = input.fail_on != FailOn::Never;
            breaches.push((
                format!(
                    "judge errors in `{}`: {} of {} questions ({:.1}%) got no usable answer{misses}, above `gates.max_judge_error_rate` {:.1}%{first}",
                    input.suite,
                    j.errors + j.not_in_cache,
                    j.questions.saturating_sub(j.budget_exhausted),
                    100.0 * rate,
                    100.0 * max
                ),
                fails,
            ));
        } else if j.not_in_cache > 0 {
            breaches.push((
                format!(
                    "judge replay in `{}`: {} of {} questions were not in the judge cache ({:.1}%, within `gates.max_judge_error_rate` {:.1}%): their items are N/A and the cases are compared only where both sides were judged",
                    input.suite,
                    j.not_in_cache,
                    j.questions,
                    100.0 * rate,
                    100.0 * max
                ),
                false,
            ));
        }
    }
    let rate = (asked > 0).then(|| failed as f64 / asked as f64);
    (rate, breaches)
}

/// The gate on `not_comparable` metrics: one that can fail the gate (severity at or above
/// `fail_on`) fails it, as an unevaluated checkpoint does, unless `gates.unevaluated: warn`;
/// the others are listed in one line per suite that never fails.
pub(crate) fn not_comparable_gate(
    metrics: &[MetricComparison],
    policy_of: impl Fn(&str) -> (FailOn, UnevaluatedPolicy),
) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut quiet: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for m in metrics
        .iter()
        .filter(|m| m.status == MetricStatus::NotComparable)
    {
        let (fail_on, policy) = policy_of(&m.suite);
        if !fail_on.fails(m.severity) {
            quiet.entry(&m.suite).or_default().push(&m.name);
            continue;
        }
        let fails = policy == UnevaluatedPolicy::Fail;
        out.push((
            format!(
                "{}`{}` ({} severity) is not comparable: {}{}",
                if fails { "" } else { "warning: " },
                m.qualified_name(),
                m.severity,
                m.judge_note,
                if fails {
                    "; the gate cannot vouch for it (`gates.unevaluated: warn` relaxes this)"
                } else {
                    ""
                }
            ),
            fails,
        ));
    }
    for (suite, names) in quiet {
        out.push((
            format!(
                "not comparable in `{suite}` (judge coverage differs between baseline and head), below --fail-on: {}",
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            false,
        ));
    }
    out
}
