//! `agenteval-gate rubric generate|verify` (issue 14 item 4).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::args::{CliCalibrateFormat, CliEvalArgs};

/// Draft task-specific tier-3 checkpoints with the judge, and check a draft
/// against labelled cases.
#[derive(Debug, Subcommand)]
pub(crate) enum CliRubric {
    /// Draft tier-3 checkpoints from the cases' inputs and expected outcomes
    /// into a reviewable YAML file (never applied to the suite).
    #[command(
        long_about = "Draft tier-3 checkpoints from the cases' inputs and expected outcomes \
into a reviewable YAML file. The draft is never applied: review it, check it with `rubric verify`, \
and copy the items you keep into suite.yaml. One judge question per 40 cases. IDs are new \
(`R3-NN` past every id the suite or its baselines used); severities are capped at medium; the \
draft is checked to lint clean with the suite before it is written.\n\nExit codes: 0 written; \
64 no judge or not one suite; 69 the judge unavailable or nothing drafted; 78 bad suite."
    )]
    Generate(CliRubricGenerate),
    /// Judge a draft's checkpoints on labelled cases and report agreement
    /// (calibrate's statistics: agreement, Cohen's κ, Krippendorff's α).
    Verify(CliRubricVerify),
}

#[derive(Debug, Args)]
pub(crate) struct CliRubricGenerate {
    #[command(flatten)]
    pub eval: CliEvalArgs,
    /// Where to write the draft [default: `<suite dir>/rubric.draft.yaml`]; `-` for stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct CliRubricVerify {
    #[command(flatten)]
    pub eval: CliEvalArgs,
    /// The draft to verify [default: `<suite dir>/rubric.draft.yaml`].
    #[arg(long, value_name = "FILE")]
    pub draft: Option<PathBuf>,
    /// Golden set labelling the drafted checkpoints' ids [default: `<suite dir>/golden.yaml`].
    #[arg(long, value_name = "FILE")]
    pub golden: Option<PathBuf>,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = CliCalibrateFormat::Text)]
    pub format: CliCalibrateFormat,
    /// Also write the report as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}
