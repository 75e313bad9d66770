//! Errors from reading saved reports and rendering them.

use std::io;
use std::path::PathBuf;

use miette::Diagnostic;

use crate::diagnostic::FileDiagnostic;
use crate::exit_code::ExitCode;

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum ReportError {
    #[error("cannot read report `{}`", path.display())]
    #[diagnostic(code(agenteval::report::io))]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    #[error(transparent)]
    #[diagnostic(transparent)]
    Invalid(Box<FileDiagnostic>),

    #[error("report `{}` has schema_version {found}; this build reads {expected}", path.display())]
    #[diagnostic(
        code(agenteval::report::schema_version),
        help(
            "re-create the report with this version of agenteval-gate (`agenteval-gate run --out …`)"
        )
    )]
    SchemaVersion {
        path: PathBuf,
        found: u32,
        expected: u32,
    },

    /// A compiled-in template failed: a bug, never bad input (data is escaped, not parsed).
    #[error("cannot render the HTML report")]
    #[diagnostic(
        code(agenteval::report::render),
        help("this is a bug in agenteval-gate; please report it with the input report")
    )]
    Render(#[source] minijinja::Error),

    /// A valid run report that cannot become a baseline (a smoke tier, one shard).
    #[error("report `{}` cannot become a baseline: {reason}", path.display())]
    #[diagnostic(code(agenteval::report::not_a_baseline))]
    NotABaseline {
        path: PathBuf,
        reason: String,
        #[help]
        help: String,
    },
}

impl ReportError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Self::Io { .. } => ExitCode::Io,
            Self::Invalid(_) | Self::SchemaVersion { .. } | Self::NotABaseline { .. } => {
                ExitCode::DataError
            }
            Self::Render(_) => ExitCode::Internal,
        }
    }
}
