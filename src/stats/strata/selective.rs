//! The selective test of adaptive confirmation (issue 20, `agent.trials: {min, max}`): every
//! case runs `s = min` trials; a case whose first-stage mean of a metric is below its
//! baseline mean ([`rerun_rule`]) is re-run up to `max` trials. The re-run decision depends on
//! the data, so the plain permutation test would be biased (re-running exactly the cases that
//! looked worse); the test is made **conditional on the decisions**.
//!
//! Under the null hypothesis, a case's `N` pooled values are exchangeable: every arrangement
//! "which `s` values are the first stage, which later head trials, which the baseline" is
//! equally likely. Given the pooled values and the observed decision, the head set `H` then
//! has probability proportional to `w(H)`, the number of first-stage sets `F ⊆ H` (`|F| = s`)
//! that give the observed decision with `H`'s complement as the baseline:
//!
//! - not re-run (`|H| = s`): `w(H) = 1` if `rule(H, Hᶜ)` is false, else 0;
//! - re-run: `w(H) = #{F ⊆ H, |F| = s : rule(F, Hᶜ)}`.
//!
//! Each case's table of `(t(H), P(H))` is re-weighted by `w` and the test proceeds as usual
//! (convolution or Monte Carlo over cases, which stay independent). This is exact at the full
//! α for any decision rule of the first stage and the baseline, and it needs only each case's
//! own decision, not the others'. Values are grouped as everywhere in the stratified test: a
//! head set's table entry is its composition (how many of each distinct value it takes) with
//! multivariate hypergeometric weight, and `w` counts the first-stage sub-compositions with
//! their multiplicities.

use super::case::{Prepared, Term, binomial, same};
use crate::stats::error::StatsError;

/// The re-run decision of one case for one metric, as the runner took it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Selection {
    /// Head trials of the first stage (`agent.trials.min`, at least 1).
    pub first: usize,
    /// Whether the case was re-run for this metric (its first stage was below its baseline).
    pub rerun: bool,
}

/// Relative tolerance of "below": means closer than this count as equal (not below).
const BELOW_SLACK: f64 = 1e-9;

/// The re-run rule, on oriented values (lower is worse): the mean of the first stage is below
/// the mean of the baseline trials. False when either side is empty.
pub fn rerun_rule(first: &[f64], base: &[f64]) -> bool {
    if first.is_empty() || base.is_empty() {
        return false;
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let scale = first
        .iter()
        .chain(base)
        .fold(1.0_f64, |m, v| m.max(v.abs()));
    mean(first) < mean(base) - BELOW_SLACK * scale
}

/// Most head-set compositions listed for a selected case.
const SELECTIVE_MAX: usize = 20_000;

/// The case's table `(t(H), P(H | decision))` over its head-set compositions, or an error when
/// the observed head set could not have produced the decision (the runner and the compare saw
/// different baselines) or the table is too large.
pub(super) fn weighted_table(
    case: &Prepared,
    head: &[f64],
    term: &Term,
    selection: Selection,
) -> Result<Vec<(f64, f64)>, StatsError> {
    let groups = &case.groups;
    let heads = case.m;
    let stage = selection.first;
    if stage == 0
        || stage > heads
        || (!selection.rerun && stage != heads)
        || (selection.rerun && stage == heads)
    {
        return Err(StatsError::Selection {
            reason: format!(
                "{heads} head trials do not fit a first stage of {stage} {}",
                if selection.rerun {
                    "and a re-run"
                } else {
                    "without a re-run"
                }
            ),
        });
    }
    let r = case.centred.len() - heads;
    let total: f64 = groups.iter().map(|(v, n)| v * *n as f64).sum();
    let scale = groups.iter().fold(1.0_f64, |a, (v, _)| a.max(v.abs()));
    let slack = BELOW_SLACK * scale;
    let first = stage as f64;
    let weight = |counts: &[usize]| -> f64 {
        let sum_h: f64 = counts
            .iter()
            .zip(groups)
            .map(|(c, (v, _))| *c as f64 * v)
            .sum();
        let mean_base = (total - sum_h) / r as f64;
        if !selection.rerun {
            return if sum_h / first < mean_base - slack {
                0.0
            } else {
                1.0
            };
        }
        let mut w = 0.0;
        sub_compositions(counts, groups, 0, stage, 0.0, 1.0, &mut |sum_f, ways| {
            if sum_f / first < mean_base - slack {
                w += ways;
            }
        });
        w
    };
    // The observed head set's composition.
    let observed: Vec<usize> = groups
        .iter()
        .map(|(v, _)| head.iter().filter(|h| same(**h, *v)).count())
        .collect();
    if observed.iter().sum::<usize>() != heads || weight(&observed) == 0.0 {
        return Err(StatsError::Selection {
            reason: "the head's trials could not have led to this re-run decision against \
                     these baseline trials (was the run made against another baseline?)"
                .into(),
        });
    }
    let mut table = Vec::new();
    let mut counts = vec![0_usize; groups.len()];
    let mut listed = 0_usize;
    let mut too_many = false;
    compositions(groups, 0, heads, &mut counts, &mut |counts| {
        listed += 1;
        if listed > SELECTIVE_MAX {
            too_many = true;
            return;
        }
        let w = weight(counts);
        if w > 0.0 {
            let p_h: f64 = counts
                .iter()
                .zip(groups)
                .map(|(c, (_, n))| binomial(*n, *c))
                .product();
            let sum_h: f64 = counts
                .iter()
                .zip(groups)
                .map(|(c, (v, _))| *c as f64 * v)
                .sum();
            table.push((term.at(sum_h), p_h * w));
        }
    });
    if too_many {
        return Err(StatsError::Selection {
            reason: format!("more than {SELECTIVE_MAX} head-set compositions in one case"),
        });
    }
    let norm: f64 = table.iter().map(|(_, w)| w).sum();
    for entry in &mut table {
        entry.1 /= norm;
    }
    Ok(table)
}

/// Calls `f` with every composition (counts per group) of `left` more items from
/// `groups[from..]`.
fn compositions(
    groups: &[(f64, usize)],
    from: usize,
    left: usize,
    counts: &mut Vec<usize>,
    f: &mut dyn FnMut(&[usize]),
) {
    if from == groups.len() {
        if left == 0 {
            f(counts);
        }
        return;
    }
    let capacity: usize = groups[from..].iter().map(|(_, n)| n).sum();
    if capacity < left {
        return;
    }
    for c in 0..=groups[from].1.min(left) {
        counts[from] = c;
        compositions(groups, from + 1, left - c, counts, f);
    }
    counts[from] = 0;
}

/// Calls `f(sum, ways)` for every sub-composition of `left` more items within `counts[from..]`,
/// `ways` the number of sets of items it stands for.
fn sub_compositions(
    counts: &[usize],
    groups: &[(f64, usize)],
    from: usize,
    left: usize,
    sum: f64,
    ways: f64,
    f: &mut dyn FnMut(f64, f64),
) {
    if left == 0 {
        f(sum, ways);
        return;
    }
    if from == counts.len() {
        return;
    }
    for c in 0..=counts[from].min(left) {
        sub_compositions(
            counts,
            groups,
            from + 1,
            left - c,
            sum + c as f64 * groups[from].0,
            ways * binomial(counts[from], c),
            f,
        );
    }
}
