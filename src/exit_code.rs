//! Every process exit code, in one place (DESIGN §2, STYLE §3).
//!
//! The gate's verdict has its own code, distinct from every kind of breakage,
//! so a workflow can tell "the agent regressed" from "the gate is broken".

/// Process exit codes. Documented in the README; do not renumber.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ExitCode {
    /// Gate passed (warnings allowed), or the command succeeded.
    Success = 0,
    /// Unexpected internal error (a bug: please report it).
    Internal = 1,
    /// Gate failed: confirmed regression or absolute threshold breach at or
    /// above `--fail-on`, or too many judge errors.
    GateFailed = 2,
    /// Nothing was evaluated (no cases selected); `--allow-empty` turns this into 0.
    NothingEvaluated = 4,
    /// Usage error: bad flags or arguments.
    Usage = 64,
    /// Bad input data: a trace, evidence, report or baseline file.
    DataError = 65,
    /// The verdict could not be reached: judge or GitHub unavailable after retries, or most
    /// cases failed for one infrastructure cause (the agent could not start).
    Unavailable = 69,
    /// I/O error: a file could not be read or written.
    Io = 74,
    /// Invalid suite spec or configuration.
    Config = 78,
    /// Stopped by SIGINT (128 + 2): agents killed, scratch removed, what was
    /// known written.
    Interrupted = 130,
    /// Stopped by SIGTERM (128 + 15), as for SIGINT.
    Terminated = 143,
}

impl ExitCode {
    /// All codes, for docs and tests.
    pub const ALL: [ExitCode; 11] = [
        Self::Success,
        Self::Internal,
        Self::GateFailed,
        Self::NothingEvaluated,
        Self::Usage,
        Self::DataError,
        Self::Unavailable,
        Self::Io,
        Self::Config,
        Self::Interrupted,
        Self::Terminated,
    ];

    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn meaning(self) -> &'static str {
        match self {
            Self::Success => "gate passed (warnings allowed)",
            Self::Internal => "unexpected internal error",
            Self::GateFailed => {
                "gate failed: confirmed regression or threshold breach at or above --fail-on"
            }
            Self::NothingEvaluated => "nothing evaluated (--allow-empty turns this into 0)",
            Self::Usage => "usage error",
            Self::DataError => "bad input data (trace, evidence, report, baseline)",
            Self::Unavailable => {
                "verdict not reached: judge or GitHub unavailable, or the agent could not run"
            }
            Self::Io => "I/O error",
            Self::Config => "invalid suite spec or config",
            Self::Interrupted => "interrupted by SIGINT",
            Self::Terminated => "terminated by SIGTERM",
        }
    }
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(code: ExitCode) -> Self {
        std::process::ExitCode::from(code.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_and_match_design() {
        let codes: Vec<u8> = ExitCode::ALL.iter().map(|c| c.code()).collect();
        assert_eq!(codes, [0, 1, 2, 4, 64, 65, 69, 74, 78, 130, 143]);
    }
}
