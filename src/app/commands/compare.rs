//! `agenteval-gate compare --baseline NAME`: the main CI job. Progressive tiers (smoke, then
//! full unless the smoke tier already fails the gate), comparison with the baseline,
//! rendering, publishing in a PR, and an exit code that is the verdict. Glue only: every
//! decision is in [`crate::compare::decide`].

use std::time::Instant;

use crate::app::cli::{CliCompare, CliCompareFormat, CliOnOff};
use crate::app::config::{Config, resolve_fail_on, resolve_resamples};
use crate::app::error::Result;
use crate::baseline::BaselineError;
use crate::baseline::model::{BaselineFile, HistoryLine};
use crate::baseline::source::BaselineLoader;
use crate::compare::decide::{
    AlphaPlan, CompareOptions, compare, no_baseline_report, smoke_spent_alpha, smoke_stops,
    suite_fails,
};
use crate::compare::engine::SuiteInput;
use crate::dag::render_mermaid_case;
use crate::exit_code::ExitCode;
use crate::fsutil::write_to;
use crate::model::compare::{CompareReport, MetricStatus, TierOutcome, Verdict, WorstCase};
use crate::model::run::{RunReport, Tier};
use crate::output::plural;
use crate::output::to_json;
use crate::report::render::compare_junit::render_compare_junit;
use crate::report::render::compare_markdown::render_compare_markdown;
use crate::report::render::compare_table::render_compare_table;
use crate::report::views::compare_views;
use crate::runner::settings::{EvalSettings, TierChoice};
use crate::runner::{RunSession, RunnerError};
use crate::spec::model::FailOn;
use crate::spec::suite::Suite;

use super::publish::publish_compare;
use super::run::{evaluate_tier, load_suites, run_session, select};

/// A suite with its baseline.
struct Prepared {
    suite: Suite,
    baseline: BaselineFile,
    history: Vec<HistoryLine>,
    fail_on: FailOn,
}

pub(crate) fn run(args: &CliCompare, config: &Config, quiet: bool) -> Result<ExitCode> {
    let settings = EvalSettings::resolve(&args.eval, config, TierChoice::Progressive)?;
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
    for suite in load_suites(&settings, quiet)? {
        let Some((baseline, history)) = loader.load(&suite.name)? else {
            if args.require_baseline {
                return Err(BaselineError::Missing {
                    name: args.baseline.clone(),
                    suite: suite.name.clone(),
                    path: loader.location(&suite.name),
                }
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
        let Some(mut report) = run_tiers(&prepared, &settings, &options, args, quiet)? else {
            return nothing_selected(&settings);
        };
        report.missing_baselines = missing;
        report
    };
    report.baseline.source = Some(loader.info());
    report.evaluated_at = (!settings.deterministic).then(crate::clock::now_rfc3339);

    let stdout = match args.format {
        CliCompareFormat::Table => render_compare_table(&report),
        CliCompareFormat::Markdown => render_compare_markdown(&report),
        CliCompareFormat::Json => to_json(&report),
        CliCompareFormat::Junit => render_compare_junit(&report),
    };
    if let Some(path) = &args.out {
        write_to(path, &to_json(&report))?;
    }
    crate::output::write_stdout(&stdout)?;
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
        _ => ExitCode::Success,
    }
}

/// The smoke tier (unless `--tier full`), then the full tier (unless `--tier smoke`, or the
/// smoke tier already failed the gate or could not evaluate the agent), each at its share
/// of α. `None` when no tier selects a case.
fn run_tiers(
    prepared: &[Prepared],
    settings: &EvalSettings,
    options: &CompareOptions,
    args: &CliCompare,
    quiet: bool,
) -> Result<Option<CompareReport>> {
    // Shared by both tiers: the full tier reuses the smoke tier's agent runs.
    let session = run_session(&args.eval, settings, quiet);
    let progressive = settings.tier == TierChoice::Progressive;
    let mut tiers: Vec<TierOutcome> = Vec::new();
    let mut report: Option<CompareReport> = None;
    let mut full_plan = AlphaPlan::Whole;
    if settings.tier != TierChoice::Full {
        let smoke_options = CompareOptions {
            alpha_plan: if progressive {
                AlphaPlan::Smoke
            } else {
                AlphaPlan::Whole
            },
            ..options.clone()
        };
        match run_tier(prepared, Tier::Smoke, settings, &smoke_options, &session)? {
            Some((r, outcomes)) => {
                let fail_on_of = |suite: &str| {
                    prepared
                        .iter()
                        .find(|p| p.suite.name == suite)
                        .map_or(options.fail_on, |p| p.fail_on)
                };
                let stop = progressive
                    && (smoke_stops(&r, fail_on_of) || r.verdict == Verdict::CouldNotEvaluate);
                full_plan = AlphaPlan::FullAfterSmoke {
                    smoke_spent: smoke_spent_alpha(&r),
                };
                tiers.extend(outcomes.into_iter().map(|mut t| {
                    if stop {
                        t.stopped_early = true;
                        t.runs_saved =
                            prepared
                                .iter()
                                .find(|p| p.suite.name == t.suite)
                                .map_or(0, |p| {
                                    select(&p.suite, Tier::Full, settings)
                                        .len()
                                        .saturating_sub(t.cases)
                                });
                    }
                    t
                }));
                if stop && !quiet {
                    statusln!(
                        "smoke tier: {}; skipping the full tier",
                        if r.verdict == Verdict::CouldNotEvaluate {
                            "could not evaluate the agent"
                        } else {
                            "a regression that fails the gate"
                        }
                    );
                }
                report = Some(r);
            }
            None if settings.tier == TierChoice::Smoke => return Ok(None),
            None => {
                if !quiet {
                    noteln!("no smoke cases (`tiers.smoke`); running the full tier only");
                }
            }
        }
    }
    let stopped = tiers.iter().any(|t| t.stopped_early);
    if settings.tier != TierChoice::Smoke && !stopped {
        let full_options = CompareOptions {
            alpha_plan: full_plan,
            ..options.clone()
        };
        match run_tier(prepared, Tier::Full, settings, &full_options, &session)? {
            Some((r, outcomes)) => {
                tiers.extend(outcomes);
                report = Some(r);
            }
            None => return Ok(None),
        }
    }
    Ok(report.map(|mut r| {
        r.tiers = tiers;
        r
    }))
}

fn nothing_selected(settings: &EvalSettings) -> Result<ExitCode> {
    if settings.allow_empty {
        Ok(ExitCode::Success)
    } else {
        Err(RunnerError::NothingSelected.into())
    }
}

/// The DAG of the case that got worst on the most severe regression, when it has steps.
fn worst_case(report: &CompareReport, heads: &[&RunReport]) -> Option<WorstCase> {
    report
        .metrics
        .iter()
        .filter(|m| m.status == MetricStatus::Regression)
        .find_map(|m| {
            let head = heads.iter().find(|h| h.suite == m.suite)?;
            m.localization
                .as_ref()?
                .flipped_cases
                .iter()
                .find_map(|flipped| {
                    let case = head
                        .cases
                        .iter()
                        .find(|c| c.id == flipped.case && !c.steps.is_empty())?;
                    Some(WorstCase {
                        suite: m.suite.clone(),
                        case: case.id.clone(),
                        metric: m.name.clone(),
                        mermaid: render_mermaid_case(case),
                    })
                })
        })
}

/// Evaluate one tier of every suite and compare it; `None` when no suite has a case in it.
fn run_tier(
    prepared: &[Prepared],
    tier: Tier,
    settings: &EvalSettings,
    options: &CompareOptions,
    session: &RunSession,
) -> Result<Option<(CompareReport, Vec<TierOutcome>)>> {
    let quiet = session.quiet();
    let mut heads: Vec<(usize, RunReport, Option<u64>)> = Vec::new();
    for (i, p) in prepared.iter().enumerate() {
        let started = Instant::now();
        if let Some(head) = evaluate_tier(&p.suite, tier, settings, session)? {
            if !quiet {
                statusln!(
                    "{} tier of `{}`: {} evaluated ({} did not complete)",
                    tier,
                    p.suite.name,
                    plural(head.cases.len(), "case", "cases"),
                    head.aggregate.cases_failed
                );
            }
            let ms = (!settings.deterministic).then(|| started.elapsed().as_millis() as u64);
            heads.push((i, head, ms));
        }
    }
    if heads.is_empty() {
        return Ok(None);
    }
    let inputs: Vec<SuiteInput<'_>> = heads
        .iter()
        .map(|(i, head, _)| {
            let p = &prepared[*i];
            SuiteInput {
                suite: &p.suite.name,
                head,
                base: &p.baseline.report,
                history: &p.history,
                meta: &p.baseline.baseline,
                gates: &p.suite.gates,
                fail_on: p.fail_on,
                checkpoint_severity: p
                    .suite
                    .checkpoints
                    .iter()
                    .map(|c| (c.id.clone(), c.severity))
                    .collect(),
                use_sigma: tier == Tier::Full,
            }
        })
        .collect();
    let mut report = compare(&inputs, options)?;
    report.views = Some(compare_views(&report.metrics, &inputs));
    report.worst_case = worst_case(
        &report,
        &heads.iter().map(|(_, h, _)| h).collect::<Vec<_>>(),
    );
    let outcomes = heads
        .iter()
        .map(|(i, head, ms)| {
            let p = &prepared[*i];
            TierOutcome {
                suite: p.suite.name.clone(),
                tier,
                cases: head.cases.len(),
                verdict: if report.verdict == Verdict::CouldNotEvaluate {
                    Verdict::CouldNotEvaluate
                } else if suite_fails(&report, &p.suite.name, p.fail_on) {
                    Verdict::Fail
                } else {
                    Verdict::Pass
                },
                stopped_early: false,
                runs_saved: 0,
                wall_time_ms: *ms,
            }
        })
        .collect();
    Ok(Some((report, outcomes)))
}
