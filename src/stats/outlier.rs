//! Outliers by the modified z-score of Iglewicz & Hoaglin (1993), which uses the median and
//! the median absolute deviation (MAD) so one wild case cannot hide itself by inflating the
//! spread (STYLE §4).
//!
//! `Mᵢ = Φ⁻¹(3/4) · (xᵢ − median) / MAD`; `|Mᵢ| >` [`OUTLIER_THRESHOLD`] (3.5) flags an
//! outlier. When more than half the values are equal the MAD is 0; the score then falls back
//! to the mean absolute deviation around the median, `Mᵢ = (xᵢ − median) / (√(π/2) · MeanAD)`
//! (the same normal-consistency idea: `E|X − μ| = σ·√(2/π)`). When that is 0 too, every value
//! equals the median and every score is 0.

use std::f64::consts::PI;

use super::describe::{check_finite, median};

/// `|M| >` this flags an outlier (Iglewicz & Hoaglin's recommendation).
pub const OUTLIER_THRESHOLD: f64 = 3.5;

/// Φ⁻¹(0.75): makes the MAD a consistent estimator of σ for normal data.
const MAD_TO_SIGMA: f64 = 0.674_489_750_196_081_7;

/// Modified z-scores of `values`, in order. `None` for no values or a non-finite one.
pub fn modified_z_scores(values: &[f64]) -> Option<Vec<f64>> {
    check_finite(values).ok()?;
    let center = median(values)?;
    let deviations: Vec<f64> = values.iter().map(|v| (v - center).abs()).collect();
    let mad = median(&deviations)?;
    if mad > 0.0 {
        return Some(
            values
                .iter()
                .map(|v| MAD_TO_SIGMA * (v - center) / mad)
                .collect(),
        );
    }
    let mean_ad = deviations.iter().sum::<f64>() / values.len() as f64;
    if mean_ad > 0.0 && mean_ad.is_finite() {
        let scale = (PI / 2.0).sqrt() * mean_ad;
        return Some(values.iter().map(|v| (v - center) / scale).collect());
    }
    Some(vec![0.0; values.len()])
}

/// Indices of values whose modified z-score exceeds `threshold` in absolute value.
pub fn outlier_indices(values: &[f64], threshold: f64) -> Option<Vec<usize>> {
    let scores = modified_z_scores(values)?;
    Some(
        scores
            .iter()
            .enumerate()
            .filter(|(_, z)| z.abs() > threshold)
            .map(|(i, _)| i)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_a_known_sample() {
        // median 3, |deviations| 2 1 0 1 97 -> MAD 1.
        let z = modified_z_scores(&[1.0, 2.0, 3.0, 4.0, 100.0]).unwrap();
        let expected = [-2.0, -1.0, 0.0, 1.0, 97.0].map(|d| MAD_TO_SIGMA * d);
        assert_eq!(z, expected);
        assert_eq!(
            outlier_indices(&[1.0, 2.0, 3.0, 4.0, 100.0], OUTLIER_THRESHOLD),
            Some(vec![4])
        );
    }

    #[test]
    fn zero_mad_falls_back_to_mean_absolute_deviation() {
        // median 1, MAD 0; MeanAD = 5/5 = 1.
        let z = modified_z_scores(&[1.0, 1.0, 1.0, 1.0, 6.0]).unwrap();
        let scale = (PI / 2.0).sqrt();
        assert_eq!(z, vec![0.0, 0.0, 0.0, 0.0, 5.0 / scale]);
        assert!(z.iter().all(|v| v.is_finite()));
    }

    #[test]
    fn constant_values_score_zero() {
        assert_eq!(modified_z_scores(&[2.5; 4]), Some(vec![0.0; 4]));
        assert_eq!(outlier_indices(&[2.5; 4], OUTLIER_THRESHOLD), Some(vec![]));
    }

    #[test]
    fn degenerate_input_is_none() {
        assert_eq!(modified_z_scores(&[]), None);
        assert_eq!(modified_z_scores(&[1.0, f64::NAN]), None);
    }
}
