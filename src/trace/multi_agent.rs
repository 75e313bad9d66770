//! Multi-agent chat logs (Who&When): `history[]` messages whose speaker is
//! in `name` (`CaptainAgent`: `Computer_terminal`, `Verification_Expert`) or
//! in `role` (Magentic-One: `Orchestrator (-> WebSurfer)`, `WebSurfer`,
//! `human`).
//!
//! Message `i` becomes span `m<i>` under a root `group_chat` span, so a
//! label's `mistake_step` names span `m<mistake_step>`. The speaker is the
//! span's agent (`Orchestrator (-> WebSurfer)` → agent `Orchestrator`,
//! attribute `recipient = WebSurfer`; `Orchestrator (thought)` → attribute
//! `channel = thought`). Human turns are `User` spans; `Computer_terminal`
//! outputs are `Tool` spans (`exitcode: N`, non-zero → error); other turns
//! are `Llm` spans. Labels (`mistake_agent`, `mistake_step`,
//! `mistake_reason`, `ground_truth`, `question`, …) go to the metadata.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::trace::assemble::Draft;
use crate::trace::detect::Plan;
use crate::trace::error::TraceError;
use crate::trace::input::Input;
use crate::trace::json::text_of;
use crate::trace::model::{
    Message, Span, SpanKind, Status, StatusCode, ToolExecution, Trace, TraceFormat,
};

const WHAT: &str = "a multi-agent log (`{\"history\": [{\"content\", \"role\", \"name\"}…]}`)";
const TERMINAL: &str = "Computer_terminal";

#[derive(Deserialize)]
struct Log {
    history: Vec<Turn>,
    #[serde(flatten)]
    labels: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
struct Turn {
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

/// Read a multi-agent log (or JSONL of them).
pub(crate) fn parse(input: &Input<'_>, plan: &Plan) -> Result<Vec<Trace>, TraceError> {
    input.each_record(plan.layout, WHAT, build)
}

/// Split `Orchestrator (-> WebSurfer)` into the speaker and the note in
/// parentheses.
fn speaker(raw: &str) -> (String, Option<String>) {
    let raw = raw.trim();
    if let Some(open) = raw.rfind(" (")
        && raw.ends_with(')')
    {
        let note = raw[open + 2..raw.len() - 1].trim();
        return (
            raw[..open].trim().to_owned(),
            (!note.is_empty()).then(|| note.to_owned()),
        );
    }
    (raw.to_owned(), None)
}

fn build(id: String, log: Log) -> Trace {
    let mut draft = Draft::new(id, TraceFormat::MultiAgentChat);
    draft
        .spans
        .push(Span::new("root", "group_chat", SpanKind::Agent, 0));
    for (i, turn) in log.history.into_iter().enumerate() {
        draft.spans.push(turn_span(i, turn));
    }
    let mut metadata: BTreeMap<String, Value> = log.labels;
    if let Some(step) = metadata.get("mistake_step").and_then(step_index) {
        metadata.insert("mistake_span".to_owned(), Value::String(format!("m{step}")));
    }
    draft.metadata = metadata;
    draft.finish()
}

fn step_index(value: &Value) -> Option<usize> {
    match value {
        Value::String(s) => s.trim().parse().ok(),
        Value::Number(n) => n.as_u64().map(|n| n as usize),
        _ => None,
    }
}

fn turn_span(i: usize, turn: Turn) -> Span {
    let content = turn.content.as_ref().map(text_of).unwrap_or_default();
    let role = turn.role.unwrap_or_default();
    // CaptainAgent logs put the speaker in `name` and a chat role in `role`.
    let raw_speaker = turn
        .name
        .as_deref()
        .filter(|n| !n.is_empty())
        .unwrap_or(&role)
        .trim()
        .to_owned();
    let (who, note) = speaker(&raw_speaker);
    let id = format!("m{i}");
    let is_human = who.eq_ignore_ascii_case("human")
        || (turn.name.is_none() && who.eq_ignore_ascii_case("user"));
    let mut span = if is_human {
        Span::new(&id, "user", SpanKind::User, i + 1)
    } else if who == TERMINAL {
        let mut span = Span::new(&id, TERMINAL, SpanKind::Tool, i + 1);
        span.status = terminal_status(&content);
        span.tool = Some(ToolExecution {
            name: TERMINAL.to_owned(),
            call_id: None,
            arguments: None,
            result: Some(Value::String(content.clone())),
        });
        span
    } else {
        Span::new(&id, raw_speaker, SpanKind::Llm, i + 1)
    };
    span.parent = Some("root".to_owned());
    span.agent = Some(who.clone());
    if span.kind != SpanKind::Tool {
        span.output_messages.push(Message {
            role: if role.is_empty() {
                who.clone()
            } else {
                role.clone()
            },
            content,
            name: Some(who),
            ..Message::default()
        });
    }
    if let Some(note) = note {
        match note.strip_prefix("->") {
            Some(to) => span
                .attributes
                .insert("recipient".to_owned(), Value::String(to.trim().to_owned())),
            None => span
                .attributes
                .insert("channel".to_owned(), Value::String(note)),
        };
    }
    if !role.is_empty() {
        span.attributes
            .insert("role".to_owned(), Value::String(role));
    }
    span
}

/// `exitcode: 1 (execution failed)` → error; `exitcode: 0 …` → ok;
/// anything else (e.g. "There is no code … to execute") → unset.
fn terminal_status(content: &str) -> Status {
    let Some(rest) = content.trim_start().strip_prefix("exitcode:") else {
        return Status::default();
    };
    let code: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    match code.parse::<i64>() {
        Ok(0) => Status {
            code: StatusCode::Ok,
            message: None,
        },
        Ok(_) => Status::error(
            content
                .trim_start()
                .lines()
                .next()
                .unwrap_or_default()
                .trim(),
        ),
        Err(_) => Status::default(),
    }
}
