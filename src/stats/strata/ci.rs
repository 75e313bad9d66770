//! The two-level stratified bootstrap confidence interval of the effect.

use statrs::function::factorial::ln_binomial;

use super::case::{Case, canonical_cases, effect, max_abs, same};
use super::monte_carlo::{AliasTable, accepted_word, take_digit};
use super::{SPAN_LIMIT, StrataCi, Stratum};
use crate::stats::bootstrap_config::BootstrapConfig;
use crate::stats::error::StatsError;
use crate::stats::percentile::percentile_pair;
use crate::stats::rng::MetricRng;

/// The two-level stratified bootstrap confidence interval of the effect (percentile, numpy's
/// linear definition), `cfg.resamples` resamples at `cfg.confidence`, from the metric's own
/// stream under `cfg.seed`. Errors as [`stratified_test`], and an invalid `cfg`.
pub fn stratified_ci(
    strata: &[Stratum<'_>],
    metric: &str,
    cfg: &BootstrapConfig,
) -> Result<StrataCi, StatsError> {
    cfg.validate()?;
    let cases = canonical_cases(strata)?;
    let effect = effect(&cases)?;
    let n = cases.len();
    let max_abs = max_abs(&cases);
    let longest = cases
        .iter()
        .map(|c| c.head.len().max(c.base.len()))
        .max()
        .unwrap_or(1);
    if !(max_abs * 4.0 * n.max(longest) as f64).is_finite() {
        return Err(StatsError::Overflow { max_abs, n });
    }
    let draws: Vec<CaseDraw> = cases.iter().map(CaseDraw::new).collect();
    if let Some(CaseDraw::Fixed(first)) = draws.first()
        && draws
            .iter()
            .all(|d| matches!(d, CaseDraw::Fixed(v) if same(*v, *first)))
    {
        // Every resample is the same; keep rounding out of the interval.
        return Ok(StrataCi {
            effect,
            ci_low: effect,
            ci_high: effect,
        });
    }
    let resamples = cfg.resamples as usize;
    let pick = FixedRadix::new(n);
    let mut rng = MetricRng::new(cfg.seed, &format!("{metric}\0strata-ci"));
    let mut drawn = vec![0_usize; n];
    let mut means = Vec::with_capacity(resamples);
    let n_f = n as f64;
    for _ in 0..resamples {
        let mut slot = 0;
        pick.draw(n, &mut rng, |i| {
            drawn[slot] = i;
            slot += 1;
        });
        let mut sum = 0.0;
        for &i in &drawn {
            sum += draws[i].draw(&mut rng);
        }
        means.push(sum / n_f);
    }
    let tail = (1.0 - cfg.confidence) / 2.0;
    let (ci_low, ci_high) = percentile_pair(&mut means, tail, 1.0 - tail);
    Ok(StrataCi {
        effect,
        ci_low,
        ci_high,
    })
}

// ------------------------------------------------------------------------------ bootstrap

/// Several uniform indices in `0..radix` per random word.
#[derive(Debug, Clone, Copy)]
pub(super) struct FixedRadix {
    pub(super) radix: u64,
    pub(super) digits: usize,
    pub(super) span: u64,
    pub(super) threshold: u64,
}

impl FixedRadix {
    pub(super) fn new(radix: usize) -> Self {
        let radix = radix.max(1) as u64;
        let mut digits = 1;
        let mut span = u128::from(radix);
        while digits < 16 && span * u128::from(radix) <= SPAN_LIMIT {
            span *= u128::from(radix);
            digits += 1;
        }
        let span = span as u64;
        Self {
            radix,
            digits,
            span,
            threshold: span.wrapping_neg() % span,
        }
    }

    /// Calls `f` with `count` independent uniform indices.
    #[inline]
    pub(super) fn draw(&self, count: usize, rng: &mut MetricRng, mut f: impl FnMut(usize)) {
        let mut left = count;
        while left > 0 {
            let mut word = accepted_word(rng, self.span, self.threshold);
            let now = left.min(self.digits);
            for _ in 0..now {
                f(take_digit(&mut word, self.radix));
            }
            left -= now;
        }
    }
}

/// Largest support of a case's resampled difference drawn from one table.
pub(super) const CASE_TABLE_MAX: usize = 1024;

/// `mean(head*) − mean(base*)` of one case, both sides resampled with replacement.
#[derive(Debug, Clone)]
pub(super) enum CaseDraw {
    /// Both sides constant.
    Fixed(f64),
    /// Both sides of small support (constant or two-valued): one table of the difference.
    Table(AliasTable),
    /// Each side drawn on its own.
    Sides(MeanDraw, MeanDraw),
}

impl CaseDraw {
    pub(super) fn new(case: &Case) -> Self {
        let (head, base) = (MeanDraw::new(&case.head), MeanDraw::new(&case.base));
        match (head.support(), base.support()) {
            (Some(h), Some(b)) if h.len() == 1 && b.len() == 1 => Self::Fixed(h[0].0 - b[0].0),
            (Some(h), Some(b)) if h.len() * b.len() <= CASE_TABLE_MAX => {
                let table: Vec<(f64, f64)> = h
                    .iter()
                    .flat_map(|&(hv, hp)| b.iter().map(move |&(bv, bp)| (hv - bv, hp * bp)))
                    .collect();
                Self::Table(AliasTable::new(&table))
            }
            _ => Self::Sides(head, base),
        }
    }

    #[inline]
    pub(super) fn draw(&self, rng: &mut MetricRng) -> f64 {
        match self {
            Self::Fixed(d) => *d,
            Self::Table(table) => table.draw(rng),
            Self::Sides(head, base) => head.draw(rng) - base.draw(rng),
        }
    }
}

impl FixedRadix {
    /// The sum of `values.len()` draws with replacement from `values` (`radix` must be its
    /// length). Two words at a time, so that two chains of multiplies and additions overlap.
    #[inline]
    pub(super) fn sum(&self, values: &[f64], rng: &mut MetricRng) -> f64 {
        let (mut a, mut b) = (0.0, 0.0);
        let mut left = values.len();
        while left >= 2 * self.digits {
            let mut first = accepted_word(rng, self.span, self.threshold);
            let mut second = accepted_word(rng, self.span, self.threshold);
            for _ in 0..self.digits {
                a += values[take_digit(&mut first, self.radix)];
                b += values[take_digit(&mut second, self.radix)];
            }
            left -= 2 * self.digits;
        }
        self.draw(left, rng, |i| a += values[i]);
        a + b
    }
}

/// The mean of one group (a case's head or base trials) resampled with replacement.
#[derive(Debug, Clone)]
pub(super) enum MeanDraw {
    /// All trials equal: every resample has this mean.
    Fixed(f64),
    /// Two distinct values: the resampled mean from its binomial table (and the table).
    TwoValued(AliasTable, Vec<(f64, f64)>),
    /// Any values: `len` draws.
    Values(Vec<f64>, FixedRadix),
}

impl MeanDraw {
    /// `values` sorted.
    pub(super) fn new(values: &[f64]) -> Self {
        let (lo, hi) = (values[0], values[values.len() - 1]);
        if same(lo, hi) {
            return Self::Fixed(lo);
        }
        let m = values.len();
        let highs = values.iter().filter(|v| same(**v, hi)).count();
        if values.iter().all(|v| same(*v, lo) || same(*v, hi)) {
            let q = highs as f64 / m as f64;
            let table: Vec<(f64, f64)> = (0..=m)
                .map(|c| {
                    let mean = (c as f64 * hi + (m - c) as f64 * lo) / m as f64;
                    let log_p = ln_binomial(m as u64, c as u64)
                        + c as f64 * q.ln()
                        + (m - c) as f64 * (1.0 - q).ln();
                    (mean, log_p.exp())
                })
                .collect();
            return Self::TwoValued(AliasTable::new(&table), table);
        }
        Self::Values(values.to_vec(), FixedRadix::new(m))
    }

    /// `(mean, probability)` of every resampled mean, when there are few.
    pub(super) fn support(&self) -> Option<Vec<(f64, f64)>> {
        match self {
            Self::Fixed(v) => Some(vec![(*v, 1.0)]),
            Self::TwoValued(_, support) => Some(support.clone()),
            Self::Values(..) => None,
        }
    }

    #[inline]
    pub(super) fn draw(&self, rng: &mut MetricRng) -> f64 {
        match self {
            Self::Fixed(v) => *v,
            Self::TwoValued(table, _) => table.draw(rng),
            Self::Values(values, plan) => plan.sum(values, rng) / values.len() as f64,
        }
    }
}
