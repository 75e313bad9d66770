//! The workflow framework's formulas: compliance %, spec health %, rating,
//! position-dropout quartiles and the evaluator audit, per case and pooled
//! over a suite.
//!
//! Every checkpoint's possible weight is 1: PASS earns 1, PARTIAL its
//! criterion's weight, FAIL 0; N/A and BLOCKED are excluded.
//! compliance = 100 × earned / possible; spec health = 100 × (total − blocked) / total.

use std::collections::BTreeMap;

use crate::model::run::{
    CheckpointResult, CheckpointState, CheckpointSummary, EvaluatorAudit, Quartiles, Rating,
};

/// Counts per state.
pub(crate) fn summarize(results: &[CheckpointResult]) -> CheckpointSummary {
    let mut s = CheckpointSummary {
        total_checkpoints: results.len(),
        ..CheckpointSummary::default()
    };
    for r in results {
        match r.result {
            CheckpointState::Pass => s.passed += 1,
            CheckpointState::Partial => s.partial += 1,
            CheckpointState::Fail => s.failed += 1,
            CheckpointState::NotApplicable => s.na += 1,
            CheckpointState::Blocked => s.blocked += 1,
        }
    }
    s
}

/// Earned and possible weight over `results`.
fn earned_possible<'a>(results: impl IntoIterator<Item = &'a CheckpointResult>) -> (f64, f64) {
    results
        .into_iter()
        .filter_map(|r| r.earned_weight)
        .fold((0.0, 0.0), |(e, p), w| (e + w, p + 1.0))
}

/// 100 × earned / possible; `None` when nothing was decided.
pub(crate) fn compliance_percent(results: &[CheckpointResult]) -> Option<f64> {
    let (earned, possible) = earned_possible(results);
    (possible > 0.0).then(|| 100.0 * earned / possible)
}

/// 100 × (total − blocked) / total; `None` without checkpoints.
pub(crate) fn spec_health_percent(results: &[CheckpointResult]) -> Option<f64> {
    let total = results.len();
    let blocked = results
        .iter()
        .filter(|r| r.result == CheckpointState::Blocked)
        .count();
    (total > 0).then(|| 100.0 * (total - blocked) as f64 / total as f64)
}

pub(crate) fn rating(compliance: Option<f64>) -> Option<Rating> {
    compliance.map(Rating::from_compliance)
}

/// Quartile (1..=4) of a 1-based position among `n` checkpoints:
/// ⌈4·pos/n⌉, so quartiles are as equal as n allows.
pub(crate) fn quartile_of(position: usize, n: usize) -> usize {
    if n == 0 {
        return 1;
    }
    (4 * position).div_ceil(n).clamp(1, 4)
}

/// Compliance per position quartile, pooled over every result given (one
/// case, or all cases of a suite). `n` is the number of checkpoints in the suite.
pub(crate) fn position_dropout<'a>(
    results: impl IntoIterator<Item = &'a CheckpointResult>,
    n: usize,
) -> Quartiles {
    let mut acc = [(0.0, 0.0); 4];
    for r in results {
        if let Some(w) = r.earned_weight {
            let q = quartile_of(r.position_index, n) - 1;
            acc[q].0 += w;
            acc[q].1 += 1.0;
        }
    }
    let pct = |(e, p): (f64, f64)| (p > 0.0).then(|| 100.0 * e / p);
    Quartiles {
        quartile_1: pct(acc[0]),
        quartile_2: pct(acc[1]),
        quartile_3: pct(acc[2]),
        quartile_4: pct(acc[3]),
    }
}

/// Who decided what, pooled over the results given.
pub(crate) fn evaluator_audit<'a>(
    results: impl IntoIterator<Item = &'a CheckpointResult>,
) -> EvaluatorAudit {
    let mut a = EvaluatorAudit::default();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for r in results {
        match r.result {
            CheckpointState::NotApplicable => {
                a.not_applicable += 1;
                *reasons.entry(r.notes.clone()).or_default() += 1;
            }
            CheckpointState::Blocked => a.blocked += 1,
            _ => match r.tier {
                1 => a.tier1_evaluated += 1,
                2 => a.tier2_evaluated += 1,
                _ => a.tier3_evaluated += 1,
            },
        }
    }
    let decided = a.tier1_evaluated + a.tier2_evaluated + a.tier3_evaluated;
    a.deterministic_percent = (decided > 0)
        .then(|| 100.0 * (a.tier1_evaluated + a.tier2_evaluated) as f64 / decided as f64);
    a.na_reasons = reasons;
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::model::Severity;

    fn r(pos: usize, tier: u8, state: CheckpointState, w: Option<f64>) -> CheckpointResult {
        CheckpointResult {
            id: format!("C{pos}"),
            position_index: pos,
            tier,
            severity: Severity::High,
            result: state,
            earned_weight: w,
            notes: if state == CheckpointState::NotApplicable {
                "no judge configured".into()
            } else {
                String::new()
            },
            evaluated_by: String::new(),
            matched_criterion: None,
            cited_spans: vec![],
            blocked_by: None,
            confidence: None,
            na_kind: None,
        }
    }

    /// 8 checkpoints: PASS, PARTIAL(0.5), FAIL, N/A, BLOCKED, PASS, PASS, FAIL.
    fn sample() -> Vec<CheckpointResult> {
        use CheckpointState::*;
        vec![
            r(1, 1, Pass, Some(1.0)),
            r(2, 3, Partial, Some(0.5)),
            r(3, 2, Fail, Some(0.0)),
            r(4, 3, NotApplicable, None),
            r(5, 1, Blocked, None),
            r(6, 2, Pass, Some(1.0)),
            r(7, 2, Pass, Some(1.0)),
            r(8, 1, Fail, Some(0.0)),
        ]
    }

    #[test]
    fn compliance_and_health_follow_the_framework() {
        let s = sample();
        // earned 1 + 0.5 + 0 + 1 + 1 + 0 = 3.5 over possible 6.
        assert!((compliance_percent(&s).unwrap() - 100.0 * 3.5 / 6.0).abs() < 1e-12);
        // 1 blocked of 8.
        assert!((spec_health_percent(&s).unwrap() - 87.5).abs() < 1e-12);
        let sum = summarize(&s);
        assert_eq!(
            (sum.passed, sum.partial, sum.failed, sum.na, sum.blocked),
            (3, 1, 2, 1, 1)
        );
        assert_eq!(
            rating(compliance_percent(&s)),
            Some(Rating::NeedsImprovement)
        );
        assert_eq!(compliance_percent(&[]), None);
    }

    #[test]
    fn quartiles_split_positions_evenly() {
        assert_eq!(
            (1..=8).map(|p| quartile_of(p, 8)).collect::<Vec<_>>(),
            [1, 1, 2, 2, 3, 3, 4, 4]
        );
        assert_eq!(
            (1..=5).map(|p| quartile_of(p, 5)).collect::<Vec<_>>(),
            [1, 2, 3, 4, 4]
        );
        let q = position_dropout(&sample(), 8);
        assert_eq!(q.quartile_1, Some(75.0)); // PASS + PARTIAL
        assert_eq!(q.quartile_2, Some(0.0)); // FAIL (+ N/A excluded)
        assert_eq!(q.quartile_3, Some(100.0)); // PASS (+ BLOCKED excluded)
        assert_eq!(q.quartile_4, Some(50.0)); // PASS + FAIL
    }

    #[test]
    fn audit_counts_deciders() {
        let a = evaluator_audit(&sample());
        assert_eq!(
            (a.tier1_evaluated, a.tier2_evaluated, a.tier3_evaluated),
            (2, 3, 1)
        );
        assert_eq!((a.not_applicable, a.blocked), (1, 1));
        assert!((a.deterministic_percent.unwrap() - 100.0 * 5.0 / 6.0).abs() < 1e-12);
        assert_eq!(a.na_reasons.get("no judge configured"), Some(&1));
    }
}
