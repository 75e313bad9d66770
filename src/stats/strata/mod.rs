//! The stratified permutation test of issue 20 ("Stochastic agents"): is the head worse when
//! each case has several trials on each side?
//!
//! Case `i` (a stratum) has `mᵢ ≥ 1` head trials and `rᵢ ≥ 1` baseline trials (the baseline's
//! own plus the case's history) of one metric, oriented so that lower is worse. Under the null
//! hypothesis "within each case the head's trials are exchangeable with the baseline's", every
//! choice of which `mᵢ` of the `Nᵢ = mᵢ + rᵢ` pooled values are the head's is equally likely
//! (`C(Nᵢ, mᵢ)` arrangements, positions distinct even when values tie), independently across
//! cases. The statistic is a sum of per-case terms `T = Σ tᵢ`, and the one-sided p-value is
//! `P(T* ≤ T)` ("head is worse").
//!
//! # The statistic ("mod" for 0/1 metrics, "sz" otherwise, as in `research/stochastic`)
//!
//! **sz** (stratum-standardized, [`Statistic::Standardized`], any metric with a value other
//! than 0 or 1): `t = D / √(v·k)` with `v` the case's pooled sample variance `Q/(N − 1)`, or
//! `f` (below) when the case has one trial per side. `v` does not depend on the head set, so
//! `t` is linear in `S`. **mod** (moderated studentized, [`Statistic::Moderated`], metrics
//! whose trials are all 0 or 1):
//!
//! For a case with centred pooled values `x − x̄`, a head set `H` and `S = Σ_H (x − x̄)`:
//! `D = mean(head) − mean(base) = k·S` with `k = 1/m + 1/r`; the within-group sum of squares
//! of `H` and its complement is `SS = Q − k·S²` (`Q` the pooled sum of squares);
//! `s²mod = (SS + ν₀·f) / (ν + ν₀)` with `ν = N − 2`, `ν₀ =` [`PRIOR_DF`] and `f` the median,
//! over the informative cases, of the pooled sample variance `Q/(N − 1)` (the same for every
//! arrangement); when `ν = 0` (one trial per side) `s²mod = f`. Then `t = D / √(s²mod·k)`.
//! A case whose pooled values are all equal carries no information and drops out. With one
//! trial per side `T = Σ dᵢ / √(2f)`, so the test is today's paired sign-flip test
//! ([`super::signflip`]), and in that design it is delegated to it: same p, bit for bit,
//! including its Monte Carlo stream.
//!
//! `t` depends on the head set only through `S` and is strictly increasing in it, so each
//! case's smallest term comes from its `m` smallest values and `P(tᵢ = min)` is counted
//! exactly: `C(n_b, c_b) / C(N, m)`, where `c_b` of the `n_b` values tied at the boundary are
//! needed. The smallest achievable p is the product over informative cases
//! ([`StrataTest::min_p`]), at least `1/(B+1)` by Monte Carlo.
//!
//! # Each case's reference distribution
//!
//! A case's pooled values are grouped by distinct value; a head set's `S` depends only on how
//! many of each value it takes (its composition), which has multivariate hypergeometric
//! probability `Π C(n_j, c_j) / C(N, m)`. When there are at most [`ENUMERATE_MAX`]
//! compositions the case's table of `(t, probability)` is listed: all `C(N, m)` head sets for
//! distinct values, only `min(m, r) + 1` counts for a 0/1 metric (the hypergeometric table,
//! cheap at any `N`). Otherwise the case is "big" and only sampled.
//!
//! # Exact where it is cheap, Monte Carlo otherwise
//!
//! - **Exact** when no case is big: the tables are convolved, fewest distinct values first,
//!   merging values equal within a tolerance, as long as every intermediate outer sum has at
//!   most `2²²` entries (the research code's rule). Two guards the research code lacks bound
//!   the time: the attempt is skipped when a cheap bound on the number of values of `T*`
//!   (multisets of terms over identical cases) exceeds `2²⁴`, which takes coincidences between
//!   different cases' terms to get under `2²²`, and it stops past `2²⁶` entries in total.
//! - **Monte Carlo** otherwise: `p = (1 + #{T* ≤ T}) / (B + 1)`. Each resample draws every
//!   informative case: from its table by the alias method (tables of at most 64 entries, e.g.
//!   0/1 metrics), or as a uniformly random head set by a partial Fisher–Yates shuffle of its
//!   centred values, all the shuffle's indices cut from one random word (the multi-digit
//!   Lemire draw of [`super::sampler`], with mixed radices `N, N−1, …`). The loop runs case by
//!   case over a preallocated vector of `B` partial sums: no allocation per resample.
//!
//! Speed (measured with the `#[ignore]`d `timing_of_the_gate_workload` test: 1,000 cases of 5
//! head vs 40 history trials, `B = 10,000`, one core of a shared 2-core machine): ~0.17 s
//! for continuous values (10⁷ shuffled draws), ~0.08 s for 0/1 values (alias draws), ~0.03 s
//! for 1 vs 3 trials; the two-level bootstrap CI takes ~0.6 s, ~0.2 s and ~0.17 s.
//!
//! Ties: `T* ≤ T` allows `10⁻⁹·(1 + Σ max|tᵢ|)` of slack, so arrangements whose statistic
//! equals the observed one in exact arithmetic count whatever the rounding.
//!
//! # Determinism and invariance
//!
//! Each case's trials are sorted and the cases sorted, so results depend only on the multiset
//! of cases (each a multiset of head and of base trials), the seed and the metric name, whose
//! stream ([`MetricRng`]) is the metric's own. Values are scaled by a power of two (exact)
//! before squaring, so no finite input overflows in the statistic (a case whose spread is
//! below ~10⁻¹⁵⁰ of the largest magnitude counts as constant).
//!
//! # Confidence interval
//!
//! [`stratified_ci`] is the two-level stratified percentile bootstrap of the effect
//! `mean over cases of (mean(head) − mean(base))`: each resample draws `n` cases with
//! replacement and, within each drawn case, its head and base trials with replacement. A
//! constant side needs no draw and a two-valued one (0/1 metrics) has a binomial table of
//! resampled means; when both sides are such, the case's resampled difference is drawn from
//! one table (one random word per drawn case).

use super::bootstrap_config::BootstrapConfig;
use super::describe::median;
use super::error::StatsError;
use super::rng::MetricRng;
use super::signflip::{SignFlipMethod, sign_flip_test};

mod case;
mod ci;
mod exact;
mod monte_carlo;
mod selective;

use case::{Case, Prepared, Term, canonical_cases, effect, max_abs, power_of_two_scale, same};
pub use ci::stratified_ci;
use exact::{exact_p, feasible_tables};
use monte_carlo::{AliasTable, Sampler, Shuffle, monte_carlo_p};
use selective::weighted_table;
pub use selective::{Selection, rerun_rule};

/// Prior degrees of freedom `ν₀` of the moderated variance.
pub const PRIOR_DF: f64 = 2.0;

/// Largest number of compositions (head sets, for distinct values) listed per case; a case
/// with more is sampled.
pub const ENUMERATE_MAX: usize = 20_000;

/// Largest intermediate outer sum of the exact convolution.
const EXACT_STEP_MAX: usize = 1 << 22;

/// Largest total work (sum of the outer sums) of the exact convolution.
const EXACT_TOTAL_MAX: usize = 1 << 26;

/// Largest bound on the number of values of `T*` for which the exact convolution is tried.
const EXACT_SUMS_MAX: usize = 1 << 24;

/// Largest table drawn from by the alias method in Monte Carlo; larger cases are shuffled.
const ALIAS_MAX: usize = 64;

/// A random word's span of digits stays at or below this (rejection below 2⁻¹⁰).
const SPAN_LIMIT: u128 = 1 << 54;

/// Relative slack of `T* ≤ T`.
const TIE_SLACK: f64 = 1e-9;

/// Values this close are one when a table's distinct values are counted.
const DISTINCT_SLACK: f64 = 1e-12;

/// One case of one metric: its head trials and its baseline trials, oriented (lower is worse).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stratum<'a> {
    pub head: &'a [f64],
    pub base: &'a [f64],
    /// The case's re-run decision when the head was run adaptively (`agent.trials: {min,
    /// max}`): the test is then conditional on it ([`selective`]).
    pub selection: Option<Selection>,
}

/// The per-case term: the moderated studentized difference for 0/1 metrics, the
/// stratum-standardized difference otherwise (chosen by simulation, `docs/stochastic.md` §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statistic {
    /// `mod`: `D / √(s²mod·k)`, the within-case variance shrunk toward the median case
    /// variance with [`PRIOR_DF`] degrees of freedom.
    Moderated,
    /// `sz`: `D / √(v·k)`, `v` the case's pooled sample variance (the median case variance
    /// when the case has one trial per side).
    Standardized,
}

impl Statistic {
    /// [`Statistic::Moderated`] when every trial of every case is 0 or 1.
    fn for_cases(cases: &[Case]) -> Self {
        let binary = cases
            .iter()
            .flat_map(|c| c.head.iter().chain(&c.base))
            .all(|v| same(*v, 0.0) || same(*v, 1.0));
        if binary {
            Self::Moderated
        } else {
            Self::Standardized
        }
    }
}

/// How the p-value was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrataMethod {
    /// Every arrangement counted (convolution of the cases' tables).
    Exact,
    /// `B` random arrangements.
    MonteCarlo,
    /// Every case's pooled values are constant: nothing to test, `p = 1`.
    NoVariation,
}

/// Result of the stratified test on one metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StrataTest {
    /// One-sided p for "head is worse", in `[min_p, 1]`.
    pub p_value: f64,
    /// Smallest p-value any arrangement of these values could give: the product over
    /// informative cases of `P(tᵢ = its minimum)` (it can underflow to 0 with hundreds of
    /// informative cases), at least `1/(B+1)` by Monte Carlo. 1 when no case is informative.
    pub min_p: f64,
    pub method: StrataMethod,
    /// Number of cases.
    pub cases: usize,
    /// Number of cases whose pooled values are not all equal.
    pub informative: usize,
    /// The observed statistic `T = Σ tᵢ` (0 when no case is informative).
    pub statistic: f64,
    /// Mean over all cases of `mean(head) − mean(base)`.
    pub effect: f64,
    /// Head trials over all cases.
    pub head_trials: usize,
    /// Baseline trials over all cases.
    pub base_trials: usize,
    /// The per-case term used.
    pub statistic_kind: Statistic,
}

/// The effect and its bootstrap confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StrataCi {
    /// Mean over all cases of `mean(head) − mean(base)`.
    pub effect: f64,
    pub ci_low: f64,
    pub ci_high: f64,
}

/// The one-sided stratified permutation test of `strata` for `metric`. `resamples` (`B`) and
/// `seed` are used only when the test is Monte Carlo.
///
/// Errors: no case, a case without head or without baseline trials ([`StatsError::Empty`]);
/// a NaN or infinite trial ([`StatsError::NonFinite`], `index` counting trials across cases
/// in input order, each case's head trials then its baseline trials); effects too large to
/// represent ([`StatsError::Overflow`]); `resamples` outside `1..=`
/// [`BootstrapConfig::MAX_RESAMPLES`].
pub fn stratified_test(
    strata: &[Stratum<'_>],
    metric: &str,
    resamples: u32,
    seed: u64,
) -> Result<StrataTest, StatsError> {
    test_with(strata, metric, resamples, seed, Options::default())
}

/// Switches for the tests: force Monte Carlo, or keep one-trial-per-side data on the general
/// path instead of the sign-flip test.
#[derive(Debug, Clone, Copy, Default)]
struct Options {
    force_monte_carlo: bool,
    no_sign_flip: bool,
}

fn test_with(
    strata: &[Stratum<'_>],
    metric: &str,
    resamples: u32,
    seed: u64,
    options: Options,
) -> Result<StrataTest, StatsError> {
    test_until(strata, metric, resamples, seed, options, 1.0)
}

/// [`stratified_test`] whose Monte Carlo draws stop once the p-value is certain to exceed
/// `stop_above` (the gate passes its α: no decision at any level up to it changes, and the
/// reported p-value above it is the Monte Carlo p-value of the resamples drawn so far).
pub fn stratified_test_until(
    strata: &[Stratum<'_>],
    metric: &str,
    resamples: u32,
    seed: u64,
    stop_above: f64,
) -> Result<StrataTest, StatsError> {
    test_until(
        strata,
        metric,
        resamples,
        seed,
        Options::default(),
        stop_above,
    )
}

fn test_until(
    strata: &[Stratum<'_>],
    metric: &str,
    resamples: u32,
    seed: u64,
    options: Options,
    stop_above: f64,
) -> Result<StrataTest, StatsError> {
    if !(1..=BootstrapConfig::MAX_RESAMPLES).contains(&resamples) {
        return Err(StatsError::Resamples {
            resamples,
            max: BootstrapConfig::MAX_RESAMPLES,
        });
    }
    let cases = canonical_cases(strata)?;
    let mut result = StrataTest {
        p_value: 1.0,
        min_p: 1.0,
        method: StrataMethod::NoVariation,
        cases: cases.len(),
        informative: 0,
        statistic: 0.0,
        effect: effect(&cases)?,
        head_trials: cases.iter().map(|c| c.head.len()).sum(),
        base_trials: cases.iter().map(|c| c.base.len()).sum(),
        statistic_kind: Statistic::for_cases(&cases),
    };
    let scale = power_of_two_scale(max_abs(&cases));
    let mut prepared: Vec<Prepared> = cases
        .iter()
        .enumerate()
        .filter_map(|(i, c)| Prepared::new(i, c, scale))
        .collect();
    if prepared.is_empty() {
        return Ok(result);
    }
    let variances: Vec<f64> = prepared
        .iter()
        .map(|p| p.ss / (p.centred.len() - 1) as f64)
        .collect();
    let f = median(&variances).ok_or(StatsError::Empty)?;
    let statistic = result.statistic_kind;
    let terms: Vec<Term> = prepared
        .iter()
        .map(|p| Term::new(p, f, statistic))
        .collect();
    for (p, term) in prepared.iter_mut().zip(&terms) {
        if let Some(selection) = p.selection {
            p.weighted = Some(weighted_table(p, &p.head, term, selection)?);
        }
    }
    let statistic: f64 = prepared
        .iter()
        .zip(&terms)
        .map(|(p, t)| t.at(p.observed))
        .sum();
    let spread: f64 = prepared
        .iter()
        .zip(&terms)
        .map(|(p, t)| {
            if let Some(table) = &p.weighted {
                table.iter().fold(0.0, |m: f64, (v, _)| m.max(v.abs()))
            } else {
                let (low, high) = p.extreme_sums();
                t.at(low).abs().max(t.at(high).abs())
            }
        })
        .sum();
    let slack = TIE_SLACK * (1.0 + spread);
    let bound = statistic + slack;
    let exact_min_p: f64 = prepared
        .iter()
        .map(|p| match &p.weighted {
            Some(table) => {
                let low = table.iter().fold(f64::INFINITY, |m, (v, _)| m.min(*v));
                table
                    .iter()
                    .filter(|(v, _)| *v <= low + slack)
                    .map(|(_, w)| w)
                    .sum()
            }
            None => p.min_probability(),
        })
        .product();
    result.informative = prepared.len();
    result.statistic = statistic;

    if !options.no_sign_flip
        && prepared
            .iter()
            .all(|p| p.m == 1 && p.centred.len() == 2 && p.selection.is_none())
    {
        let diffs: Vec<f64> = prepared
            .iter()
            .map(|p| cases[p.case].head[0] - cases[p.case].base[0])
            .collect();
        if let Some(d) = diffs.iter().find(|d| !d.is_finite()) {
            return Err(StatsError::Overflow {
                max_abs: d.abs(),
                n: diffs.len(),
            });
        }
        let flip = sign_flip_test(&diffs, metric, resamples, seed)?;
        result.p_value = flip.p_value;
        result.min_p = flip.min_p;
        result.method = match flip.method {
            SignFlipMethod::Exact => StrataMethod::Exact,
            SignFlipMethod::MonteCarlo => StrataMethod::MonteCarlo,
        };
        return Ok(result);
    }

    let compositions: Vec<usize> = prepared
        .iter()
        .map(|p| match &p.weighted {
            Some(table) => table.len(),
            None => p.count_compositions(ENUMERATE_MAX),
        })
        .collect();
    if !options.force_monte_carlo && compositions.iter().all(|c| *c <= ENUMERATE_MAX) {
        let merge_slack = slack / (prepared.len() + 1) as f64;
        if let Some(p) = feasible_tables(&prepared, &terms, &compositions)
            .and_then(|tables| exact_p(tables, bound, merge_slack))
        {
            result.p_value = p.max(exact_min_p).min(1.0);
            result.min_p = exact_min_p;
            result.method = StrataMethod::Exact;
            return Ok(result);
        }
    }

    let samplers: Vec<Sampler> = prepared
        .iter()
        .zip(&terms)
        .zip(&compositions)
        .map(|((p, t), &count)| {
            if count <= ALIAS_MAX || p.weighted.is_some() {
                Sampler::Table(AliasTable::new(&p.table(t)))
            } else {
                Sampler::Shuffle(Shuffle::new(p, *t))
            }
        })
        .collect();
    let mut rng = MetricRng::new(seed, &format!("{metric}\0strata"));
    let p = monte_carlo_p(&samplers, bound, resamples as usize, stop_above, &mut rng);
    result.min_p = exact_min_p.max(1.0 / (f64::from(resamples) + 1.0));
    result.p_value = p.max(result.min_p).min(1.0);
    result.method = StrataMethod::MonteCarlo;
    Ok(result)
}

#[cfg(test)]
mod selective_tests;
#[cfg(test)]
mod tests;
