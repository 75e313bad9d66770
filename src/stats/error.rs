//! Errors from the statistics module: input that no estimate can be made from.
//!
//! Degenerate-but-valid input (too few points, zero variance) is not an error: it is
//! reported as `None` or an "unavailable" outcome (STYLE §4). These variants are for
//! input that is invalid, so that the caller can say exactly which value was wrong.

use miette::Diagnostic;

#[derive(Debug, Clone, PartialEq, thiserror::Error, Diagnostic)]
pub enum StatsError {
    /// No values at all.
    #[error("adaptive trials: {reason}")]
    Selection { reason: String },

    #[error("no values to analyse")]
    #[diagnostic(code(agenteval::stats::empty))]
    Empty,

    /// A NaN or infinite input value.
    #[error("value #{index} is not finite (`{value}`)")]
    #[diagnostic(
        code(agenteval::stats::non_finite),
        help("metric values must be finite numbers; this is a bug in whatever produced them")
    )]
    NonFinite { index: usize, value: f64 },

    /// Values so large that summing `n` of them could overflow `f64`.
    #[error("values up to `{max_abs:e}` over {n} cases are too large to sum without overflow")]
    #[diagnostic(code(agenteval::stats::overflow))]
    Overflow { max_abs: f64, n: usize },

    /// A p-value outside `[0, 1]`.
    #[error("p-value #{index} is `{value}`, outside [0, 1]")]
    #[diagnostic(code(agenteval::stats::p_value))]
    PValueOutOfRange { index: usize, value: f64 },

    /// A bootstrap with a number of resamples outside `1..=max`.
    #[error("`resamples` must be between 1 and {max}, got {resamples}")]
    #[diagnostic(
        code(agenteval::stats::resamples),
        help("the default is 10000; `--resamples` sets it")
    )]
    Resamples { resamples: u32, max: u32 },

    /// A confidence level outside `(0, 1)`.
    #[error("confidence level must be strictly between 0 and 1, got `{0}`")]
    #[diagnostic(code(agenteval::stats::confidence))]
    Confidence(f64),

    /// A band width (number of sigmas) that is negative or not finite.
    #[error("sigma band width must be a finite number >= 0, got `{0}`")]
    #[diagnostic(code(agenteval::stats::k_sigma))]
    KSigma(f64),
}
