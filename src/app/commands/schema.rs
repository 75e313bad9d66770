//! `agenteval-gate schema`: print the suite JSON Schema.

use crate::app::error::Result;
use crate::exit_code::ExitCode;

pub(crate) fn run() -> Result<ExitCode> {
    crate::output::write_document(&format!(
        "{}\n",
        crate::spec::schema::suite_schema_json().trim_end()
    ))?;
    Ok(ExitCode::Success)
}
