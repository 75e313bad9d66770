//! The event log tier-2 assertions run over: every LLM, tool and agent span
//! of the trace and every user, assistant and system message, in time
//! order, nested sub-agent spans included (messages come from
//! [`crate::trace::conversation`]).

use serde_json::Value;

use crate::spec::matcher::Matcher;
use crate::spec::model::EventKind;
use crate::trace::conversation::{Entry, Role, timeline};
use crate::trace::{SpanKind, Trace};

#[derive(Debug, Clone)]
pub struct Event {
    /// The span the event is, or the span its message was read from.
    pub span_id: String,
    pub name: String,
    pub kind: EventKind,
    pub tool: Option<String>,
    /// Tool arguments (tool events), `Null` otherwise.
    pub args: Value,
    /// Compact JSON of `args`, for substring and regex matching.
    pub args_text: String,
    /// Tool result (tool events), `Null` otherwise.
    pub result: Value,
    /// The result as text: a string as is, other JSON compact.
    pub result_text: String,
    /// A message's text, an LLM call's output, a tool's result.
    pub content: String,
    pub agent: Option<String>,
    pub error: bool,
    /// The last LLM event of the root agent.
    pub is_final: bool,
}

#[derive(Debug, Clone, Default)]
pub struct EventLog {
    pub events: Vec<Event>,
}

fn text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl EventLog {
    pub fn from_trace(trace: &Trace) -> Self {
        let mut events: Vec<Event> = timeline(trace)
            .into_iter()
            .filter_map(|entry| match entry {
                Entry::Span(s) => {
                    let kind = match s.kind {
                        SpanKind::Llm => EventKind::Llm,
                        SpanKind::Tool => EventKind::Tool,
                        SpanKind::Agent => EventKind::Agent,
                        _ => return None,
                    };
                    let (tool, args, result) = match (&s.tool, kind) {
                        (Some(t), _) => (
                            Some(t.name.clone()),
                            t.arguments.clone().unwrap_or(Value::Null),
                            t.result.clone().unwrap_or(Value::Null),
                        ),
                        (None, EventKind::Tool) => (
                            Some(s.name.clone()),
                            s.input.clone().unwrap_or(Value::Null),
                            s.output.clone().unwrap_or(Value::Null),
                        ),
                        (None, _) => (None, Value::Null, Value::Null),
                    };
                    let result_text = text(&result);
                    let content = if kind == EventKind::Tool {
                        result_text.clone()
                    } else {
                        s.output_text().unwrap_or_default()
                    };
                    Some(Event {
                        span_id: s.id.clone(),
                        name: s.name.clone(),
                        kind,
                        tool,
                        args_text: if args.is_null() {
                            String::new()
                        } else {
                            args.to_string()
                        },
                        args,
                        result,
                        result_text,
                        content,
                        agent: s.agent.clone(),
                        error: s.is_error(),
                        is_final: false,
                    })
                }
                Entry::Message(m) => {
                    let kind = match m.role {
                        Role::User => EventKind::User,
                        Role::Assistant => EventKind::Assistant,
                        Role::System => EventKind::System,
                    };
                    Some(Event {
                        span_id: m.span_id,
                        name: kind.as_str().to_owned(),
                        kind,
                        tool: None,
                        args: Value::Null,
                        args_text: String::new(),
                        result: Value::Null,
                        result_text: String::new(),
                        content: m.content,
                        agent: m.agent,
                        error: false,
                        is_final: false,
                    })
                }
            })
            .collect();
        let root_agent = trace.root_agent();
        let last_llm = events.iter().rposition(|e| {
            e.kind == EventKind::Llm
                && (root_agent.is_none() || e.agent.is_none() || e.agent.as_deref() == root_agent)
        });
        if let Some(i) = last_llm {
            events[i].is_final = true;
        }
        Self { events }
    }

    /// Index of the first event matching `m` (captures only need a value).
    pub fn first(&self, m: &Matcher) -> Option<usize> {
        self.events.iter().position(|e| e.matches(m))
    }

    pub fn matching<'a>(&'a self, m: &'a Matcher) -> impl Iterator<Item = (usize, &'a Event)> + 'a {
        self.events
            .iter()
            .enumerate()
            .filter(move |(_, e)| e.matches(m))
    }
}

impl Event {
    /// `tool `x` (span s1)`, `user message "…" (span m3)` or `llm `chat`
    /// (span s2)` for notes.
    pub fn describe(&self) -> String {
        match (&self.tool, self.kind) {
            (Some(t), EventKind::Tool) => format!("tool `{t}` (span {})", self.span_id),
            (_, k) if k.is_message() => format!(
                "{} message \"{}\" (span {})",
                k.as_str(),
                crate::output::truncate_chars(&self.content.replace('\n', " "), 60),
                self.span_id
            ),
            _ => format!(
                "{} `{}` (span {})",
                self.kind.as_str(),
                self.name,
                self.span_id
            ),
        }
    }
}
