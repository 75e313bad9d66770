//! The event log tier-2 assertions run over: every LLM, tool and agent span
//! of the trace and every user, assistant and system message, in time
//! order, nested sub-agent spans included (messages come from
//! [`crate::trace::conversation`]).

use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use std::collections::BTreeMap;

use serde_json::Value;

use super::matching::Bindings;
use crate::model::ShortText;
use crate::spec::expr::Converted;
use crate::spec::matcher::Matcher;
use crate::spec::model::EventKind;
use crate::trace::conversation::{Entry, Role, timeline};
use crate::trace::{SharedValue, SpanKind, ToolExecution, Trace};

/// One event, borrowing its texts from the trace it was read from: a
/// copy of each message and raw argument text was most of a chat log's
/// size (issue 25).
#[derive(Debug, Clone)]
pub(crate) struct Event<'t> {
    /// The span the event is, or the span its message was read from.
    pub span_id: &'t str,
    pub name: &'t str,
    pub kind: EventKind,
    pub tool: Option<&'t str>,
    /// Tool arguments (tool events), `Null` otherwise; shared with the span.
    pub args: SharedValue,
    /// Tool result (tool events), `Null` otherwise; shared with the span.
    pub result: SharedValue,
    /// A message's text or an LLM call's output; `None` for tools, whose
    /// text is their result.
    pub text: Option<Cow<'t, str>>,
    /// The tool execution a tool event was read from, for the arguments
    /// and result as the trace recorded them ([`Event::args_raw`]); one
    /// pointer where two borrowed texts took 32 bytes (issue 25).
    pub exec: Option<&'t ToolExecution>,
    /// What matchers derive from the event, made when one first asks (most
    /// events of a large trace are never asked: one pointer each until then).
    derived: OnceCell<Box<Derived>>,
    pub agent: Option<&'t str>,
    pub error: bool,
    /// The last LLM event of the root agent.
    pub is_final: bool,
    /// The LLM turn of its agent the event belongs to: the number of that
    /// agent's LLM events up to and including it (0 before the first).
    pub turn: u32,
    /// Tool events and assistant messages of that turn.
    pub turn_tool_calls: u32,
    pub turn_replies: u32,
}

/// An event's values as matchers read them, each made on first use.
#[derive(Debug, Clone, Default)]
struct Derived {
    /// Compact JSON of `args` and the result as text (most matchers never
    /// read them).
    args_text: OnceCell<String>,
    result_text: OnceCell<String>,
    /// `args` and `result` decoded (objects and arrays are kept as text in
    /// the trace).
    args_json: OnceCell<Value>,
    result_json: OnceCell<Value>,
    /// `args` and `result` as CEL values for `where`.
    args_cel: Converted,
    result_cel: Converted,
    /// `content_matches` answers on this event's text so far, by pattern (a
    /// search tests the same text many times, and suites repeat patterns).
    content_answers: RefCell<Vec<(Box<str>, bool)>>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct EventLog<'t> {
    pub events: Vec<Event<'t>>,
    /// The case's evidence and metadata, for `where` (`Null` when absent).
    pub evidence: Value,
    pub metadata: Value,
    /// Both as CEL values for `where`, made on first use.
    pub(crate) evidence_cel: Converted,
    pub(crate) metadata_cel: Converted,
    /// The first `where` that could not be evaluated since the last
    /// [`EventLog::take_error`]: the checkpoint being evaluated is then
    /// unevaluated, whatever the search found.
    pub(crate) error: RefCell<Option<String>>,
    /// What `where` evaluation keeps between evaluations.
    pub(crate) memo: super::wheres::WhereMemo,
    /// The events' distinct tool names and kinds, made on first use.
    pub(super) present: OnceCell<Present>,
}

/// What kinds of event a log has, and which tools ran: a matcher that needs
/// another kind or tool matches no event, whatever its other fields.
#[derive(Debug, Clone, Default)]
pub(super) struct Present {
    tools: Vec<ShortText>,
    kinds: Vec<EventKind>,
}

impl Present {
    /// Whether `m` (its tools and kind, those of its `all_of` and
    /// `any_of` matchers) allows an event of these tools and kinds.
    fn admits(&self, m: &Matcher) -> bool {
        let tools_ok = m.tools.is_empty()
            || self
                .tools
                .iter()
                .any(|t| m.tools.iter().any(|g| g.matches(t)));
        tools_ok
            && m.kind.is_none_or(|k| self.kinds.contains(&k))
            && m.all_of.iter().all(|sub| self.admits(sub))
            && (m.any_of.is_empty() || m.any_of.iter().any(|sub| self.admits(sub)))
    }
}

/// The `Null` of every event without arguments or a result (shared).
fn null() -> SharedValue {
    static NULL: std::sync::LazyLock<SharedValue> =
        std::sync::LazyLock::new(|| SharedValue::new(Value::Null));
    SharedValue::clone(&NULL)
}

/// A scalar as it is, an object or array decoded once into `cell`.
fn decoded<'a>(value: &'a SharedValue, cell: &'a OnceCell<Value>) -> &'a Value {
    match value.as_scalar() {
        Some(scalar) => scalar,
        None => cell.get_or_init(|| value.value().into_owned()),
    }
}

/// A value as matchers read it: nothing for `null`, a string as it is,
/// anything else as compact JSON (without decoding it).
fn shared_text(v: &SharedValue) -> String {
    if v.is_null() {
        String::new()
    } else {
        v.to_text()
    }
}

impl<'t> EventLog<'t> {
    pub(crate) fn from_trace(trace: &'t Trace) -> Self {
        let mut events: Vec<Event<'t>> = timeline(trace)
            .into_iter()
            .filter_map(|entry| match entry {
                Entry::Span(s) => {
                    let kind = match s.kind {
                        SpanKind::Llm => EventKind::Llm,
                        SpanKind::Tool => EventKind::Tool,
                        SpanKind::Agent => EventKind::Agent,
                        _ => return None,
                    };
                    let shared = |v: Option<&SharedValue>| v.map_or_else(null, SharedValue::clone);
                    let own =
                        |v: Option<&Value>| v.map_or_else(null, |v| SharedValue::new(v.clone()));
                    let (tool, args, result) = match (&s.tool, kind) {
                        (Some(t), _) => (
                            Some(t.name.as_str()),
                            shared(t.arguments.as_ref()),
                            shared(t.result.as_ref()),
                        ),
                        (None, EventKind::Tool) => (
                            Some(s.name.as_str()),
                            own(s.input.as_deref()),
                            own(s.output.as_deref()),
                        ),
                        (None, _) => (None, null(), null()),
                    };
                    let mut e = Event::new(&s.id, &s.name, kind, s.agent.as_deref());
                    e.tool = tool;
                    e.exec = s.tool.as_deref();
                    e.args = args;
                    e.result = result;
                    if kind != EventKind::Tool {
                        e.text = Some(s.output_str().unwrap_or_default());
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
                    let mut e = Event::new(m.span_id(), kind.as_str(), kind, m.agent());
                    e.text = Some(Cow::Borrowed(m.content()));
                    Some(e)
                }
            })
            .collect();
        let root_agent = trace.root_agent();
        let last_llm = events.iter().rposition(|e| {
            e.kind == EventKind::Llm
                && (root_agent.is_none() || e.agent.is_none() || e.agent == root_agent)
        });
        if let Some(i) = last_llm {
            events[i].is_final = true;
        }
        number_turns(&mut events);
        Self {
            events,
            ..Self::default()
        }
    }

    /// The case's evidence and metadata, for `where`.
    #[must_use]
    pub(crate) fn with_case(
        mut self,
        evidence: Option<&Value>,
        metadata: &BTreeMap<String, Value>,
    ) -> Self {
        self.memo = super::wheres::WhereMemo::default();
        self.evidence = evidence.cloned().unwrap_or(Value::Null);
        self.metadata = Value::Object(
            metadata
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        );
        self
    }

    /// The first `where` error since the last call.
    pub(crate) fn take_error(&self) -> Option<String> {
        self.error.borrow_mut().take()
    }

    /// Index of the first event matching `m`.
    pub(crate) fn first(&self, m: &Matcher) -> Option<usize> {
        self.bound(m).next().map(|(i, _)| i)
    }

    pub(crate) fn matching<'a>(
        &'a self,
        m: &'a Matcher,
    ) -> impl Iterator<Item = (usize, &'a Event<'t>)> + 'a {
        self.bound(m).map(|(i, _)| (i, &self.events[i]))
    }

    /// The events matching `m` on their own, in order, with the values
    /// they capture; none, without looking at one, when the trace lacks
    /// the tool or kind `m` needs ([`EventLog::may_occur`]).
    pub(crate) fn bound<'a>(
        &'a self,
        m: &'a Matcher,
    ) -> impl Iterator<Item = (usize, Bindings<'a>)> + 'a {
        let none = Bindings::new();
        let events = if self.may_occur(m) {
            &self.events[..]
        } else {
            &[]
        };
        events
            .iter()
            .enumerate()
            .filter_map(move |(i, e)| e.bind(m, &none, self).map(|b| (i, b)))
    }

    /// Whether some event of the log may match `m`, judged by the tools
    /// and kinds the log has (of `m` and of its `all_of`/`any_of`
    /// matchers): `false` only when no event can. A quick answer for a
    /// rule about a tool the agent never called, before any event is
    /// looked at.
    pub(crate) fn may_occur(&self, m: &Matcher) -> bool {
        let present = self.present.get_or_init(|| {
            let mut p = Present::default();
            for e in &self.events {
                if !p.kinds.contains(&e.kind) {
                    p.kinds.push(e.kind);
                }
                if e.kind == EventKind::Tool
                    && let Some(t) = &e.tool
                    && !p.tools.iter().any(|known| known == t)
                {
                    p.tools.push((*t).into());
                }
            }
            p
        });
        present.admits(m)
    }
}

/// Set `turn`, `turn_tool_calls` and `turn_replies`: a turn of an agent
/// starts at its LLM event; its tool events and assistant messages count.
pub(super) fn number_turns(events: &mut [Event<'_>]) {
    let mut current: BTreeMap<Option<&str>, u32> = BTreeMap::new();
    let mut counts: BTreeMap<(Option<&str>, u32), (u32, u32)> = BTreeMap::new();
    for e in events.iter_mut() {
        let turn = current.entry(e.agent).or_insert(0);
        if e.kind == EventKind::Llm {
            *turn += 1;
        }
        e.turn = *turn;
        let count = counts.entry((e.agent, e.turn)).or_default();
        match e.kind {
            EventKind::Tool => count.0 += 1,
            EventKind::Assistant => count.1 += 1,
            _ => {}
        }
    }
    for e in events.iter_mut() {
        if let Some(&(calls, replies)) = counts.get(&(e.agent, e.turn)) {
            e.turn_tool_calls = calls;
            e.turn_replies = replies;
        }
    }
}

impl<'t> Event<'t> {
    /// An event with nothing but its identity; the rest is filled in.
    pub(crate) fn new(
        span_id: &'t str,
        name: &'t str,
        kind: EventKind,
        agent: Option<&'t str>,
    ) -> Self {
        Self {
            span_id,
            name,
            kind,
            tool: None,
            args: null(),
            result: null(),
            text: None,
            exec: None,
            derived: OnceCell::new(),
            agent,
            error: false,
            is_final: false,
            turn: 0,
            turn_tool_calls: 0,
            turn_replies: 0,
        }
    }

    /// The arguments as the trace recorded them, when that was JSON text
    /// (key order and spacing as written).
    pub(crate) fn args_raw(&self) -> Option<&'t str> {
        self.exec.and_then(|t| t.arguments_text.as_deref())
    }

    /// The result as the trace recorded it, when that was JSON text.
    pub(crate) fn result_raw(&self) -> Option<&'t str> {
        self.exec.and_then(|t| t.result_text.as_deref())
    }

    fn derived(&self) -> &Derived {
        self.derived.get_or_init(Box::default)
    }

    /// Compact JSON of the arguments (empty without arguments).
    pub(crate) fn args_text(&self) -> &str {
        self.derived()
            .args_text
            .get_or_init(|| shared_text(&self.args))
    }

    /// The result as text: a string as is, other JSON compact.
    pub(crate) fn result_text(&self) -> &str {
        self.derived()
            .result_text
            .get_or_init(|| shared_text(&self.result))
    }

    /// The arguments as JSON (`Null` without arguments).
    pub(crate) fn args_json(&self) -> &Value {
        decoded(&self.args, &self.derived().args_json)
    }

    /// The result as JSON (`Null` without a result).
    pub(crate) fn result_json(&self) -> &Value {
        decoded(&self.result, &self.derived().result_json)
    }

    /// The arguments as a CEL value for `where`, converted on first use.
    pub(crate) fn args_cel(&self) -> &Converted {
        &self.derived().args_cel
    }

    /// The result as a CEL value for `where`, converted on first use.
    pub(crate) fn result_cel(&self) -> &Converted {
        &self.derived().result_cel
    }

    /// Whether `re` finds a match in [`Event::content`]; each pattern is
    /// searched once per event.
    pub(crate) fn content_is_match(&self, re: &regex::Regex) -> bool {
        let answers = &self.derived().content_answers;
        let known = answers
            .borrow()
            .iter()
            .find(|(pattern, _)| **pattern == *re.as_str())
            .map(|(_, hit)| *hit);
        if let Some(hit) = known {
            return hit;
        }
        let hit = re.is_match(self.content());
        answers.borrow_mut().push((re.as_str().into(), hit));
        hit
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

#[cfg(test)]
mod tests;
