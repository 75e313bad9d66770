//! Small decisions the builder makes about single spans: does a model call
//! state a plan, is a tool the run's final answer, does a model call end its
//! agent's turn.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::agents::AgentIndex;
use super::model::Node;
use super::scan::StepScan;
use crate::spec::model::StepType;
use crate::trace::model::{Span, SpanKind, Trace};

/// Tools whose call *is* the answer (smolagents `final_answer`, any-agent
/// `final_output`). Compared case-insensitively, ignoring `_`, `-` and spaces.
pub(crate) fn is_final_tool(name: &str) -> bool {
    let folded: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase();
    matches!(
        folded.as_str(),
        "finalanswer" | "finaloutput" | "finalanswertool"
    )
}

/// The span's `gen_ai.operation.name`, if any.
pub(crate) fn operation(span: &Span) -> Option<&str> {
    span.attributes
        .get("gen_ai.operation.name")
        .and_then(|v| v.as_str())
}

/// Whether the span is explicitly a planning call: `gen_ai.operation.name = plan`
/// or a span named `plan`/`planning`/`planner` (any case).
pub(crate) fn is_plan_span(span: &Span) -> bool {
    operation(span).is_some_and(|op| op.eq_ignore_ascii_case("plan"))
        || matches!(
            span.name.to_ascii_lowercase().as_str(),
            "plan" | "planning" | "planner"
        )
}

static PLAN_MARKER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)(\bplan\s*:|\bsteps\s*:|\b(?:my|the|a|this|following)\s+plan\b|\bstep\s*1\b|\bfirst,?\s+i\s+(?:will|'ll|need to)\b[^.]*\bthen\b)").ok()
});
static INTENT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:i will|i'll|i am going to|i'm going to|we will|we'll)\b").ok()
});
static NUMBERED: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?m)^\s*(?:step\s*)?\d+[.)]\s+\S").ok());

/// Whether a model's text states a plan: an explicit marker (`Plan:`,
/// `Steps:`, "my plan", "Step 1", "first, I will … then"), or a statement of
/// intent ("I will", "I'll", "we will") together with a numbered list of at
/// least two items. Conservative on purpose: a numbered list of questions
/// for the user is not a plan.
pub(crate) fn states_plan(text: &str) -> bool {
    if PLAN_MARKER.as_ref().is_some_and(|re| re.is_match(text)) {
        return true;
    }
    let numbered = NUMBERED.as_ref().map_or(0, |re| re.find_iter(text).count());
    numbered >= 2 && INTENT.as_ref().is_some_and(|re| re.is_match(text))
}

/// Whether the model call at position `pos` of `order` hands control away:
/// the next step-like span (model call, tool, user turn) is a user turn, or
/// belongs to an agent that neither is this agent nor runs under it, or
/// there is none.
pub(crate) fn ends_turn(
    trace: &Trace,
    index: &AgentIndex,
    scan: &StepScan,
    order: &[usize],
    pos: usize,
) -> bool {
    let Some(&me) = order.get(pos) else {
        return true;
    };
    let agent = index.agent(me);
    let Some(j) = scan.next_outside(index, me, pos).and_then(|p| order.get(p)) else {
        return true;
    };
    match trace.spans[*j].kind {
        SpanKind::User => true,
        _ => !index.runs_under(index.agent(*j), agent),
    }
}

pub(crate) fn span_error(span: &Span) -> Option<Box<str>> {
    span.is_error()
        .then(|| span.status.message.clone().unwrap_or_default())
}

/// The answer inside a final-answer tool's arguments: the single string
/// argument (`answer`, `output`, …) when there is one, else the arguments.
pub(crate) fn answer_of(args: &Value) -> Value {
    match args {
        Value::Object(map) if map.len() == 1 => map.values().next().cloned().unwrap_or(Value::Null),
        other => other.clone(),
    }
}

/// Mark the SYNTH that answers the run: the last SYNTH of a top-level agent
/// (one with no caller), else the last SYNTH of any agent.
pub(crate) fn mark_final_answer(nodes: &mut [Node], index: &AgentIndex) {
    let top_level = |n: &Node| index.caller(n.agent.as_deref().unwrap_or("")).is_none();
    let pick = nodes
        .iter()
        .rposition(|n| n.step_type == StepType::Synth && top_level(n))
        .or_else(|| nodes.iter().rposition(|n| n.step_type == StepType::Synth));
    if let Some(i) = pick {
        nodes[i].final_answer = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_tools_are_recognised_in_any_spelling() {
        assert!(is_final_tool("final_answer"));
        assert!(is_final_tool("FinalAnswer"));
        assert!(is_final_tool("final-output"));
        assert!(!is_final_tool("answer_question"));
    }

    #[test]
    fn plans_need_a_marker_or_intent_with_a_numbered_list() {
        assert!(states_plan("Plan: look up the account, then answer."));
        assert!(states_plan("Here is my plan for this task."));
        assert!(states_plan(
            "I will:\n1. look up the account\n2. compute the balance"
        ));
        assert!(states_plan(
            "First, I will fetch the user and then check the flights."
        ));
        assert!(!states_plan(
            "Could you please tell me:\n1. Trip type\n2. Cabin class"
        ));
        assert!(!states_plan("To assist you, I'll need your user ID."));
    }
}
