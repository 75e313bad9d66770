//! Progressive tiers (DESIGN §8): the smoke tier at its share of α, then the
//! full tier unless the smoke tier already fails the gate or could not
//! evaluate the agent. Each tier's run reports are compared with the
//! baseline by [`crate::compare::decide::compare`]; the decisions (stop
//! after smoke, α split, tier verdicts) are `compare`'s, the sequencing is
//! here, and `app/commands/compare.rs` only renders and publishes.

use std::time::Instant;

use crate::baseline::model::CaseValues;
use crate::baseline::model::{BaselineFile, HistoryLine};
use crate::compare::decide::{
    AlphaPlan, CompareOptions, compare, smoke_spent_alpha, smoke_stops, suite_fails,
};
use crate::compare::engine::SuiteInput;
use crate::compare::history_pool::Pooling;
use crate::compare::trials::{RerunDrivers, baseline_trials, case_wants_rerun};
use crate::dag::render_mermaid_case;
use crate::model::compare::{CompareReport, MetricStatus, TierOutcome, Verdict, WorstCase};
use crate::model::metric::case_trial_values;
use crate::model::run::{AdaptiveTrials, CaseReport, RunReport, Tier};
use crate::model::vocab::FailOn;
use crate::output::plural;
use crate::runner::error::RunnerError;
use crate::runner::evaluate::evaluate_replay;
use crate::runner::run_mode::evaluate_run;
use crate::runner::select::in_shard;
use crate::runner::session::RunSession;
use crate::runner::settings::{EvalSettings, EvidenceOverride, TierChoice};
use crate::spec::model::TrialsSpec;
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
/// (the suite's `agent:` runs per case, `agent.trials` / `--trials` times)
/// unless `--traces` asks for replay; replay reads one trial per
/// `trial-<i>/` directory when the traces directory has them.
///
/// Adaptive trials (`{min, max}`) with a `baseline` (every baseline trial
/// of every case, [`baseline_trials`]): every case runs `min` times, then
/// the cases not settled (task success or a checkpoint differs from their
/// baseline trials, or those are mixed: [`crate::stats::rerun_rule`])
/// trials run up to `max` times. Without a baseline (`run`, `baseline
/// update`) every case runs `max` times.
pub(crate) fn evaluate_tier(
    suite: &Suite,
    tier: Tier,
    settings: &EvalSettings,
    session: &RunSession,
    baseline: Option<(&CaseValues, &RerunDrivers)>,
) -> Result<Option<RunReport>, RunnerError> {
    let indices = select(suite, tier, settings);
    if indices.is_empty() {
        return Ok(None);
    }
    let report = if let (Some(agent), None) = (&suite.agent, &settings.traces) {
        let plan = settings
            .trials
            .or(agent.trials)
            .unwrap_or(TrialsSpec::Fixed(1));
        if let Err(help) = plan.check(MAX_TRIALS) {
            return Err(RunnerError::AgentSpec {
                suite: suite.name.clone(),
                message: format!("`agent.trials: {plan}` is out of range"),
                help,
            });
        }
        let (min, max) = plan.bounds();
        // Several trials: each in the replay layout (`traces/trial-<t>/`, …).
        let several = max > 1;
        let adaptive = baseline.filter(|_| min < max);
        let first_stage = if adaptive.is_some() { min } else { max };
        let mut reports = Vec::with_capacity(max as usize);
        for trial in 0..first_stage {
            reports.push(evaluate_run(
                suite, agent, &indices, tier, settings, session, trial, several,
            )?);
        }
        let mut rerun_cases = 0;
        if let Some((baseline, drivers)) = adaptive {
            let first: Vec<CaseReport> = reports.iter().flat_map(|r| r.cases.clone()).collect();
            let wanted: std::collections::BTreeSet<String> = case_trial_values(&first)
                .into_iter()
                .filter(|(id, values)| case_wants_rerun(values, baseline.get(id), drivers))
                .map(|(id, _)| id)
                .collect();
            let rerun: Vec<usize> = indices
                .iter()
                .copied()
                .filter(|&i| wanted.contains(&suite.cases[i].id))
                .collect();
            rerun_cases = rerun.len();
            if !session.quiet() {
                statusln!(
                    "adaptive trials of `{}`: {} of {} not settled after {} (a result that differs from the baseline trials, or mixed ones); re-running {} up to {} trials",
                    suite.name,
                    plural(rerun.len(), "case", "cases"),
                    indices.len(),
                    plural(min as usize, "trial", "trials"),
                    if rerun.len() == 1 { "it" } else { "them" },
                    max
                );
            }
            if !rerun.is_empty() {
                for trial in min..max {
                    reports.push(evaluate_run(
                        suite, agent, &rerun, tier, settings, session, trial, several,
                    )?);
                }
            }
        }
        let mut report = combine_trials(suite, reports)?;
        if adaptive.is_some() {
            report.adaptive = Some(AdaptiveTrials {
                min,
                max,
                rerun_cases,
            });
        }
        report
    } else {
        if settings.trials.is_some_and(|k| k.bounds().1 > 1) {
            return Err(RunnerError::AgentSpec {
                suite: suite.name.clone(),
                message: "`--trials` runs the agent several times, but this suite is replayed from recorded traces".into(),
                help: "record one directory per trial (`<traces>/trial-1/`, `<traces>/trial-2/`, …, with `<evidence>/trial-<i>/` beside them) and replay that; or drop `--trials`".into(),
            });
        }
        match replay_trials(suite, settings) {
            None => evaluate_replay(suite, &indices, tier, settings)?,
            Some(trials) => {
                let mut reports = Vec::with_capacity(trials.len());
                for s in &trials {
                    reports.push(evaluate_replay(suite, &indices, tier, s)?);
                }
                combine_trials(suite, reports)?
            }
        }
    };
    Ok(Some(report))
}

/// `24 cases`, or `24 cases × 3 trials` when a report holds several trials
/// of its cases (`× 2–3 trials` when they differ), for status lines.
pub(crate) fn cases_phrase(report: &RunReport) -> String {
    match &report.aggregate.trials {
        None => plural(report.cases.len(), "case", "cases"),
        Some(t) if t.min_trials == t.max_trials => format!(
            "{} × {}",
            plural(t.cases, "case", "cases"),
            plural(t.min_trials as usize, "trial", "trials")
        ),
        Some(t) => format!(
            "{} × {}–{} trials",
            plural(t.cases, "case", "cases"),
            t.min_trials,
            t.max_trials
        ),
    }
}

/// Most runs per case (`--trials`, `agent.trials`).
pub(crate) const MAX_TRIALS: u32 = 100;

/// The settings of each recorded trial, when the traces directory (the
/// `--traces` override, else the suite's) holds `trial-<i>/` directories,
/// in the order of `i`. Evidence follows: `<evidence>/trial-<i>/` when it
/// exists, else the evidence as given.
fn replay_trials(suite: &Suite, settings: &EvalSettings) -> Option<Vec<EvalSettings>> {
    let traces = settings.traces.clone().unwrap_or_else(|| {
        suite
            .traces_dir
            .clone()
            .unwrap_or_else(|| suite.dir.join("traces"))
    });
    let trials = crate::runner::replay::trial_dirs(&traces);
    if trials.is_empty() {
        return None;
    }
    let evidence_dir = match &settings.evidence {
        Some(EvidenceOverride::Dir(d)) => Some(d.clone()),
        Some(EvidenceOverride::Disabled) => None,
        None => suite.evidence_dir.clone(),
    };
    Some(
        trials
            .into_iter()
            .map(|(i, dir)| {
                let mut s = settings.clone();
                s.traces = Some(dir);
                if let Some(ev) = &evidence_dir {
                    let per_trial = ev.join(format!("trial-{i}"));
                    if per_trial.is_dir() {
                        s.evidence = Some(EvidenceOverride::Dir(per_trial));
                    }
                }
                s
            })
            .collect(),
    )
}

/// One report from the reports of several trials: every case's trials in
/// a row (trial index set), the aggregate recomputed over all of them, the
/// judge's counts summed. One report passes through unchanged.
fn combine_trials(suite: &Suite, mut reports: Vec<RunReport>) -> Result<RunReport, RunnerError> {
    if reports.len() == 1
        && let Some(only) = reports.pop()
    {
        return Ok(only);
    }
    let mut by_trial: Vec<std::collections::VecDeque<CaseReport>> = reports
        .iter_mut()
        .map(|r| std::mem::take(&mut r.cases).into())
        .collect();
    let order: Vec<String> = by_trial[0].iter().map(|c| c.id.clone()).collect();
    let mut cases = Vec::new();
    for id in &order {
        for (t, trial) in by_trial.iter_mut().enumerate() {
            if let Some(pos) = trial.iter().position(|c| &c.id == id)
                && let Some(mut c) = trial.remove(pos)
            {
                c.trial = u32::try_from(t).unwrap_or(u32::MAX);
                cases.push(c);
            }
        }
    }
    let judge = crate::judged::summary::merge(reports.iter().map(|r| &r.judge));
    let mut warnings: Vec<String> = Vec::new();
    for w in reports.iter().flat_map(|r| r.warnings.iter()) {
        if !warnings.contains(w) {
            warnings.push(w.clone());
        }
    }
    let wall: Option<u64> = reports.iter().map(|r| r.wall_time_ms).sum();
    let mut rest = reports.into_iter();
    let Some(mut out) = rest.next() else {
        return Err(RunnerError::Task {
            case: suite.name.clone(),
            message: "no trial was evaluated".into(),
        });
    };
    out.aggregate = crate::eval::report::aggregate(&cases, suite.checkpoints.len());
    out.cases = cases;
    out.judge = judge;
    out.warnings = warnings;
    out.wall_time_ms = wall;
    Ok(out)
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
        let (baseline, _) = baseline_trials(
            &p.baseline.report,
            &p.history,
            &p.baseline.baseline,
            Pooling::of(&p.suite.gates),
        );
        let checkpoints = p.suite.checkpoints.iter();
        let drivers = RerunDrivers::new(
            &p.suite.gates,
            checkpoints.map(|c| (c.id.as_str(), c.severity)),
            p.fail_on,
        );
        let planned = Some((&baseline, &drivers));
        if let Some(head) = evaluate_tier(&p.suite, tier, settings, session, planned)? {
            if !quiet {
                statusln!(
                    "{} tier of `{}`: {} evaluated ({} did not complete)",
                    tier,
                    p.suite.name,
                    cases_phrase(&head),
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
                } else if report.inconclusive.iter().any(|u| u.suite == p.suite.name) {
                    Verdict::Inconclusive
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
