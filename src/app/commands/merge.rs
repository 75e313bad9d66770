//! `agenteval-gate merge REPORT… --out F`: combine shard run reports into
//! the report one process would have written (see `runner::merge`).

use crate::app::cli::{CliMerge, CliSummaryFormat};
use crate::app::config::Config;
use crate::app::error::{Error, Result};
use crate::exit_code::ExitCode;
use crate::fsutil::write_json_to;
use crate::output::plural;
use crate::output::to_json;
use crate::report::read::read_run_report;
use crate::runner::RunnerError;
use crate::runner::merge::{ShardReport, merge_shards};
use crate::runner::tiers::cases_phrase;
use crate::spec::discover::{load_checked, suite_paths};

pub(crate) fn run(args: &CliMerge, config: &Config, quiet: bool) -> Result<ExitCode> {
    if args.format == CliSummaryFormat::Json && args.out.as_os_str() == "-" {
        return Err(Error::usage_with_help(
            "`--format json` prints a summary on stdout, where `--out -` writes the merged report",
            "write the report to a file (`--out merged.json`), or drop `--format json`",
        ));
    }
    let shards = args
        .reports
        .iter()
        .map(|path| {
            Ok(ShardReport {
                path: path.clone(),
                report: read_run_report(path)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let Some(first) = shards.first() else {
        return Err(RunnerError::from(crate::runner::merge::MergeError::NoReports).into());
    };
    // The suite orders the cases and says which shard holds which case.
    let name = args
        .suite
        .clone()
        .unwrap_or_else(|| first.report.suite.clone());
    let suites_dir = config.suites_dir(args.suites_dir.as_ref());
    let path = suite_paths(&suites_dir, std::slice::from_ref(&name))?
        .into_iter()
        .next()
        .ok_or_else(|| Error::Internal(format!("suite `{name}` resolved to no file")))?;
    let suite = load_checked(&path)?.suite;
    let count = shards.len();
    let merged = merge_shards(&suite, shards).map_err(RunnerError::from)?;
    write_json_to(&args.out, &merged)?;
    if args.format == CliSummaryFormat::Json {
        let json = serde_json::json!({
            "suite": merged.suite,
            "shards": count,
            "cases": merged.case_count(),
            "trials": merged.cases.len(),
            "out": args.out.display().to_string(),
        });
        crate::output::write_document(&to_json(&json))?;
    } else if !quiet {
        statusln!(
            "merged {} of `{}` ({}) into {}",
            plural(count, "shard report", "shard reports"),
            merged.suite,
            cases_phrase(&merged),
            args.out.display()
        );
    }
    Ok(ExitCode::Success)
}
