//! `OpenAI` chat trajectories: a tau-bench episode (`traj`, `task_id`,
//! `reward`, `info`), an array of episodes (one trace each), a
//! `{"messages": […]}` document, a bare array of messages, or JSONL of any of these.
//!
//! Order is the array index: message `i` becomes span `m<i>` under one root
//! agent span `root`. User turns are `User` spans, assistant turns `Llm`
//! spans (their requested calls in `output_messages[].tool_calls`, their
//! input the messages since the previous assistant turn), tool results
//! `Tool` spans. Tool-call ids may repeat within an episode: each result is
//! matched to the most recent unanswered call with its id, else to the
//! oldest unanswered call (with a warning); the requesting span is recorded
//! in the tool span's `requested_by` attribute. A result starting `Error:`
//! is an error. Episode-level facts go to `Trace::metadata`.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::model::ShortText;
use crate::trace::assemble::Draft;
use crate::trace::detect::{Layout, Plan};
use crate::trace::error::TraceError;
use crate::trace::input::Input;
use crate::trace::json::{decode_embedded, text_of};
use crate::trace::messages::message_from_object;
use crate::trace::model::{
    Message, Span, SpanKind, Status, StatusCode, ToolCall, ToolExecution, Trace, TraceFormat,
};
use thin_vec::{ThinVec, thin_vec};

/// One chat message as logged.
#[derive(Deserialize)]
pub(crate) struct ChatMessage {
    role: String,
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    tool_calls: Option<Vec<Value>>,
    #[serde(default)]
    tool_call_id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    function_call: Option<Value>,
}

impl ChatMessage {
    /// The normalised message; consumes the logged one, so a long chat is
    /// not held twice while its spans are built (issue 25).
    fn into_message(self) -> Message {
        let mut map = Map::new();
        let role = self.role;
        map.insert("role".into(), Value::String(role.clone()));
        let fields = [
            ("content", self.content),
            ("tool_calls", self.tool_calls.map(Value::Array)),
            ("tool_call_id", self.tool_call_id.map(Value::String)),
            ("name", self.name.map(Value::String)),
            ("function_call", self.function_call),
        ];
        for (key, value) in fields {
            if let Some(value) = value {
                map.insert(key.to_owned(), value);
            }
        }
        let mut lossless = true;
        message_from_object(&map, &role, &mut lossless)
    }
}

#[derive(Deserialize)]
struct Episode {
    traj: Vec<ChatMessage>,
    #[serde(default)]
    task_id: Option<Value>,
    #[serde(default)]
    trial: Option<Value>,
    #[serde(default)]
    reward: Option<Value>,
    #[serde(default)]
    info: Option<Map<String, Value>>,
}

#[derive(Deserialize)]
struct MessagesDocument {
    messages: Vec<ChatMessage>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
}

/// Read a chat trajectory file.
pub(crate) fn parse(input: &Input<'_>, plan: &Plan) -> Result<Vec<Trace>, TraceError> {
    let stem = input.stem();
    let first = if plan.shape.is_array() {
        plan.shape.first()
    } else {
        Some(&plan.shape)
    };
    let episodes = first.is_some_and(|f| f.has("traj"));
    let documents = first.is_some_and(|f| f.has("messages"));
    match (plan.layout, plan.shape.is_array()) {
        (Layout::Document, true) if episodes => {
            let all: Vec<Episode> = input.parse_document("an array of tau-bench episodes")?;
            let many = all.len() > 1;
            Ok(all
                .into_iter()
                .enumerate()
                .map(|(i, e)| episode(e, &stem, many.then_some(i)))
                .collect())
        }
        (Layout::Document, true) => {
            let messages: Vec<ChatMessage> = input.parse_document("an array of chat messages")?;
            Ok(vec![build(stem, messages, BTreeMap::new())])
        }
        (Layout::Document, false) if episodes => Ok(vec![episode(
            input.parse_document("a tau-bench episode")?,
            &stem,
            None,
        )]),
        (Layout::Document, false) => Ok(vec![document(
            input.parse_document("a `{\"messages\": […]}` document")?,
            stem,
        )]),
        (Layout::Lines, _) if episodes => input
            .values("a tau-bench episode")
            .map(|record| {
                let record = record?;
                Ok(episode(
                    record.value,
                    &format!("{stem}:{}", record.line),
                    None,
                ))
            })
            .collect(),
        (Layout::Lines, _) if documents => input
            .values("a `{\"messages\": […]}` document")
            .map(|record| {
                let record = record?;
                Ok(document(record.value, format!("{stem}:{}", record.line)))
            })
            .collect(),
        (Layout::Lines, _) => {
            let messages = input
                .values::<ChatMessage>("a chat message")
                .map(|record| record.map(|r| r.value))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(vec![build(stem, messages, BTreeMap::new())])
        }
    }
}

fn document(doc: MessagesDocument, fallback_id: String) -> Trace {
    let id = doc
        .id
        .as_ref()
        .filter(|v| !v.is_null())
        .map_or(fallback_id, text_of);
    let metadata = doc
        .metadata
        .map(|m| m.into_iter().collect())
        .unwrap_or_default();
    build(id, doc.messages, metadata)
}

fn episode(e: Episode, stem: &str, index: Option<usize>) -> Trace {
    let mut metadata = BTreeMap::new();
    let id = match (&e.task_id, &e.trial) {
        (Some(task), Some(trial)) => format!("task-{}.trial-{}", text_of(task), text_of(trial)),
        (Some(task), None) => format!("task-{}", text_of(task)),
        _ => index.map_or_else(|| stem.to_owned(), |i| format!("{stem}#{i}")),
    };
    for (key, value) in [
        ("task_id", e.task_id),
        ("trial", e.trial),
        ("reward", e.reward),
    ] {
        if let Some(v) = value {
            metadata.insert(key.to_owned(), v);
        }
    }
    for (key, value) in e.info.unwrap_or_default() {
        match (key.as_str(), value) {
            ("task", Value::Object(task)) => {
                for (k, v) in task {
                    let k = if k == "outputs" {
                        "expected_outputs".to_owned()
                    } else {
                        k
                    };
                    metadata.insert(k, v);
                }
            }
            (_, Value::Null) => {}
            (_, v) => {
                metadata.insert(key, v);
            }
        }
    }
    build(id, e.traj, metadata)
}

/// A tool call waiting for its result.
struct Pending {
    call: ToolCall,
    requested_by: String,
    answered: bool,
}

/// Every tool call of an episode in request order, with an index of the
/// unanswered ones by call id and the position of the oldest unanswered
/// one, so that matching a result costs O(1) instead of a scan of every
/// call so far (a scan made a 1M-message chat quadratic, issue 25).
#[derive(Default)]
struct Calls {
    all: Vec<Pending>,
    /// Unanswered calls by id, in request order.
    waiting: HashMap<ShortText, Vec<usize>>,
    /// No call before this index is unanswered.
    oldest: usize,
}

impl Calls {
    fn push(&mut self, call: ToolCall, requested_by: String) {
        if let Some(id) = &call.id {
            self.waiting
                .entry(id.clone())
                .or_default()
                .push(self.all.len());
        }
        self.all.push(Pending {
            call,
            requested_by,
            answered: false,
        });
    }

    /// The most recent unanswered call with id `id`.
    fn latest_with_id(&self, id: &str) -> Option<usize> {
        self.waiting.get(id).and_then(|v| v.last().copied())
    }

    fn oldest_unanswered(&mut self) -> Option<usize> {
        while self.all.get(self.oldest).is_some_and(|p| p.answered) {
            self.oldest += 1;
        }
        (self.oldest < self.all.len()).then_some(self.oldest)
    }

    fn answer(&mut self, i: usize) -> &mut Pending {
        let p = &mut self.all[i];
        p.answered = true;
        if let Some(id) = &p.call.id
            && let Some(v) = self.waiting.get_mut(id)
            && let Some(at) = v.iter().rposition(|&j| j == i)
        {
            v.remove(at);
        }
        p
    }
}

fn build(id: String, messages: Vec<ChatMessage>, metadata: BTreeMap<String, Value>) -> Trace {
    let mut draft = Draft::new(id, TraceFormat::ChatMessages);
    draft.metadata = metadata;
    draft.spans.reserve_exact(messages.len() + 1);
    draft
        .spans
        .push(Span::new("root", "agent", SpanKind::Agent, 0));
    let mut context: ThinVec<Message> = ThinVec::new();
    let mut pending = Calls::default();
    for (i, raw) in messages.into_iter().enumerate() {
        let role = raw.role.to_ascii_lowercase();
        let message = raw.into_message();
        let id = format!("m{i}");
        let mut span = match role.as_str() {
            "system" | "developer" => {
                context.push(message);
                continue;
            }
            "assistant" | "ai" | "model" => {
                let mut span = Span::new(&id, "assistant", SpanKind::Llm, i + 1);
                // Kept for the life of the trace: no spare room (a list
                // grown by `push` holds four; issue 25).
                span.input_messages = std::mem::take(&mut context);
                span.input_messages.shrink_to_fit();
                for call in &message.tool_calls {
                    pending.push(call.clone(), id.clone());
                }
                span.output_messages = thin_vec![message];
                span
            }
            "tool" | "function" | "ipython" => {
                let span = tool_span(&id, i + 1, &message, &mut pending, &mut draft.warnings);
                context.push(message);
                span
            }
            "user" | "human" => {
                let mut span = Span::new(&id, "user", SpanKind::User, i + 1);
                span.output_messages = thin_vec![message.clone()];
                context.push(message);
                span
            }
            _ => {
                let mut span = Span::new(&id, message.role.clone(), SpanKind::Other, i + 1);
                span.output_messages = thin_vec![message.clone()];
                context.push(message);
                span
            }
        };
        span.parent = Some("root".into());
        draft.spans.push(span);
    }
    warn_repeated_ids(&pending.all, &mut draft.warnings);
    for p in pending.all.iter().filter(|p| !p.answered) {
        draft.warnings.push(format!(
            "tool call `{}` ({}) requested by `{}` never got a result",
            p.call.id.as_deref().unwrap_or("?"),
            p.call.name,
            p.requested_by
        ));
    }
    draft.finish()
}

fn tool_span(
    id: &str,
    seq: usize,
    message: &Message,
    pending: &mut Calls,
    warnings: &mut Vec<String>,
) -> Span {
    let wanted = message.tool_call_id.as_deref();
    let by_id = wanted.and_then(|w| pending.latest_with_id(w));
    let index = by_id.or_else(|| {
        let oldest = pending.oldest_unanswered();
        let pending = &pending.all;
        match (oldest, wanted) {
            (Some(o), Some(w)) => warnings.push(format!(
                "tool result `{id}` answers call `{w}`, which is not waiting for a result; matched by order to call `{}` ({}) of `{}`",
                pending[o].call.id.as_deref().unwrap_or("?"),
                pending[o].call.name,
                pending[o].requested_by
            )),
            (Some(o), None) => warnings.push(format!(
                "tool result `{id}` names no call id; matched by order to call `{}` ({})",
                pending[o].call.id.as_deref().unwrap_or("?"),
                pending[o].call.name
            )),
            (None, _) => warnings.push(format!("tool result `{id}` answers no pending tool call")),
        }
        oldest
    });
    let name = index
        .map(|i| pending.all[i].call.name.clone())
        .or_else(|| message.name.clone())
        .unwrap_or_else(|| "tool".into());
    let mut span = Span::new(id, name.clone(), SpanKind::Tool, seq);
    let mut tool = ToolExecution {
        arguments_text: None,
        result_text: None,
        name,
        call_id: message.tool_call_id.clone(),
        arguments: None,
        result: Some(decode_embedded(Value::String(message.content.clone())).into()),
    };
    if tool.result.as_ref().is_some_and(|r| !r.is_string()) {
        tool.result_text = Some(message.content.clone());
    }
    if let Some(i) = index {
        let p = pending.answer(i);
        tool.call_id = tool.call_id.or_else(|| p.call.id.clone());
        tool.arguments = Some(p.call.arguments.clone());
        tool.arguments_text.clone_from(&p.call.arguments_text);
        span.attributes
            .insert(Span::REQUESTED_BY.into(), p.requested_by.clone().into());
        if let Some(logged) = message.name.as_deref().filter(|n| *n != p.call.name) {
            warnings.push(format!(
                "tool result `{id}` is named `{logged}` but answers a call to `{}`",
                p.call.name
            ));
        }
    }
    span.status = if message.content.trim_start().starts_with("Error:") {
        Status::error(message.content.lines().next().unwrap_or_default().trim())
    } else {
        Status {
            code: StatusCode::Ok,
            message: None,
        }
    };
    span.tool = Some(Box::new(tool));
    span
}

fn warn_repeated_ids(pending: &[Pending], warnings: &mut Vec<String>) {
    let mut by_id: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for p in pending {
        if let Some(id) = p.call.id.as_deref() {
            by_id.entry(id).or_default().push(&p.requested_by);
        }
    }
    for (call_id, spans) in by_id.into_iter().filter(|(_, s)| s.len() > 1) {
        warnings.push(format!(
            "tool call id `{call_id}` is used by {} calls ({}); each result was matched to the most recent unanswered \
             call with that id",
            spans.len(),
            spans.join(", ")
        ));
    }
}
