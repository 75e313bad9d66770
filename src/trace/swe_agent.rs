//! SWE-agent `.traj` files, old format (actions only, `state` as a JSON
//! string) and new (`tool_calls` with JSON-string arguments, `tool_call_ids`
//! on tool messages, `state` as an object).
//!
//! Each `trajectory[]` step becomes an LLM span `s<i>` (its `response` as
//! output, its input the `history` messages since the previous assistant
//! turn) and a tool span `o<i>` for the observation. The tool is the
//! step's `tool_calls[0]` function when present; otherwise the action's
//! command word (`edit 1:1 …` → `edit`), with the rest of the action as its
//! argument (a string) and a matching synthesized call on the LLM span so every step
//! has a call to select. `info.model_stats` tokens and cost go on the root
//! span and the metadata, `info.exit_status` sets the root's status,
//! `info.submission` is the final output. No clocks: order is the index.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::trace::assemble::Draft;
use crate::trace::detect::Plan;
use crate::trace::error::TraceError;
use crate::trace::input::Input;
use crate::trace::json::{decode_embedded, lenient_f64, lenient_u64, text_of};
use crate::trace::messages::message_from_object;
use crate::trace::model::{
    Message, Span, SpanKind, Status, StatusCode, Tokens, ToolCall, ToolExecution, Trace,
    TraceFormat,
};

const WHAT: &str =
    "a SWE-agent trajectory (`{\"trajectory\": […], \"history\": […], \"info\": {…}}`)";

#[derive(Deserialize)]
struct TrajFile {
    trajectory: Vec<Step>,
    #[serde(default)]
    history: Vec<Map<String, Value>>,
    #[serde(default)]
    info: Option<Map<String, Value>>,
    #[serde(default)]
    environment: Option<Value>,
    #[serde(default)]
    replay_config: Option<Value>,
}

#[derive(Deserialize)]
struct Step {
    #[serde(default)]
    action: Option<String>,
    #[serde(default)]
    observation: Option<Value>,
    #[serde(default)]
    response: Option<String>,
    #[serde(default)]
    thought: Option<String>,
    #[serde(default)]
    execution_time: Option<Value>,
    #[serde(default)]
    state: Option<Value>,
}

/// Read a `.traj` file (or JSONL of them).
pub(crate) fn parse(input: &Input<'_>, plan: &Plan) -> Result<Vec<Trace>, TraceError> {
    input.each_record(plan.layout, WHAT, build)
}

/// A history message that is the model's own turn (not a demonstration).
fn is_step_message(m: &Map<String, Value>) -> bool {
    m.get("role").and_then(Value::as_str) == Some("assistant")
        && m.get("is_demo").and_then(Value::as_bool) != Some(true)
}

fn build(id: String, traj: TrajFile) -> Trace {
    let mut draft = Draft::new(id, TraceFormat::SweAgent);
    let agent = traj
        .history
        .iter()
        .find_map(|m| m.get("agent").and_then(Value::as_str))
        .unwrap_or("main")
        .into();
    let mut root = Span::new("root", "swe-agent", SpanKind::Agent, 0);
    root.agent = Some(agent);

    // Inputs of each model turn: the history messages since the previous one.
    let mut turns: Vec<(Vec<Message>, Map<String, Value>)> = Vec::new();
    let mut context = Vec::new();
    for m in &traj.history {
        let mut lossless = true;
        let message = message_from_object(m, "user", &mut lossless);
        if is_step_message(m) {
            turns.push((std::mem::take(&mut context), m.clone()));
        } else {
            context.push(message);
        }
    }
    if !turns.is_empty() && turns.len() != traj.trajectory.len() {
        draft.warnings.push(format!(
            "`history` has {} model turns but `trajectory` has {} steps; inputs and tool calls are paired by position",
            turns.len(),
            traj.trajectory.len()
        ));
    }
    let mut turns = turns.into_iter();
    for (i, step) in traj.trajectory.into_iter().enumerate() {
        let turn = turns.next();
        let (llm, tool) = step_spans(i, step, turn, &mut draft.warnings);
        draft.spans.push(llm);
        draft.spans.push(tool);
    }

    let info = traj.info.unwrap_or_default();
    if let Some(Value::Object(stats)) = info.get("model_stats") {
        let sent = stats.get("tokens_sent").and_then(lenient_u64);
        let received = stats.get("tokens_received").and_then(lenient_u64);
        if sent.is_some() || received.is_some() {
            root.set_tokens(Some(Tokens {
                input: sent.unwrap_or(0),
                output: received.unwrap_or(0),
            }));
        }
        root.set_cost(stats.get("instance_cost").and_then(lenient_f64));
    }
    if let Some(status) = info.get("exit_status").and_then(Value::as_str) {
        root.status = if status == "submitted" {
            Status {
                code: StatusCode::Ok,
                message: None,
            }
        } else if status.starts_with("exit_")
            || status.contains("error")
            || status.contains("(exit_")
        {
            Status::error(status)
        } else {
            Status {
                code: StatusCode::Unset,
                message: Some(status.into()),
            }
        };
    }
    let mut metadata = BTreeMap::new();
    for (key, value) in info {
        if key == "submission" {
            draft.final_output = value.as_str().map(str::to_owned);
        }
        metadata.insert(key, value);
    }
    if let Some(env) = traj.environment {
        metadata.insert("environment".to_owned(), env);
    }
    if let Some(config) = traj.replay_config {
        metadata.insert("replay_config".to_owned(), decode_embedded(config));
    }
    metadata.remove("submission");
    draft.metadata = metadata;
    draft.spans.insert(0, root);
    draft.finish()
}

fn step_spans(
    i: usize,
    step: Step,
    turn: Option<(Vec<Message>, Map<String, Value>)>,
    warnings: &mut Vec<String>,
) -> (Span, Span) {
    let llm_id = format!("s{i}");
    let action = step.action.unwrap_or_default();
    let (inputs, turn_message) = turn.unzip();
    let mut lossless = true;
    let logged = turn_message
        .as_ref()
        .map(|m| message_from_object(m, "assistant", &mut lossless));
    if let Some(logged_action) = turn_message
        .as_ref()
        .and_then(|m| m.get("action"))
        .and_then(Value::as_str)
        && logged_action.trim() != action.trim()
    {
        warnings.push(format!("step {i}: the `history` turn's action differs from the `trajectory` step's; the step's is used"));
    }
    let real_calls: Vec<ToolCall> = logged.map(|m| m.tool_calls.into()).unwrap_or_default();
    let trimmed = action.trim();
    let (command, rest) = trimmed
        .split_once(char::is_whitespace)
        .unwrap_or((trimmed, ""));
    let command = if command.is_empty() {
        "action"
    } else {
        command
    };
    let calls = if real_calls.is_empty() {
        vec![ToolCall {
            arguments_text: None,
            id: None,
            name: command.into(),
            arguments: Value::String(rest.trim().to_owned()).into(),
        }]
    } else {
        if real_calls.len() > 1 {
            warnings.push(format!(
                "step {i} requested {} tool calls; the observation is attributed to the first",
                real_calls.len()
            ));
        }
        real_calls
    };

    let mut llm = Span::new(&llm_id, "assistant", SpanKind::Llm, 2 * i + 1);
    llm.parent = Some("root".into());
    llm.input_messages = inputs.unwrap_or_default().into();
    let content = step
        .response
        .or_else(|| step.thought.clone())
        .unwrap_or_default();
    llm.output_messages.reserve_exact(1);
    llm.output_messages.push(Message {
        role: "assistant".into(),
        content,
        tool_calls: calls.clone().into(),
        ..Message::default()
    });
    if let Some(thought) = step.thought {
        llm.attributes.insert("thought".into(), thought.into());
    }
    llm.attributes.insert("action".into(), action.into());

    let call = &calls[0];
    let observation = step.observation.map(|o| text_of(&o)).unwrap_or_default();
    let mut tool = Span::new(
        format!("o{i}"),
        call.name.clone(),
        SpanKind::Tool,
        2 * i + 2,
    );
    tool.parent = Some("root".into());
    tool.status = observation_status(&observation);
    tool.tool = Some(Box::new(ToolExecution {
        arguments_text: None,
        result_text: None,
        name: call.name.clone(),
        call_id: call.id.clone(),
        arguments: Some(call.arguments.clone()),
        result: Some(Value::String(observation).into()),
    }));
    tool.attributes
        .insert(Span::REQUESTED_BY.into(), llm_id.into());
    if let Some(seconds) = step.execution_time.as_ref().and_then(lenient_f64) {
        tool.attributes
            .insert("execution_time_s".into(), Value::from(seconds).into());
    }
    if let Some(state) = step.state.filter(|s| !s.is_null()) {
        tool.attributes
            .insert("state".into(), decode_embedded(state).into());
    }
    (llm, tool)
}

/// Observations SWE-agent itself uses to reject an action.
fn observation_status(observation: &str) -> Status {
    let first = observation.trim_start().lines().next().unwrap_or_default();
    if first.starts_with("Your proposed edit has introduced new syntax error")
        || first.starts_with("Error:")
    {
        Status::error(first.trim())
    } else {
        Status::default()
    }
}
