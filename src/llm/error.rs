//! Judge errors: [`JudgeError`] stops a command (bad settings, a judge that
//! cannot be reached at all); [`CallError`] is one call's failure, which
//! never stops anything: the item becomes N/A `judge_error` and is counted.

use std::path::PathBuf;
use std::time::Duration;

use miette::Diagnostic;

use crate::exit_code::ExitCode;

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum JudgeError {
    /// A judge flag out of range or inconsistent (exit 64).
    #[error("{message}")]
    #[diagnostic(code(agenteval::judge::usage))]
    Usage {
        message: String,
        #[help]
        help: String,
    },

    /// `agenteval.yaml`, a suite's `judge:` or the environment is unusable (exit 78).
    #[error("{}{message}", source_prefix(.path.as_ref()))]
    #[diagnostic(code(agenteval::judge::config))]
    Config {
        path: Option<PathBuf>,
        message: String,
        #[help]
        help: String,
    },

    /// A prompt template that does not compile or render (exit 78).
    #[error("judge prompt template `{name}`{}: {message}", source_suffix(.path.as_ref()))]
    #[diagnostic(
        code(agenteval::judge::template),
        help(
            "templates are minijinja (Jinja2) syntax; compare with the built-in ones in `src/spec/templates/`"
        )
    )]
    Template {
        name: String,
        path: Option<PathBuf>,
        message: String,
    },

    /// Every call failed and none could be answered: the verdict cannot be reached (exit 69).
    #[error(
        "the judge `{judge}` is unavailable: {failed} of {attempted} calls failed and none was answered ({first_error})"
    )]
    #[diagnostic(
        code(agenteval::judge::unavailable),
        help(
            "check the base URL, the API key variable and the provider's status; `--judge none` evaluates without a judge (tier-3 checkpoints N/A)"
        )
    )]
    Unavailable {
        judge: String,
        attempted: u64,
        failed: u64,
        first_error: String,
    },

    /// A golden set that cannot be used (located in the file).
    #[error(transparent)]
    #[diagnostic(transparent)]
    Golden(Box<crate::diagnostic::FileDiagnostic>),

    #[error("cannot {action} `{}`", path.display())]
    #[diagnostic(code(agenteval::judge::io))]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The HTTP client or the async runtime could not start.
    #[error("cannot start the judge client: {0}")]
    #[diagnostic(code(agenteval::judge::client))]
    Client(String),
}

fn source_prefix(path: Option<&PathBuf>) -> String {
    path.map(|p| format!("{}: ", p.display()))
        .unwrap_or_default()
}

fn source_suffix(path: Option<&PathBuf>) -> String {
    path.map(|p| format!(" (`{}`)", p.display()))
        .unwrap_or_default()
}

impl From<crate::spec::prompts::PromptError> for JudgeError {
    fn from(e: crate::spec::prompts::PromptError) -> Self {
        use crate::spec::prompts::PromptError;
        match e {
            PromptError::Io {
                action,
                path,
                source,
            } => Self::Io {
                action,
                path,
                source,
            },
            PromptError::Template {
                name,
                path,
                message,
            } => Self::Template {
                name,
                path,
                message,
            },
        }
    }
}

impl JudgeError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Self::Usage { .. } => ExitCode::Usage,
            Self::Config { .. } | Self::Template { .. } => ExitCode::Config,
            Self::Unavailable { .. } => ExitCode::Unavailable,
            Self::Golden(_) => ExitCode::DataError,
            Self::Io { .. } => ExitCode::Io,
            Self::Client(_) => ExitCode::Internal,
        }
    }

    pub fn usage(message: impl Into<String>, help: impl Into<String>) -> Self {
        Self::Usage {
            message: message.into(),
            help: help.into(),
        }
    }

    pub fn config(
        path: Option<PathBuf>,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> Self {
        Self::Config {
            path,
            message: message.into(),
            help: help.into(),
        }
    }
}

/// Why one judge call produced no usable answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CallError {
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    #[error("connection failed: {0}")]
    Connect(String),
    #[error("rate limited (HTTP 429){}", retry_note(*.retry_after))]
    RateLimited { retry_after: Option<Duration> },
    #[error("server error (HTTP {status}){}", retry_note(*.retry_after))]
    Server {
        status: u16,
        retry_after: Option<Duration>,
    },
    #[error("authentication refused (HTTP {status}): {message}")]
    Auth { status: u16, message: String },
    #[error("request rejected (HTTP {status}): {message}")]
    Rejected { status: u16, message: String },
    /// HTTP 200 whose body is not the provider's answer format.
    #[error("malformed response: {0}")]
    Malformed(String),
    #[error("the model refused: {0}")]
    Refusal(String),
    #[error("the answer was cut off at the token limit")]
    Truncated,
    /// The answer does not follow the requested format (strict parsing).
    #[error("invalid answer: {0}")]
    Invalid(String),
    /// `replay`: the answer is not in the cache.
    #[error("not in judge cache")]
    NotInCache,
}

fn retry_note(d: Option<Duration>) -> String {
    d.map(|d| format!(", Retry-After {}s", d.as_secs()))
        .unwrap_or_default()
}

impl CallError {
    /// Worth another attempt at the same provider.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::Timeout(_) | Self::Connect(_) | Self::RateLimited { .. } | Self::Server { .. }
        )
    }

    /// The provider could not be reached or would not serve us (as opposed
    /// to answering badly). When every call fails this way, the judge is
    /// unavailable (exit 69).
    pub fn is_unavailability(&self) -> bool {
        self.is_retryable() || matches!(self, Self::Auth { .. })
    }

    /// What the server asked us to wait, if anything.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::RateLimited { retry_after } | Self::Server { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// A short, stable class for N/A reasons and counts (details vary per call).
    pub fn class(&self) -> &'static str {
        match self {
            Self::Timeout(_) => "timeout",
            Self::Connect(_) => "connection failed",
            Self::RateLimited { .. } => "rate limited",
            Self::Server { .. } => "server error",
            Self::Auth { .. } => "authentication refused",
            Self::Rejected { .. } => "request rejected",
            Self::Malformed(_) => "malformed response",
            Self::Refusal(_) => "refusal",
            Self::Truncated => "answer truncated",
            Self::Invalid(_) => "invalid answer",
            Self::NotInCache => "not in judge cache",
        }
    }
}
