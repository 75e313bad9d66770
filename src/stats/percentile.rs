//! Percentiles of a bootstrap distribution by selection, not sorting.
//!
//! The definition is numpy's default (`method="linear"`, Hyndman & Fan type 7), which is
//! also what `scipy.stats.bootstrap(method="percentile")` reports: for sorted values
//! `x₀ ≤ … ≤ x_{B−1}` and probability `q`, let `h = (B − 1)·q`, `i = ⌊h⌋`, `g = h − i`;
//! the percentile is `x_i + g·(x_{i+1} − x_i)`, written as numpy's `_lerp` writes it.
//! `select_nth_unstable` finds `x_i` in O(B), and `x_{i+1}` is the minimum of what lies
//! above it.

/// The `q_low` and `q_high` percentiles (`0 ≤ q_low ≤ q_high ≤ 1`) of `values`, which must
/// be non-empty and NaN-free. Reorders `values`.
pub(crate) fn percentile_pair(values: &mut [f64], q_low: f64, q_high: f64) -> (f64, f64) {
    debug_assert!(!values.is_empty() && (0.0..=1.0).contains(&q_low) && q_low <= q_high);
    let last = (values.len() - 1) as f64;
    let h_low = last * q_low;
    let h_high = last * q_high;
    let i_low = h_low.floor() as usize;
    let low = interpolated(values, i_low, h_low - h_low.floor());
    // Everything from i_low + 1 on is >= x_{i_low}: the upper order statistic is found there
    // (unless it is x_{i_low} itself).
    let i_high = h_high.floor() as usize;
    let high = if i_high == i_low {
        interpolated_from_selected(values, i_low, h_high - h_high.floor())
    } else {
        let upper = &mut values[i_low + 1..];
        interpolated(upper, i_high - i_low - 1, h_high - h_high.floor())
    };
    (low, high)
}

/// Selects order statistic `i` of `values` and interpolates towards `i + 1`.
fn interpolated(values: &mut [f64], i: usize, g: f64) -> f64 {
    values.select_nth_unstable_by(i, f64::total_cmp);
    interpolated_from_selected(values, i, g)
}

/// Like [`interpolated`] when `values[i]` is already order statistic `i`.
fn interpolated_from_selected(values: &[f64], i: usize, g: f64) -> f64 {
    let a = values[i];
    if g == 0.0 {
        return a;
    }
    let b = values[i + 1..]
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    if !b.is_finite() {
        return a;
    }
    let diff = b - a;
    if g >= 0.5 {
        b - diff * (1.0 - g)
    } else {
        a + diff * g
    }
}

#[cfg(test)]
#[expect(
    clippy::float_cmp,
    reason = "the tests assert exact, reproducible results"
)]
mod tests {
    use super::*;

    /// Straightforward definition on a sorted copy, for comparison.
    fn sorted_percentile(values: &[f64], q: f64) -> f64 {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let virtual_index = (sorted.len() - 1) as f64 * q;
        let below = virtual_index.floor() as usize;
        let fraction = virtual_index - virtual_index.floor();
        if fraction == 0.0 {
            return sorted[below];
        }
        let (lo, hi) = (sorted[below], sorted[below + 1]);
        if fraction >= 0.5 {
            hi - (hi - lo) * (1.0 - fraction)
        } else {
            lo + (hi - lo) * fraction
        }
    }

    #[test]
    fn matches_numpy_linear_on_a_known_case() {
        // numpy.percentile([1, 2, 3, 4, 10], [2.5, 97.5]) == [1.1, 9.4]
        let mut values = [10.0, 3.0, 1.0, 4.0, 2.0];
        let (low, high) = percentile_pair(&mut values, 0.025, 0.975);
        assert!((low - 1.1).abs() < 1e-12, "{low}");
        assert!((high - 9.4).abs() < 1e-12, "{high}");
    }

    #[test]
    fn matches_sorting_for_many_sizes_and_levels() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for len in [1_usize, 2, 3, 10, 41, 1000, 10_001] {
            let values: Vec<f64> = (0..len)
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1);
                    ((state >> 11) % 97) as f64 - 48.0
                })
                .collect();
            for (ql, qh) in [
                (0.025, 0.975),
                (0.0, 1.0),
                (0.5, 0.5),
                (0.05, 0.95),
                (0.3, 0.3001),
            ] {
                let mut scratch = values.clone();
                let (low, high) = percentile_pair(&mut scratch, ql, qh);
                assert_eq!(low, sorted_percentile(&values, ql), "len {len} q {ql}");
                assert_eq!(high, sorted_percentile(&values, qh), "len {len} q {qh}");
            }
        }
    }
}
