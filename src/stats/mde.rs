//! Minimum detectable effect: the smallest true mean difference the paired test would catch
//! with the given power, shown in the PR comment so "no regression" is read with its
//! resolution.
//!
//! Normal approximation for a one-sided test at level α on `n` paired differences with
//! standard deviation `s`: `MDE = (z₁₋α + z_power) · s / √n`, with quantiles of the standard
//! normal from `statrs`. The bootstrap is not exactly this test, so the MDE is a guide, not a
//! guarantee (the bench prints the bootstrap's simulated power at a few shifts to compare).

use statrs::distribution::{ContinuousCDF, Normal};

/// Power used for the reported MDE.
pub const DEFAULT_POWER: f64 = 0.8;

/// The MDE at `alpha` and [`DEFAULT_POWER`]; see [`minimum_detectable_effect_with_power`].
pub fn minimum_detectable_effect(n: usize, sd_diff: f64, alpha: f64) -> Option<f64> {
    minimum_detectable_effect_with_power(n, sd_diff, alpha, DEFAULT_POWER)
}

/// `(z₁₋α + z_power) · sd_diff / √n`. `None` when it is undefined: `n < 2`, an `sd_diff` that
/// is zero, negative or not finite (zero spread says nothing about the noise level), `alpha`
/// or `power` outside `(0, 1)`, or `power ≤ alpha` (no positive effect has that power).
pub fn minimum_detectable_effect_with_power(
    n: usize,
    sd_diff: f64,
    alpha: f64,
    power: f64,
) -> Option<f64> {
    let in_unit = |x: f64| x > 0.0 && x < 1.0;
    let defined = n >= 2
        && sd_diff.is_finite()
        && sd_diff > 0.0
        && in_unit(alpha)
        && in_unit(power)
        && power > alpha;
    if !defined {
        return None;
    }
    let normal = Normal::standard();
    let z = normal.inverse_cdf(1.0 - alpha) + normal.inverse_cdf(power);
    let mde = z * sd_diff / (n as f64).sqrt();
    (mde.is_finite() && mde > 0.0).then_some(mde)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textbook_value() {
        // z(0.95) + z(0.8) = 1.6448536 + 0.8416212 = 2.4864748; sd 1, n 100 -> 0.24864748.
        let mde = minimum_detectable_effect(100, 1.0, 0.05).unwrap();
        assert!((mde - 0.248_647_48).abs() < 1e-7, "{mde}");
    }

    #[test]
    fn scales_with_sd_and_root_n() {
        let a = minimum_detectable_effect(25, 2.0, 0.05).unwrap();
        let b = minimum_detectable_effect(100, 2.0, 0.05).unwrap();
        let c = minimum_detectable_effect(100, 4.0, 0.05).unwrap();
        assert!((a / b - 2.0).abs() < 1e-12 && (c / b - 2.0).abs() < 1e-12);
    }

    #[test]
    fn undefined_cases() {
        assert_eq!(minimum_detectable_effect(1, 1.0, 0.05), None);
        assert_eq!(minimum_detectable_effect(30, 0.0, 0.05), None);
        assert_eq!(minimum_detectable_effect(30, f64::NAN, 0.05), None);
        assert_eq!(minimum_detectable_effect(30, 1.0, 0.0), None);
        assert_eq!(
            minimum_detectable_effect_with_power(30, 1.0, 0.05, 1.0),
            None
        );
        assert_eq!(
            minimum_detectable_effect_with_power(30, 1.0, 0.3, 0.2),
            None
        );
    }
}
