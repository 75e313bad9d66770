//! `agenteval-gate report FILE --format …`: render a saved run or compare report.

use crate::app::cli::{CliReport, CliReportFormat};
use crate::app::error::Result;
use crate::diagnostic::FileDiagnostic;
use crate::exit_code::ExitCode;
use crate::fsutil::write_to;
use crate::model::compare::{COMPARE_REPORT_SCHEMA_VERSION, CompareReport};
use crate::model::run::RunReport;
use crate::output::to_json;
use crate::report::ReportError;
use crate::report::read::{ReportKind, kind_of, read_json, read_run_report};
use crate::report::render::compare_junit::render_compare_junit;
use crate::report::render::compare_markdown::render_compare_summary;
use crate::report::render::compare_table::render_compare_table;
use crate::report::render::html::{render_compare_html, render_run_html};
use crate::report::render::{
    run_junit::render_run_junit, run_markdown::render_run_markdown, run_table::render_run_table,
};

pub(crate) fn run(args: &CliReport) -> Result<ExitCode> {
    let (_, value) = read_json::<serde_json::Value>(&args.file, "report")?;
    let text = match kind_of(&value) {
        Some(ReportKind::Run) => render_run(&read_run_report(&args.file)?, args.format)?,
        Some(ReportKind::Compare) => {
            let found = value
                .get("schema_version")
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0);
            if found != u64::from(COMPARE_REPORT_SCHEMA_VERSION) {
                return Err(ReportError::SchemaVersion {
                    path: args.file.clone(),
                    found: found as u32,
                    expected: COMPARE_REPORT_SCHEMA_VERSION,
                }
                .into());
            }
            let (report, _) = read_json::<CompareReport>(&args.file, "compare report")?;
            render_compare(&report, args.format)?
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
        Some(path) if path.as_os_str() != "-" => write_to(path, &text)?,
        // The table is human text; every other format is a document escaped
        // by its own rules.
        _ if args.format == CliReportFormat::Table => crate::output::write_stdout(&text)?,
        _ => crate::output::write_document(&text)?,
    }
    Ok(ExitCode::Success)
}

fn render_run(report: &RunReport, format: CliReportFormat) -> Result<String> {
    Ok(match format {
        CliReportFormat::Table => render_run_table(report),
        CliReportFormat::Markdown => render_run_markdown(report),
        CliReportFormat::Json => to_json(report),
        CliReportFormat::Junit => render_run_junit(&[report]),
        CliReportFormat::Html => render_run_html(report).map_err(ReportError::Render)?,
    })
}

fn render_compare(report: &CompareReport, format: CliReportFormat) -> Result<String> {
    Ok(match format {
        CliReportFormat::Table => render_compare_table(report),
        // A saved report read locally: the full report (the job summary's), not the short PR comment.
        CliReportFormat::Markdown => render_compare_summary(report),
        CliReportFormat::Json => to_json(report),
        CliReportFormat::Junit => render_compare_junit(report),
        CliReportFormat::Html => render_compare_html(report).map_err(ReportError::Render)?,
    })
}
