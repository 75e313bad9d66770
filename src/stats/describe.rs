//! Descriptive statistics (mean, sample standard deviation, median) that never return NaN.
//!
//! Degenerate input gives `None` (STYLE §4): no mean of nothing, no spread of fewer than two
//! points, nothing at all from a NaN or an infinity, and `None` again when a finite input
//! overflows on the way (e.g. the sum of two values near `f64::MAX`).
//!
//! A zero standard deviation is a value here, not `None`: the 2σ band legitimately collapses
//! onto the mean when history never moved (DESIGN §8). Callers that *divide* by a standard
//! deviation (the minimum detectable effect, z-scores) guard zero themselves.

use super::error::StatsError;

/// The index and value of the first NaN or infinite entry, if any.
pub(crate) fn check_finite(values: &[f64]) -> Result<(), StatsError> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(StatsError::NonFinite {
            index,
            value: values[index],
        }),
        None => Ok(()),
    }
}

/// Whether every value is the same number (`-0.0` and `0.0` count as the same).
#[expect(clippy::float_cmp, reason = "exact equality is the point")]
pub(crate) fn all_equal(values: &[f64]) -> bool {
    values.iter().all(|v| *v == values[0])
}

/// Arithmetic mean, summed in input order. `None` for no values or any non-finite value.
/// Equal values give exactly that value back (ten times 0.1 does not
/// sum to 1.0), so a flat history has a mean equal to its points and a zero spread.
pub fn mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() || check_finite(values).is_err() {
        return None;
    }
    if all_equal(values) {
        // `+ 0.0` turns -0.0 into 0.0.
        return Some(values[0] + 0.0);
    }
    let n = values.len() as f64;
    let sum: f64 = values.iter().sum();
    if sum.is_finite() {
        return Some(sum / n);
    }
    // The sum overflowed; the mean of finite values is finite, so divide first.
    let mean: f64 = values.iter().map(|v| v / n).sum();
    mean.is_finite().then_some(mean)
}

/// Sample variance with the n − 1 denominator, computed in two passes (mean first, then
/// squared deviations) so that a large common offset does not cancel catastrophically.
/// `None` for fewer than two values, non-finite input, or overflow.
pub fn sample_variance(values: &[f64]) -> Option<f64> {
    if values.len() < 2 {
        return None;
    }
    let m = mean(values)?;
    let squares: f64 = values.iter().map(|v| (v - m) * (v - m)).sum();
    let variance = squares / (values.len() - 1) as f64;
    variance.is_finite().then_some(variance)
}

/// Sample standard deviation (n − 1). `None` for fewer than two values or non-finite input;
/// `Some(0.0)` when every value is equal.
pub fn sample_sd(values: &[f64]) -> Option<f64> {
    sample_variance(values).map(f64::sqrt)
}

/// Median (the mean of the two middle values for an even count). `None` for no values or
/// non-finite input.
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() || check_finite(values).is_err() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    let median = if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        // Halve before adding so two values near f64::MAX do not overflow.
        sorted[mid - 1] / 2.0 + sorted[mid] / 2.0
    };
    Some(median)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_of_known_values() {
        assert_eq!(mean(&[1.0, 2.0, 3.0, 4.0]), Some(2.5));
        assert_eq!(mean(&[-3.0]), Some(-3.0));
        assert_eq!(mean(&[0.1; 10]), Some(0.1), "not 0.09999999999999999");
        assert_eq!(mean(&[f64::MAX, f64::MAX]), Some(f64::MAX));
        assert_eq!(
            mean(&[f64::MAX, f64::MAX / 2.0]),
            Some(f64::MAX * 0.75),
            "no overflow"
        );
    }

    #[test]
    fn mean_rejects_degenerate_input() {
        assert_eq!(mean(&[]), None);
        assert_eq!(mean(&[1.0, f64::NAN]), None);
        assert_eq!(mean(&[f64::INFINITY, 1.0]), None);
    }

    #[test]
    fn sample_sd_uses_n_minus_one() {
        // Deviations from the mean 5 are -3,-1,-1,-1,0,0,2,4: squares sum to 32, / 7.
        let values = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        let sd = sample_sd(&values).unwrap();
        assert!((sd - (32.0_f64 / 7.0).sqrt()).abs() < 1e-15, "{sd}");
    }

    #[test]
    fn sample_sd_degenerate_cases() {
        assert_eq!(sample_sd(&[]), None);
        assert_eq!(sample_sd(&[1.0]), None);
        assert_eq!(sample_sd(&[1.0, f64::NAN]), None);
        assert_eq!(sample_sd(&[0.1, 0.1, 0.1]), Some(0.0));
        assert_eq!(
            sample_sd(&[f64::MAX, -f64::MAX]),
            None,
            "overflow is None, not inf"
        );
    }

    #[test]
    fn sample_sd_is_stable_under_a_large_offset() {
        let base = [1.0, 2.0, 3.0, 4.0];
        let shifted: Vec<f64> = base.iter().map(|v| v + 1e9).collect();
        let a = sample_sd(&base).unwrap();
        let b = sample_sd(&shifted).unwrap();
        assert!((a - b).abs() < 1e-6, "{a} vs {b}");
    }

    #[test]
    fn median_odd_even_and_degenerate() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[f64::MAX, f64::MAX]), Some(f64::MAX));
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[f64::NAN]), None);
    }
}
