//! Errors from reading and writing baselines.

use std::io;
use std::path::PathBuf;

use miette::Diagnostic;

use crate::diagnostic::FileDiagnostic;
use crate::exit_code::ExitCode;

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum BaselineError {
    #[error("cannot {action} baseline file `{}`", path.display())]
    #[diagnostic(code(agenteval::baseline::io))]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error(transparent)]
    #[diagnostic(transparent)]
    Invalid(Box<FileDiagnostic>),

    #[error("no baseline `{name}` for suite `{suite}` (looked for `{}`)", path.display())]
    #[diagnostic(
        code(agenteval::baseline::missing),
        help(
            "create it on main with `agenteval-gate baseline update --name {name}`, or pass `--allow-missing-baseline` to pass with a note until one exists"
        )
    )]
    Missing {
        name: String,
        suite: String,
        path: PathBuf,
    },
}

impl BaselineError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Self::Io { .. } => ExitCode::Io,
            Self::Invalid(_) | Self::Missing { .. } => ExitCode::DataError,
        }
    }
}
