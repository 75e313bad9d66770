//! One case of one metric: validation and canonical form, its centred values and its
//! reference table of per-case terms.

use statrs::function::factorial::ln_binomial;
use std::cmp::Ordering;

use super::selective::Selection;
use super::{PRIOR_DF, Statistic, Stratum};
use crate::stats::describe::mean;
use crate::stats::error::StatsError;

// ------------------------------------------------------------------------------ input

/// A case with its trials sorted (`-0.0` read as `0.0`): the canonical form.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Case {
    pub(super) head: Vec<f64>,
    pub(super) base: Vec<f64>,
    pub(super) selection: Option<Selection>,
}

/// The cases, validated, each side sorted, and the cases sorted.
pub(super) fn canonical_cases(strata: &[Stratum<'_>]) -> Result<Vec<Case>, StatsError> {
    if strata.is_empty() {
        return Err(StatsError::Empty);
    }
    let sorted = |values: &[f64]| {
        let mut v: Vec<f64> = values.iter().map(|x| x + 0.0).collect();
        v.sort_unstable_by(f64::total_cmp);
        v
    };
    let mut offset = 0;
    let mut cases = Vec::with_capacity(strata.len());
    for s in strata {
        if let Some(i) = s.head.iter().chain(s.base).position(|v| !v.is_finite()) {
            let value = if i < s.head.len() {
                s.head[i]
            } else {
                s.base[i - s.head.len()]
            };
            return Err(StatsError::NonFinite {
                index: offset + i,
                value,
            });
        }
        if s.head.is_empty() || s.base.is_empty() {
            return Err(StatsError::Empty);
        }
        offset += s.head.len() + s.base.len();
        cases.push(Case {
            head: sorted(s.head),
            base: sorted(s.base),
            selection: s.selection,
        });
    }
    cases.sort_unstable_by(|a, b| {
        cmp_values(&a.head, &b.head)
            .then(cmp_values(&a.base, &b.base))
            .then(a.selection.cmp(&b.selection))
    });
    Ok(cases)
}

pub(super) fn cmp_values(a: &[f64], b: &[f64]) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| {
        a.iter()
            .zip(b)
            .map(|(x, y)| x.total_cmp(y))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    })
}

/// Each case's `mean(head) − mean(base)`.
pub(super) fn case_diffs(cases: &[Case]) -> Result<Vec<f64>, StatsError> {
    cases
        .iter()
        .map(|c| match (mean(&c.head), mean(&c.base)) {
            (Some(h), Some(b)) if (h - b).is_finite() => Ok(h - b),
            _ => Err(overflow(cases)),
        })
        .collect()
}

fn overflow(cases: &[Case]) -> StatsError {
    StatsError::Overflow {
        max_abs: max_abs(cases),
        n: cases.len(),
    }
}

/// Mean over cases of `mean(head) − mean(base)`.
pub(super) fn effect(cases: &[Case]) -> Result<f64, StatsError> {
    mean(&case_diffs(cases)?).ok_or_else(|| overflow(cases))
}

pub(super) fn max_abs(cases: &[Case]) -> f64 {
    cases
        .iter()
        .flat_map(|c| c.head.iter().chain(&c.base))
        .fold(0.0, |m: f64, v| m.max(v.abs()))
}

/// A power of two bringing the largest magnitude to at most 1 (exact: every later result is
/// the same up to that factor, and squares can neither overflow nor underflow needlessly).
pub(super) fn power_of_two_scale(max_abs: f64) -> f64 {
    if max_abs == 0.0 {
        return 1.0;
    }
    let exponent = max_abs.log2().ceil().clamp(-1000.0, 1000.0) as i32;
    2.0_f64.powi(-exponent)
}

#[expect(clippy::float_cmp, reason = "exact equality is the point")]
pub(super) fn same(a: f64, b: f64) -> bool {
    a == b
}

// ------------------------------------------------------------------------------ one case

/// An informative case, centred: what its term depends on.
#[derive(Debug, Clone)]
pub(super) struct Prepared {
    /// Index into the canonical cases.
    pub(super) case: usize,
    /// Head trials.
    pub(super) m: usize,
    /// Pooled values minus their mean, ascending.
    pub(super) centred: Vec<f64>,
    /// Distinct centred values, ascending, with their multiplicities.
    pub(super) groups: Vec<(f64, usize)>,
    /// `S` of the observed head set.
    pub(super) observed: f64,
    /// Pooled sum of squares `Q`.
    pub(super) ss: f64,
    /// The head's centred values.
    pub(super) head: Vec<f64>,
    /// The re-run decision of an adaptive run, and the table conditional on it.
    pub(super) selection: Option<Selection>,
    pub(super) weighted: Option<Vec<(f64, f64)>>,
}

impl Prepared {
    /// `None` when the case's pooled values are all equal.
    pub(super) fn new(case: usize, c: &Case, scale: f64) -> Option<Self> {
        let pooled: Vec<f64> = c.head.iter().chain(&c.base).map(|v| v * scale).collect();
        let n = pooled.len() as f64;
        let centre = pooled.iter().sum::<f64>() / n;
        let m = c.head.len();
        let head: Vec<f64> = pooled[..m].iter().map(|v| v - centre).collect();
        let observed: f64 = head.iter().sum();
        let mut centred: Vec<f64> = pooled.iter().map(|v| v - centre).collect();
        centred.sort_unstable_by(f64::total_cmp);
        let ss: f64 = centred.iter().map(|v| v * v).sum();
        let mut groups: Vec<(f64, usize)> = Vec::new();
        for &v in &centred {
            match groups.last_mut() {
                Some((u, count)) if same(*u, v) => *count += 1,
                _ => groups.push((v, 1)),
            }
        }
        (groups.len() > 1 && ss > 0.0).then_some(Self {
            case,
            m,
            centred,
            groups,
            observed,
            ss,
            head,
            selection: c.selection,
            weighted: None,
        })
    }

    /// Cases of one kind (same `m`, same pooled values) have the same table.
    pub(super) fn kind(&self) -> Vec<u64> {
        let mut key = Vec::with_capacity(1 + 2 * self.groups.len());
        key.push(self.m as u64);
        key.push(
            self.selection
                .map_or(0, |s| 1 + 2 * s.first as u64 + u64::from(s.rerun)),
        );
        for &(value, count) in &self.groups {
            key.extend([value.to_bits(), count as u64]);
        }
        key
    }

    pub(super) fn r(&self) -> usize {
        self.centred.len() - self.m
    }

    /// Listing the smaller side is cheaper; the head's `S` is then minus the base's.
    pub(super) fn take(&self) -> (usize, bool) {
        let r = self.r();
        if r < self.m {
            (r, true)
        } else {
            (self.m, false)
        }
    }

    /// The smallest and the largest `S` (the `m` smallest and the `m` largest values).
    pub(super) fn extreme_sums(&self) -> (f64, f64) {
        let n = self.centred.len();
        let low = self.centred[..self.m].iter().sum();
        let high = self.centred[n - self.m..].iter().sum();
        (low, high)
    }

    /// `P(S = its minimum)`: the `m` smallest values, `c` of the `n_b` tied at the boundary.
    pub(super) fn min_probability(&self) -> f64 {
        let mut left = self.m;
        for &(_, count) in &self.groups {
            if count >= left {
                return binomial_ratio(count, left, self.centred.len(), self.m);
            }
            left -= count;
        }
        1.0
    }

    /// The number of compositions of the smaller side, or `cap + 1` if there are more.
    pub(super) fn count_compositions(&self, cap: usize) -> usize {
        let (take, _) = self.take();
        let limit = cap.saturating_add(1);
        // ways[s]: compositions of s items from the groups so far.
        let mut ways = vec![0_usize; take + 1];
        ways[0] = 1;
        for &(_, count) in &self.groups {
            for s in (1..=take).rev() {
                let extra =
                    (1..=count.min(s)).fold(0_usize, |acc, c| (acc + ways[s - c]).min(limit));
                ways[s] = (ways[s] + extra).min(limit);
            }
        }
        ways[take]
    }

    /// `(t, probability)` of every composition (not merged, in enumeration order).
    pub(super) fn table(&self, term: &Term) -> Vec<(f64, f64)> {
        if let Some(table) = &self.weighted {
            return table.clone();
        }
        let (take, complement) = self.take();
        let n = self.centred.len();
        let mut capacity = vec![0_usize; self.groups.len() + 1];
        for j in (0..self.groups.len()).rev() {
            capacity[j] = capacity[j + 1] + self.groups[j].1;
        }
        let log_total = ln_binomial(n as u64, take as u64);
        // Integer weights while C(N, take) is comfortably finite; log weights beyond.
        let logs = log_total > 600.0;
        let mut raw = Vec::new();
        compositions(
            &self.groups,
            &capacity,
            0,
            take,
            (0.0, if logs { 0.0 } else { 1.0 }),
            logs,
            &mut raw,
        );
        let total: f64 = if logs {
            1.0
        } else {
            raw.iter().map(|(_, w)| w).sum()
        };
        raw.iter()
            .map(|&(s, w)| {
                let s = if complement { -s } else { s };
                let p = if logs {
                    (w - log_total).exp()
                } else {
                    w / total
                };
                (term.at(s), p)
            })
            .collect()
    }
}

/// Appends `(S, weight)` of every composition of `left` more items from `groups[from..]`.
pub(super) fn compositions(
    groups: &[(f64, usize)],
    capacity: &[usize],
    from: usize,
    left: usize,
    (sum, weight): (f64, f64),
    logs: bool,
    out: &mut Vec<(f64, f64)>,
) {
    if left == 0 {
        out.push((sum, weight));
        return;
    }
    for j in from..groups.len() {
        if capacity[j] < left {
            break;
        }
        let (value, count) = groups[j];
        for c in 1..=count.min(left) {
            let w = if logs {
                weight + ln_binomial(count as u64, c as u64)
            } else {
                weight * binomial(count, c)
            };
            compositions(
                groups,
                capacity,
                j + 1,
                left - c,
                (sum + c as f64 * value, w),
                logs,
                out,
            );
        }
    }
}

/// `C(n, k)` by the multiplicative formula (exact while it stays below 2⁵³).
pub(super) fn binomial(n: usize, k: usize) -> f64 {
    let k = k.min(n - k);
    (0..k).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64)
}

/// `C(a, b) / C(n, m)`.
pub(super) fn binomial_ratio(a: usize, b: usize, n: usize, m: usize) -> f64 {
    let total = binomial(n, m);
    if total < 1e300 {
        binomial(a, b) / total
    } else {
        (ln_binomial(a as u64, b as u64) - ln_binomial(n as u64, m as u64)).exp()
    }
}

/// A case's term as a function of `S`: `t = S·gain / √(max(Q − k·S², 0) + ν₀·f)`, which is
/// `D / √(s²mod·k)` (with `Q = k = 0` when `ν = 0`, where `s²mod = f`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Term {
    pub(super) gain: f64,
    pub(super) ss: f64,
    pub(super) k: f64,
    pub(super) floor: f64,
}

impl Term {
    pub(super) fn new(p: &Prepared, f: f64, statistic: Statistic) -> Self {
        let k = 1.0 / p.m as f64 + 1.0 / p.r() as f64;
        let pooled = p.centred.len();
        let nu = (pooled - 2) as f64;
        if statistic == Statistic::Standardized {
            // t = k·S / √(v·k) = S·√k / √v, v the case's pooled variance (f when N = 2).
            let variance = if pooled >= 3 {
                p.ss / (pooled - 1) as f64
            } else {
                f
            };
            return Self {
                gain: k.sqrt(),
                ss: 0.0,
                k: 0.0,
                floor: variance,
            };
        }
        let floor = PRIOR_DF * f;
        if nu > 0.0 {
            Self {
                gain: (k * (nu + PRIOR_DF)).sqrt(),
                ss: p.ss,
                k,
                floor,
            }
        } else {
            Self {
                gain: (k * PRIOR_DF).sqrt(),
                ss: 0.0,
                k: 0.0,
                floor,
            }
        }
    }

    #[inline]
    pub(super) fn at(&self, s: f64) -> f64 {
        s * self.gain / ((self.ss - self.k * s * s).max(0.0) + self.floor).sqrt()
    }
}
