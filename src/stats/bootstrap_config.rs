//! Settings of the paired bootstrap, validated once (resample count, confidence, seed).

use super::error::StatsError;

/// Bootstrap settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BootstrapConfig {
    /// Number of resamples `B`.
    pub resamples: u32,
    /// Two-sided confidence level of the interval, e.g. 0.95.
    pub confidence: f64,
    /// Run seed (`--seed`), mixed with each metric name.
    pub seed: u64,
}

impl BootstrapConfig {
    pub const DEFAULT_RESAMPLES: u32 = 10_000;
    pub const DEFAULT_CONFIDENCE: f64 = 0.95;
    /// Resample means are held in memory (8 bytes each, per metric in flight).
    pub const MAX_RESAMPLES: u32 = 10_000_000;

    /// A validated configuration.
    pub fn new(resamples: u32, confidence: f64, seed: u64) -> Result<Self, StatsError> {
        let cfg = Self {
            resamples,
            confidence,
            seed,
        };
        cfg.validate()?;
        Ok(cfg)
    }

    /// Checks `1 ≤ resamples ≤ MAX_RESAMPLES` and `0 < confidence < 1`.
    pub fn validate(&self) -> Result<(), StatsError> {
        if !(1..=Self::MAX_RESAMPLES).contains(&self.resamples) {
            return Err(StatsError::Resamples {
                resamples: self.resamples,
                max: Self::MAX_RESAMPLES,
            });
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(StatsError::Confidence(self.confidence));
        }
        Ok(())
    }
}

impl Default for BootstrapConfig {
    fn default() -> Self {
        Self {
            resamples: Self::DEFAULT_RESAMPLES,
            confidence: Self::DEFAULT_CONFIDENCE,
            seed: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::try_paired_bootstrap;

    #[test]
    fn config_is_validated() {
        assert!(BootstrapConfig::new(0, 0.95, 0).is_err());
        assert!(BootstrapConfig::new(BootstrapConfig::MAX_RESAMPLES + 1, 0.95, 0).is_err());
        assert!(BootstrapConfig::new(100, 1.0, 0).is_err());
        assert!(BootstrapConfig::new(100, f64::NAN, 0).is_err());
        let bad = BootstrapConfig {
            resamples: 0,
            confidence: 0.95,
            seed: 0,
        };
        assert_eq!(
            try_paired_bootstrap(&[1.0, 2.0], "m", &bad),
            Err(StatsError::Resamples {
                resamples: 0,
                max: BootstrapConfig::MAX_RESAMPLES
            })
        );
    }
}
