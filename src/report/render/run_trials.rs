//! What several trials per case say, for the run report's table and
//! Markdown (issue 20): pass^k against pass@k of task success and of every
//! checkpoint whose trials disagree somewhere, and the flaky cases. Nothing
//! with one trial per case.
//!
//! Case ids and metric names come from suites: each passes the sink's
//! escaper (`code`).

use crate::model::metric_id::{MetricId, SuiteMetric};
use crate::model::run::TrialStats;

use super::fmt::metric;

/// Metrics listed with their pass^k and pass@k.
const METRICS_SHOWN: usize = 8;
/// Flaky cases listed.
const CASES_SHOWN: usize = 10;

/// `3 per case over 24 cases · pass^3 / pass@3 (every trial / some trial
/// passes): task_success 87.5% / 91.7%, …`, then the flaky cases.
pub(crate) fn trial_lines(t: &TrialStats, code: impl Fn(&str) -> String) -> [String; 2] {
    let per_case = if t.min_trials == t.max_trials {
        format!("{} per case", t.k)
    } else {
        format!("{}–{} per case", t.min_trials, t.max_trials)
    };
    // Task success, then the metrics whose trials disagree somewhere (pass^k < pass@k).
    let task = SuiteMetric::TaskSuccess.as_str();
    let mut names: Vec<&String> = t.pass_hat_k.keys().filter(|n| *n == task).collect();
    names.extend(t.pass_hat_k.iter().filter_map(|(n, hat)| {
        let at = t.pass_at_k.get(n)?;
        (n != task && MetricId::parse(n).checkpoint_id().is_some() && hat < at).then_some(n)
    }));
    let mut shown: Vec<String> = names
        .iter()
        .take(METRICS_SHOWN)
        .map(|n| {
            format!(
                "{} {} / {}",
                code(n),
                metric(n, t.pass_hat_k.get(*n).copied()),
                metric(n, t.pass_at_k.get(*n).copied())
            )
        })
        .collect();
    if names.len() > METRICS_SHOWN {
        shown.push(format!("{} more", names.len() - METRICS_SHOWN));
    }
    let k = t.k;
    let first = format!(
        "{per_case} over {} cases · pass^{k} / pass@{k} (every trial / some trial passes): {}",
        t.cases,
        if shown.is_empty() {
            "—".to_owned()
        } else {
            shown.join(", ")
        }
    );
    let mut cases: Vec<String> = t
        .flaky
        .iter()
        .take(CASES_SHOWN)
        .map(|(case, metrics)| {
            let m: Vec<String> = metrics.iter().map(|m| code(m)).collect();
            format!("{} ({})", code(case), m.join(", "))
        })
        .collect();
    if t.flaky.len() > CASES_SHOWN {
        cases.push(format!("and {} more", t.flaky.len() - CASES_SHOWN));
    }
    let second = if cases.is_empty() {
        "no flaky case: every case's trials agree".to_owned()
    } else {
        format!(
            "{} of {} cases flaky (their trials disagree): {}",
            t.flaky.len(),
            t.cases,
            cases.join(", ")
        )
    };
    [first, second]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_k_of_task_success_and_of_the_checkpoints_that_flip() {
        let t = TrialStats {
            cases: 24,
            min_trials: 3,
            max_trials: 3,
            k: 3,
            pass_hat_k: [
                ("task_success".to_owned(), 0.875),
                ("checkpoint:P1".to_owned(), 1.0),
                ("checkpoint:P2".to_owned(), 0.5),
            ]
            .into(),
            pass_at_k: [
                ("task_success".to_owned(), 0.9),
                ("checkpoint:P1".to_owned(), 1.0),
                ("checkpoint:P2".to_owned(), 0.75),
            ]
            .into(),
            flaky: [("sb-<b>".to_owned(), vec!["checkpoint:P2".to_owned()])].into(),
        };
        let [first, second] = trial_lines(&t, crate::output::escape::md_code);
        assert_eq!(
            first,
            "3 per case over 24 cases · pass^3 / pass@3 (every trial / some trial passes): `task_success` 87.5% / 90.0%, `checkpoint:P2` 50.0% / 75.0%"
        );
        assert_eq!(
            second,
            "1 of 24 cases flaky (their trials disagree): `sb-<b>` (`checkpoint:P2`)"
        );
    }
}
