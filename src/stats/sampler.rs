//! Uniform resampling indices: several exact draws from `0..n` per 64-bit random word, with
//! no division in the hot loop. This is where the bootstrap spends its time.
//!
//! # Method (a multi-digit form of Lemire's multiply-shift rejection)
//!
//! Pick `k` as the largest `k ≤ 8` with `N = nᵏ ≤ 2⁵⁴`. For a random
//! word `x`, Lemire (2019, "Fast random integer generation in an interval") shows that
//! `y = ⌊x·N / 2⁶⁴⌋` is exactly uniform on `0..N` once words whose low half
//! `x·N mod 2⁶⁴` is below `t = 2⁶⁴ mod N` are rejected (each `y` is then hit by exactly
//! `⌊2⁶⁴/N⌋` words). Rejection happens with probability `t/2⁶⁴ < N/2⁶⁴ ≤ 2⁻¹⁰`, and the test
//! is one wrapping multiply. The `k` base-`n` digits of `y` are then `k` independent uniform
//! indices, and they come out most-significant first from `k` widening multiplies:
//! `m = r·n; digit = ⌊m/2⁶⁴⌋; r = m mod 2⁶⁴`, starting from `r = x` (by induction
//! `⌊x·nʲ/2⁶⁴⌋` is the number formed by the first `j` digits). `t` costs one division per
//! metric, not per draw.
//!
//! # The stream, exactly
//!
//! Indices are consumed in order across resamples: a resample that ends part-way through a
//! word leaves the word's remaining digits to the next one. The value picked by digit `j` of
//! a word is added to accumulator `j`, and a resample's sum is the accumulators added
//! left to right starting from `0.0`. `scripts/stats_reference.py` reimplements all of this
//! and the tests check both languages produce identical indices and sums.

use super::rng::MetricRng;

/// The most indices taken from one random word.
pub(crate) const MAX_DIGITS: usize = 8;

/// `nᵏ` stays at or below this, so a word is rejected with probability below 2⁻¹⁰.
const SPAN_LIMIT: u128 = 1 << 54;

/// How indices in `0..n` are cut from random words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DigitPlan {
    radix: u64,
    digits: usize,
    span: u64,
    threshold: u64,
}

impl DigitPlan {
    /// The plan for drawing from `0..n`; `None` for `n = 0`.
    pub(crate) fn new(n: usize) -> Option<Self> {
        let radix = u64::try_from(n).ok().filter(|&r| r > 0)?;
        let mut digits = 1;
        let mut span = u128::from(radix);
        while digits < MAX_DIGITS && span * u128::from(radix) <= SPAN_LIMIT {
            span *= u128::from(radix);
            digits += 1;
        }
        // span ≤ 2⁵⁴ unless digits = 1, where span = n < 2⁶⁴: the cast is lossless.
        let span = span as u64;
        // 2⁶⁴ mod N, computed in 64 bits as (2⁶⁴ − N) mod N.
        let threshold = span.wrapping_neg() % span;
        Some(Self {
            radix,
            digits,
            span,
            threshold,
        })
    }

    /// The next word that passes the rejection test.
    #[inline]
    fn accepted_word(&self, rng: &mut MetricRng) -> u64 {
        loop {
            let x = rng.next_u64();
            if x.wrapping_mul(self.span) >= self.threshold {
                return x;
            }
        }
    }

    /// Cut the next digit (an index in `0..n`) off `word`.
    #[inline]
    fn take_digit(&self, word: &mut u64) -> usize {
        let m = u128::from(*word) * u128::from(self.radix);
        *word = m as u64;
        // < radix = n, which came from a usize.
        (m >> 64) as usize
    }
}

/// Appends the sums of `resamples` resamples (with replacement, `values.len()` draws each) of
/// `values` to `out`, following the stream defined in the module docs. `values` must be
/// non-empty and `plan` must be `DigitPlan::new(values.len())`.
pub(crate) fn resample_sums(
    values: &[f64],
    plan: &DigitPlan,
    rng: &mut MetricRng,
    resamples: usize,
    out: &mut Vec<f64>,
) {
    // One monomorphized kernel per digit count keeps the accumulators in registers.
    match plan.digits {
        1 => sums_kernel::<1>(values, plan, rng, resamples, out),
        2 => sums_kernel::<2>(values, plan, rng, resamples, out),
        3 => sums_kernel::<3>(values, plan, rng, resamples, out),
        4 => sums_kernel::<4>(values, plan, rng, resamples, out),
        5 => sums_kernel::<5>(values, plan, rng, resamples, out),
        6 => sums_kernel::<6>(values, plan, rng, resamples, out),
        7 => sums_kernel::<7>(values, plan, rng, resamples, out),
        _ => sums_kernel::<MAX_DIGITS>(values, plan, rng, resamples, out),
    }
}

fn sums_kernel<const K: usize>(
    values: &[f64],
    plan: &DigitPlan,
    rng: &mut MetricRng,
    resamples: usize,
    out: &mut Vec<f64>,
) {
    debug_assert_eq!(plan.digits, K);
    let n = values.len();
    out.reserve(resamples);
    // Digits left in `word` start at `lane`; K means none.
    let mut word = 0_u64;
    let mut lane = K;
    for _ in 0..resamples {
        let mut acc = [0.0_f64; K];
        let mut need = n;
        while lane < K && need > 0 {
            acc[lane] += values[plan.take_digit(&mut word)];
            lane += 1;
            need -= 1;
        }
        while need >= K {
            let mut w = plan.accepted_word(rng);
            for a in &mut acc {
                *a += values[plan.take_digit(&mut w)];
            }
            need -= K;
        }
        if need > 0 {
            word = plan.accepted_word(rng);
            lane = 0;
            while need > 0 {
                acc[lane] += values[plan.take_digit(&mut word)];
                lane += 1;
                need -= 1;
            }
        }
        out.push(acc.iter().fold(0.0, |s, a| s + a));
    }
}

/// The same stream one index at a time: (index, accumulator lane). Slow; for tests and for
/// checking the kernel against the Python reference.
#[cfg(test)]
pub(crate) struct IndexStream {
    plan: DigitPlan,
    rng: MetricRng,
    word: u64,
    lane: usize,
}

#[cfg(test)]
impl IndexStream {
    pub(crate) fn new(n: usize, rng: MetricRng) -> Self {
        let plan = DigitPlan::new(n).unwrap();
        Self {
            plan,
            rng,
            word: 0,
            lane: plan.digits,
        }
    }

    pub(crate) fn next_index(&mut self) -> (usize, usize) {
        if self.lane == self.plan.digits {
            self.word = self.plan.accepted_word(&mut self.rng);
            self.lane = 0;
        }
        let lane = self.lane;
        self.lane += 1;
        (self.plan.take_digit(&mut self.word), lane)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_picks_the_most_digits_within_the_span_limit() {
        let digits = |n| DigitPlan::new(n).unwrap().digits;
        assert_eq!(digits(1000), 5, "10^15 <= 2^54 < 10^18");
        assert_eq!(digits(200), 7);
        assert_eq!(digits(30), MAX_DIGITS, "capped");
        assert_eq!(digits(1 << 20), 2);
        assert_eq!(digits((1 << 27) + 1), 1);
        assert_eq!(DigitPlan::new(0), None);
        for n in [1_usize, 2, 3, 5, 7, 30, 999, 1000, 65_537, (1 << 27) + 1] {
            let plan = DigitPlan::new(n).unwrap();
            let span = u128::from(plan.span);
            assert_eq!(span, (n as u128).pow(plan.digits as u32), "n = {n}");
            assert!(plan.digits == 1 || span <= SPAN_LIMIT);
            assert_eq!(u128::from(plan.threshold), (1_u128 << 64) % span, "n = {n}");
        }
    }

    #[test]
    fn digits_are_the_base_n_digits_of_lemires_draw() {
        // The chain of widening multiplies must give exactly the base-n digits of
        // y = floor(x * n^k / 2^64), the uniform draw of Lemire's method.
        let mut rng = MetricRng::new(1, "digits");
        for n in [2_usize, 3, 7, 10, 30, 200, 1000, 4096, 99_991] {
            let plan = DigitPlan::new(n).unwrap();
            for _ in 0..2000 {
                let x = rng.next_u64();
                let mut y = (u128::from(x) * u128::from(plan.span)) >> 64;
                let mut expected = vec![0_usize; plan.digits];
                for slot in expected.iter_mut().rev() {
                    *slot = (y % n as u128) as usize;
                    y /= n as u128;
                }
                let mut word = x;
                let got: Vec<usize> = (0..plan.digits)
                    .map(|_| plan.take_digit(&mut word))
                    .collect();
                assert_eq!(got, expected, "n = {n}, x = {x:#x}");
                let low = x.wrapping_mul(plan.span);
                assert_eq!(
                    u128::from(low),
                    (u128::from(x) * u128::from(plan.span)) % (1 << 64)
                );
            }
        }
    }

    #[test]
    fn kernel_matches_the_one_at_a_time_stream() {
        for n in [1_usize, 2, 7, 13, 30, 201, 1000] {
            let values: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * 10.0).collect();
            let plan = DigitPlan::new(n).unwrap();
            let mut sums = Vec::new();
            resample_sums(&values, &plan, &mut MetricRng::new(3, "k"), 25, &mut sums);

            let mut stream = IndexStream::new(n, MetricRng::new(3, "k"));
            let naive: Vec<f64> = (0..25)
                .map(|_| {
                    let mut acc = vec![0.0; plan.digits];
                    for _ in 0..n {
                        let (index, lane) = stream.next_index();
                        acc[lane] += values[index];
                    }
                    acc.iter().fold(0.0, |s, a| s + a)
                })
                .collect();
            assert_eq!(sums.len(), 25);
            let same = sums
                .iter()
                .zip(&naive)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "n = {n}: kernel {sums:?} vs stream {naive:?}");
        }
    }

    #[test]
    fn stream_matches_the_python_reimplementation() {
        // tests/fixtures/stats/exact_stream.json comes from scripts/stats_reference.py, which
        // reimplements SHA-256 seeding, xoshiro256++ and this stream from the definitions.
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/stats/exact_stream.json"
        );
        let fixture: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let streams = fixture["streams"].as_array().unwrap();
        assert!(streams.len() >= 5);
        for case in streams {
            let n = usize::try_from(case["n"].as_u64().unwrap()).unwrap();
            let seed = case["seed"].as_u64().unwrap();
            let metric = case["metric"].as_str().unwrap();
            let want_indices: Vec<u64> = case["indices"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            let want_lanes: Vec<u64> = case["lanes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(
                DigitPlan::new(n).unwrap().digits as u64,
                case["digits"].as_u64().unwrap()
            );
            let mut stream = IndexStream::new(n, MetricRng::new(seed, metric));
            let (got_indices, got_lanes): (Vec<u64>, Vec<u64>) = (0..want_indices.len())
                .map(|_| {
                    let (index, lane) = stream.next_index();
                    (index as u64, lane as u64)
                })
                .unzip();
            assert_eq!(got_indices, want_indices, "{metric} seed {seed} n {n}");
            assert_eq!(got_lanes, want_lanes, "{metric} seed {seed} n {n}");
        }
    }

    /// Pearson's chi-square statistic of observed counts against a uniform expectation.
    fn chi_square(counts: &[u64]) -> f64 {
        let total: u64 = counts.iter().sum();
        let expected = total as f64 / counts.len() as f64;
        counts
            .iter()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum()
    }

    #[test]
    fn indices_are_uniform_and_consecutive_pairs_independent() {
        // n = 10 takes 8 digits per word, so pairs span digits inside and across words.
        let n = 10;
        let mut stream = IndexStream::new(n, MetricRng::new(11, "uniform"));
        let mut singles = vec![0_u64; n];
        let mut pairs = vec![0_u64; n * n];
        let mut previous = stream.next_index().0;
        for _ in 0..200_000 {
            let (index, _) = stream.next_index();
            singles[index] += 1;
            pairs[previous * n + index] += 1;
            previous = index;
        }
        // Upper 0.1% points of chi-square with 9 and 99 degrees of freedom.
        assert!(chi_square(&singles) < 27.88, "{singles:?}");
        assert!(
            chi_square(&pairs) < 148.23,
            "pairs chi2 = {}",
            chi_square(&pairs)
        );
    }
}
