//! `agenteval-gate calibrate`: ask the judge about the golden set's items
//! on the suite's recorded traces, pair its answers with the labels and
//! report agreement. Glue only: the judge lives in `judge::tier`, the
//! statistics in `judge::calibrate`.

use std::collections::{BTreeMap, BTreeSet};

use crate::app::cli::{CliCalibrate, CliCalibrateFormat};
use crate::app::config::Config;
use crate::app::error::{Error, Result};
use crate::eval::case::TraceOutcome;
use crate::eval::steps::{StepSettings, ToolCatalog, build_case_dag};
use crate::exit_code::ExitCode;
use crate::fsutil::write_to;
use crate::judged::calibrate::{
    CalibrationReport, Golden, JudgedCase, load_golden, pair, render::render_text,
};
use crate::judged::questions::CaseView;
use crate::llm::JudgeMode;
use crate::model::run::JudgeSummary;
use crate::output::to_json;
use crate::runner::RunnerError;
use crate::runner::evaluate::display_path;
use crate::runner::replay::{load_evidence, load_trace, trace_path};
use crate::runner::settings::{EvalSettings, TierChoice};
use crate::spec::suite::Suite;

use super::run::load_suites;

pub(crate) fn run(args: &CliCalibrate, config: &Config, quiet: bool) -> Result<ExitCode> {
    let settings = EvalSettings::resolve(&args.eval, config, TierChoice::Full)?;
    if settings.judge_run.mode() == JudgeMode::None {
        return Err(Error::usage_with_help(
            "`calibrate` needs a judge",
            "pass `--judge openai --judge-model MODEL` (or `anthropic`), or `--judge replay` to use the judge cache",
        ));
    }
    let mut suites = load_suites(&settings, quiet)?;
    if suites.len() != 1 {
        return Err(Error::usage_with_help(
            format!("`calibrate` takes one suite; {} are selected", suites.len()),
            "pick one with `--suite NAME`",
        ));
    }
    let suite = suites.remove(0);
    let golden_path = args
        .golden
        .clone()
        .unwrap_or_else(|| suite.dir.join("golden.yaml"));
    let golden = load_golden(&golden_path, &suite)?;
    let (report, summary) = judge_golden(&suite, &golden, &settings)?;
    emit(&report, &summary, args.format, args.out.as_deref(), quiet)?;
    Ok(ExitCode::Success)
}

/// Ask the judge about every labelled item of `golden` on the suite's
/// recorded traces and pair its answers with the labels.
pub(crate) fn judge_golden(
    suite: &Suite,
    golden: &Golden,
    settings: &EvalSettings,
) -> Result<(CalibrationReport, JudgeSummary)> {
    let Some(mut judge) = settings.judge_run.for_suite(suite)? else {
        return Err(Error::Internal(
            "a judge mode without judge settings".into(),
        ));
    };
    // GPA labels: the judge is asked the GPA question of the labelled cases, whatever
    // the suite's `trace_judges` say.
    let gpa = crate::spec::judge::TraceJudgeName::Gpa;
    if golden
        .labels
        .iter()
        .any(|l| matches!(l.item, crate::judged::calibrate::golden::Item::Gpa(_)))
        && !judge.settings.trace_judges.contains(&gpa)
    {
        judge.settings.trace_judges.push(gpa);
    }
    let catalog =
        ToolCatalog::new(&suite.tools).map_err(|e| RunnerError::Catalog(e.to_string()))?;
    let step_settings = StepSettings::from_suite(suite);

    // The labelled cases' recorded traces (and evidence), in suite order.
    let labelled: BTreeSet<&str> = golden.labels.iter().map(|l| l.case.as_str()).collect();
    let mut loaded = Vec::new();
    for case in suite
        .cases
        .iter()
        .filter(|c| labelled.contains(c.id.as_str()))
    {
        let (path, _) = trace_path(suite, case, settings.traces.as_deref());
        let evidence = load_evidence(suite, case, settings.evidence.as_ref())?;
        if let TraceOutcome::Loaded { trace, .. } =
            load_trace(&path, &display_path(&path, &suite.dir))
        {
            loaded.push((case, trace, evidence));
        }
    }
    let views: Vec<CaseView<'_>> = loaded
        .iter()
        .map(|(case, trace, evidence)| CaseView {
            case,
            trace,
            evidence: evidence.as_ref(),
        })
        .collect();
    let (answers, summary) = judge.judge(suite, &catalog, &step_settings, &views)?;
    let cases: BTreeMap<String, JudgedCase> = loaded
        .iter()
        .zip(answers)
        .map(|((case, trace, _), judgments)| {
            let dag = build_case_dag(trace, suite.workflow.as_ref());
            let steps = dag
                .nodes
                .iter()
                .map(|n| (n.id.to_string(), n.step_type))
                .collect();
            (case.id.clone(), JudgedCase { judgments, steps })
        })
        .collect();
    let label = format!(
        "{} ({})",
        judge.settings.identity,
        judge.settings.mode.as_str()
    );
    let report = pair(
        golden,
        &cases,
        &suite.name,
        &label,
        judge.settings.kappa_threshold,
    )?;
    Ok((report, summary))
}

/// Print a calibration report (stdout in `format`, `out` as JSON) and the judge line.
pub(crate) fn emit(
    report: &CalibrationReport,
    summary: &JudgeSummary,
    format: CliCalibrateFormat,
    out: Option<&std::path::Path>,
    quiet: bool,
) -> Result<()> {
    if let Some(path) = out {
        write_to(path, &to_json(report))?;
    }
    match format {
        CliCalibrateFormat::Text => crate::output::write_stdout(&render_text(report))?,
        CliCalibrateFormat::Json => crate::output::write_document(&to_json(report))?,
    }
    if !quiet {
        if let Some(line) = crate::judged::summary::one_line(summary) {
            statusln!("{line}");
        }
        for w in &report.warnings {
            warnln!("{w}");
        }
    }
    Ok(())
}
