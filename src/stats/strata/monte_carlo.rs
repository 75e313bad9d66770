//! The Monte Carlo p-value: `B` random arrangements of every informative case.

use super::SPAN_LIMIT;
use super::case::{Prepared, Term};
use crate::stats::rng::MetricRng;

// ------------------------------------------------------------------------------ Monte Carlo

/// The next word that passes Lemire's rejection test for `span` (`threshold = 2⁶⁴ mod span`).
#[inline]
pub(super) fn accepted_word(rng: &mut MetricRng, span: u64, threshold: u64) -> u64 {
    loop {
        let x = rng.next_u64();
        if x.wrapping_mul(span) >= threshold {
            return x;
        }
    }
}

/// Cuts the next digit in `0..radix` off `word` (most significant first).
#[inline]
pub(super) fn take_digit(word: &mut u64, radix: u64) -> usize {
    let wide = u128::from(*word) * u128::from(radix);
    *word = wide as u64;
    (wide >> 64) as usize
}

/// Positions `start..end` of a partial shuffle, drawn from one word.
#[derive(Debug, Clone, Copy)]
pub(super) struct WordGroup {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) span: u64,
    pub(super) threshold: u64,
}

/// A case drawn as a uniformly random head (or, if smaller, base) set.
#[derive(Debug, Clone)]
pub(super) struct Shuffle {
    pub(super) centred: Vec<f64>,
    pub(super) complement: bool,
    pub(super) words: Vec<WordGroup>,
    pub(super) term: Term,
}

impl Shuffle {
    pub(super) fn new(p: &Prepared, term: Term) -> Self {
        let (take, complement) = p.take();
        let n = p.centred.len();
        let mut words = Vec::new();
        let mut start = 0;
        let mut span: u128 = 1;
        for i in 0..take {
            let radix = (n - i) as u128;
            if i > start && span * radix > SPAN_LIMIT {
                words.push(WordGroup::new(start, i, span));
                start = i;
                span = 1;
            }
            span *= radix;
        }
        words.push(WordGroup::new(start, take, span));
        Self {
            centred: p.centred.clone(),
            complement,
            words,
            term,
        }
    }

    /// `S` of one random head set; `scratch` holds the case's values in any order (a partial
    /// Fisher–Yates shuffle from any arrangement picks a uniformly random subset).
    #[inline]
    pub(super) fn draw(&self, scratch: &mut [f64], rng: &mut MetricRng) -> f64 {
        let n = scratch.len();
        let mut s = 0.0;
        for g in &self.words {
            let mut word = accepted_word(rng, g.span, g.threshold);
            for i in g.start..g.end {
                let j = i + take_digit(&mut word, (n - i) as u64);
                scratch.swap(i, j);
                s += scratch[i];
            }
        }
        if self.complement { -s } else { s }
    }
}

impl WordGroup {
    pub(super) fn new(start: usize, end: usize, span: u128) -> Self {
        // span ≤ 2⁵⁴ unless the group is one radix, which came from a usize.
        let span = span as u64;
        Self {
            start,
            end,
            span,
            threshold: span.wrapping_neg() % span,
        }
    }
}

/// Walker's alias table: one word per draw, `⌊x·n/2⁶⁴⌋` the entry and the low 64 bits of the
/// same product the coin (uniform to within `n·2⁻⁶⁴`).
#[derive(Debug, Clone)]
pub(super) struct AliasTable {
    pub(super) values: Vec<f64>,
    pub(super) cut: Vec<u64>,
    pub(super) alias: Vec<usize>,
}

impl AliasTable {
    pub(super) fn new(table: &[(f64, f64)]) -> Self {
        let n = table.len();
        let total: f64 = table.iter().map(|(_, p)| p).sum();
        let mut scaled: Vec<f64> = table.iter().map(|(_, p)| p * n as f64 / total).collect();
        let mut cut = vec![u64::MAX; n];
        let mut alias: Vec<usize> = (0..n).collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) =
            (0..n).partition(|&i| scaled[i] < 1.0);
        while let (Some(s), Some(&l)) = (small.pop(), large.last()) {
            // 2⁶⁴·scaled, saturating: the share of draws of entry s that keep it.
            cut[s] = (scaled[s] * 18_446_744_073_709_551_616.0) as u64;
            alias[s] = l;
            scaled[l] = (scaled[l] + scaled[s]) - 1.0;
            if scaled[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        Self {
            values: table.iter().map(|(v, _)| *v).collect(),
            cut,
            alias,
        }
    }

    #[inline]
    pub(super) fn draw(&self, rng: &mut MetricRng) -> f64 {
        let wide = u128::from(rng.next_u64()) * self.values.len() as u128;
        let i = (wide >> 64) as usize;
        if (wide as u64) < self.cut[i] {
            self.values[i]
        } else {
            self.values[self.alias[i]]
        }
    }
}

#[derive(Debug, Clone)]
pub(super) enum Sampler {
    Table(AliasTable),
    Shuffle(Shuffle),
}

/// The Monte Carlo p-value `(1 + #{T* ≤ bound}) / (B + 1)`, drawn in batches (256
/// resamples, then doubling). Once the p-value is certain to exceed `stop_above` (its count
/// so far already gives `(1 + c)/(B + 1) > stop_above`) the draws stop and the p-value at
/// `L` resamples, `(1 + c)/(L + 1)`, is returned: for every level below `stop_above` the test
/// is the full-`B` test (it rejects exactly when that one does), and a p-value above it is
/// only reported (sequential Monte Carlo; Besag & Clifford, 1991).
pub(super) fn monte_carlo_p(
    samplers: &[Sampler],
    bound: f64,
    resamples: usize,
    stop_above: f64,
    rng: &mut MetricRng,
) -> f64 {
    let b = resamples as f64;
    let mut totals = Vec::with_capacity(resamples.min(1 << 16));
    let mut sums = Vec::with_capacity(resamples.min(1 << 16));
    let mut scratch = Vec::new();
    let mut done = 0;
    let mut at_or_below = 0_usize;
    let mut batch = 256;
    while done < resamples {
        let size = batch.min(resamples - done);
        totals.clear();
        totals.resize(size, 0.0_f64);
        sums.clear();
        sums.resize(size, 0.0_f64);
        for sampler in samplers {
            match sampler {
                Sampler::Table(table) => {
                    for total in &mut totals {
                        *total += table.draw(rng);
                    }
                }
                Sampler::Shuffle(shuffle) => {
                    scratch.clear();
                    scratch.extend_from_slice(&shuffle.centred);
                    for s in &mut sums {
                        *s = shuffle.draw(&mut scratch, rng);
                    }
                    // The square root and division in a separate pass, which vectorizes,
                    // rather than on the draws' critical path.
                    let term = shuffle.term;
                    for (total, s) in totals.iter_mut().zip(&sums) {
                        *total += term.at(*s);
                    }
                }
            }
        }
        at_or_below += totals.iter().filter(|t| **t <= bound).count();
        done += size;
        if done < resamples && (1.0 + at_or_below as f64) / (b + 1.0) > stop_above {
            return (1.0 + at_or_below as f64) / (done as f64 + 1.0);
        }
        batch *= 2;
    }
    (1.0 + at_or_below as f64) / (b + 1.0)
}
