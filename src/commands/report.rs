//! `agenteval-gate report FILE --format …`: render a saved report.

use crate::cli::{CliReport, CliReportFormat};
use crate::diagnostic::FileDiagnostic;
use crate::error::{Error, Result};
use crate::exit_code::ExitCode;
use crate::output::write_to;
use crate::report::ReportError;
use crate::report::model::RunReport;
use crate::report::read::{ReportKind, kind_of, read_json, read_run_report};
use crate::report::render::{
    json::to_json, run_junit::render_run_junit, run_markdown::render_run_markdown,
    run_table::render_run_table,
};

pub(crate) fn run(args: &CliReport) -> Result<ExitCode> {
    let (_, value) = read_json::<serde_json::Value>(&args.file, "report")?;
    let text = match kind_of(&value) {
        Some(ReportKind::Run) => render_run(&read_run_report(&args.file)?, args.format)?,
        Some(ReportKind::Compare) => {
            return Err(Error::usage_with_help(
                "rendering saved compare reports is not built yet",
                "re-run `agenteval-gate compare` with the `--format` you need",
            ));
        }
        None => {
            return Err(ReportError::Invalid(Box::new(
                FileDiagnostic::error(&args.file, "not an agenteval-gate run or compare report")
                    .with_help("pass a file written by `run --out` or `compare --out`"),
            ))
            .into());
        }
    };
    match &args.out {
        Some(path) => write_to(path, &text)?,
        None => crate::output::write_stdout(&text)?,
    }
    Ok(ExitCode::Success)
}

fn render_run(report: &RunReport, format: CliReportFormat) -> Result<String> {
    Ok(match format {
        CliReportFormat::Table => render_run_table(report),
        CliReportFormat::Markdown => render_run_markdown(report),
        CliReportFormat::Json => to_json(report),
        CliReportFormat::Junit => render_run_junit(&[report]),
        CliReportFormat::Html => {
            return Err(Error::usage_with_help(
                "`--format html` is not built yet",
                "use `markdown` or `json`; see README, Status",
            ));
        }
    })
}
