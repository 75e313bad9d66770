//! `agenteval-gate rubric generate|verify`: glue around
//! [`crate::judged::rubric`] (questions, parsing, ids, the draft file),
//! [`crate::spec::draft`] (the suite with a draft appended, validated) and
//! `calibrate`'s pairing and statistics.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::app::cli::{CliRubric, CliRubricGenerate, CliRubricVerify};
use crate::app::config::Config;
use crate::app::error::{Error, Result};
use crate::exit_code::ExitCode;
use crate::fsutil::write_to;
use crate::judged::answer::Outcome;
use crate::judged::answer::Parsed;
use crate::judged::calibrate::load_golden;
use crate::judged::rubric::{assign_ids, questions, render_draft};
use crate::llm::{JudgeError, JudgeMode};
use crate::output::plural;
use crate::runner::settings::{EvalSettings, TierChoice};
use crate::spec::suite::Suite;

use super::calibrate::{emit, judge_golden};
use super::run::load_suites;

/// The draft's default file name, next to `suite.yaml`.
const DRAFT_FILE: &str = "rubric.draft.yaml";

pub(crate) fn run(cmd: &CliRubric, config: &Config, quiet: bool) -> Result<ExitCode> {
    match cmd {
        CliRubric::Generate(args) => generate(args, config, quiet),
        CliRubric::Verify(args) => verify(args, config, quiet),
    }
}

/// The one selected suite, with a judge.
fn one_suite(
    eval: &crate::app::cli::CliEvalArgs,
    config: &Config,
    command: &str,
    quiet: bool,
) -> Result<(EvalSettings, Suite)> {
    let settings = EvalSettings::resolve(eval, config, TierChoice::Full)?;
    if settings.judge_run.mode() == JudgeMode::None {
        return Err(Error::usage_with_help(
            format!("`rubric {command}` needs a judge"),
            "pass `--judge openai --judge-model MODEL` (or `anthropic`), or `--judge replay` to use the judge cache",
        ));
    }
    let mut suites = load_suites(&settings, quiet)?;
    if suites.len() != 1 {
        return Err(Error::usage_with_help(
            format!(
                "`rubric {command}` takes one suite; {} are selected",
                suites.len()
            ),
            "pick one with `--suite NAME`",
        ));
    }
    let suite = suites.remove(0);
    Ok((settings, suite))
}

fn generate(args: &CliRubricGenerate, config: &Config, quiet: bool) -> Result<ExitCode> {
    let (settings, suite) = one_suite(&args.eval, config, "generate", quiet)?;
    let Some(judge) = settings.judge_run.for_suite(&suite)? else {
        return Err(Error::Internal(
            "a judge mode without judge settings".into(),
        ));
    };
    let requests = questions(&suite, &judge.settings.prompts)?;
    let (outcomes, summary) = judge.ask(&requests)?;
    let mut items = Vec::new();
    let mut problems = Vec::new();
    for (i, outcome) in outcomes.iter().enumerate() {
        match outcome {
            Outcome::Answered(a) => match &a.parsed {
                Parsed::Rubric(drafted) => items.extend(drafted.iter().cloned()),
                _ => problems.push(format!("question {}: judge_error: invalid answer", i + 1)),
            },
            Outcome::Failed(e) => problems.push(format!("question {}: judge_error: {e}", i + 1)),
            other => problems.push(format!(
                "question {}: {}",
                i + 1,
                crate::judged::tier::reason(other).unwrap_or_default()
            )),
        }
    }
    if items.is_empty() {
        return Err(JudgeError::Unavailable {
            judge: judge.settings.identity.to_string(),
            attempted: requests.len() as u64,
            failed: problems.len() as u64,
            first_error: problems.first().cloned().unwrap_or_default(),
        }
        .into());
    }
    let mut used: BTreeSet<String> = suite.checkpoints.iter().map(|c| c.id.clone()).collect();
    used.extend(baseline_ids(&settings.suite.baselines_dir, &suite.name));
    let existing: Vec<String> = suite
        .checkpoints
        .iter()
        .map(|c| c.instruction.clone())
        .collect();
    let assigned = assign_ids(items, &used, &existing);
    let drafted_by = format!(
        "{} ({})",
        judge.settings.identity.label(),
        judge.settings.mode.as_str()
    );
    let text = render_draft(&suite.name, &drafted_by, &assigned);
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| suite.dir.join(DRAFT_FILE));
    // Never write a draft that would not lint with the suite.
    let (_, _, checkpoints) = crate::spec::draft::parse_text(&out, &text)?;
    crate::spec::draft::with_checkpoints(&suite.path, &out, &checkpoints)?;
    if out == suite.path {
        return Err(Error::usage_with_help(
            "`--out` is the suite file itself",
            "a draft is never applied: write it elsewhere and copy the items you keep",
        ));
    }
    write_to(&out, &text)?;
    if !quiet {
        statusln!(
            "drafted {} for `{}` into {} (not applied; review it, then `rubric verify`)",
            plural(assigned.len(), "checkpoint", "checkpoints"),
            suite.name,
            out.display()
        );
        if let Some(line) = crate::judged::summary::one_line(&summary) {
            statusln!("{line}");
        }
        for p in &problems {
            warnln!("{p}: that question drafted nothing");
        }
    }
    Ok(ExitCode::Success)
}

fn verify(args: &CliRubricVerify, config: &Config, quiet: bool) -> Result<ExitCode> {
    let (settings, suite) = one_suite(&args.eval, config, "verify", quiet)?;
    let draft_path = args
        .draft
        .clone()
        .unwrap_or_else(|| suite.dir.join(DRAFT_FILE));
    let (draft_suite, drafted_by, checkpoints) = crate::spec::draft::read_draft(&draft_path)?;
    if draft_suite != suite.name {
        return Err(Error::usage_with_help(
            format!(
                "the draft is for suite `{draft_suite}`, not `{}`",
                suite.name
            ),
            "pass the draft of this suite with `--draft FILE`",
        ));
    }
    let merged = crate::spec::draft::with_checkpoints(&suite.path, &draft_path, &checkpoints)?;
    let mut merged_suite = merged.suite;
    // The merged spec was read from a temporary file next to the suite's.
    merged_suite.path.clone_from(&suite.path);
    let golden_path: PathBuf = args
        .golden
        .clone()
        .unwrap_or_else(|| suite.dir.join("golden.yaml"));
    let golden = load_golden(&golden_path, &merged_suite)?;
    let drafted: BTreeSet<String> = checkpoints
        .iter()
        .filter_map(|c| c.get("id")?.as_str().map(str::to_owned))
        .collect();
    let labelled = golden
        .labels
        .iter()
        .filter(|l| matches!(&l.item, crate::judged::calibrate::golden::Item::Checkpoint(id) if drafted.contains(id)))
        .count();
    if labelled == 0 {
        return Err(Error::usage_with_help(
            format!(
                "`{}` labels none of the draft's checkpoints ({})",
                golden_path.display(),
                drafted.iter().cloned().collect::<Vec<_>>().join(", ")
            ),
            "label some cases for the drafted ids: `- {case: ID, checkpoint: R3-01, label: PASS}`",
        ));
    }
    let (report, summary) = judge_golden(&merged_suite, &golden, &settings)?;
    if !quiet {
        statusln!(
            "verifying the draft by {drafted_by} on {} of its checkpoints",
            plural(labelled, "label", "labels")
        );
    }
    emit(&report, &summary, args.format, args.out.as_deref(), quiet)?;
    Ok(ExitCode::Success)
}

/// Every checkpoint id any baseline of `suite` under `dir` recorded (a
/// draft must not reuse one: IDs are immutable). Unreadable files add none.
fn baseline_ids(dir: &Path, suite: &str) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return ids;
    };
    for entry in entries.filter_map(std::result::Result::ok) {
        let path = entry.path().join(format!("{suite}.json"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        if let Some(list) = v
            .pointer("/report/checkpoint_catalog")
            .and_then(serde_json::Value::as_array)
        {
            ids.extend(
                list.iter()
                    .filter_map(|c| c.get("id")?.as_str().map(str::to_owned)),
            );
        }
    }
    ids
}
