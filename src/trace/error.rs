//! Errors from reading a trace file.

use std::io;
use std::path::PathBuf;

use miette::Diagnostic;

use crate::diagnostic::FileDiagnostic;
use crate::exit_code::ExitCode;

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum TraceError {
    #[error("cannot read trace `{}`", path.display())]
    #[diagnostic(code(agenteval::trace::io))]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error("trace `{}` is empty", path.display())]
    #[diagnostic(
        code(agenteval::trace::empty),
        help("the agent wrote no spans; check that it flushes its exporter before exiting")
    )]
    Empty { path: PathBuf },

    /// Malformed JSON/JSONL, or a record that breaks its format's rules.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Invalid(Box<FileDiagnostic>),

    /// Valid JSON that is no trace format we know.
    #[error(transparent)]
    #[diagnostic(transparent)]
    UnknownFormat(Box<FileDiagnostic>),
}

impl TraceError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Self::Io { .. } => ExitCode::Io,
            Self::Empty { .. } | Self::Invalid(_) | Self::UnknownFormat(_) => ExitCode::DataError,
        }
    }

    /// The error on one line, with its location and hint when it has them.
    pub fn one_line(&self) -> String {
        match self {
            Self::Invalid(d) | Self::UnknownFormat(d) => d.one_line(),
            other => other.to_string(),
        }
    }

    pub fn invalid(diagnostic: FileDiagnostic) -> Self {
        Self::Invalid(Box::new(diagnostic))
    }

    pub fn unknown_format(diagnostic: FileDiagnostic) -> Self {
        Self::UnknownFormat(Box::new(diagnostic))
    }
}
