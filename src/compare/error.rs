//! Errors of a compare. A comparison that cannot be computed stops the gate: it never turns
//! into `unchanged` (DESIGN §8 "Fail closed").

use miette::Diagnostic;

use crate::exit_code::ExitCode;
use crate::stats::StatsError;

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum CompareError {
    /// The statistics could not be computed from the values (non-finite, too large).
    #[error("cannot compare `{metric}`")]
    #[diagnostic(
        code(agenteval::compare::stats),
        help(
            "the per-case values of this metric in the run or baseline report are not usable numbers; regenerate the report"
        )
    )]
    Stats {
        metric: String,
        #[source]
        source: StatsError,
    },

    /// Monte Carlo p-values cannot get small enough for the family to ever reach α.
    #[error(
        "{resamples} resamples cannot show a regression among {family} tested metrics: the smallest Monte Carlo p-value is 1/{}, and Benjamini–Hochberg needs p < {alpha}/{family}",
        u64::from(*resamples) + 1
    )]
    #[diagnostic(
        code(agenteval::compare::resamples),
        help("use `--resamples {needed}` or more (or `resamples: {needed}` in agenteval.yaml)")
    )]
    TooFewResamples {
        resamples: u32,
        needed: u64,
        family: usize,
        alpha: f64,
    },
}

impl CompareError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Self::Stats { .. } => ExitCode::DataError,
            Self::TooFewResamples { .. } => ExitCode::Usage,
        }
    }
}
