//! `agenteval-gate completions <shell>` and `agenteval-gate man`: generated
//! from the clap definitions (`clap_complete`, `clap_mangen`), so they never
//! drift from the real flags.

use clap::CommandFactory;

use crate::app::cli::Cli;
use crate::app::error::{Error, Result};
use crate::exit_code::ExitCode;

pub(crate) fn completions(shell: clap_complete::Shell) -> Result<ExitCode> {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "agenteval-gate", &mut script);
    crate::output::write_stdout(&String::from_utf8_lossy(&script))?;
    Ok(ExitCode::Success)
}

pub(crate) fn man() -> Result<ExitCode> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .map_err(Error::Stdout)?;
    crate::output::write_stdout(&String::from_utf8_lossy(&page))?;
    Ok(ExitCode::Success)
}
