//! Run-mode progress on stderr: an `indicatif` bar on a terminal; in CI or
//! without a terminal, one line per tier and one per failed case (a log
//! stays readable and greppable); nothing with `--quiet`.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::eval::case::TraceOutcome;
use crate::model::run::CaseError;
use crate::output::escape::terminal;
use crate::output::truncate_chars;

/// Longest failure reason printed on one line.
const REASON_CHARS: usize = 160;

pub(crate) struct Progress {
    mode: Mode,
}

enum Mode {
    Quiet,
    Lines,
    Bar(ProgressBar),
}

impl Progress {
    /// Print the tier line and start tracking `total` cases.
    pub(crate) fn start(quiet: bool, header: &str, total: usize) -> Self {
        if quiet {
            return Self { mode: Mode::Quiet };
        }
        statusln!("{header}");
        if !use_bar() {
            return Self { mode: Mode::Lines };
        }
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
        if let Ok(style) =
            ProgressStyle::with_template("{spinner} [{elapsed}] {bar:30} {pos}/{len} {msg}")
        {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(120));
        Self {
            mode: Mode::Bar(bar),
        }
    }

    /// One case finished (or was reused); failures get a line of their own.
    pub(crate) fn case_done(&self, case_id: &str, outcome: &TraceOutcome) {
        let line = failure_line(case_id, outcome);
        match &self.mode {
            Mode::Quiet => {}
            Mode::Lines => {
                if let Some(line) = line {
                    statusln!("{line}");
                }
            }
            Mode::Bar(bar) => {
                if let Some(line) = line {
                    bar.println(line);
                }
                bar.set_message(terminal(case_id).into_owned());
                bar.inc(1);
            }
        }
    }

    /// Remove the bar (the lines stay).
    pub(crate) fn finish(self) {
        if let Mode::Bar(bar) = self.mode {
            bar.finish_and_clear();
        }
    }
}

/// A terminal, and not CI (Actions logs are not terminals, but be sure).
fn use_bar() -> bool {
    std::io::stderr().is_terminal()
        && std::env::var_os("CI").is_none_or(|v| v.is_empty() || v == "false")
        && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
}

/// `  case `x`: agent_error: the agent exited with code 1 (stderr: …)`, or
/// `None` for a case that produced a trace.
pub(crate) fn failure_line(case_id: &str, outcome: &TraceOutcome) -> Option<String> {
    let TraceOutcome::Failed { status, error, .. } = outcome else {
        return None;
    };
    Some(format!(
        "  case `{}`: {status}: {}",
        terminal(case_id),
        terminal(&short_reason(error))
    ))
}

/// The message, plus the last line the agent wrote to stderr, on one line.
pub(crate) fn short_reason(error: &CaseError) -> String {
    let last_line = error
        .stderr_tail
        .as_deref()
        .and_then(|t| t.lines().rev().map(str::trim).find(|l| !l.is_empty()));
    let text = match last_line {
        Some(line) => format!("{} (stderr: {line})", error.message),
        None => error.message.clone(),
    };
    truncate_chars(&text.replace(['\n', '\r'], " "), REASON_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::run::CaseStatus;

    #[test]
    fn failure_lines_carry_status_and_the_last_stderr_line() {
        let outcome = TraceOutcome::Failed {
            status: CaseStatus::AgentError,
            error: CaseError {
                message: "the agent exited with code 1".into(),
                exit_code: Some(1),
                stdout_tail: None,
                stderr_tail: Some("Traceback:\n  boom\nValueError: bad input\n\n".into()),
            },
            info: None,
            elapsed_ms: None,
        };
        assert_eq!(
            failure_line("c-1", &outcome).unwrap(),
            "  case `c-1`: agent_error: the agent exited with code 1 (stderr: ValueError: bad input)"
        );
    }
}
