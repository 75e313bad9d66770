//! The event log tier-2 assertions run over: every LLM, tool and agent span
//! of the trace and every user, assistant and system message, in time
//! order, nested sub-agent spans included (messages come from
//! [`crate::trace::conversation`]).

use std::cell::OnceCell;

use serde_json::Value;

use crate::spec::matcher::Matcher;
use crate::spec::model::EventKind;
use crate::trace::conversation::{Entry, Role, timeline};
use crate::trace::{SpanKind, Trace};

#[derive(Debug, Clone)]
pub(crate) struct Event {
    /// The span the event is, or the span its message was read from.
    pub span_id: String,
    pub name: String,
    pub kind: EventKind,
    pub tool: Option<String>,
    /// Tool arguments (tool events), `Null` otherwise.
    pub args: Value,
    /// Tool result (tool events), `Null` otherwise.
    pub result: Value,
    /// A message's text or an LLM call's output; `None` for tools, whose
    /// text is their result.
    pub text: Option<String>,
    /// Compact JSON of `args` and the result as text, made on first use
    /// (most matchers never read them).
    args_text: OnceCell<String>,
    result_text: OnceCell<String>,
    pub agent: Option<String>,
    pub error: bool,
    /// The last LLM event of the root agent.
    pub is_final: bool,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct EventLog {
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
    pub(crate) fn from_trace(trace: &Trace) -> Self {
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
                    let mut e = Event::new(&s.id, &s.name, kind, s.agent.clone());
                    e.tool = tool;
                    e.args = args;
                    e.result = result;
                    if kind != EventKind::Tool {
                        e.text = Some(s.output_text().unwrap_or_default());
                    }
                    e.error = s.is_error();
                    Some(e)
                }
                Entry::Message(m) => {
                    let kind = match m.role {
                        Role::User => EventKind::User,
                        Role::Assistant => EventKind::Assistant,
                        Role::System => EventKind::System,
                    };
                    let mut e = Event::new(&m.span_id, kind.as_str(), kind, m.agent);
                    e.text = Some(m.content);
                    Some(e)
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
    pub(crate) fn first(&self, m: &Matcher) -> Option<usize> {
        self.events.iter().position(|e| e.matches(m))
    }

    pub(crate) fn matching<'a>(
        &'a self,
        m: &'a Matcher,
    ) -> impl Iterator<Item = (usize, &'a Event)> + 'a {
        self.events
            .iter()
            .enumerate()
            .filter(move |(_, e)| e.matches(m))
    }
}

impl Event {
    /// An event with nothing but its identity; the rest is filled in.
    pub(crate) fn new(span_id: &str, name: &str, kind: EventKind, agent: Option<String>) -> Self {
        Self {
            span_id: span_id.to_owned(),
            name: name.to_owned(),
            kind,
            tool: None,
            args: Value::Null,
            result: Value::Null,
            text: None,
            args_text: OnceCell::new(),
            result_text: OnceCell::new(),
            agent,
            error: false,
            is_final: false,
        }
    }

    /// Compact JSON of the arguments (empty without arguments).
    pub(crate) fn args_text(&self) -> &str {
        self.args_text.get_or_init(|| text(&self.args))
    }

    /// The result as text: a string as is, other JSON compact.
    pub(crate) fn result_text(&self) -> &str {
        self.result_text.get_or_init(|| text(&self.result))
    }

    /// A message's text, an LLM call's output, a tool's result.
    pub(crate) fn content(&self) -> &str {
        match &self.text {
            Some(t) => t,
            None => self.result_text(),
        }
    }

    /// `tool `x` (span s1)`, `user message "…" (span m3)` or `llm `chat`
    /// (span s2)` for notes.
    pub(crate) fn describe(&self) -> String {
        match (&self.tool, self.kind) {
            (Some(t), EventKind::Tool) => format!("tool `{t}` (span {})", self.span_id),
            (_, k) if k.is_message() => format!(
                "{} message \"{}\" (span {})",
                k.as_str(),
                crate::output::truncate_chars(&self.content().replace('\n', " "), 60),
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
