//! Evaluate selected cases of a suite from recorded traces, in parallel,
//! into a `RunReport` whose case order is the suite's.

use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use crate::config::EvalSettings;
use crate::eval::case::{CaseContext, StepPart, TraceOutcome, evaluate_case};
use crate::eval::checkpoint::JudgeVerdicts;
use crate::eval::steps::{RulesScorer, StepContext, StepSettings, ToolCatalog, evaluate_steps};
use crate::report::build::{RunMeta, build_run_report};
use crate::report::model::{JudgeSummary, RunMode, RunReport, ShardInfo, Tier};
use crate::runner::RunnerError;
use crate::runner::replay::{load_evidence, load_trace, trace_path};
use crate::spec::suite::Suite;

/// Evaluate `indices` (into `suite.cases`) in replay mode.
pub fn evaluate_replay(
    suite: &Suite,
    indices: &[usize],
    tier: Tier,
    settings: &EvalSettings,
) -> Result<RunReport, RunnerError> {
    let started = Instant::now();
    let judge = JudgeVerdicts::default();
    let catalog =
        ToolCatalog::new(&suite.tools).map_err(|e| RunnerError::Catalog(e.to_string()))?;
    let step_settings = StepSettings::from_suite(suite);
    let scorer = RulesScorer;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.jobs)
        .build()
        .map_err(|e| RunnerError::Io {
            action: "start worker threads for",
            path: suite.path.clone(),
            source: std::io::Error::other(e),
        })?;
    let results: Vec<Result<(crate::report::model::CaseReport, Vec<String>), RunnerError>> = pool
        .install(|| {
            indices
                .par_iter()
                .map(|&i| {
                    let case = &suite.cases[i];
                    let evidence = load_evidence(suite, case, settings.evidence.as_deref())?;
                    let (path, warnings) = trace_path(suite, case, settings.traces.as_deref());
                    let outcome = load_trace(&path, &display_path(&path, &suite.dir));
                    let (steps, step_warnings) = match &outcome {
                        TraceOutcome::Loaded { trace, .. } => {
                            let ctx = StepContext::for_case(
                                suite,
                                case,
                                &catalog,
                                &step_settings,
                                &scorer,
                            );
                            evaluate_steps(trace, &ctx).into_part()
                        }
                        TraceOutcome::Failed { .. } => (StepPart::default(), Vec::new()),
                    };
                    let cx = CaseContext {
                        suite,
                        case,
                        outcome: &outcome,
                        evidence: evidence.as_ref(),
                        judge: &judge,
                    };
                    let mut report = evaluate_case(&cx, steps);
                    report.warnings.extend(step_warnings);
                    Ok((report, warnings))
                })
                .collect()
        });
    let mut cases = Vec::with_capacity(results.len());
    let mut warnings = Vec::new();
    for r in results {
        let (case, w) = r?;
        cases.push(case);
        warnings.extend(w);
    }
    let mut config_tags = suite.config_tags.clone();
    config_tags.extend(settings.tags.clone());
    let meta = RunMeta {
        tier,
        mode: RunMode::Replay,
        seed: settings.seed,
        config_tags,
        evaluated_at: (!settings.deterministic).then(crate::clock::now_rfc3339),
        wall_time_ms: (!settings.deterministic).then(|| started.elapsed().as_millis() as u64),
        judge: JudgeSummary {
            provider: settings.judge.as_str().to_owned(),
            ..JudgeSummary::default()
        },
        shard: settings.shard.map(|s| ShardInfo {
            index: s.index,
            count: s.count,
        }),
        warnings,
    };
    Ok(build_run_report(suite, cases, meta))
}

/// `path` relative to `base` when it lies inside it, with `/` separators, so
/// reports read the same on every machine.
pub fn display_path(path: &Path, base: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}
