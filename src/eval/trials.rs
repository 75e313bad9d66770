//! What several trials of each case say: pass^k and pass@k of task success
//! and of every checkpoint (tau-bench's unbiased estimators), and which
//! cases are flaky. A trial "succeeds" on task success when it is 1, on a
//! checkpoint when it PASSes; a trial where the checkpoint was not decided
//! (N/A, BLOCKED) does not count for that checkpoint.

use std::collections::BTreeMap;

use crate::model::metric_id::{MetricId, SuiteMetric};
use crate::model::run::{CaseReport, CheckpointState, TrialStats};

/// `None` unless some case has more than one trial.
pub(crate) fn trial_stats(cases: &[CaseReport]) -> Option<TrialStats> {
    if cases.iter().all(|c| c.trial == 0) {
        return None;
    }
    // case id → metric → per-trial successes, in report order of cases.
    let mut by_case: BTreeMap<&str, BTreeMap<String, Vec<bool>>> = BTreeMap::new();
    let mut trials: BTreeMap<&str, u32> = BTreeMap::new();
    for case in cases {
        *trials.entry(case.id.as_str()).or_default() += 1;
        let outcomes = by_case.entry(case.id.as_str()).or_default();
        if let Some(v) = case.scores.task_success.filter(|v| v.is_finite()) {
            outcomes
                .entry(SuiteMetric::TaskSuccess.as_str().to_owned())
                .or_default()
                .push(v >= 1.0);
        }
        for cp in &case.checkpoints {
            let decided = matches!(
                cp.result,
                CheckpointState::Pass | CheckpointState::Partial | CheckpointState::Fail
            );
            if decided {
                outcomes
                    .entry(MetricId::Checkpoint(cp.id.clone()).to_string())
                    .or_default()
                    .push(cp.result == CheckpointState::Pass);
            }
        }
    }
    let min_trials = trials.values().copied().min().unwrap_or(1);
    let max_trials = trials.values().copied().max().unwrap_or(1);
    let k = min_trials.max(1);
    let mut hat: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    let mut at: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    let mut flaky: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (case, metrics) in &by_case {
        for (metric, outcomes) in metrics {
            let n = outcomes.len() as u64;
            let c = outcomes.iter().filter(|s| **s).count() as u64;
            if c > 0 && c < n {
                flaky
                    .entry((*case).to_owned())
                    .or_default()
                    .push(metric.clone());
            }
            if n < u64::from(k) {
                continue;
            }
            let (ph, pa) = pass_k(n, c, u64::from(k));
            let e = hat.entry(metric.clone()).or_default();
            e.0 += ph;
            e.1 += 1;
            let e = at.entry(metric.clone()).or_default();
            e.0 += pa;
            e.1 += 1;
        }
    }
    let mean = |m: BTreeMap<String, (f64, usize)>| {
        m.into_iter()
            .map(|(k, (s, n))| (k, s / n as f64))
            .collect::<BTreeMap<_, _>>()
    };
    Some(TrialStats {
        cases: by_case.len(),
        min_trials,
        max_trials,
        k,
        pass_hat_k: mean(hat),
        pass_at_k: mean(at),
        flaky,
    })
}

/// pass^k = C(c,k)/C(n,k) and pass@k = 1 − C(n−c,k)/C(n,k), for k ≤ n.
pub(crate) fn pass_k(n: u64, c: u64, k: u64) -> (f64, f64) {
    (ratio(c, n, k), 1.0 - ratio(n - c, n, k))
}

/// C(a,k)/C(n,k) as a product of k ratios (no overflow): Π_{i<k} (a−i)/(n−i).
fn ratio(a: u64, n: u64, k: u64) -> f64 {
    if a < k {
        return 0.0;
    }
    (0..k).map(|i| (a - i) as f64 / (n - i) as f64).product()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_k_matches_tau_bench_definitions() {
        // 4 trials, 2 successes: pass^1 = 0.5, pass^2 = C(2,2)/C(4,2) = 1/6,
        // pass@2 = 1 − C(2,2)/C(4,2) = 5/6; pass^4 = 0, pass@4 = 1.
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        let (h, a) = pass_k(4, 2, 1);
        assert!(close(h, 0.5) && close(a, 0.5));
        let (h, a) = pass_k(4, 2, 2);
        assert!(close(h, 1.0 / 6.0) && close(a, 5.0 / 6.0));
        let (h, a) = pass_k(4, 2, 4);
        assert!(close(h, 0.0) && close(a, 1.0));
        let (h, a) = pass_k(3, 3, 3);
        assert!(close(h, 1.0) && close(a, 1.0));
        let (h, a) = pass_k(3, 0, 2);
        assert!(close(h, 0.0) && close(a, 0.0));
    }
}
