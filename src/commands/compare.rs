//! `agenteval-gate compare --baseline NAME`: the main CI job. Progressive
//! tiers (smoke, then full unless smoke found a confirmed critical
//! regression), comparison with the baseline, rendering, publishing in a
//! PR, and an exit code that is the verdict.

use std::time::Instant;

use crate::baseline::BaselineError;
use crate::baseline::model::{BaselineFile, HistoryLine};
use crate::baseline::source::BaselineLoader;
use crate::cli::{CliCompare, CliCompareFormat, CliOnOff};
use crate::compare::decide::{CompareOptions, compare};
use crate::compare::engine::SuiteInput;
use crate::compare::model::{CompareReport, MetricStatus, TierOutcome, Verdict, WorstCase};
use crate::config::{Config, DEFAULT_RESAMPLES, EvalSettings, TierChoice, resolve_fail_on};
use crate::dag::render_mermaid_case;
use crate::error::Result;
use crate::exit_code::ExitCode;
use crate::output::{plural, write_to};
use crate::report::model::{RunReport, Tier};
use crate::report::render::compare_junit::render_compare_junit;
use crate::report::render::compare_markdown::render_compare_markdown;
use crate::report::render::compare_table::render_compare_table;
use crate::report::render::json::to_json;
use crate::runner::{RunSession, RunnerError};
use crate::spec::model::{FailOn, Severity};
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
    let mut prepared = Vec::new();
    for suite in load_suites(&settings, quiet)? {
        let Some((baseline, history)) = loader.load(&suite.name)? else {
            if args.allow_missing_baseline {
                noteln!(
                    "suite `{}` has no baseline `{}` yet; skipped (--allow-missing-baseline)",
                    suite.name,
                    args.baseline
                );
                continue;
            }
            return Err(BaselineError::Missing {
                name: args.baseline.clone(),
                suite: suite.name.clone(),
                path: loader.location(&suite.name),
            }
            .into());
        };
        let fail_on = resolve_fail_on(args.fail_on, config, suite.gates.fail_on);
        prepared.push(Prepared {
            suite,
            baseline,
            history,
            fail_on,
        });
    }
    if prepared.is_empty() {
        noteln!("no suite has a baseline yet: nothing to compare; the gate passes");
        return Ok(ExitCode::Success);
    }
    let options = CompareOptions {
        baseline_name: args.baseline.clone(),
        resamples: args
            .resamples
            .or(config.values.resamples)
            .unwrap_or(DEFAULT_RESAMPLES),
        seed: settings.seed,
        fdr: args.fdr == CliOnOff::On,
        fail_on: prepared[0].fail_on,
        warn_only: args.warn_only,
    };

    // Shared by both tiers: the full tier reuses the smoke tier's agent runs.
    let session = run_session(&args.eval, config, quiet);
    let mut tiers: Vec<TierOutcome> = Vec::new();
    let mut report: Option<CompareReport> = None;
    let run_smoke = settings.tier != TierChoice::Full;
    let run_full = settings.tier != TierChoice::Smoke;
    if run_smoke {
        let smoke = run_tier(&prepared, Tier::Smoke, &settings, &options, &session)?;
        if let Some((r, outcomes)) = smoke {
            let stop = settings.tier == TierChoice::Progressive && confirmed_critical(&r);
            tiers.extend(outcomes.into_iter().map(|mut t| {
                if stop {
                    t.stopped_early = true;
                    t.runs_saved =
                        prepared
                            .iter()
                            .find(|p| p.suite.name == t.suite)
                            .map_or(0, |p| {
                                select(&p.suite, Tier::Full, &settings)
                                    .len()
                                    .saturating_sub(t.cases)
                            });
                }
                t
            }));
            if stop && !quiet {
                statusln!("smoke tier: confirmed critical regression; skipping the full tier");
            }
            report = Some(r);
        } else if settings.tier == TierChoice::Smoke {
            return nothing_selected(&settings);
        } else if !quiet {
            noteln!("no smoke cases (`tiers.smoke`); running the full tier only");
        }
    }
    let stopped = tiers.iter().any(|t| t.stopped_early);
    if run_full && !stopped {
        match run_tier(&prepared, Tier::Full, &settings, &options, &session)? {
            Some((r, outcomes)) => {
                tiers.extend(outcomes);
                report = Some(r);
            }
            None => return nothing_selected(&settings),
        }
    }
    let Some(mut report) = report else {
        return nothing_selected(&settings);
    };
    report.tiers = tiers;
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
    Ok(match (report.verdict, args.warn_only) {
        (Verdict::Fail, false) => ExitCode::GateFailed,
        _ => ExitCode::Success,
    })
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

/// A regression of critical severity confirmed by the test (not merely suspected).
fn confirmed_critical(r: &CompareReport) -> bool {
    r.metrics
        .iter()
        .any(|m| m.status == MetricStatus::Regression && m.severity == Severity::Critical)
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
    let mut report = compare(&inputs, options);
    report.worst_case = worst_case(
        &report,
        &heads.iter().map(|(_, h, _)| h).collect::<Vec<_>>(),
    );
    let outcomes = heads
        .iter()
        .map(|(i, head, ms)| {
            let name = &prepared[*i].suite.name;
            let failed = report.metrics.iter().any(|m| {
                m.suite == *name
                    && m.status == MetricStatus::Regression
                    && prepared[*i].fail_on.fails(m.severity)
            }) || report
                .absolute_breaches
                .iter()
                .any(|b| b.suite == *name && b.fails);
            TierOutcome {
                suite: name.clone(),
                tier,
                cases: head.cases.len(),
                verdict: if failed { Verdict::Fail } else { Verdict::Pass },
                stopped_early: false,
                runs_saved: 0,
                wall_time_ms: *ms,
            }
        })
        .collect();
    Ok(Some((report, outcomes)))
}
