//! Errors from orchestrating a run (not agent failures: those become case statuses).

use std::io;
use std::path::PathBuf;

use miette::Diagnostic;

use crate::exit_code::ExitCode;

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum RunnerError {
    #[error("cannot {action} `{}`", path.display())]
    #[diagnostic(code(agenteval::runner::io))]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// An evidence file that is not valid JSON.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Evidence(Box<crate::diagnostic::FileDiagnostic>),

    /// The tool catalog could not be compiled (lint reports this first).
    #[error("invalid tool catalog: {0}")]
    #[diagnostic(
        code(agenteval::runner::catalog),
        help("run `agenteval-gate lint` for the location")
    )]
    Catalog(String),

    #[error("no cases selected")]
    #[diagnostic(
        code(agenteval::runner::empty),
        help(
            "check `--suite`, `--tier` and `--shard`; pass `--allow-empty` if an empty selection is expected"
        )
    )]
    NothingSelected,
}

impl RunnerError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Self::Io { .. } => ExitCode::Io,
            Self::NothingSelected => ExitCode::NothingEvaluated,
            Self::Evidence(_) => ExitCode::DataError,
            Self::Catalog(_) => ExitCode::Config,
        }
    }
}
