//! The historical 2σ control band of DESIGN §8: is the head suite mean outside the range the
//! baseline history has shown?
//!
//! The band uses the last `window` suite means of a metric from the baseline history (oldest
//! first, so "last" is most recent): `μ ± k·σ` with `σ` the sample standard deviation
//! (n − 1). Fewer than [`MIN_SIGMA_POINTS`] points make the leg unavailable, which is its own
//! outcome, never a pass or a fail (STYLE §4). A history that never moved has `σ = 0`, and the
//! band collapses onto the mean: any move in the bad direction then fires this leg, and the
//! bootstrap leg and `min_effect` decide whether it matters.

use super::describe::{check_finite, mean, sample_sd};
use super::error::StatsError;

/// Fewest history points for which a band is computed.
pub const MIN_SIGMA_POINTS: usize = 5;
/// Default number of most recent history points used (K in DESIGN §8).
pub const DEFAULT_SIGMA_WINDOW: usize = 20;
/// Default band half-width in standard deviations.
pub const DEFAULT_K_SIGMA: f64 = 2.0;

/// A computed band.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SigmaBand {
    pub mean: f64,
    pub sd: f64,
    pub lower: f64,
    pub upper: f64,
    /// History points used.
    pub points: usize,
}

/// The band, or why there is none.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SigmaOutcome {
    Available(SigmaBand),
    /// Too little history: `points` (< [`MIN_SIGMA_POINTS`]) were available.
    Unavailable {
        points: usize,
    },
}

/// The `k_sigma` band over the last `window` points of `history` (oldest first).
/// Errors on a non-finite history point (in the window) or a negative or non-finite
/// `k_sigma`.
pub fn sigma_band(
    history: &[f64],
    window: usize,
    k_sigma: f64,
) -> Result<SigmaOutcome, StatsError> {
    if !(k_sigma.is_finite() && k_sigma >= 0.0) {
        return Err(StatsError::KSigma(k_sigma));
    }
    let start = history.len().saturating_sub(window);
    let recent = &history[start..];
    check_finite(recent).map_err(|err| match err {
        StatsError::NonFinite { index, value } => StatsError::NonFinite {
            index: start + index,
            value,
        },
        other => other,
    })?;
    if recent.len() < MIN_SIGMA_POINTS {
        return Ok(SigmaOutcome::Unavailable {
            points: recent.len(),
        });
    }
    let too_large = StatsError::Overflow {
        max_abs: recent.iter().fold(0.0, |m: f64, v| m.max(v.abs())),
        n: recent.len(),
    };
    let (Some(mean), Some(sd)) = (mean(recent), sample_sd(recent)) else {
        return Err(too_large);
    };
    let (lower, upper) = (mean - k_sigma * sd, mean + k_sigma * sd);
    if !(lower.is_finite() && upper.is_finite()) {
        return Err(too_large);
    }
    Ok(SigmaOutcome::Available(SigmaBand {
        mean,
        sd,
        lower,
        upper,
        points: recent.len(),
    }))
}

/// Whether the band's regression leg fires for `head_mean`: below the lower limit when higher
/// is better, above the upper limit when lower is better (cost, latency). Strict, so a head
/// mean exactly on the limit does not fire. A NaN head mean never fires.
pub fn fires(band: &SigmaBand, head_mean: f64, higher_is_better: bool) -> bool {
    if higher_is_better {
        head_mean < band.lower
    } else {
        head_mean > band.upper
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn band(outcome: SigmaOutcome) -> SigmaBand {
        match outcome {
            SigmaOutcome::Available(band) => band,
            SigmaOutcome::Unavailable { points } => panic!("unavailable with {points} points"),
        }
    }

    #[test]
    fn uses_the_last_window_points() {
        // Old points far away must not count: the window holds 10, 12, 14, 16, 18.
        let history = [1000.0, -1000.0, 10.0, 12.0, 14.0, 16.0, 18.0];
        let b = band(sigma_band(&history, 5, 2.0).unwrap());
        assert_eq!((b.mean, b.points), (14.0, 5));
        let sd = 10.0_f64.sqrt(); // squares 16+4+0+4+16 = 40, / 4
        assert!((b.sd - sd).abs() < 1e-12);
        assert!(
            (b.lower - (14.0 - 2.0 * sd)).abs() < 1e-12
                && (b.upper - (14.0 + 2.0 * sd)).abs() < 1e-12
        );
    }

    #[test]
    fn too_little_history_is_unavailable() {
        assert_eq!(
            sigma_band(&[1.0, 2.0, 3.0, 4.0], 20, 2.0),
            Ok(SigmaOutcome::Unavailable { points: 4 })
        );
        assert_eq!(
            sigma_band(&[1.0; 30], 3, 2.0),
            Ok(SigmaOutcome::Unavailable { points: 3 })
        );
        assert_eq!(
            sigma_band(&[], 20, 2.0),
            Ok(SigmaOutcome::Unavailable { points: 0 })
        );
    }

    #[test]
    fn flat_history_collapses_the_band() {
        let b = band(sigma_band(&[0.8; 7], 20, 2.0).unwrap());
        assert_eq!((b.sd, b.lower, b.upper), (0.0, 0.8, 0.8));
        assert!(fires(&b, 0.79, true));
        assert!(!fires(&b, 0.8, true));
        assert!(fires(&b, 0.81, false));
    }

    #[test]
    fn fires_is_orientation_aware_and_strict() {
        let b = SigmaBand {
            mean: 10.0,
            sd: 1.0,
            lower: 8.0,
            upper: 12.0,
            points: 20,
        };
        assert!(fires(&b, 7.9, true) && !fires(&b, 8.0, true) && !fires(&b, 12.5, true));
        assert!(fires(&b, 12.1, false) && !fires(&b, 12.0, false) && !fires(&b, 7.0, false));
        assert!(!fires(&b, f64::NAN, true) && !fires(&b, f64::NAN, false));
    }

    #[test]
    fn bad_input_is_an_error() {
        assert_eq!(
            sigma_band(&[1.0; 6], 20, -1.0),
            Err(StatsError::KSigma(-1.0))
        );
        let err = sigma_band(&[1.0, 2.0, f64::INFINITY, 4.0, 5.0, 6.0], 20, 2.0).unwrap_err();
        assert!(
            matches!(err, StatsError::NonFinite { index: 2, .. }),
            "{err:?}"
        );
        // A NaN outside the window is not looked at.
        assert!(sigma_band(&[f64::NAN, 1.0, 2.0, 3.0, 4.0, 5.0], 5, 2.0).is_ok());
        assert!(sigma_band(&[f64::MAX, -f64::MAX, 0.0, 0.0, 0.0], 5, 2.0).is_err());
    }
}
