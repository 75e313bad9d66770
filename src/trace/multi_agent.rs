//! Multi-agent chat logs (Who&When): `history[]` messages whose speaker is
//! in `name` (`CaptainAgent`: `Computer_terminal`, `Verification_Expert`) or
//! in `role` (Magentic-One: `Orchestrator (-> WebSurfer)`, `WebSurfer`,
//! `human`).
//!
//! Message `i` becomes span `m<i>` under a root `group_chat` span, so a
//! label's `mistake_step` names span `m<mistake_step>`. The speaker is the
//! span's agent (`Orchestrator (-> WebSurfer)` → agent `Orchestrator`,
//! attribute `recipient = WebSurfer`; `Orchestrator (thought)` → attribute
//! `channel = thought`). Human turns are `User` spans; other turns are `Llm`
//! spans, except the code executors, which are tools and not agents:
//! `CaptainAgent`'s `Computer_terminal` (`exitcode: N (…)`) and
//! Magentic-One's `ComputerTerminal` (`… Unix exit code: N`, or "No code
//! block detected"). Their turns are `Tool` spans, an error when the exit
//! code is not 0 (the message names the last exception line of the output)
//! or when there was no code block. Each records in `requested_by` the turn
//! whose code it ran — the latest turn addressed to it (`(-> ComputerTerminal)`),
//! else the latest turn of another speaker that is neither a tool nor a human
//! nor a `(thought)` — and takes that turn's fenced code blocks as its
//! arguments, so a failed run can be charged to the agent that wrote the code.
//! The other speakers of the dataset (`WebSurfer`, `FileSurfer`,
//! `Assistant`, the `*_Expert`s) choose their own actions and stay agents.
//! Labels (`mistake_agent`, `mistake_step`, `mistake_reason`,
//! `ground_truth`, `question`, …) go to the metadata.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;
use serde_json::Value;

use crate::model::ShortText;
use crate::trace::assemble::Draft;
use crate::trace::detect::Plan;
use crate::trace::error::TraceError;
use crate::trace::input::Input;
use crate::trace::json::text_of;
use crate::trace::model::{
    Message, Span, SpanKind, Status, StatusCode, ToolExecution, Trace, TraceFormat,
};

const WHAT: &str = "a multi-agent log (`{\"history\": [{\"content\", \"role\", \"name\"}…]}`)";
/// The code executors of the multi-agent systems in Who&When: `CaptainAgent`
/// (AG2) and Magentic-One.
const TERMINALS: [&str; 2] = ["Computer_terminal", "ComputerTerminal"];

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
fn speaker(raw: &str) -> (ShortText, Option<String>) {
    let raw = raw.trim();
    if let Some(open) = raw.rfind(" (")
        && raw.ends_with(')')
    {
        let note = raw[open + 2..raw.len() - 1].trim();
        return (
            raw[..open].trim().into(),
            (!note.is_empty()).then(|| note.to_owned()),
        );
    }
    (raw.into(), None)
}

fn build(id: String, log: Log) -> Trace {
    let mut draft = Draft::new(id, TraceFormat::MultiAgentChat);
    draft
        .spans
        .push(Span::new("root", "group_chat", SpanKind::Agent, 0));
    for (i, turn) in log.history.into_iter().enumerate() {
        let mut span = turn_span(i, turn);
        if span.kind == SpanKind::Tool
            && let Some(sender) = sender_of(&draft.spans[1..], span.agent.as_deref())
        {
            let code = code_blocks(&draft.spans[1 + sender].output_text().unwrap_or_default());
            if let Some(tool) = span.tool.as_mut() {
                tool.arguments = code.map(|c| serde_json::json!({ "code": c }).into());
            }
            span.attributes
                .insert(Span::REQUESTED_BY.into(), format!("m{sender}").into());
        }
        draft.spans.push(span);
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
    let role = ShortText::from(role);
    let (who, note) = speaker(&raw_speaker);
    let id = format!("m{i}");
    let is_human = who.eq_ignore_ascii_case("human")
        || (turn.name.is_none() && who.eq_ignore_ascii_case("user"));
    let mut span = if is_human {
        Span::new(&id, "user", SpanKind::User, i + 1)
    } else if let Some(terminal) = TERMINALS.iter().find(|t| who == **t) {
        let mut span = Span::new(&id, *terminal, SpanKind::Tool, i + 1);
        span.status = terminal_status(&content);
        span.tool = Some(Box::new(ToolExecution {
            arguments_text: None,
            result_text: None,
            name: (*terminal).into(),
            call_id: None,
            arguments: None,
            result: Some(Value::String(content.clone()).into()),
        }));
        span
    } else {
        Span::new(&id, raw_speaker, SpanKind::Llm, i + 1)
    };
    span.parent = Some("root".into());
    span.agent = Some(who.clone());
    if span.kind != SpanKind::Tool {
        span.output_messages.reserve_exact(1);
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
                .insert("recipient".into(), to.trim().to_owned().into()),
            None => span.attributes.insert("channel".into(), note.into()),
        };
    }
    if !role.is_empty() {
        span.attributes
            .insert("role".into(), String::from(role).into());
    }
    span
}

/// The turn (index into `turns`, the chat's messages so far) whose code a
/// terminal turn runs: the latest turn addressed to the terminal, else the
/// latest turn of another speaker that is not a tool, a human or a thought.
fn sender_of(turns: &[Span], terminal: Option<&str>) -> Option<usize> {
    let addressed = turns.iter().rposition(|s| {
        s.kind == SpanKind::Tool
            || (terminal.is_some()
                && s.attributes
                    .get("recipient")
                    .and_then(crate::trace::AttrValue::as_str)
                    == terminal)
    });
    if let Some(k) = addressed
        && turns[k].kind != SpanKind::Tool
    {
        return Some(k);
    }
    turns.iter().rposition(|s| {
        s.kind == SpanKind::Llm
            && s.attributes
                .get("channel")
                .and_then(crate::trace::AttrValue::as_str)
                != Some("thought")
    })
}

static CODE_BLOCK: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?s)```[^\n`]*\n(.*?)```").ok());

/// The fenced code blocks of a message, joined by a blank line.
fn code_blocks(text: &str) -> Option<String> {
    let re = CODE_BLOCK.as_ref()?;
    let blocks: Vec<&str> = re
        .captures_iter(text)
        .filter_map(|c| c.get(1).map(|m| m.as_str().trim_end()))
        .collect();
    (!blocks.is_empty()).then(|| blocks.join("\n\n"))
}

static EXIT_CODE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)(?:^\s*exitcode:|unix exit code(?: was)?:)\s*(-?\d+)").ok());
static EXCEPTION_LINE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?m)^\s*([A-Za-z_][\w.]*(?:Error|Exception|Timeout|Interrupt)\b.*)$").ok()
});

/// `exitcode: 1 (execution failed)` (`CaptainAgent`) or `… Unix exit code: 1`
/// (Magentic-One) → error, its message the first line plus the last
/// exception line of the output; exit code 0 → ok; "No code block detected"
/// → error (the sender gave no code); anything else (e.g. "There is no code
/// … to execute", nothing was run) → unset.
fn terminal_status(content: &str) -> Status {
    let text = content.trim_start();
    if text.starts_with("No code block detected") {
        return Status::error(text.lines().next().unwrap_or_default().trim());
    }
    let Some(code) = EXIT_CODE
        .as_ref()
        .and_then(|re| re.captures(text))
        .and_then(|c| c.get(1))
        .and_then(|m| m.as_str().parse::<i64>().ok())
    else {
        return Status::default();
    };
    if code == 0 {
        return Status {
            code: StatusCode::Ok,
            message: None,
        };
    }
    let first = text.lines().next().unwrap_or_default().trim();
    let exception = EXCEPTION_LINE.as_ref().and_then(|re| {
        re.captures_iter(text)
            .last()
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().trim().chars().take(200).collect::<String>())
    });
    match exception {
        Some(e) => Status::error(format!("{first}: {e}")),
        None => Status::error(first),
    }
}
