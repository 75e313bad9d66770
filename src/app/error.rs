//! The top-level error and its mapping to exit codes.
//!
//! Each domain has its own `thiserror` enum; this one wraps them with
//! `#[from]` and decides the exit code in one match ([`Error::exit_code`]).

use std::io;
use std::path::PathBuf;

use miette::Diagnostic;

use crate::baseline::BaselineError;
use crate::compare::error::CompareError;
use crate::exit_code::ExitCode;
use crate::github::GitHubError;
use crate::report::ReportError;
use crate::runner::RunnerError;
use crate::spec::SpecError;
use crate::trace::TraceError;

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum Error {
    /// Bad flags or arguments.
    #[error("{message}")]
    #[diagnostic(code(agenteval::usage))]
    Usage {
        message: String,
        #[help]
        help: Option<String>,
    },

    #[error("cannot {action} `{}`", path.display())]
    #[diagnostic(code(agenteval::io))]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// Writing to stdout failed (a closed pipe is not an error: see `main`).
    #[error("cannot write to stdout")]
    Stdout(#[source] io::Error),

    #[error(transparent)]
    #[diagnostic(transparent)]
    Spec(#[from] SpecError),

    #[error(transparent)]
    #[diagnostic(transparent)]
    Trace(#[from] TraceError),

    #[error(transparent)]
    #[diagnostic(transparent)]
    Report(#[from] ReportError),

    #[error(transparent)]
    #[diagnostic(transparent)]
    Baseline(#[from] BaselineError),

    #[error(transparent)]
    #[diagnostic(transparent)]
    GitHub(#[from] GitHubError),

    #[error(transparent)]
    #[diagnostic(transparent)]
    Runner(#[from] RunnerError),

    #[error(transparent)]
    #[diagnostic(transparent)]
    Compare(#[from] CompareError),

    #[error(transparent)]
    #[diagnostic(transparent)]
    Judge(#[from] crate::llm::JudgeError),

    /// A bug: an invariant did not hold.
    #[error("internal error: {0}")]
    #[diagnostic(
        code(agenteval::internal),
        help("this is a bug in agenteval-gate; please report it with the command you ran")
    )]
    Internal(String),
}

impl Error {
    pub fn usage(message: impl Into<String>) -> Self {
        Self::Usage {
            message: message.into(),
            help: None,
        }
    }

    pub fn usage_with_help(message: impl Into<String>, help: impl Into<String>) -> Self {
        Self::Usage {
            message: message.into(),
            help: Some(help.into()),
        }
    }

    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        Self::Io {
            action,
            path: path.into(),
            source,
        }
    }

    /// The one place errors become exit codes.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Self::Usage { .. } => ExitCode::Usage,
            Self::Io { .. } | Self::Stdout(_) => ExitCode::Io,
            Self::Spec(e) => e.exit_code(),
            Self::Trace(e) => e.exit_code(),
            Self::Report(e) => e.exit_code(),
            Self::Baseline(e) => e.exit_code(),
            Self::GitHub(e) => e.exit_code(),
            Self::Runner(e) => e.exit_code(),
            Self::Compare(e) => e.exit_code(),
            Self::Judge(e) => e.exit_code(),
            Self::Internal(_) => ExitCode::Internal,
        }
    }

    /// Whether this is stdout closing under us (`… | head`), which is not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Self::Stdout(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl From<crate::output::OutputError> for Error {
    fn from(e: crate::output::OutputError) -> Self {
        use crate::output::OutputError;
        match e {
            OutputError::Stdout(e) => Self::Stdout(e),
            OutputError::Write { path, source } => Self::io("write", path, source),
            OutputError::NotACommand(line) => {
                Self::Internal(format!("not a single workflow command: {line:?}"))
            }
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
