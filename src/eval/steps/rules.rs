//! The `rules` scorer: deterministic step scores from what is certain
//! (DESIGN §6). Sub-scores are 5 for a check passed and 1 (2 for schema
//! violations other than missing/type/enum) for a check failed; the step's
//! score is its lowest sub-score. Everything the rules cannot decide is N/A
//! with the reason in the notes. The labels follow the table in
//! [`super::taxonomy`].

use std::fmt::Write as _;

use super::catalog::{ArgCheck, ViolationKind};
use super::scorer::{Metric, StepInput, StepScore, StepScorer};
use super::taxonomy::Failure;
use crate::dag::{ExecOutcome, exec_outcome};
use crate::eval::metrics::task::evaluate_task;
use crate::model::ShortText;
use crate::spec::model::StepType;
use crate::trace::SharedValue;

/// The scorer's name, recorded as `scored_by`.
pub(crate) const RULES: &str = "rules";

const PASS: f64 = 5.0;
const FAIL: f64 = 1.0;
/// A schema violation that is not a missing, mistyped or out-of-enum
/// argument (a pattern, a bound): certainly wrong, graded a little less harshly.
const SOFT_FAIL: f64 = 2.0;

/// Deterministic scorer. Stateless: the catalog and expectations come with each input.
#[derive(Debug, Clone, Copy, Default)]
pub struct RulesScorer;

impl StepScorer for RulesScorer {
    fn name(&self) -> &str {
        RULES
    }

    fn score(&self, input: &StepInput<'_>) -> StepScore {
        match input.node.step_type {
            StepType::Plan => {
                StepScore::not_applicable("plan completeness and feasibility need a judge")
            }
            StepType::ToolSel => tool_selection(input),
            StepType::ParamGen => parameters(input),
            StepType::Exec => execution(input),
            StepType::Synth => synthesis(input),
        }
    }
}

fn tool_selection(input: &StepInput<'_>) -> StepScore {
    let node = input.node;
    let unknown: Vec<&str> = if input.catalog.is_empty() {
        Vec::new()
    } else {
        node.tools
            .iter()
            .map(ShortText::as_str)
            .filter(|t| !input.catalog.contains(t))
            .collect()
    };
    if !unknown.is_empty() {
        return StepScore::from_metrics(
            RULES,
            [(Metric::SelectionAccuracy, FAIL)],
            format!("selected {} not in the tool catalog", quoted(&unknown)),
            Some(Failure::UnknownTool),
        );
    }
    if let Some(allowed) = input.workflow_tools {
        let unexpected: Vec<&str> = node
            .tools
            .iter()
            .map(ShortText::as_str)
            .filter(|t| !allowed.contains(*t))
            .collect();
        if !unexpected.is_empty() {
            return StepScore::from_metrics(
                RULES,
                [(Metric::Relevance, SOFT_FAIL)],
                format!(
                    "selected {} that the workflow schema does not call for",
                    quoted(&unexpected)
                ),
                Some(Failure::UnexpectedTool),
            );
        }
    }
    if input.catalog.is_empty() {
        return StepScore::not_applicable(
            "no tool catalog; whether the tool fits the step needs a judge",
        );
    }
    // Nothing the rules can fault: the selection passes them (a judge may still grade how
    // well the tool fits the step). Scoring it N/A would leave only failures in the mean,
    // so `step_type:TOOLSEL` could never move.
    StepScore::from_metrics(
        RULES,
        [(Metric::SelectionAccuracy, PASS)],
        if input.workflow_tools.is_some() {
            "every selected tool is in the catalog and called for by the workflow"
        } else {
            "every selected tool is in the catalog"
        },
        None,
    )
}

fn parameters(input: &StepInput<'_>) -> StepScore {
    let node = input.node;
    let tool = node.tool().unwrap_or(&node.name);
    match input.catalog.validate_shared(tool, node.arguments.as_ref()) {
        ArgCheck::UnknownTool if input.catalog.is_empty() => {
            StepScore::not_applicable("no tool catalog to validate the arguments against")
        }
        ArgCheck::UnknownTool => StepScore::not_applicable(crate::model::notes::shared(format!(
            "`{tool}` is not in the tool catalog, so it has no schema"
        ))),
        ArgCheck::NoSchema => StepScore::not_applicable(crate::model::notes::shared(format!(
            "`{tool}` has no argument schema in the catalog"
        ))),
        ArgCheck::Valid => StepScore::from_metrics(
            RULES,
            [(Metric::Completeness, PASS), (Metric::Correctness, PASS)],
            "arguments match the tool's schema",
            None,
        ),
        ArgCheck::Invalid(violations) => {
            let worst = violations
                .iter()
                .map(|v| v.kind)
                .min()
                .unwrap_or(ViolationKind::Other);
            let (failure, metrics) = match worst {
                ViolationKind::MissingRequired => (
                    Failure::MissingRequiredParameter,
                    [(Metric::Completeness, FAIL)],
                ),
                ViolationKind::TypeMismatch => (
                    Failure::ParameterTypeMismatch,
                    [(Metric::Correctness, FAIL)],
                ),
                ViolationKind::EnumViolation => {
                    (Failure::InvalidEnumValue, [(Metric::Correctness, FAIL)])
                }
                ViolationKind::Other => (
                    Failure::InvalidParameterValue,
                    [(Metric::Correctness, SOFT_FAIL)],
                ),
            };
            let mut notes = format!(
                "{} schema violation{}: ",
                violations.len(),
                if violations.len() == 1 { "" } else { "s" }
            );
            for (i, v) in violations.iter().take(5).enumerate() {
                if i > 0 {
                    notes.push_str("; ");
                }
                let at = if v.path.is_empty() {
                    String::new()
                } else {
                    format!("{}: ", v.path)
                };
                let _ = write!(notes, "{at}{}", v.message);
            }
            if violations.len() > 5 {
                let _ = write!(notes, "; and {} more", violations.len() - 5);
            }
            StepScore::from_metrics(RULES, metrics, notes, Some(failure))
        }
    }
}

fn execution(input: &StepInput<'_>) -> StepScore {
    let node = input.node;
    match exec_outcome(node) {
        ExecOutcome::Ok => {
            let metrics = [(Metric::Success, PASS)].into_iter().chain(
                node.output
                    .is_some()
                    .then_some((Metric::ResultValidity, PASS)),
            );
            StepScore::from_metrics(RULES, metrics, "the tool ran and returned no error", None)
        }
        ExecOutcome::Timeout { message } => StepScore::from_metrics(
            RULES,
            [(Metric::Success, FAIL)],
            format!("timed out: {message}"),
            Some(Failure::ToolTimeout),
        ),
        ExecOutcome::Error { message } => StepScore::from_metrics(
            RULES,
            [(Metric::Success, FAIL)],
            format!("the tool span failed: {message}"),
            Some(Failure::ToolErrorResponse),
        ),
        ExecOutcome::ErrorResult { message } => StepScore::from_metrics(
            RULES,
            [(Metric::Success, FAIL), (Metric::ResultValidity, FAIL)],
            format!("the result is an error: {message}"),
            Some(Failure::ToolErrorResponse),
        ),
    }
}

fn synthesis(input: &StepInput<'_>) -> StepScore {
    let node = input.node;
    if !node.final_answer {
        return StepScore::not_applicable(
            "an intermediate reply; faithfulness and coherence need a judge",
        );
    }
    let Some(expected) = input.expected_output else {
        return StepScore::not_applicable(
            "the case has no expected_output; faithfulness and coherence need a judge",
        );
    };
    let answer = node.output.as_ref().map(SharedValue::to_text);
    let task = evaluate_task(expected, answer.as_deref());
    match task.success {
        None => StepScore::not_applicable(task.detail),
        Some(true) => {
            StepScore::from_metrics(RULES, [(Metric::Completeness, PASS)], task.detail, None)
        }
        Some(false) => StepScore::from_metrics(
            RULES,
            [(Metric::Completeness, FAIL)],
            task.detail,
            Some(Failure::IncorrectAnswer),
        ),
    }
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
