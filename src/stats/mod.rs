//! Statistics: the sign-flip permutation test, the stratified permutation test for several
//! trials per case, the paired bootstrap, Benjamini–Hochberg, the historical 2σ band, the minimum
//! detectable effect and MAD outliers (DESIGN §8, STYLE §4). Pure and synchronous: no I/O.

mod bootstrap;
mod bootstrap_config;
mod describe;
mod error;
mod fdr;
mod mde;
mod outlier;
mod paired;
mod percentile;
mod rng;
mod sampler;
mod sigma;
mod signflip;
mod strata;

pub use bootstrap::{
    PairedBootstrap, paired_bootstrap, paired_bootstrap_many, try_paired_bootstrap,
    try_paired_bootstrap_many,
};
pub use bootstrap_config::BootstrapConfig;
pub use describe::{mean, median, sample_sd, sample_variance};
pub use error::StatsError;
pub use fdr::benjamini_hochberg;
pub use mde::{DEFAULT_POWER, minimum_detectable_effect, minimum_detectable_effect_with_power};
pub use outlier::{OUTLIER_THRESHOLD, modified_z_scores, outlier_indices};
pub use paired::{PairedTest, PairedTestKind, paired_test, paired_test_many};
pub use rng::{MetricRng, RNG_ALGORITHM};
pub use sigma::{
    DEFAULT_K_SIGMA, DEFAULT_SIGMA_WINDOW, MIN_SIGMA_POINTS, SigmaBand, SigmaOutcome,
    SigmaUnavailable, fires, sigma_band,
};
pub use signflip::{EXACT_MAX_K, SignFlip, SignFlipMethod, needed_changed, sign_flip_test};
pub use strata::{
    ENUMERATE_MAX, PRIOR_DF, Selection, Statistic, StrataCi, StrataMethod, StrataTest, Stratum,
    rerun_rule, stratified_ci, stratified_test, stratified_test_until,
};
