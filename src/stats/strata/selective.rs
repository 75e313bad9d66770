//! The selective test of adaptive confirmation (issue 20, `agent.trials: {min, max}`): every
//! case runs `s = min` trials; a case whose first stage and baseline trials of a metric are
//! not all equal ([`rerun_rule`]) is re-run up to `max` trials. The re-run decision depends on
//! the data, so the plain permutation test would be biased (re-running exactly the cases that
//! looked worse); the test is made **conditional on the decisions**.
//!
//! Under the null hypothesis, a case's `N` pooled values are exchangeable: every arrangement
//! "which `s` values are the first stage, which later head trials, which the baseline" is
//! equally likely. Given the pooled values and the observed decision, the head set `H` then
//! has probability proportional to `w(H)`, the number of first-stage sets `F ⊆ H` (`|F| = s`)
//! that give the observed decision with `H`'s complement as the baseline:
//!
//! - not re-run (`|H| = s`): `w(H) = 1` if `rule(H, Hᶜ)` is false, else 0 (with the
//!   `nonconstant` rule only a constant case is not re-run, so such cases carry no
//!   information);
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
    /// Whether the case was re-run for this metric ([`rerun_rule`]).
    pub rerun: bool,
}

/// The re-run rule (`nonconstant`, the research's choice for 0/1 metrics): re-run when the
/// first stage and the baseline trials are not all equal: a stable case that behaves as before
/// runs once, a stable case that flipped and every case whose history is mixed are re-run.
/// False when either side is empty. (`below_mean`, re-running only a first stage below the
/// baseline mean, leaves the conditional test no information with short histories: the
/// decision fixes the first trial as a failure; power 0 at one history trial.)
pub fn rerun_rule(first: &[f64], base: &[f64]) -> bool {
    let Some(x) = first.first() else {
        return false;
    };
    !base.is_empty() && first.iter().chain(base).any(|v| !same(*v, *x))
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
    // A re-run case may have no more values of this metric than its first stage: a checkpoint
    // that did not apply in any re-run trial. Its head set is then the first stage, weighted by
    // whether the rule fired for it (`w` below counts the one first stage, `H` itself).
    if stage == 0 || stage > heads || (!selection.rerun && stage != heads) {
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
    // The rule on compositions: the first stage `f` and the baseline (the complement of the
    // head set `counts`) are not all equal when they take two distinct values or more.
    let nonconstant = |f: &[usize], counts: &[usize]| {
        f.iter()
            .zip(counts)
            .zip(groups)
            .filter(|((fj, cj), (_, nj))| *fj + (*nj - *cj) > 0)
            .count()
            > 1
    };
    let weight = |counts: &[usize]| -> f64 {
        if !selection.rerun {
            return if nonconstant(counts, counts) {
                0.0
            } else {
                1.0
            };
        }
        let mut w = 0.0;
        let mut f = vec![0_usize; counts.len()];
        sub_compositions(counts, 0, stage, 1.0, &mut f, &mut |f, ways| {
            if nonconstant(f, counts) {
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

/// Calls `f(sub, ways)` for every sub-composition `sub` of `left` more items within
/// `counts[from..]`, `ways` the number of sets of items it stands for.
fn sub_compositions(
    counts: &[usize],
    from: usize,
    left: usize,
    ways: f64,
    sub: &mut Vec<usize>,
    f: &mut dyn FnMut(&[usize], f64),
) {
    if left == 0 {
        f(sub, ways);
        return;
    }
    if from == counts.len() {
        return;
    }
    for c in 0..=counts[from].min(left) {
        sub[from] = c;
        sub_compositions(
            counts,
            from + 1,
            left - c,
            ways * binomial(counts[from], c),
            sub,
            f,
        );
    }
    sub[from] = 0;
}
