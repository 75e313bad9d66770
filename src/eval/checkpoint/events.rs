//! The event log tier-2 assertions run over: every LLM, tool and agent span
//! of the trace in time order, nested sub-agent spans included.

use serde_json::Value;

use crate::eval::json::json_subset;
use crate::spec::model::{EventKind, EventStatus};
use crate::spec::suite::Matcher;
use crate::trace::{SpanKind, Trace};

#[derive(Debug, Clone)]
pub struct Event {
    pub span_id: String,
    pub name: String,
    pub kind: EventKind,
    pub tool: Option<String>,
    /// Tool arguments (tool events), `Null` otherwise.
    pub args: Value,
    /// Compact JSON of `args`, for substring and regex matching.
    pub args_text: String,
    pub agent: Option<String>,
    pub error: bool,
    /// The last LLM event of the root agent.
    pub is_final: bool,
}

#[derive(Debug, Clone, Default)]
pub struct EventLog {
    pub events: Vec<Event>,
}

impl EventLog {
    pub fn from_trace(trace: &Trace) -> Self {
        let mut events: Vec<Event> = trace
            .spans
            .iter()
            .filter_map(|s| {
                let kind = match s.kind {
                    SpanKind::Llm => EventKind::Llm,
                    SpanKind::Tool => EventKind::Tool,
                    SpanKind::Agent => EventKind::Agent,
                    _ => return None,
                };
                let (tool, args) = match (&s.tool, kind) {
                    (Some(t), _) => (
                        Some(t.name.clone()),
                        t.arguments.clone().unwrap_or(Value::Null),
                    ),
                    (None, EventKind::Tool) => {
                        (Some(s.name.clone()), s.input.clone().unwrap_or(Value::Null))
                    }
                    (None, _) => (None, Value::Null),
                };
                let args_text = if args.is_null() {
                    String::new()
                } else {
                    args.to_string()
                };
                Some(Event {
                    span_id: s.id.clone(),
                    name: s.name.clone(),
                    kind,
                    tool,
                    args,
                    args_text,
                    agent: s.agent.clone(),
                    error: s.is_error(),
                    is_final: false,
                })
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

    /// Index of the first event matching `m`.
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
    /// Whether every field set in `m` matches this event.
    pub fn matches(&self, m: &Matcher) -> bool {
        if !m.tools.is_empty() {
            let Some(tool) = &self.tool else { return false };
            if self.kind != EventKind::Tool || !m.tools.iter().any(|g| g.matches(tool)) {
                return false;
            }
        }
        if m.kind.is_some_and(|k| k != self.kind) {
            return false;
        }
        if let Some(agent) = &m.agent
            && self.agent.as_deref() != Some(agent.as_str())
        {
            return false;
        }
        match m.status {
            Some(EventStatus::Error) if !self.error => return false,
            Some(EventStatus::Ok) if self.error => return false,
            _ => {}
        }
        if m.is_final.is_some_and(|f| f != self.is_final) {
            return false;
        }
        if let Some(pattern) = &m.args_contains {
            let ok = match pattern {
                Value::String(s) => self.args_text.contains(s.as_str()),
                other => json_subset(other, &self.args),
            };
            if !ok {
                return false;
            }
        }
        if let Some(re) = &m.args_match
            && !re.is_match(&self.args_text)
        {
            return false;
        }
        true
    }

    /// `tool_name (span id)` or `llm (span id)` for notes.
    pub fn describe(&self) -> String {
        match (&self.tool, self.kind) {
            (Some(t), EventKind::Tool) => format!("tool `{t}` (span {})", self.span_id),
            _ => format!(
                "{} `{}` (span {})",
                kind_name(self.kind),
                self.name,
                self.span_id
            ),
        }
    }
}

fn kind_name(kind: EventKind) -> &'static str {
    match kind {
        EventKind::Llm => "llm",
        EventKind::Tool => "tool",
        EventKind::Agent => "agent",
    }
}
