//! Entry point: parse arguments, install the error reporter, dispatch, and
//! turn the outcome into an exit code.

use std::ffi::OsString;

use clap::Parser;

use crate::app::cli::{Cli, CliColor};
use crate::app::error::Error;
use crate::exit_code::ExitCode;
use crate::output::{ColorChoice, set_color};

/// Run the CLI with `args` (including the program name) and return the exit code.
pub fn main_entry<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // `--help` and `--version` go to stdout and succeed. Usage errors,
            // and no subcommand at all (help on stderr), exit 64: not clap's
            // 2, which is the gate's "failed" code, and never 0, which a CI
            // step would read as a passing gate.
            let code = match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    ExitCode::Success
                }
                _ => ExitCode::Usage,
            };
            let _ignored = crate::app::cli::without_weakening_suggestions(e).print();
            return code;
        }
    };
    let color = match cli.global.color {
        CliColor::Auto => ColorChoice::Auto,
        CliColor::Always => ColorChoice::Always,
        CliColor::Never => ColorChoice::Never,
    }
    .resolve();
    set_color(color);
    install_reporter(color);
    if let Some(bytes) = cli.global.max_file_size {
        crate::fsutil::set_max_input_bytes(bytes);
    }
    if let Some(bytes) = cli.global.max_memory {
        crate::fsutil::set_max_memory(bytes);
    }

    let code = match crate::app::commands::dispatch(cli) {
        Ok(code) => code,
        Err(err) if err.is_broken_pipe() => ExitCode::Success,
        Err(err) => {
            let code = err.exit_code();
            report_error(err);
            code
        }
    };
    // A signal during a graceful section (agents running, a baseline being
    // written): the work stopped or finished, the exit code says why.
    match crate::interrupt::received() {
        Some(crate::interrupt::Interrupt::Int) => ExitCode::Interrupted,
        Some(crate::interrupt::Interrupt::Term) => ExitCode::Terminated,
        None => code,
    }
}

fn install_reporter(color: bool) {
    let _already_set = miette::set_hook(Box::new(move |_| {
        let theme = if color {
            miette::GraphicalTheme::unicode()
        } else {
            miette::GraphicalTheme::unicode_nocolor()
        };
        Box::new(
            miette::GraphicalReportHandler::new_themed(theme)
                .with_context_lines(1)
                // Long lines stay whole: CI logs are grepped.
                .with_wrap_lines(false),
        )
    }));
}

fn report_error(err: Error) {
    let report = miette::Report::new(err);
    crate::output::write_stderr(&crate::output::escape::rendered_report(&format!(
        "{report:?}\n"
    )));
}
