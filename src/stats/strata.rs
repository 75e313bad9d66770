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
//! # The statistic (moderated studentized, "mod" in `research/stochastic`)
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

use std::cmp::Ordering;
use std::collections::HashMap;

use statrs::function::factorial::ln_binomial;

use super::bootstrap_config::BootstrapConfig;
use super::describe::{mean, median};
use super::error::StatsError;
use super::percentile::percentile_pair;
use super::rng::MetricRng;
use super::signflip::{SignFlipMethod, sign_flip_test};

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
    };
    let scale = power_of_two_scale(max_abs(&cases));
    let prepared: Vec<Prepared> = cases
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
    let terms: Vec<Term> = prepared.iter().map(|p| Term::new(p, f)).collect();
    let statistic: f64 = prepared
        .iter()
        .zip(&terms)
        .map(|(p, t)| t.at(p.observed))
        .sum();
    let spread: f64 = prepared
        .iter()
        .zip(&terms)
        .map(|(p, t)| {
            let (low, high) = p.extreme_sums();
            t.at(low).abs().max(t.at(high).abs())
        })
        .sum();
    let slack = TIE_SLACK * (1.0 + spread);
    let bound = statistic + slack;
    let exact_min_p: f64 = prepared.iter().map(Prepared::min_probability).product();
    result.informative = prepared.len();
    result.statistic = statistic;

    if !options.no_sign_flip && prepared.iter().all(|p| p.m == 1 && p.centred.len() == 2) {
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
        .map(|p| p.count_compositions(ENUMERATE_MAX))
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
            if count <= ALIAS_MAX {
                Sampler::Table(AliasTable::new(&p.table(t)))
            } else {
                Sampler::Shuffle(Shuffle::new(p, *t))
            }
        })
        .collect();
    let mut rng = MetricRng::new(seed, &format!("{metric}\0strata"));
    let p = monte_carlo_p(&samplers, bound, resamples as usize, &mut rng);
    result.min_p = exact_min_p.max(1.0 / (f64::from(resamples) + 1.0));
    result.p_value = p.max(result.min_p).min(1.0);
    result.method = StrataMethod::MonteCarlo;
    Ok(result)
}

// ------------------------------------------------------------------------------ input

/// A case with its trials sorted (`-0.0` read as `0.0`): the canonical form.
#[derive(Debug, Clone, PartialEq)]
struct Case {
    head: Vec<f64>,
    base: Vec<f64>,
}

/// The cases, validated, each side sorted, and the cases sorted.
fn canonical_cases(strata: &[Stratum<'_>]) -> Result<Vec<Case>, StatsError> {
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
        });
    }
    cases.sort_unstable_by(|a, b| cmp_values(&a.head, &b.head).then(cmp_values(&a.base, &b.base)));
    Ok(cases)
}

fn cmp_values(a: &[f64], b: &[f64]) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| {
        a.iter()
            .zip(b)
            .map(|(x, y)| x.total_cmp(y))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    })
}

/// Mean over cases of `mean(head) − mean(base)`.
fn effect(cases: &[Case]) -> Result<f64, StatsError> {
    let overflow = || StatsError::Overflow {
        max_abs: max_abs(cases),
        n: cases.len(),
    };
    let diffs = cases
        .iter()
        .map(|c| match (mean(&c.head), mean(&c.base)) {
            (Some(h), Some(b)) if (h - b).is_finite() => Ok(h - b),
            _ => Err(overflow()),
        })
        .collect::<Result<Vec<f64>, _>>()?;
    mean(&diffs).ok_or_else(overflow)
}

fn max_abs(cases: &[Case]) -> f64 {
    cases
        .iter()
        .flat_map(|c| c.head.iter().chain(&c.base))
        .fold(0.0, |m: f64, v| m.max(v.abs()))
}

/// A power of two bringing the largest magnitude to at most 1 (exact: every later result is
/// the same up to that factor, and squares can neither overflow nor underflow needlessly).
fn power_of_two_scale(max_abs: f64) -> f64 {
    if max_abs == 0.0 {
        return 1.0;
    }
    let exponent = max_abs.log2().ceil().clamp(-1000.0, 1000.0) as i32;
    2.0_f64.powi(-exponent)
}

#[expect(clippy::float_cmp, reason = "exact equality is the point")]
fn same(a: f64, b: f64) -> bool {
    a == b
}

// ------------------------------------------------------------------------------ one case

/// An informative case, centred: what its term depends on.
#[derive(Debug, Clone)]
struct Prepared {
    /// Index into the canonical cases.
    case: usize,
    /// Head trials.
    m: usize,
    /// Pooled values minus their mean, ascending.
    centred: Vec<f64>,
    /// Distinct centred values, ascending, with their multiplicities.
    groups: Vec<(f64, usize)>,
    /// `S` of the observed head set.
    observed: f64,
    /// Pooled sum of squares `Q`.
    ss: f64,
}

impl Prepared {
    /// `None` when the case's pooled values are all equal.
    fn new(case: usize, c: &Case, scale: f64) -> Option<Self> {
        let pooled: Vec<f64> = c.head.iter().chain(&c.base).map(|v| v * scale).collect();
        let n = pooled.len() as f64;
        let centre = pooled.iter().sum::<f64>() / n;
        let m = c.head.len();
        let observed: f64 = pooled[..m].iter().map(|v| v - centre).sum();
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
        })
    }

    /// Cases of one kind (same `m`, same pooled values) have the same table.
    fn kind(&self) -> Vec<u64> {
        let mut key = Vec::with_capacity(1 + 2 * self.groups.len());
        key.push(self.m as u64);
        for &(value, count) in &self.groups {
            key.extend([value.to_bits(), count as u64]);
        }
        key
    }

    fn r(&self) -> usize {
        self.centred.len() - self.m
    }

    /// Listing the smaller side is cheaper; the head's `S` is then minus the base's.
    fn take(&self) -> (usize, bool) {
        let r = self.r();
        if r < self.m {
            (r, true)
        } else {
            (self.m, false)
        }
    }

    /// The smallest and the largest `S` (the `m` smallest and the `m` largest values).
    fn extreme_sums(&self) -> (f64, f64) {
        let n = self.centred.len();
        let low = self.centred[..self.m].iter().sum();
        let high = self.centred[n - self.m..].iter().sum();
        (low, high)
    }

    /// `P(S = its minimum)`: the `m` smallest values, `c` of the `n_b` tied at the boundary.
    fn min_probability(&self) -> f64 {
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
    fn count_compositions(&self, cap: usize) -> usize {
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
    fn table(&self, term: &Term) -> Vec<(f64, f64)> {
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
fn compositions(
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
fn binomial(n: usize, k: usize) -> f64 {
    let k = k.min(n - k);
    (0..k).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64)
}

/// `C(a, b) / C(n, m)`.
fn binomial_ratio(a: usize, b: usize, n: usize, m: usize) -> f64 {
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
struct Term {
    gain: f64,
    ss: f64,
    k: f64,
    floor: f64,
}

impl Term {
    fn new(p: &Prepared, f: f64) -> Self {
        let k = 1.0 / p.m as f64 + 1.0 / p.r() as f64;
        let nu = (p.centred.len() - 2) as f64;
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
    fn at(&self, s: f64) -> f64 {
        s * self.gain / ((self.ss - self.k * s * s).max(0.0) + self.floor).sqrt()
    }
}

// ------------------------------------------------------------------------------ exact

/// Sorts `table` by value and merges values within `slack` of the previous one (the first of
/// a run stands for it, probabilities add up).
fn sort_merge(table: &mut Vec<(f64, f64)>, slack: f64) {
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
fn feasible_tables(
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
fn exact_p(mut tables: Vec<Vec<(f64, f64)>>, bound: f64, merge_slack: f64) -> Option<f64> {
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

// ------------------------------------------------------------------------------ Monte Carlo

/// The next word that passes Lemire's rejection test for `span` (`threshold = 2⁶⁴ mod span`).
#[inline]
fn accepted_word(rng: &mut MetricRng, span: u64, threshold: u64) -> u64 {
    loop {
        let x = rng.next_u64();
        if x.wrapping_mul(span) >= threshold {
            return x;
        }
    }
}

/// Cuts the next digit in `0..radix` off `word` (most significant first).
#[inline]
fn take_digit(word: &mut u64, radix: u64) -> usize {
    let wide = u128::from(*word) * u128::from(radix);
    *word = wide as u64;
    (wide >> 64) as usize
}

/// Positions `start..end` of a partial shuffle, drawn from one word.
#[derive(Debug, Clone, Copy)]
struct WordGroup {
    start: usize,
    end: usize,
    span: u64,
    threshold: u64,
}

/// A case drawn as a uniformly random head (or, if smaller, base) set.
#[derive(Debug, Clone)]
struct Shuffle {
    centred: Vec<f64>,
    complement: bool,
    words: Vec<WordGroup>,
    term: Term,
}

impl Shuffle {
    fn new(p: &Prepared, term: Term) -> Self {
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
    fn draw(&self, scratch: &mut [f64], rng: &mut MetricRng) -> f64 {
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
    fn new(start: usize, end: usize, span: u128) -> Self {
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
struct AliasTable {
    values: Vec<f64>,
    cut: Vec<u64>,
    alias: Vec<usize>,
}

impl AliasTable {
    fn new(table: &[(f64, f64)]) -> Self {
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
    fn draw(&self, rng: &mut MetricRng) -> f64 {
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
enum Sampler {
    Table(AliasTable),
    Shuffle(Shuffle),
}

/// `(1 + #{T* ≤ bound}) / (B + 1)`, case by case over `B` partial sums.
fn monte_carlo_p(samplers: &[Sampler], bound: f64, resamples: usize, rng: &mut MetricRng) -> f64 {
    let mut totals = vec![0.0_f64; resamples];
    let mut sums = vec![0.0_f64; resamples];
    let mut scratch = Vec::new();
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
                // The square root and division in a separate pass, which vectorizes, rather
                // than on the draws' critical path.
                let term = shuffle.term;
                for (total, s) in totals.iter_mut().zip(&sums) {
                    *total += term.at(*s);
                }
            }
        }
    }
    let at_or_below = totals.iter().filter(|t| **t <= bound).count();
    (1.0 + at_or_below as f64) / (resamples as f64 + 1.0)
}

// ------------------------------------------------------------------------------ bootstrap

/// Several uniform indices in `0..radix` per random word.
#[derive(Debug, Clone, Copy)]
struct FixedRadix {
    radix: u64,
    digits: usize,
    span: u64,
    threshold: u64,
}

impl FixedRadix {
    fn new(radix: usize) -> Self {
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
    fn draw(&self, count: usize, rng: &mut MetricRng, mut f: impl FnMut(usize)) {
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
const CASE_TABLE_MAX: usize = 1024;

/// `mean(head*) − mean(base*)` of one case, both sides resampled with replacement.
#[derive(Debug, Clone)]
enum CaseDraw {
    /// Both sides constant.
    Fixed(f64),
    /// Both sides of small support (constant or two-valued): one table of the difference.
    Table(AliasTable),
    /// Each side drawn on its own.
    Sides(MeanDraw, MeanDraw),
}

impl CaseDraw {
    fn new(case: &Case) -> Self {
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
    fn draw(&self, rng: &mut MetricRng) -> f64 {
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
    fn sum(&self, values: &[f64], rng: &mut MetricRng) -> f64 {
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
enum MeanDraw {
    /// All trials equal: every resample has this mean.
    Fixed(f64),
    /// Two distinct values: the resampled mean from its binomial table (and the table).
    TwoValued(AliasTable, Vec<(f64, f64)>),
    /// Any values: `len` draws.
    Values(Vec<f64>, FixedRadix),
}

impl MeanDraw {
    /// `values` sorted.
    fn new(values: &[f64]) -> Self {
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
    fn support(&self) -> Option<Vec<(f64, f64)>> {
        match self {
            Self::Fixed(v) => Some(vec![(*v, 1.0)]),
            Self::TwoValued(_, support) => Some(support.clone()),
            Self::Values(..) => None,
        }
    }

    #[inline]
    fn draw(&self, rng: &mut MetricRng) -> f64 {
        match self {
            Self::Fixed(v) => *v,
            Self::TwoValued(table, _) => table.draw(rng),
            Self::Values(values, plan) => plan.sum(values, rng) / values.len() as f64,
        }
    }
}

#[cfg(test)]
#[expect(
    clippy::float_cmp,
    reason = "determinism and the sign-flip delegation are asserted bit for bit"
)]
mod tests {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::*;

    /// `tests/fixtures/stats/strata.json`, written by `scripts/strata_reference.py` (brute force).
    const FIXTURE: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/stats/strata.json"
    ));

    type Cases = Vec<(Vec<f64>, Vec<f64>)>;

    fn fixture() -> Vec<Value> {
        let v: Value = serde_json::from_str(FIXTURE).unwrap();
        v["datasets"].as_array().unwrap().clone()
    }

    fn floats(v: &Value) -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    }

    fn cases_of(dataset: &Value) -> Cases {
        dataset["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (floats(&c["head"]), floats(&c["base"])))
            .collect()
    }

    fn dataset(name: &str) -> Value {
        fixture().into_iter().find(|d| d["name"] == name).unwrap()
    }

    fn strata(cases: &Cases) -> Vec<Stratum<'_>> {
        cases
            .iter()
            .map(|(head, base)| Stratum { head, base })
            .collect()
    }

    fn run(cases: &Cases, resamples: u32, seed: u64, options: Options) -> StrataTest {
        test_with(&strata(cases), "m", resamples, seed, options).unwrap()
    }

    fn close(got: f64, want: f64, rel: f64) -> bool {
        (got - want).abs() <= rel * want.abs() + 1e-15
    }

    const GENERAL: Options = Options {
        force_monte_carlo: false,
        no_sign_flip: true,
    };
    const FORCED_MC: Options = Options {
        force_monte_carlo: true,
        no_sign_flip: true,
    };

    /// Deterministic shuffle for tests.
    fn shuffled<T: Clone>(values: &[T], rng: &mut MetricRng) -> Vec<T> {
        let mut v = values.to_vec();
        for i in (1..v.len()).rev() {
            v.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
        }
        v
    }

    /// `p` and `min_p` by listing every arrangement, statistic from its definition (means and
    /// the two groups' sums of squares), for small data.
    fn brute(cases: &Cases) -> (f64, f64) {
        let var = |v: &[f64]| {
            let mu = v.iter().sum::<f64>() / v.len() as f64;
            v.iter().map(|x| (x - mu) * (x - mu)).sum::<f64>() / (v.len() - 1) as f64
        };
        let pooled: Vec<Vec<f64>> = cases
            .iter()
            .map(|(h, b)| h.iter().chain(b).copied().collect())
            .collect();
        let informative: Vec<usize> = (0..cases.len())
            .filter(|&i| pooled[i].iter().any(|v| *v != pooled[i][0]))
            .collect();
        if informative.is_empty() {
            return (1.0, 1.0);
        }
        let f = median(
            &informative
                .iter()
                .map(|&i| var(&pooled[i]))
                .collect::<Vec<_>>(),
        )
        .unwrap();
        let term = |head: &[f64], base: &[f64]| {
            let (m, r) = (head.len() as f64, base.len() as f64);
            let nu = m + r - 2.0;
            let mh = head.iter().sum::<f64>() / m;
            let mb = base.iter().sum::<f64>() / r;
            let ss: f64 = head.iter().map(|x| (x - mh).powi(2)).sum::<f64>()
                + base.iter().map(|x| (x - mb).powi(2)).sum::<f64>();
            let s2res = if nu > 0.0 { ss / nu } else { 0.0 };
            let s2mod = (nu * s2res + PRIOR_DF * f) / (nu + PRIOR_DF);
            (mh - mb) / (s2mod * (1.0 / m + 1.0 / r)).sqrt()
        };
        let mut per: Vec<Vec<f64>> = Vec::new();
        let mut observed = 0.0;
        for &i in &informative {
            let (heads, values) = (cases[i].0.len(), &pooled[i]);
            observed += term(&values[..heads], &values[heads..]);
            let mut ts = Vec::new();
            for mask in 0_u32..(1 << values.len()) {
                if mask.count_ones() as usize == heads {
                    let pick = |wanted: bool| -> Vec<f64> {
                        (0..values.len())
                            .filter(|j| (mask >> j & 1 == 1) == wanted)
                            .map(|j| values[j])
                            .collect()
                    };
                    ts.push(term(&pick(true), &pick(false)));
                }
            }
            per.push(ts);
        }
        let scale = 1.0
            + per
                .iter()
                .map(|ts| ts.iter().fold(0.0_f64, |m, t| m.max(t.abs())))
                .sum::<f64>();
        let minimum: f64 = per
            .iter()
            .map(|ts| ts.iter().copied().fold(f64::INFINITY, f64::min))
            .sum();
        let mut totals = vec![0.0_f64];
        for ts in &per {
            totals = totals
                .iter()
                .flat_map(|a| ts.iter().map(move |t| a + t))
                .collect();
        }
        let share = |bound: f64| {
            totals
                .iter()
                .filter(|t| **t <= bound + 1e-9 * scale)
                .count() as f64
                / totals.len() as f64
        };
        (share(observed), share(minimum))
    }

    #[test]
    fn exact_p_and_min_p_match_the_brute_force_fixture() {
        let mut checked = 0;
        for d in fixture() {
            if d["monte_carlo"].as_bool().unwrap() {
                continue;
            }
            let cases = cases_of(&d);
            let want = &d["result"];
            let (p, min_p) = (want["p"].as_f64().unwrap(), want["min_p"].as_f64().unwrap());
            let informative = want["n_informative"].as_u64().unwrap() as usize;
            for options in [Options::default(), GENERAL] {
                let r = run(&cases, 10_000, 1, options);
                let name = d["name"].as_str().unwrap();
                assert!(close(r.p_value, p, 1e-9), "{name}: {r:?} vs p {p}");
                assert!(
                    close(r.min_p, min_p, 1e-9),
                    "{name}: {r:?} vs min_p {min_p}"
                );
                let method = if informative == 0 {
                    StrataMethod::NoVariation
                } else {
                    StrataMethod::Exact
                };
                assert_eq!(r.method, method, "{name}");
                assert_eq!(r.informative, informative, "{name}");
                assert_eq!(r.cases, cases.len(), "{name}");
                assert!(
                    close(r.statistic, want["T_obs"].as_f64().unwrap(), 1e-9),
                    "{name}: {r:?}"
                );
                assert!(
                    close(r.effect, want["effect"].as_f64().unwrap(), 1e-12),
                    "{name}: {r:?}"
                );
                assert_eq!(
                    (r.head_trials, r.base_trials),
                    (
                        cases.iter().map(|c| c.0.len()).sum(),
                        cases.iter().map(|c| c.1.len()).sum()
                    )
                );
            }
            checked += 1;
        }
        assert_eq!(checked, 15);
    }

    #[test]
    fn exact_p_matches_an_in_test_brute_force() {
        for name in [
            "binary_m3_r3",
            "binary_ragged",
            "cont_m2_r2_ties",
            "cont_ragged",
            "head_better",
        ] {
            let cases = cases_of(&dataset(name));
            let (p, min_p) = brute(&cases);
            let r = run(&cases, 100, 0, GENERAL);
            assert!(
                close(r.p_value, p, 1e-9) && close(r.min_p, min_p, 1e-9),
                "{name}: {r:?} vs {p} {min_p}"
            );
        }
    }

    #[test]
    fn monte_carlo_is_within_its_error_of_the_exact_p() {
        let b = 20_000_u32;
        let mut forced = 0;
        for d in fixture() {
            let cases = cases_of(&d);
            let want = &d["result"];
            let (p, min_p) = (want["p"].as_f64().unwrap(), want["min_p"].as_f64().unwrap());
            let natural = d["monte_carlo"].as_bool().unwrap();
            if want["n_informative"].as_u64().unwrap() == 0 {
                continue;
            }
            let r = run(
                &cases,
                b,
                3,
                if natural {
                    Options::default()
                } else {
                    FORCED_MC
                },
            );
            assert_eq!(r.method, StrataMethod::MonteCarlo, "{}", d["name"]);
            let se = (p * (1.0 - p) / f64::from(b)).sqrt();
            assert!(
                (r.p_value - p).abs() <= 4.0 * se + 2.0 / f64::from(b),
                "{}: {r:?} vs exact {p} (se {se})",
                d["name"]
            );
            assert!(
                close(r.min_p, min_p.max(1.0 / f64::from(b + 1)), 1e-9),
                "{}: {r:?}",
                d["name"]
            );
            forced += usize::from(!natural);
        }
        assert_eq!(forced, 14);
    }

    #[test]
    fn big_continuous_cases_are_sampled_not_listed() {
        // C(34, 4) = 46,376 head sets: more than ENUMERATE_MAX, so Monte Carlo.
        let cases = cases_of(&dataset("continuous_big"));
        let r = run(&cases, 10_000, 0, Options::default());
        assert_eq!(r.method, StrataMethod::MonteCarlo);
        // The sampled case's min_p is exact (1/C(34, 4) here: no ties), times 1/4.
        assert_eq!(r.min_p, 1.0 / 10_001.0);
        let exact_min: f64 = prepared_min_p(&cases);
        assert!(close(exact_min, 1.0 / 185_504.0, 1e-12), "{exact_min}");
    }

    fn prepared_min_p(cases: &Cases) -> f64 {
        let canonical = canonical_cases(&strata(cases)).unwrap();
        canonical
            .iter()
            .enumerate()
            .filter_map(|(i, c)| Prepared::new(i, c, 1.0))
            .map(|p| p.min_probability())
            .product()
    }

    #[test]
    fn one_trial_per_side_is_todays_sign_flip_test() {
        let mut rng = MetricRng::new(5, "one-vs-one");
        let mut uniform = || (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
        let mut datasets: Vec<Cases> = Vec::new();
        for d in ["binary_1v1", "cont_1v1"] {
            datasets.push(cases_of(&dataset(d)));
        }
        // Continuous k = 8, 14, 20 (meet in the middle), 0/1 with k = 40 (lattice), k = 60
        // continuous (Monte Carlo in both), ties on a grid.
        for k in [8, 14, 20, 60] {
            datasets.push(
                (0..k)
                    .map(|_| (vec![uniform() * 3.0 - 0.4], vec![uniform() * 3.0]))
                    .collect(),
            );
        }
        datasets.push(
            (0..55)
                .map(|i| {
                    let h = f64::from(u8::from(i % 3 != 0));
                    let b = f64::from(u8::from(i % 5 != 0));
                    (vec![h], vec![b])
                })
                .collect(),
        );
        datasets.push(
            (0..16)
                .map(|i| (vec![f64::from(i % 5) * 0.5], vec![f64::from(i % 4) * 0.5]))
                .collect(),
        );
        for cases in &datasets {
            let diffs: Vec<f64> = cases.iter().map(|(h, b)| h[0] - b[0]).collect();
            let flip = sign_flip_test(&diffs, "m", 2_000, 9).unwrap();
            let r = run(cases, 2_000, 9, Options::default());
            assert_eq!(
                (r.p_value, r.min_p),
                (flip.p_value, flip.min_p),
                "{cases:?}"
            );
            assert_eq!(
                r.method == StrataMethod::Exact,
                flip.method == SignFlipMethod::Exact
            );
            assert_eq!(r.informative, flip.nonzero);
            // The general path computes the same test (T = Σd/√(2f) is monotone in Σd).
            if flip.method == SignFlipMethod::Exact {
                let general = run(cases, 2_000, 9, GENERAL);
                assert_eq!(general.method, StrataMethod::Exact, "{cases:?}");
                assert!(
                    (general.p_value - flip.p_value).abs() < 1e-12,
                    "{general:?} vs {flip:?}"
                );
                assert!(close(general.min_p, flip.min_p, 1e-12));
            }
        }
    }

    #[test]
    fn order_of_cases_and_of_trials_does_not_matter() {
        let mut rng = MetricRng::new(1, "order");
        for name in [
            "binary_ragged",
            "cont_ragged",
            "continuous_big",
            "ternary_big",
        ] {
            let cases = cases_of(&dataset(name));
            for options in [Options::default(), FORCED_MC] {
                let r = run(&cases, 3_000, 4, options);
                for _ in 0..3 {
                    let permuted: Cases = shuffled(&cases, &mut rng)
                        .into_iter()
                        .map(|(h, b)| (shuffled(&h, &mut rng), shuffled(&b, &mut rng)))
                        .collect();
                    assert_eq!(run(&permuted, 3_000, 4, options), r, "{name}");
                }
            }
        }
    }

    #[test]
    fn constant_cases_give_no_variation() {
        let cases: Cases = vec![
            (vec![1.0, 1.0], vec![1.0, 1.0, 1.0]),
            (vec![0.0], vec![0.0]),
            (vec![0.5], vec![0.5, 0.5]),
        ];
        let r = run(&cases, 100, 0, Options::default());
        assert_eq!(
            (
                r.p_value,
                r.min_p,
                r.method,
                r.informative,
                r.statistic,
                r.effect
            ),
            (1.0, 1.0, StrataMethod::NoVariation, 0, 0.0, 0.0)
        );
        assert_eq!((r.cases, r.head_trials, r.base_trials), (3, 4, 6));
    }

    #[test]
    fn a_fixed_seed_gives_the_same_numbers_and_the_seed_and_name_matter() {
        let cases = cases_of(&dataset("continuous_big"));
        let s = strata(&cases);
        let a = stratified_test(&s, "latency", 5_000, 7).unwrap();
        assert_eq!(a, stratified_test(&s, "latency", 5_000, 7).unwrap());
        assert_ne!(
            a.p_value,
            stratified_test(&s, "latency", 5_000, 8).unwrap().p_value
        );
        assert_ne!(
            a.p_value,
            stratified_test(&s, "cost", 5_000, 7).unwrap().p_value
        );
        // Exact results do not depend on the seed at all.
        let exact = cases_of(&dataset("ternary_big"));
        assert_eq!(
            run(&exact, 5_000, 1, Options::default()),
            run(&exact, 10, 2, Options::default())
        );
    }

    #[test]
    fn tables_list_every_head_set_once() {
        // Compositions against head sets: counts, total weight C(N, m), and the distribution
        // of S, for distinct values, ties, and m > r (the base side is listed).
        let term = Term {
            gain: 1.0,
            ss: 0.0,
            k: 0.0,
            floor: 1.0,
        };
        let cases: Cases = vec![
            (vec![0.1, 0.7, 0.2], vec![0.9, 0.3, 0.5, 0.4]),
            (vec![0.0, 1.0, 1.0, 0.5], vec![0.5, 0.0, 1.0, 1.0, 1.0]),
            (vec![2.0, 2.0, 3.0, 1.0, 1.0], vec![3.0, 1.0]),
            (vec![0.0], vec![1.0, 1.0, 1.0, 0.0, 1.0, 1.0]),
        ];
        for (head, base) in &cases {
            let case = Case {
                head: head.clone(),
                base: base.clone(),
            };
            let p = Prepared::new(0, &case, 1.0).unwrap();
            let n = p.centred.len();
            let mut sets: Vec<f64> = (0_u32..(1 << n))
                .filter(|mask| mask.count_ones() as usize == p.m)
                .map(|mask| {
                    (0..n)
                        .filter(|j| mask >> j & 1 == 1)
                        .map(|j| p.centred[j])
                        .sum()
                })
                .collect();
            sets.sort_by(f64::total_cmp);
            let mut table = p.table(&term);
            assert!(
                close(table.iter().map(|(_, q)| q).sum(), 1.0, 1e-15),
                "{table:?}"
            );
            let distinct = {
                let mut s = sets.clone();
                s.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
                s.len()
            };
            assert!(p.count_compositions(ENUMERATE_MAX) >= distinct);
            assert_eq!(p.count_compositions(ENUMERATE_MAX), table.len());
            sort_merge(&mut table, 1e-12);
            // Each distinct S with its share of head sets (term.at(s) = s here).
            let mut expected = sets.iter().map(|s| (*s, 1.0 / sets.len() as f64)).collect();
            sort_merge(&mut expected, 1e-12);
            assert_eq!(table.len(), expected.len(), "{head:?} {base:?}");
            for ((v, q), (ev, eq)) in table.iter().zip(&expected) {
                assert!(
                    (v - ev).abs() < 1e-12 && close(*q, *eq, 1e-12),
                    "{table:?} vs {expected:?}"
                );
            }
            assert!(close(p.min_probability(), expected[0].1, 1e-12));
        }
        // The count is capped.
        let wide = Case {
            head: (0..10).map(f64::from).collect(),
            base: (10..40).map(f64::from).collect(),
        };
        let p = Prepared::new(0, &wide, 1.0).unwrap();
        assert_eq!(p.count_compositions(1000), 1001);
    }

    #[test]
    fn zero_one_cases_use_the_hypergeometric_table_at_any_size() {
        // 5 vs 40 trials: 6 compositions instead of 1,221,759 head sets, exact.
        let cases = cases_of(&dataset("binary_big"));
        let r = run(&cases, 100, 0, Options::default());
        assert_eq!(r.method, StrataMethod::Exact);
        let canonical = canonical_cases(&strata(&cases)).unwrap();
        for case in &canonical[..3] {
            let p = Prepared::new(0, case, 1.0).unwrap();
            assert!(p.count_compositions(ENUMERATE_MAX) <= 6);
        }
        assert!(
            Prepared::new(3, &canonical[3], 1.0).is_none(),
            "always passing"
        );
    }

    #[test]
    fn many_cases_of_few_kinds_stay_exact_and_hopeless_attempts_are_skipped() {
        // 600 0/1 cases of three kinds (1 vs 4 trials): T* takes at most C(k + 1, 1) values
        // per kind, so the convolution is small and exact, and Monte Carlo agrees with it.
        let mut cases: Cases = Vec::new();
        for i in 0..600 {
            let base = match i % 3 {
                0 => vec![1.0, 1.0, 1.0, 1.0],
                1 => vec![1.0, 0.0, 1.0, 1.0],
                _ => vec![0.0, 0.0, 1.0, 0.0],
            };
            let head = vec![f64::from(u8::from(i % 7 != 0 && i % 3 != 2))];
            cases.push((head, base));
        }
        let exact = run(&cases, 20_000, 0, Options::default());
        assert_eq!(exact.method, StrataMethod::Exact);
        let informative = cases
            .iter()
            .filter(|(h, b)| b.iter().any(|v| *v != h[0]))
            .count();
        assert_eq!((exact.informative, informative > 400), (informative, true));
        let mc = run(&cases, 20_000, 0, FORCED_MC);
        let se = (exact.p_value * (1.0 - exact.p_value) / 20_000.0).sqrt();
        assert!(
            (mc.p_value - exact.p_value).abs() <= 4.0 * se + 1e-4,
            "{mc:?} vs {exact:?}"
        );
        // 40 continuous 2 vs 3 cases: 10 distinct terms each, 10⁴⁰ sums; no table beyond the
        // first few is even built.
        let mut rng = MetricRng::new(8, "hopeless");
        let mut uniform = || (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
        let continuous: Cases = (0..40)
            .map(|_| {
                (
                    vec![uniform(), uniform()],
                    vec![uniform(), uniform(), uniform()],
                )
            })
            .collect();
        let canonical = canonical_cases(&strata(&continuous)).unwrap();
        let prepared: Vec<Prepared> = canonical
            .iter()
            .enumerate()
            .filter_map(|(i, c)| Prepared::new(i, c, 1.0))
            .collect();
        let terms: Vec<Term> = prepared.iter().map(|p| Term::new(p, 0.1)).collect();
        let counts: Vec<usize> = prepared
            .iter()
            .map(|p| p.count_compositions(ENUMERATE_MAX))
            .collect();
        assert_eq!(counts, vec![10; 40]);
        assert!(feasible_tables(&prepared[..7], &terms[..7], &counts[..7]).is_some());
        assert!(feasible_tables(&prepared[..8], &terms[..8], &counts[..8]).is_none());
        assert_eq!(
            run(&continuous, 1_000, 0, Options::default()).method,
            StrataMethod::MonteCarlo
        );
    }

    #[test]
    fn bad_input_is_an_error() {
        let ok = [1.0, 2.0];
        let one = |head: &[f64], base: &[f64]| {
            stratified_test(
                &[
                    Stratum {
                        head: &ok,
                        base: &ok,
                    },
                    Stratum { head, base },
                ],
                "m",
                100,
                0,
            )
        };
        assert_eq!(stratified_test(&[], "m", 100, 0), Err(StatsError::Empty));
        assert_eq!(one(&[], &[1.0]), Err(StatsError::Empty));
        assert_eq!(one(&[1.0], &[]), Err(StatsError::Empty));
        let err = one(&[1.0], &[0.0, f64::NAN]).unwrap_err();
        assert!(
            matches!(err, StatsError::NonFinite { index: 6, .. }),
            "{err:?}"
        );
        let err = one(&[f64::INFINITY], &[0.0]).unwrap_err();
        assert!(
            matches!(err, StatsError::NonFinite { index: 4, .. }),
            "{err:?}"
        );
        let s = [Stratum {
            head: &ok,
            base: &ok,
        }];
        assert!(matches!(
            stratified_test(&s, "m", 0, 0),
            Err(StatsError::Resamples { .. })
        ));
        assert!(stratified_test(&s, "m", BootstrapConfig::MAX_RESAMPLES + 1, 0).is_err());
        let err = one(&[f64::MAX], &[-f64::MAX]).unwrap_err();
        assert!(matches!(err, StatsError::Overflow { .. }), "{err:?}");
        let cfg = BootstrapConfig::new(100, 0.95, 0).unwrap();
        assert_eq!(stratified_ci(&[], "m", &cfg), Err(StatsError::Empty));
    }

    #[test]
    fn huge_and_tiny_values_neither_overflow_nor_vanish() {
        let cases = cases_of(&dataset("cont_ragged"));
        let want = run(&cases, 100, 0, Options::default());
        for factor in [1e300, 1e-300, 2.0_f64.powi(-1070)] {
            let scaled: Cases = cases
                .iter()
                .map(|(h, b)| {
                    (
                        h.iter().map(|v| v * factor).collect(),
                        b.iter().map(|v| v * factor).collect(),
                    )
                })
                .collect();
            let r = run(&scaled, 100, 0, Options::default());
            if factor > 1e-310 {
                assert_eq!(
                    (r.p_value, r.min_p, r.method),
                    (want.p_value, want.min_p, want.method)
                );
                assert!(close(r.statistic, want.statistic, 1e-12), "{r:?}");
            }
            assert!(r.p_value.is_finite() && r.statistic.is_finite() && r.effect.is_finite());
        }
    }

    #[test]
    fn ci_matches_the_python_reference_within_its_monte_carlo_error() {
        let cfg = BootstrapConfig::new(10_000, 0.95, 42).unwrap();
        for name in ["cont_m1_r3", "cont_ragged"] {
            let d = dataset(name);
            let cases = cases_of(&d);
            let ci = stratified_ci(&strata(&cases), "m", &cfg).unwrap();
            let want = &d["ci"];
            let (lo, hi) = (
                want["low"].as_f64().unwrap(),
                want["high"].as_f64().unwrap(),
            );
            let (lo_sd, hi_sd) = (
                want["low_sd_10k"].as_f64().unwrap(),
                want["high_sd_10k"].as_f64().unwrap(),
            );
            assert!(
                (ci.ci_low - lo).abs() < 4.0 * lo_sd + 1e-9,
                "{name}: {ci:?} vs {lo}"
            );
            assert!(
                (ci.ci_high - hi).abs() < 4.0 * hi_sd + 1e-9,
                "{name}: {ci:?} vs {hi}"
            );
            assert!(close(
                ci.effect,
                d["result"]["effect"].as_f64().unwrap(),
                1e-12
            ));
            assert!(ci.ci_low <= ci.effect && ci.effect <= ci.ci_high, "{ci:?}");
        }
    }

    #[test]
    fn ci_is_deterministic_order_free_and_exact_when_nothing_varies() {
        let cfg = BootstrapConfig::new(2_000, 0.9, 3).unwrap();
        let cases = cases_of(&dataset("binary_big"));
        let a = stratified_ci(&strata(&cases), "m", &cfg).unwrap();
        let mut rng = MetricRng::new(2, "ci-order");
        let permuted: Cases = shuffled(&cases, &mut rng)
            .into_iter()
            .map(|(h, b)| (shuffled(&h, &mut rng), shuffled(&b, &mut rng)))
            .collect();
        assert_eq!(a, stratified_ci(&strata(&permuted), "m", &cfg).unwrap());
        assert_ne!(a, stratified_ci(&strata(&cases), "n", &cfg).unwrap());
        assert!(a.ci_low < a.effect && a.effect < a.ci_high, "{a:?}");
        // Every case 0.5 lower with constant groups: the interval is the point.
        let flat: Cases = (0..7)
            .map(|i| {
                let v = f64::from(i) / 4.0;
                (vec![v; 3], vec![v + 0.5; 2])
            })
            .collect();
        let c = stratified_ci(&strata(&flat), "m", &cfg).unwrap();
        assert_eq!((c.effect, c.ci_low, c.ci_high), (-0.5, -0.5, -0.5));
    }

    #[test]
    fn two_valued_groups_resample_like_draws_with_replacement() {
        // The binomial table's mean and variance against the resampled mean's.
        let values = [0.0, 0.0, 1.0, 1.0, 1.0];
        let draw = MeanDraw::new(&values);
        assert!(matches!(draw, MeanDraw::TwoValued(..)));
        let mut rng = MetricRng::new(0, "binomial");
        let n = 200_000;
        let draws: Vec<f64> = (0..n).map(|_| draw.draw(&mut rng)).collect();
        let m = draws.iter().sum::<f64>() / f64::from(n);
        let v = draws.iter().map(|d| (d - m).powi(2)).sum::<f64>() / f64::from(n);
        // E = 0.6, Var = 0.6·0.4/5 = 0.048; SE of the mean 0.0005.
        assert!(
            (m - 0.6).abs() < 0.002 && (v - 0.048).abs() < 0.001,
            "{m} {v}"
        );
    }

    fn arb_cases() -> impl Strategy<Value = Cases> {
        let value = prop_oneof![
            (0_i32..3).prop_map(f64::from),
            (-8_i32..8).prop_map(|i| f64::from(i) / 4.0),
            -5.0_f64..5.0,
        ];
        let case = (
            prop::collection::vec(value.clone(), 1..4),
            prop::collection::vec(value, 1..5),
        );
        prop::collection::vec(case, 1..5)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn p_is_between_min_p_and_one(cases in arb_cases(), seed in any::<u64>()) {
            for options in [Options::default(), FORCED_MC] {
                let r = run(&cases, 200, seed, options);
                prop_assert!(r.min_p > 0.0 && r.min_p <= r.p_value && r.p_value <= 1.0, "{:?}", r);
                prop_assert!(r.statistic.is_finite() && r.effect.is_finite());
            }
        }

        #[test]
        fn exact_p_is_the_brute_force_p(cases in arb_cases()) {
            let r = run(&cases, 100, 0, GENERAL);
            let (p, min_p) = brute(&cases);
            prop_assert!(close(r.p_value, p, 1e-9) && close(r.min_p, min_p, 1e-9), "{:?} vs {} {}", r, p, min_p);
        }

        #[test]
        fn adding_a_constant_changes_nothing(cases in arb_cases(), shift in -1000_i32..1000, seed in any::<u64>()) {
            let shift = f64::from(shift) / 8.0;
            let moved: Cases = cases
                .iter()
                .map(|(h, b)| (h.iter().map(|v| v + shift).collect(), b.iter().map(|v| v + shift).collect()))
                .collect();
            for options in [Options::default(), FORCED_MC] {
                let a = run(&cases, 300, seed, options);
                let b = run(&moved, 300, seed, options);
                prop_assert_eq!((a.p_value, a.min_p, a.method), (b.p_value, b.min_p, b.method));
                prop_assert!((a.statistic - b.statistic).abs() < 1e-6 * (1.0 + a.statistic.abs()));
            }
        }
    }

    #[test]
    #[ignore = "timing; run with --release --ignored --nocapture"]
    fn timing_of_the_gate_workload() {
        // 1,000 cases × 5 head trials vs 40 history trials, B = 10,000.
        let mut rng = MetricRng::new(0, "timing");
        let mut uniform = || (rng.next_u64() >> 11) as f64 / (1_u64 << 53) as f64;
        let continuous: Cases = (0..1000)
            .map(|_| {
                (
                    (0..5).map(|_| uniform()).collect(),
                    (0..40).map(|_| uniform()).collect(),
                )
            })
            .collect();
        let binary: Cases = continuous
            .iter()
            .map(|(h, b)| {
                (
                    h.iter().map(|v| f64::from(u8::from(*v < 0.8))).collect(),
                    b.iter().map(|v| f64::from(u8::from(*v < 0.8))).collect(),
                )
            })
            .collect();
        let small: Cases = continuous
            .iter()
            .map(|(h, b)| (h.clone(), b[..10].to_vec()))
            .collect();
        let cfg = BootstrapConfig::new(10_000, 0.95, 0).unwrap();
        for (name, cases) in [
            ("continuous 5v40", &continuous),
            ("binary 5v40", &binary),
            ("continuous 5v10", &small),
        ] {
            let s = strata(cases);
            let start = std::time::Instant::now();
            let r = stratified_test(&s, "m", 10_000, 0).unwrap();
            let test = start.elapsed();
            let start = std::time::Instant::now();
            let ci = stratified_ci(&s, "m", &cfg).unwrap();
            eprintln!(
                "{name}: test {test:?} ({:?}, p {}), ci {:?} ({ci:?})",
                r.method,
                r.p_value,
                start.elapsed()
            );
        }
    }
}
