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

    /// The suite's `agent:` block cannot be run as written.
    #[error("suite `{suite}`: {message}")]
    #[diagnostic(code(agenteval::runner::agent_spec), help("{help}"))]
    AgentSpec {
        suite: String,
        message: String,
        help: String,
    },

    /// An agent task panicked: a bug in the runner, not in the agent.
    #[error("the run of case `{case}` stopped unexpectedly: {message}")]
    #[diagnostic(
        code(agenteval::runner::task),
        help("this is a bug in agenteval-gate; please report it with the command you ran")
    )]
    Task { case: String, message: String },

    /// Shard reports that do not merge.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Merge(#[from] crate::runner::merge::MergeError),

    /// SIGINT/SIGTERM during run mode: agents were killed. `partial` is the
    /// report of what was known (finished cases; the rest marked
    /// `agent_error`), for `run` to write; nothing else uses it.
    #[error("interrupted by {}", signal.name())]
    #[diagnostic(
        code(agenteval::runner::interrupted),
        help(
            "every agent process group was killed and the scratch directory removed; no verdict was reached"
        )
    )]
    Interrupted {
        signal: crate::interrupt::Interrupt,
        partial: Option<Box<crate::model::run::RunReport>>,
    },
    /// The judge's settings are unusable, or it cannot be reached at all.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Judge(#[from] crate::llm::JudgeError),

    /// A comparison that could not be computed (a tier's compare inside the progressive run).
    #[error(transparent)]
    #[diagnostic(transparent)]
    Compare(#[from] crate::compare::error::CompareError),

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
            Self::Catalog(_) | Self::AgentSpec { .. } => ExitCode::Config,
            Self::Task { .. } => ExitCode::Internal,
            Self::Merge(e) => e.exit_code(),
            Self::Interrupted { signal, .. } => match signal {
                crate::interrupt::Interrupt::Int => ExitCode::Interrupted,
                crate::interrupt::Interrupt::Term => ExitCode::Terminated,
            },
            Self::Judge(e) => e.exit_code(),
            Self::Compare(e) => e.exit_code(),
        }
    }
}
