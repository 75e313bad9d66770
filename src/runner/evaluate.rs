//! The evaluation path shared by replay and run mode: each selected case's
//! trace outcome (read from a recording, or produced by the agent) goes
//! through the same checkpoint, step and metric evaluation, in parallel, into
//! a `RunReport` whose case order is the suite's.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use crate::eval::case::{CaseContext, TraceOutcome, check_case, finish_case};
use crate::eval::metrics::evaluate_task_with;
use crate::eval::report::{RunMeta, build_run_report};
use crate::eval::steps::{
    JudgedScorer, RulesScorer, StepContext, StepEvaluation, StepScorer, StepSettings, ToolCatalog,
    evaluate_steps_answering, evaluate_steps_of,
};
use crate::judged::questions::CaseView;
use crate::judged::rca::judge_root_causes;
use crate::judged::tier::{CaseJudgments, SuiteJudge};
use crate::model::run::{CaseReport, JudgeSummary, RunMode, RunReport, ShardInfo, Tier};
use crate::runner::RunnerError;
use crate::runner::replay::{load_evidence, load_evidence_file, load_trace, trace_path};
use crate::runner::settings::EvalSettings;
use crate::spec::model::RootCauseMode;
use crate::spec::suite::Suite;
use crate::trace::model::Trace;

/// What the runner has for one case before evaluation.
#[derive(Debug, Clone)]
pub(crate) struct CaseInput {
    pub outcome: TraceOutcome,
    /// Case-specific warnings (e.g. several recorded trace files).
    pub warnings: Vec<String>,
    /// Run mode: where the agent may have written the case's evidence (`{evidence_file}`).
    pub evidence_file: Option<PathBuf>,
}

/// One tier of a suite, ready to evaluate.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TierRun<'a> {
    pub suite: &'a Suite,
    /// Indices into `suite.cases`, in suite order.
    pub indices: &'a [usize],
    pub tier: Tier,
    pub mode: RunMode,
    /// When the tier started (agent runs included), for `wall_time_ms`.
    pub started: Instant,
}

/// Evaluate `indices` (into `suite.cases`) in replay mode.
pub fn evaluate_replay(
    suite: &Suite,
    indices: &[usize],
    tier: Tier,
    settings: &EvalSettings,
) -> Result<RunReport, RunnerError> {
    let run = TierRun {
        suite,
        indices,
        tier,
        mode: RunMode::Replay,
        started: Instant::now(),
    };
    evaluate_cases(&run, settings, |i| {
        let case = &suite.cases[i];
        let (path, warnings) = trace_path(suite, case, settings.traces.as_deref());
        CaseInput {
            outcome: load_trace(&path, &display_path(&path, &suite.dir)),
            warnings,
            evidence_file: None,
        }
    })
}

/// Evaluate every case of `run`; `input(i)` gives the trace outcome of case
/// `i` (an index into `suite.cases`). Evidence is read here, the same way in
/// both modes.
pub(crate) fn evaluate_cases<F>(
    run: &TierRun<'_>,
    settings: &EvalSettings,
    input: F,
) -> Result<RunReport, RunnerError>
where
    F: Fn(usize) -> CaseInput + Sync,
{
    let suite = run.suite;
    let catalog =
        ToolCatalog::new(&suite.tools).map_err(|e| RunnerError::Catalog(e.to_string()))?;
    let step_settings = StepSettings::from_suite(suite);
    let suite_judge = settings.judge_run.for_suite(suite)?;
    let trace_judges_without_judge =
        suite_judge.is_none() && !settings.judge_run.options.trace_judges(suite).is_empty();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.jobs)
        .build()
        .map_err(|e| RunnerError::Io {
            action: "start worker threads for",
            path: suite.path.clone(),
            source: std::io::Error::other(e),
        })?;
    // Read every case first: the judge asks about all of them in one run.
    let loaded: Vec<(usize, Option<serde_json::Value>, CaseInput)> = pool.install(|| {
        run.indices
            .par_iter()
            .map(|&i| {
                let input = input(i);
                // Evidence the agent wrote wins over the suite's recordings; `--evidence` over both.
                let written = input
                    .evidence_file
                    .as_deref()
                    .filter(|p| settings.evidence.is_none() && p.is_file());
                let evidence = match written {
                    Some(path) => load_evidence_file(path)?,
                    None => load_evidence(suite, &suite.cases[i], settings.evidence.as_ref())?,
                };
                Ok((i, evidence, input))
            })
            .collect::<Result<_, RunnerError>>()
    })?;
    let (judgments, mut judge_summary) = judge_cases(
        suite_judge.as_ref(),
        suite,
        &catalog,
        &step_settings,
        &loaded,
    )?;
    for judge in settings.judge_run.options.trace_judges(suite) {
        match judge {
            crate::spec::judge::TraceJudgeName::Gpa => {
                judge_summary.per_case.insert(
                    crate::judged::gpa::GPA.to_owned(),
                    crate::judged::gpa::CALLS_PER_CASE,
                );
            }
        }
    }
    let rules = RulesScorer;
    // The judge's root-cause question needs the traces after every case is
    // evaluated; otherwise each case's trace is dropped once its
    // checkpoints and its DAG are made, before its steps are scored (issue
    // 25: a large trace's spans, its step scores and its report's step
    // entries were in memory at once).
    let keep_traces = step_settings.root_cause == RootCauseMode::Judge;
    let results: Vec<(CaseReport, Option<Box<Trace>>)> = pool.install(|| {
        loaded
            .into_par_iter()
            .zip(judgments.into_par_iter())
            .map(
                |(
                    (
                        i,
                        evidence,
                        CaseInput {
                            outcome, warnings, ..
                        },
                    ),
                    judged,
                )| {
                    let case = &suite.cases[i];
                    let judged_scorer = JudgedScorer::new(&judged.steps);
                    let scorer: &dyn StepScorer = if suite_judge.is_some() {
                        &judged_scorer
                    } else {
                        &rules
                    };
                    // Checkpoints first: their event log of the trace is
                    // gone before the DAG and the step scores are made.
                    let checks = check_case(&CaseContext {
                        suite,
                        case,
                        outcome: &outcome,
                        evidence: evidence.as_ref(),
                        judge: &judged.checkpoints,
                    });
                    // The semantic task check asks about the run's answer,
                    // read from the DAG the steps were scored on.
                    let (evaluation, answer, kept) = match outcome {
                        TraceOutcome::Loaded { trace, .. } => {
                            let ctx = StepContext::for_case(
                                suite,
                                case,
                                &catalog,
                                &step_settings,
                                scorer,
                            );
                            if keep_traces {
                                let (evaluation, answer) = evaluate_steps_answering(&trace, &ctx);
                                (Some(evaluation), answer, Some(trace))
                            } else {
                                let (evaluation, answer) = evaluate_steps_of(trace, &ctx);
                                (Some(evaluation), answer, None)
                            }
                        }
                        TraceOutcome::Failed { .. } => (None, None, None),
                    };
                    let traced = evaluation.is_some();
                    let (mut steps, step_warnings) = evaluation
                        .map(StepEvaluation::into_part)
                        .unwrap_or_default();
                    // A task result is there when the trace was evaluated
                    // with an expected output, and so is the answer read.
                    if let (Some(semantic), Some(task), Some(expected)) = (
                        &judged.task,
                        steps.task.as_mut(),
                        case.expected_output.as_ref(),
                    ) {
                        *task = evaluate_task_with(expected, answer.as_deref(), Some(semantic));
                    }
                    let mut report = finish_case(suite, case, evidence.as_ref(), checks, steps);
                    report.trace_judges = judged.trace_judges;
                    if trace_judges_without_judge && traced {
                        report.trace_judges =
                            crate::judged::gpa::not_available("no judge configured");
                    }
                    // Case-specific warnings stay with their case, so shard
                    // reports merge into exactly what one run gives.
                    report.warnings.extend(warnings);
                    report.warnings.extend(step_warnings);
                    report.warnings.extend(judged.warnings);
                    (report, kept)
                },
            )
            .collect()
    });
    let (mut cases, kept): (Vec<_>, Vec<_>) = results.into_iter().unzip();
    if keep_traces {
        // One question per failed case, asked now that failures are known.
        let traces: Vec<Option<&Trace>> = kept.iter().map(Option::as_deref).collect();
        if let Some(rca) = judge_root_causes(suite_judge.as_ref(), suite, &traces, &mut cases)? {
            judge_summary = crate::judged::summary::merge([&judge_summary, &rca]);
        }
    }
    let mut config_tags = suite.config_tags.clone();
    config_tags.extend(settings.tags.clone());
    let meta = RunMeta {
        tier: run.tier,
        mode: run.mode,
        seed: settings.seed,
        config_tags,
        evaluated_at: (!settings.deterministic).then(crate::clock::now_rfc3339),
        wall_time_ms: (!settings.deterministic).then(|| run.started.elapsed().as_millis() as u64),
        judge: judge_summary,
        shard: settings.shard.map(|s| ShardInfo {
            index: s.index,
            count: s.count,
        }),
        warnings: Vec::new(),
    };
    let mut report = build_run_report(suite, cases, meta);
    if let Some(judge) = suite_judge
        .as_ref()
        .filter(|j| j.settings.insight_summaries)
        && let Some(mut insights) = report.aggregate.insights.take()
    {
        let named = crate::judged::insight_names::name_groups(judge, &mut insights, &report.cases)?;
        report.aggregate.insights = Some(insights);
        report.judge = crate::judged::summary::merge([&report.judge, &named]);
    }
    Ok(report)
}

/// `path` relative to `base` when it lies inside it, with `/` separators, so
/// reports read the same on every machine.
pub(crate) fn display_path(path: &Path, base: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The judge's answers for every loaded case (empty answers without a judge).
fn judge_cases(
    judge: Option<&SuiteJudge>,
    suite: &Suite,
    catalog: &ToolCatalog,
    step_settings: &StepSettings,
    loaded: &[(usize, Option<serde_json::Value>, CaseInput)],
) -> Result<(Vec<CaseJudgments>, JudgeSummary), RunnerError> {
    let Some(judge) = judge else {
        return Ok((
            vec![CaseJudgments::default(); loaded.len()],
            crate::judged::summary::none(),
        ));
    };
    let views: Vec<(usize, CaseView<'_>)> = loaded
        .iter()
        .enumerate()
        .filter_map(|(k, (i, evidence, input))| match &input.outcome {
            TraceOutcome::Loaded { trace, .. } => Some((
                k,
                CaseView {
                    case: &suite.cases[*i],
                    trace,
                    evidence: evidence.as_ref(),
                },
            )),
            TraceOutcome::Failed { .. } => None,
        })
        .collect();
    let (positions, views): (Vec<usize>, Vec<CaseView<'_>>) = views.into_iter().unzip();
    let (answers, summary) = judge.judge(suite, catalog, step_settings, &views)?;
    let mut out = vec![CaseJudgments::default(); loaded.len()];
    for (k, a) in positions.into_iter().zip(answers) {
        out[k] = a;
    }
    // Cases without a trace fail every checkpoint before the judge is consulted.
    Ok((out, summary))
}
