//! Errors from loading and linting a suite.

use std::io;
use std::path::PathBuf;

use miette::Diagnostic;

use crate::diagnostic::FileDiagnostic;
use crate::exit_code::ExitCode;

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum SpecError {
    #[error("suite file `{}` not found", path.display())]
    #[diagnostic(code(agenteval::spec::not_found))]
    NotFound {
        path: PathBuf,
        #[help]
        help: String,
    },

    #[error("cannot read `{}`", path.display())]
    #[diagnostic(code(agenteval::spec::io))]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// The suite has errors; each is a located diagnostic.
    #[error("{} has {count} error{}", path.display(), if *count == 1 { "" } else { "s" })]
    #[diagnostic(code(agenteval::spec::invalid))]
    Invalid {
        path: PathBuf,
        count: usize,
        #[related]
        diagnostics: Vec<FileDiagnostic>,
    },

    /// `agenteval.yaml` is invalid.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Config(Box<FileDiagnostic>),

    /// A value in `agenteval.yaml` is out of range.
    #[error("{message}")]
    #[diagnostic(code(agenteval::config::value))]
    ConfigValue {
        message: String,
        #[help]
        help: String,
    },
}

impl SpecError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Self::Io { .. } => ExitCode::Io,
            Self::NotFound { .. }
            | Self::Invalid { .. }
            | Self::Config(_)
            | Self::ConfigValue { .. } => ExitCode::Config,
        }
    }

    /// Wrap error-level diagnostics (warnings are dropped by the caller, who prints them).
    pub fn invalid(path: impl Into<PathBuf>, diagnostics: Vec<FileDiagnostic>) -> Self {
        Self::Invalid {
            path: path.into(),
            count: diagnostics.len(),
            diagnostics,
        }
    }
}
