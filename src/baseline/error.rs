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

    /// A baseline or suite name that cannot be a plain directory/file name.
    #[error("invalid {kind} `{name}`")]
    #[diagnostic(
        code(agenteval::baseline::name),
        help(
            "use letters, digits, `-`, `_` and `.` (not first): the name becomes a directory or file under the baselines directory"
        )
    )]
    InvalidName { kind: &'static str, name: String },

    /// A report written by an interrupted run: it lacks cases.
    #[error(
        "the report of suite `{suite}` is partial (the run was interrupted): not written as a baseline"
    )]
    #[diagnostic(
        code(agenteval::baseline::partial),
        help("run the suite to completion, then update the baseline")
    )]
    Partial { suite: String },

    /// The baseline directory's lock could not be taken.
    #[error("cannot lock baseline directory `{}`", path.display())]
    #[diagnostic(code(agenteval::baseline::lock))]
    Lock {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// `--baseline-ref`: git could not read the baselines at a revision.
    #[error("cannot read the baseline from git revision `{rev}`: {message}")]
    #[diagnostic(code(agenteval::baseline::git), help("{help}"))]
    Git {
        rev: String,
        message: String,
        help: String,
    },

    #[error(transparent)]
    #[diagnostic(transparent)]
    Unknown(Box<UnknownBaseline>),

    #[error("no baseline `{name}` for suite `{suite}` (looked for `{}`)", path.display())]
    #[diagnostic(
        code(agenteval::baseline::missing),
        help(
            "create it on main with `agenteval-gate baseline update --name {name}`; without `--require-baseline` a suite with no baseline at all passes with a note until one exists"
        )
    )]
    Missing {
        name: String,
        suite: String,
        path: PathBuf,
    },
}

/// `--baseline NAME` names no baseline of a suite that has others: a typo, not a first pull
/// request.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("no baseline `{name}` for suite `{suite}`; it has {}", others.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))]
#[diagnostic(code(agenteval::baseline::unknown_name), help("{help}"))]
pub struct UnknownBaseline {
    pub name: String,
    pub suite: String,
    pub others: Vec<String>,
    pub help: String,
}

impl UnknownBaseline {
    pub fn new(name: &str, suite: &str, others: Vec<String>) -> Self {
        let close = crate::output::closest(
            name,
            others.iter().map(String::as_str),
            crate::output::SIMILAR,
        )
        .map(|c| format!("did you mean `--baseline {c}`? "))
        .unwrap_or_default();
        Self {
            help: format!(
                "{close}the first-pull-request pass applies only to a suite with no baseline at all; if `{name}` is a new baseline name, create it on main with `agenteval-gate baseline update --name {name}`, or pass `--allow-missing-baseline` to pass with a note until it exists"
            ),
            name: name.to_owned(),
            suite: suite.to_owned(),
            others,
        }
    }
}

impl BaselineError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Self::Io { .. } | Self::Lock { .. } => ExitCode::Io,
            Self::InvalidName { .. } | Self::Unknown(_) => ExitCode::Usage,
            Self::Git { .. } => ExitCode::Config,
            Self::Invalid(_) | Self::Missing { .. } | Self::Partial { .. } => ExitCode::DataError,
        }
    }
}
