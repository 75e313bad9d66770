//! `agenteval-gate run`: evaluate suites, write run reports, apply only the
//! absolute gates.

use std::path::Path;

use crate::app::cli::{CliEvalArgs, CliRun, CliRunFormat};
use crate::app::config::{Config, resolve_fail_on};
use crate::app::error::{Error, Result};
use crate::compare::absolute::check_absolute;
use crate::exit_code::ExitCode;
use crate::fsutil::write_json_to;
use crate::model::compare::AbsoluteBreach;
use crate::model::run::{RunReport, Tier};
use crate::output::plural;
use crate::report::render::{
    run_junit::render_run_junit, run_markdown::render_run_markdown, run_table::render_run_table,
};
use crate::runner::settings::{EvalSettings, TierChoice};
use crate::runner::tiers::{cases_phrase, evaluate_tier};
use crate::runner::{RunSession, RunnerError, SessionOptions};
use crate::spec::discover::{load_checked, suite_paths};
use crate::spec::suite::Suite;

use super::common::print_warnings;

/// A suite with its evaluation.
pub(crate) struct Evaluated {
    pub suite: Suite,
    pub report: RunReport,
}

/// Load every selected suite (printing warnings).
pub(crate) fn load_suites(settings: &EvalSettings, quiet: bool) -> Result<Vec<Suite>> {
    let paths = suite_paths(&settings.suite.suites_dir, &settings.suite.suites)?;
    let mut suites = Vec::with_capacity(paths.len());
    for path in paths {
        let checked = load_checked(&path)?;
        print_warnings(&checked.warnings, quiet);
        check_evidence_goes_with_traces(&checked.suite, settings)?;
        suites.push(checked.suite);
    }
    Ok(suites)
}

/// `--traces` replaces the suite's recorded traces; if the suite reads evidence, the new
/// traces must come with their own (`--evidence DIR`) or none (`--evidence none`), never
/// the recorded evidence of another run.
pub(crate) fn check_evidence_goes_with_traces(
    suite: &Suite,
    settings: &EvalSettings,
) -> Result<()> {
    let reads_evidence =
        suite.evidence_dir.is_some() || suite.cases.iter().any(|c| c.evidence.is_some());
    match &settings.traces {
        Some(traces) if reads_evidence && settings.evidence.is_none() => {
            Err(Error::usage_with_help(
                format!(
                    "`--traces {}` replaces the recorded traces of suite `{}`, which also reads evidence: the new traces would be judged against the evidence of another run",
                    traces.display(),
                    suite.name
                ),
                "pass the evidence recorded with these traces (`--evidence DIR`), or `--evidence none` to evaluate tier-1 checkpoints as N/A",
            ))
        }
        _ => Ok(()),
    }
}

/// Run-mode state for one command: `--artifacts`, `--jobs` (which caps
/// `agent.concurrency`) and `--quiet`.
pub(crate) fn run_session(eval: &CliEvalArgs, settings: &EvalSettings, quiet: bool) -> RunSession {
    RunSession::new(SessionOptions {
        quiet,
        artifacts: eval.artifacts.clone(),
        jobs_cap: settings.jobs_cap,
    })
}

pub(crate) fn run(args: &CliRun, config: &Config, quiet: bool) -> Result<ExitCode> {
    let settings = EvalSettings::resolve(&args.eval, config, TierChoice::Full)?;
    let tier = match settings.tier {
        TierChoice::Smoke => Tier::Smoke,
        TierChoice::Full | TierChoice::Progressive => Tier::Full,
    };
    let suites = load_suites(&settings, quiet)?;
    let session = run_session(&args.eval, &settings, quiet);
    if args.out.is_some() && suites.len() > 1 {
        return Err(Error::usage_with_help(
            format!(
                "`--out` takes one report but {} suites are selected",
                suites.len()
            ),
            "pick one with `--suite NAME`, or use `--out-dir DIR` for one `<suite>.json` per suite",
        ));
    }
    let mut evaluated = Vec::new();
    let mut interrupted = None;
    for suite in suites {
        let result = match evaluate_tier(&suite, tier, &settings, &session, None) {
            // SIGINT/SIGTERM: keep what is known, stop, exit 130/143 below.
            Err(RunnerError::Interrupted { signal, partial }) => {
                interrupted = Some(signal);
                partial.map(|p| *p)
            }
            other => other?,
        };
        match result {
            Some(report) => evaluated.push(Evaluated { suite, report }),
            None if !quiet => noteln!(
                "suite `{}`: no case in the {tier} tier{}",
                suite.name,
                shard_note(&settings)
            ),
            None => {}
        }
        if interrupted.is_some() {
            break;
        }
    }
    if let Some(signal) = interrupted {
        write_reports(args.out.as_deref(), args.out_dir.as_deref(), &evaluated)?;
        return Err(RunnerError::Interrupted {
            signal,
            partial: None,
        }
        .into());
    }
    if evaluated.is_empty() {
        // `--format junit` still prints a valid document that says why.
        if args.format == CliRunFormat::Junit {
            crate::output::write_document(
                &crate::report::render::compare_junit::render_nothing_selected_junit(
                    "agenteval-gate run",
                    settings.allow_empty,
                ),
            )?;
        }
        return if settings.allow_empty {
            Ok(ExitCode::Success)
        } else {
            Err(RunnerError::NothingSelected.into())
        };
    }
    write_reports(args.out.as_deref(), args.out_dir.as_deref(), &evaluated)?;

    let reports: Vec<&RunReport> = evaluated.iter().map(|e| &e.report).collect();
    let joined = |render: fn(&RunReport) -> String| {
        reports
            .iter()
            .map(|r| render(r))
            .collect::<Vec<_>>()
            .join("\n")
    };
    match args.format {
        // `--out -`: the JSON report went to stdout already.
        _ if args.out.as_deref() == Some(Path::new("-")) => {}
        // Written as it is serialized: the text of a large run's report
        // was its peak of memory (issue 25).
        CliRunFormat::Json => match reports.as_slice() {
            [one] => crate::output::write_json_document(one)?,
            all => crate::output::write_json_document(&all)?,
        },
        CliRunFormat::Table => crate::output::write_stdout(&joined(render_run_table))?,
        CliRunFormat::Markdown => crate::output::write_document(&joined(render_run_markdown))?,
        CliRunFormat::Junit => crate::output::write_document(&render_run_junit(&reports))?,
    }

    let mut failed = false;
    for e in &evaluated {
        let fail_on = resolve_fail_on(args.fail_on, config, e.suite.gates.fail_on);
        for b in check_absolute(&e.suite.gates, &e.report.aggregate.metrics) {
            let fails = fail_on.fails(b.severity);
            failed |= fails;
            print_breach(&e.suite.name, &b, fails);
        }
    }
    if !quiet {
        let cases: Vec<String> = evaluated.iter().map(|e| cases_phrase(&e.report)).collect();
        statusln!(
            "evaluated {} in {}",
            if evaluated
                .iter()
                .any(|e| e.report.aggregate.trials.is_some())
            {
                cases.join(" + ")
            } else {
                let n: usize = evaluated.iter().map(|e| e.report.cases.len()).sum();
                plural(n, "case", "cases")
            },
            plural(evaluated.len(), "suite", "suites")
        );
    }
    Ok(if failed {
        ExitCode::GateFailed
    } else {
        ExitCode::Success
    })
}

fn shard_note(settings: &EvalSettings) -> String {
    settings
        .shard
        .map(|s| format!(" of shard {}/{}", s.index, s.count))
        .unwrap_or_default()
}

fn print_breach(suite: &str, b: &AbsoluteBreach, fails: bool) {
    if fails {
        crate::output::write_stderr(&format!(
            "{} suite `{suite}`: absolute gate breached ({} severity): {}\n",
            crate::output::color::paint("error:", crate::output::color::Paint::Red),
            b.severity,
            b.message
        ));
    } else {
        warnln!(
            "suite `{suite}`: absolute gate breached below --fail-on ({} severity): {}",
            b.severity,
            b.message
        );
    }
}

fn write_reports(
    out: Option<&Path>,
    out_dir: Option<&Path>,
    evaluated: &[Evaluated],
) -> Result<()> {
    if let Some(path) = out
        && let Some(e) = evaluated.first()
    {
        write_json_to(path, &e.report)?;
    }
    if let Some(dir) = out_dir {
        for e in evaluated {
            write_json_to(&dir.join(format!("{}.json", e.report.suite)), &e.report)?;
        }
    }
    Ok(())
}
