//! Progressive tiers (DESIGN §8): the smoke tier at its share of α, then the
//! full tier unless the smoke tier already fails the gate or could not
//! evaluate the agent. Each tier's run reports are compared with the
//! baseline by [`crate::compare::decide::compare`]; the decisions (stop
//! after smoke, α split, tier verdicts) are `compare`'s, the sequencing is
//! here, and `app/commands/compare.rs` only renders and publishes.

use std::time::Instant;

use crate::baseline::model::{BaselineFile, HistoryLine};
use crate::compare::decide::{
    AlphaPlan, CompareOptions, compare, smoke_spent_alpha, smoke_stops, suite_fails,
};
use crate::compare::engine::SuiteInput;
use crate::dag::render_mermaid_case;
use crate::model::compare::{CompareReport, MetricStatus, TierOutcome, Verdict, WorstCase};
use crate::model::run::{RunReport, Tier};
use crate::model::vocab::FailOn;
use crate::output::plural;
use crate::runner::error::RunnerError;
use crate::runner::evaluate::evaluate_replay;
use crate::runner::run_mode::evaluate_run;
use crate::runner::select::in_shard;
use crate::runner::session::RunSession;
use crate::runner::settings::{EvalSettings, TierChoice};
use crate::spec::suite::Suite;

/// What the caller adds to each tier's compare report before it is kept
/// (the compare command attaches the views the renderers draw).
pub(crate) type Finish<'a> = &'a dyn Fn(&mut CompareReport, &[SuiteInput<'_>]);

/// A suite with its baseline.
pub(crate) struct Prepared {
    pub suite: Suite,
    pub baseline: BaselineFile,
    pub history: Vec<HistoryLine>,
    pub fail_on: FailOn,
}

/// Case indices of `tier` (smoke or full), within the shard.
pub(crate) fn select(suite: &Suite, tier: Tier, settings: &EvalSettings) -> Vec<usize> {
    let all = match tier {
        Tier::Smoke => suite.smoke_cases(),
        Tier::Full => (0..suite.cases.len()).collect(),
    };
    in_shard(&suite.cases, all, settings.shard)
}

/// Evaluate one tier of a suite; `None` when it selects no case. Run mode
/// (the suite's `agent:` runs per case) unless `--traces` asks for replay.
pub(crate) fn evaluate_tier(
    suite: &Suite,
    tier: Tier,
    settings: &EvalSettings,
    session: &RunSession,
) -> Result<Option<RunReport>, RunnerError> {
    let indices = select(suite, tier, settings);
    if indices.is_empty() {
        return Ok(None);
    }
    let report = match (&suite.agent, &settings.traces) {
        (Some(agent), None) => evaluate_run(suite, agent, &indices, tier, settings, session)?,
        _ => evaluate_replay(suite, &indices, tier, settings)?,
    };
    Ok(Some(report))
}

/// The smoke tier (unless `--tier full`), then the full tier (unless `--tier smoke`, or the
/// smoke tier already failed the gate or could not evaluate the agent), each at its share
/// of α. `None` when no tier selects a case.
pub(crate) fn run_tiers(
    prepared: &[Prepared],
    settings: &EvalSettings,
    options: &CompareOptions,
    session: &RunSession,
    finish: Finish<'_>,
) -> Result<Option<CompareReport>, RunnerError> {
    let quiet = session.quiet();
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
        match run_tier(
            prepared,
            Tier::Smoke,
            settings,
            &smoke_options,
            session,
            finish,
        )? {
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
        match run_tier(
            prepared,
            Tier::Full,
            settings,
            &full_options,
            session,
            finish,
        )? {
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
    finish: Finish<'_>,
) -> Result<Option<(CompareReport, Vec<TierOutcome>)>, RunnerError> {
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
    finish(&mut report, &inputs);
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
