//! The exact p-value: convolution of the informative cases' tables.

use statrs::function::factorial::ln_binomial;
use std::collections::HashMap;

use super::case::{Prepared, Term};
use super::{DISTINCT_SLACK, EXACT_STEP_MAX, EXACT_SUMS_MAX, EXACT_TOTAL_MAX};

// ------------------------------------------------------------------------------ exact

/// Sorts `table` by value and merges values within `slack` of the previous one (the first of
/// a run stands for it, probabilities add up).
pub(super) fn sort_merge(table: &mut Vec<(f64, f64)>, slack: f64) {
    // Stable, and it merges presorted runs: the outer sums arrive as one run per value.
    table.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut kept = 0;
    let mut previous = f64::NEG_INFINITY;
    for i in 0..table.len() {
        let (v, p) = table[i];
        if kept > 0 && v - previous <= slack {
            table[kept - 1].1 += p;
        } else {
            table[kept] = (v, p);
            kept += 1;
        }
        previous = v;
    }
    table.truncate(kept);
}

/// Every case's table, or `None` when the convolution could not stay within the limits short
/// of coincidences between different cases' values: `T*` takes at most
/// `U = Π C(kᵢ + dᵢ − 1, dᵢ − 1)` values over the kinds of case (identical `m` and pooled
/// values), `kᵢ` cases of a kind with `dᵢ` distinct terms each (the sums of `kᵢ` terms are
/// multisets). Tables are built smallest first and the attempt stops once `U` exceeds
/// [`EXACT_SUMS_MAX`], so a hopeless attempt costs little.
pub(super) fn feasible_tables(
    prepared: &[Prepared],
    terms: &[Term],
    compositions: &[usize],
) -> Option<Vec<Vec<(f64, f64)>>> {
    let mut order: Vec<usize> = (0..prepared.len()).collect();
    order.sort_by_key(|&i| compositions[i]);
    let limit = (EXACT_SUMS_MAX as f64).ln();
    let mut kinds: HashMap<Vec<u64>, (u64, u64)> = HashMap::new();
    let mut log_sums = 0.0;
    let mut tables = Vec::with_capacity(prepared.len());
    for i in order {
        let mut table = prepared[i].table(&terms[i]);
        table.sort_by(|a, b| a.0.total_cmp(&b.0));
        let distinct = 1 + table
            .windows(2)
            .filter(|w| w[1].0 - w[0].0 > DISTINCT_SLACK)
            .count() as u64;
        let (d, copies) = kinds.entry(prepared[i].kind()).or_insert((distinct, 0));
        log_sums += ln_binomial(*copies + *d, *d - 1) - ln_binomial(*copies + *d - 1, *d - 1);
        *copies += 1;
        if log_sums > limit {
            return None;
        }
        tables.push(table);
    }
    Some(tables)
}

/// `P(T* ≤ bound)` by convolving the tables, or `None` past the size limits.
pub(super) fn exact_p(
    mut tables: Vec<Vec<(f64, f64)>>,
    bound: f64,
    merge_slack: f64,
) -> Option<f64> {
    // Fewest distinct values first, as in the research code.
    let mut keyed: Vec<(usize, Vec<(f64, f64)>)> = tables
        .drain(..)
        .map(|mut t| {
            t.sort_by(|a, b| a.0.total_cmp(&b.0));
            let distinct = 1 + t
                .windows(2)
                .filter(|w| w[1].0 - w[0].0 > DISTINCT_SLACK)
                .count();
            (distinct, t)
        })
        .collect();
    keyed.sort_by_key(|(distinct, _)| *distinct);
    let mut conv = vec![(0.0_f64, 1.0_f64)];
    let mut next = Vec::new();
    let mut work = 0_usize;
    for (_, mut table) in keyed {
        sort_merge(&mut table, merge_slack);
        let size = conv.len().checked_mul(table.len())?;
        work = work.checked_add(size)?;
        if size > EXACT_STEP_MAX || work > EXACT_TOTAL_MAX {
            return None;
        }
        next.clear();
        for &(v, p) in &table {
            next.extend(conv.iter().map(|&(cv, cp)| (cv + v, cp * p)));
        }
        sort_merge(&mut next, merge_slack);
        std::mem::swap(&mut conv, &mut next);
    }
    Some(
        conv.iter()
            .take_while(|(v, _)| *v <= bound)
            .map(|(_, p)| p)
            .sum(),
    )
}
