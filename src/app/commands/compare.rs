//! `agenteval-gate compare --baseline NAME`: the main CI job. Progressive tiers (smoke, then
//! full unless the smoke tier already fails the gate), comparison with the baseline,
//! rendering, publishing in a PR, and an exit code that is the verdict. Glue only: every
//! decision is in [`crate::compare::decide`].

use crate::app::cli::{CliCompare, CliCompareFormat, CliOnOff};
use crate::app::config::{Config, resolve_fail_on, resolve_resamples};
use crate::app::error::Result;
use crate::baseline::BaselineError;
use crate::baseline::UnknownBaseline;
use crate::baseline::source::BaselineLoader;
use crate::compare::decide::{AlphaPlan, CompareOptions, apply_rules, no_baseline_report};
use crate::compare::engine::SuiteInput;
use crate::exit_code::ExitCode;
use crate::fsutil::write_json_to;
use crate::model::compare::{CompareReport, Verdict};
use crate::report::render::compare_junit::{render_compare_junit, render_nothing_selected_junit};
use crate::report::render::compare_markdown::render_compare_markdown;
use crate::report::render::compare_table::render_compare_table;
use crate::report::views::compare_views;
use crate::runner::RunnerError;
use crate::runner::settings::{EvalSettings, TierChoice};

use super::rules::{Ruled, RulesSource, load_ruled};
use crate::runner::tiers::{Prepared, run_tiers};

use super::publish::publish_compare;
use super::run::run_session;

pub(crate) fn run(args: &CliCompare, config: &Config, quiet: bool) -> Result<ExitCode> {
    let rules = RulesSource::resolve(args.rules_ref.as_deref(), |k| std::env::var(k).ok())?;
    let Ruled {
        config,
        settings,
        suites,
        info: rules,
    } = load_ruled(&args.eval, config, &rules, TierChoice::Progressive, quiet)?;
    let config = &config;
    // The PR's base commit in a pull request (DESIGN §9), else the working tree.
    let loader = BaselineLoader::resolve(
        &settings.suite.baselines_dir,
        &args.baseline,
        args.baseline_ref.as_deref(),
        |k| std::env::var(k).ok(),
    )?;
    let resamples = resolve_resamples(args.resamples, config)?;
    let mut prepared = Vec::new();
    let mut missing = Vec::new();
    for suite in suites {
        let Some((mut baseline, history)) = loader.load(&suite.name)? else {
            if args.require_baseline {
                return Err(BaselineError::Missing {
                    name: args.baseline.clone(),
                    suite: suite.name.clone(),
                    path: loader.location(&suite.name),
                }
                .into());
            }
            let others = loader.other_names(&suite.name)?;
            if !others.is_empty() && !args.allow_missing_baseline {
                return Err(BaselineError::Unknown(Box::new(UnknownBaseline::new(
                    &args.baseline,
                    &suite.name,
                    others,
                )))
                .into());
            }
            if !quiet {
                noteln!(
                    "suite `{}` has no baseline `{}` yet: not compared; the gate passes for it (`--require-baseline` makes this an error)",
                    suite.name,
                    args.baseline
                );
            }
            missing.push(suite.name.clone());
            continue;
        };
        crate::compare::shed_unread(&mut baseline.report);
        let fail_on = resolve_fail_on(args.fail_on, config, suite.gates.fail_on);
        prepared.push(Prepared {
            suite,
            baseline,
            history,
            fail_on,
        });
    }
    let options = CompareOptions {
        baseline_name: args.baseline.clone(),
        resamples,
        seed: settings.seed,
        fdr: args.fdr == CliOnOff::On,
        fail_on: prepared.first().map_or_else(
            || resolve_fail_on(args.fail_on, config, None),
            |p| p.fail_on,
        ),
        warn_only: args.warn_only,
        alpha_plan: AlphaPlan::Whole,
    };
    let mut report = if prepared.is_empty() {
        no_baseline_report(&options.baseline_name, options.fail_on, &missing)
    } else {
        // Shared by both tiers: the full tier reuses the smoke tier's agent runs.
        let session = run_session(&args.eval, &settings, quiet);
        let attach_views = |report: &mut CompareReport, inputs: &[SuiteInput<'_>]| {
            report.views = Some(compare_views(&report.metrics, inputs));
        };
        let Some(mut report) = run_tiers(&prepared, &settings, &options, &session, &attach_views)?
        else {
            return nothing_selected(&settings, args.format);
        };
        report.missing_baselines = missing;
        report
    };
    report.baseline.source = Some(loader.info());
    if let Some(rules) = rules {
        apply_rules(&mut report, rules);
    }
    report.evaluated_at = (!settings.deterministic).then(crate::clock::now_rfc3339);

    if let Some(path) = &args.out {
        write_json_to(path, &report)?;
    }
    match args.format {
        CliCompareFormat::Table => crate::output::write_stdout(&render_compare_table(&report))?,
        CliCompareFormat::Markdown => {
            crate::output::write_document(&render_compare_markdown(&report))?;
        }
        // Written as it is serialized (issue 25).
        CliCompareFormat::Json => crate::output::write_json_document(&report)?,
        CliCompareFormat::Junit => crate::output::write_document(&render_compare_junit(&report))?,
    }
    publish_compare(&report, args.out.as_deref(), quiet);

    if !quiet {
        statusln!("verdict: {}", report.verdict.as_str());
    }
    Ok(exit_code(&report))
}

/// The exit code of a compare: the verdict's. `--warn-only` turns a failed gate into 0; a
/// run that could not be evaluated still exits 69 (it is not a verdict on the agent).
pub(crate) fn exit_code(report: &CompareReport) -> ExitCode {
    match (report.verdict, report.warn_only) {
        (Verdict::Fail, false) => ExitCode::GateFailed,
        (Verdict::CouldNotEvaluate, _) => ExitCode::Unavailable,
        (Verdict::Inconclusive, false) if report.inconclusive.iter().any(|u| u.fails) => {
            ExitCode::GateFailed
        }
        _ => ExitCode::Success,
    }
}

/// No case selected: exit 4, or 0 with `--allow-empty`. `--format junit`
/// still prints a valid document that says so; other formats print nothing
/// (the reason is on stderr).
fn nothing_selected(settings: &EvalSettings, format: CliCompareFormat) -> Result<ExitCode> {
    if format == CliCompareFormat::Junit {
        crate::output::write_document(&render_nothing_selected_junit(
            "agenteval-gate compare",
            settings.allow_empty,
        ))?;
    }
    if settings.allow_empty {
        Ok(ExitCode::Success)
    } else {
        Err(RunnerError::NothingSelected.into())
    }
}
