//! The historical 2σ leg of DESIGN §8: is the head suite mean outside the range the
//! baseline history has shown?
//!
//! The band uses the last `window` suite means of a metric from the baseline history (oldest
//! first, so "last" is most recent): `μ ± k·σ`, with `μ` their mean and
//! `σ = max(sample sd of those means (n − 1), se_floor)`, where the caller passes the standard
//! error of the baseline's own suite mean (from its per-case values) as `se_floor`: a history
//! that happens to be flat says nothing about how far one run's mean can move by chance.
//! Fewer than [`MIN_SIGMA_POINTS`] points, or `σ = 0` (no spread anywhere), make the leg
//! unavailable, which is its own outcome, never a pass or a fail (STYLE §4): a band of zero
//! width would fire on any change at all. The band is clipped to the metric's domain
//! (a pass rate cannot exceed 100%).

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
    Unavailable(SigmaUnavailable),
}

/// Why the 2σ leg cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SigmaUnavailable {
    /// Too little history: `points` (< [`MIN_SIGMA_POINTS`]) were available.
    TooFewPoints { points: usize },
    /// The history never moved and the baseline's per-case values have no spread: σ = 0.
    NoSpread { points: usize },
}

impl std::fmt::Display for SigmaUnavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooFewPoints { points } => write!(
                f,
                "{points} history point{} (needs {MIN_SIGMA_POINTS})",
                if *points == 1 { "" } else { "s" }
            ),
            Self::NoSpread { points } => write!(
                f,
                "no spread: {points} identical history means and identical per-case baseline values (σ = 0)"
            ),
        }
    }
}

/// The `k_sigma` band over the last `window` points of `history` (oldest first), with
/// `σ ≥ se_floor`, clipped to `domain` (`[lo, hi]`, infinite ends allowed). Errors on a
/// non-finite history point (in the window), a negative or non-finite `k_sigma` or
/// `se_floor`.
pub fn sigma_band(
    history: &[f64],
    window: usize,
    k_sigma: f64,
    se_floor: f64,
    domain: (f64, f64),
) -> Result<SigmaOutcome, StatsError> {
    if !(k_sigma.is_finite() && k_sigma > 0.0) {
        return Err(StatsError::KSigma(k_sigma));
    }
    if !(se_floor.is_finite() && se_floor >= 0.0) {
        return Err(StatsError::NonFinite {
            index: 0,
            value: se_floor,
        });
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
        return Ok(SigmaOutcome::Unavailable(SigmaUnavailable::TooFewPoints {
            points: recent.len(),
        }));
    }
    let too_large = StatsError::Overflow {
        max_abs: recent.iter().fold(0.0, |m: f64, v| m.max(v.abs())),
        n: recent.len(),
    };
    let (Some(mean), Some(sd)) = (mean(recent), sample_sd(recent)) else {
        return Err(too_large);
    };
    let sd = sd.max(se_floor);
    if sd == 0.0 {
        return Ok(SigmaOutcome::Unavailable(SigmaUnavailable::NoSpread {
            points: recent.len(),
        }));
    }
    let (lower, upper) = (mean - k_sigma * sd, mean + k_sigma * sd);
    if !(lower.is_finite() && upper.is_finite()) {
        return Err(too_large);
    }
    let (lower, upper) = (lower.max(domain.0), upper.min(domain.1));
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
#[expect(clippy::float_cmp, reason = "clipping gives the domain bound exactly")]
mod tests {
    use super::*;

    const ANY: (f64, f64) = (f64::NEG_INFINITY, f64::INFINITY);

    fn band(outcome: SigmaOutcome) -> SigmaBand {
        match outcome {
            SigmaOutcome::Available(band) => band,
            SigmaOutcome::Unavailable(why) => panic!("unavailable: {why}"),
        }
    }

    #[test]
    fn uses_the_last_window_points() {
        // Old points far away must not count: the window holds 10, 12, 14, 16, 18.
        let history = [1000.0, -1000.0, 10.0, 12.0, 14.0, 16.0, 18.0];
        let b = band(sigma_band(&history, 5, 2.0, 0.0, ANY).unwrap());
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
        let few = |points| {
            Ok(SigmaOutcome::Unavailable(SigmaUnavailable::TooFewPoints {
                points,
            }))
        };
        assert_eq!(sigma_band(&[1.0, 2.0, 3.0, 4.0], 20, 2.0, 0.1, ANY), few(4));
        assert_eq!(sigma_band(&[1.0; 30], 3, 2.0, 0.1, ANY), few(3));
        assert_eq!(sigma_band(&[], 20, 2.0, 0.1, ANY), few(0));
    }

    #[test]
    fn a_flat_history_uses_the_standard_error_or_is_unavailable() {
        // Issue 9: a zero-spread history gave a zero-width band that fired on any change.
        assert_eq!(
            sigma_band(&[0.8; 7], 20, 2.0, 0.0, ANY),
            Ok(SigmaOutcome::Unavailable(SigmaUnavailable::NoSpread {
                points: 7
            }))
        );
        let b = band(sigma_band(&[0.8; 7], 20, 2.0, 0.05, ANY).unwrap());
        assert_eq!(
            (b.sd, b.lower, b.upper),
            (0.05, 0.700_000_000_000_000_1, 0.9)
        );
        assert!(!fires(&b, 0.79, true) && fires(&b, 0.69, true));
        // The larger of the two wins.
        let b = band(sigma_band(&[1.0, 2.0, 3.0, 4.0, 5.0], 20, 2.0, 0.01, ANY).unwrap());
        assert!((b.sd - 2.5_f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn bands_are_clipped_to_the_domain() {
        // "97.3% … 101.3%" in issue 9: a pass rate's band ends at 100%.
        let b = band(
            sigma_band(
                &[99.0, 100.0, 99.5, 98.5, 100.0],
                20,
                2.0,
                0.0,
                (0.0, 100.0),
            )
            .unwrap(),
        );
        assert_eq!(b.upper, 100.0);
        assert!(b.lower > 97.0 && b.lower < 99.0);
        let b = band(sigma_band(&[0.01, 0.03, 0.0, 0.02, 0.01], 20, 2.0, 0.0, (0.0, 1.0)).unwrap());
        assert_eq!(b.lower, 0.0);
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
            sigma_band(&[1.0; 6], 20, -1.0, 0.0, ANY),
            Err(StatsError::KSigma(-1.0))
        );
        assert!(sigma_band(&[1.0; 6], 20, 0.0, 0.0, ANY).is_err());
        assert!(sigma_band(&[1.0; 6], 20, 2.0, f64::NAN, ANY).is_err());
        let err =
            sigma_band(&[1.0, 2.0, f64::INFINITY, 4.0, 5.0, 6.0], 20, 2.0, 0.0, ANY).unwrap_err();
        assert!(
            matches!(err, StatsError::NonFinite { index: 2, .. }),
            "{err:?}"
        );
        // A NaN outside the window is not looked at.
        assert!(sigma_band(&[f64::NAN, 1.0, 2.0, 3.0, 4.0, 5.0], 5, 2.0, 0.0, ANY).is_ok());
        assert!(sigma_band(&[f64::MAX, -f64::MAX, 0.0, 0.0, 0.0], 5, 2.0, 0.0, ANY).is_err());
    }
}
