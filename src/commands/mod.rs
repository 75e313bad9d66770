//! Command glue: turn parsed CLI structs into settings, call the domain
//! modules, and print. No evaluation logic lives here.

use crate::cli::{Cli, CliCommand};
use crate::error::Result;
use crate::exit_code::ExitCode;

mod schema;

pub(crate) fn dispatch(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        CliCommand::Schema => schema::run(),
        _ => Err(crate::Error::Internal("command not wired yet".into())),
    }
}
