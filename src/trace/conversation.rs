//! The conversation as events: every trace format that records messages
//! (chat trajectories such as tau-bench, `OTel` `GenAI` message attributes
//! and events, `OpenInference` message lists, SWE-agent histories, Who&When
//! logs) yields the user, assistant and system messages in time order,
//! interleaved with the spans.
//!
//! - A `User` span (a human turn of a chat trajectory or multi-agent log)
//!   is one user message per text it carries.
//! - An LLM span's input holds the conversation so far; the user and system
//!   messages in it that this agent has not seen yet become events, placed
//!   before the earliest already-seen message that follows them in that
//!   input (so a system prompt lands before the first user turn), else just
//!   before the LLM span. "Seen" counts repeats: a second identical "yes"
//!   is a new message.
//! - An LLM span's output messages with text are assistant messages, placed
//!   right after it.
//!
//! Tool results are not messages here: the tool spans already are events.
//! Assistant messages found only in an input (demonstrations, earlier
//! sessions) are not events either: only what the model produced in this
//! trace is.

use std::collections::BTreeMap;

use crate::trace::model::{Message, Span, SpanKind, Trace};

/// Per role: text → entry indices of the messages already seen.
type SeenTexts<'a> = BTreeMap<Role, BTreeMap<&'a str, Vec<usize>>>;
/// Per agent.
type Seen<'a> = BTreeMap<Option<&'a str>, SeenTexts<'a>>;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Role {
    User,
    Assistant,
    System,
}

impl Role {
    /// The role of a message as logged (`human`, `developer`, `model`…),
    /// `None` for tool results and unknown roles.
    pub(crate) fn of(role: &str) -> Option<Self> {
        match role.to_ascii_lowercase().as_str() {
            "user" | "human" => Some(Self::User),
            "assistant" | "ai" | "model" | "bot" => Some(Self::Assistant),
            "system" | "developer" => Some(Self::System),
            _ => None,
        }
    }
}

/// One message of the conversation, read from the trace: the message and
/// its span, no copy of either (a chat's timeline has an entry per message,
/// issue 25; 24 bytes where its text, agent and span id took 56).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MessageEvent<'a> {
    pub role: Role,
    message: &'a Message,
    /// The span it was read from (a user turn, or the LLM call that received
    /// or produced it).
    span: &'a Span,
}

impl<'a> MessageEvent<'a> {
    pub(crate) fn content(&self) -> &'a str {
        &self.message.content
    }

    /// The agent whose conversation it belongs to.
    pub(crate) fn agent(&self) -> Option<&'a str> {
        self.span.agent.as_deref()
    }

    pub(crate) fn span_id(&self) -> &'a str {
        &self.span.id
    }
}

/// A span or a message, in time order.
#[derive(Debug, Clone)]
pub(crate) enum Entry<'a> {
    Span(&'a Span),
    Message(MessageEvent<'a>),
}

/// Every span and message of `trace` in time order.
pub(crate) fn timeline(trace: &Trace) -> Vec<Entry<'_>> {
    let mut entries: Vec<Entry<'_>> = Vec::new();
    // Messages to insert before entry `i`, in discovery order.
    let mut inserted: BTreeMap<usize, Vec<MessageEvent<'_>>> = BTreeMap::new();
    let mut seen = Seen::new();
    for span in &trace.spans {
        let agent = span.agent.as_deref();
        match span.kind {
            SpanKind::User => {
                for m in span
                    .output_messages
                    .iter()
                    .filter(|m| !m.content.is_empty())
                {
                    let role = Role::of(&m.role).unwrap_or(Role::User);
                    let index = entries.len();
                    remember(&mut seen, agent, role, &m.content, index);
                    entries.push(Entry::Message(event(role, m, span)));
                }
            }
            SpanKind::Llm => {
                place_new_inputs(span, &entries, &mut inserted, &mut seen);
                entries.push(Entry::Span(span));
                for m in span
                    .output_messages
                    .iter()
                    .filter(|m| !m.content.is_empty())
                {
                    if Role::of(&m.role).is_some_and(|r| r != Role::Assistant) {
                        continue;
                    }
                    let index = entries.len();
                    remember(&mut seen, agent, Role::Assistant, &m.content, index);
                    entries.push(Entry::Message(event(Role::Assistant, m, span)));
                }
            }
            _ => entries.push(Entry::Span(span)),
        }
    }
    if inserted.is_empty() {
        return entries;
    }
    let mut out =
        Vec::with_capacity(entries.len() + inserted.values().map(Vec::len).sum::<usize>());
    for (i, entry) in entries.into_iter().enumerate() {
        if let Some(before) = inserted.remove(&i) {
            out.extend(before.into_iter().map(Entry::Message));
        }
        out.push(entry);
    }
    for rest in inserted.into_values() {
        out.extend(rest.into_iter().map(Entry::Message));
    }
    out
}

fn event<'a>(role: Role, m: &'a Message, span: &'a Span) -> MessageEvent<'a> {
    MessageEvent {
        role,
        message: m,
        span,
    }
}

fn remember<'a>(
    seen: &mut Seen<'a>,
    agent: Option<&'a str>,
    role: Role,
    content: &'a str,
    index: usize,
) {
    seen.entry(agent)
        .or_default()
        .entry(role)
        .or_default()
        .entry(content)
        .or_default()
        .push(index);
}

/// The user and system messages of an LLM span's input that its agent has
/// not seen: anchor each before the next already-seen one, else before the
/// span (index `entries.len()`).
fn place_new_inputs<'a>(
    span: &'a Span,
    entries: &[Entry<'a>],
    inserted: &mut BTreeMap<usize, Vec<MessageEvent<'a>>>,
    seen: &mut Seen<'a>,
) {
    let here = entries.len();
    let known = seen.entry(span.agent.as_deref()).or_default();
    // For each input message: Some(anchor index) when seen before, None when new.
    let mut occurrence: BTreeMap<(Role, &str), usize> = BTreeMap::new();
    let mut classified: Vec<(Role, &'a Message, Option<usize>)> = Vec::new();
    for m in &span.input_messages {
        let Some(role) = Role::of(&m.role) else {
            continue;
        };
        if m.content.is_empty() {
            continue;
        }
        let k = occurrence.entry((role, m.content.as_str())).or_insert(0);
        let previous = known
            .get(&role)
            .and_then(|texts| texts.get(m.content.as_str()))
            .and_then(|at| at.get(*k).copied());
        *k += 1;
        if role == Role::Assistant && previous.is_none() {
            continue;
        }
        classified.push((role, m, previous));
    }
    let mut next_anchor = here;
    let mut placed: Vec<(usize, MessageEvent<'a>)> = Vec::new();
    for (role, m, previous) in classified.into_iter().rev() {
        match previous {
            Some(at) => next_anchor = next_anchor.min(at),
            None => placed.push((next_anchor, event(role, m, span))),
        }
    }
    for (anchor, message) in placed.into_iter().rev() {
        known
            .entry(message.role)
            .or_default()
            .entry(message.content())
            .or_default()
            .push(anchor);
        inserted.entry(anchor).or_default().push(message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::model::{Message, Span, SpanKind, Trace, TraceFormat};

    fn fixture(rel: &str) -> Trace {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces");
        crate::trace::read_traces(&root.join(rel))
            .unwrap()
            .remove(0)
    }

    /// `(role, first 20 chars)` of every message, spans as `span <kind>`.
    fn outline(entries: &[Entry<'_>]) -> Vec<String> {
        entries
            .iter()
            .map(|e| match e {
                Entry::Span(s) => format!("span {}", s.kind),
                Entry::Message(m) => format!(
                    "{:?}: {}",
                    m.role,
                    m.content().chars().take(20).collect::<String>()
                ),
            })
            .collect()
    }

    /// A chat's timeline has an entry per span and message, alive while
    /// the checkpoint event log is made from it (issue 25, memory round 13).
    #[test]
    fn a_timeline_entry_is_three_words() {
        assert!(std::mem::size_of::<Entry<'_>>() <= 24);
        let mut span = Span::new("s7", "chat", SpanKind::Llm, 0);
        span.agent = Some("bot".into());
        let m = Message {
            role: "assistant".into(),
            content: "hello".into(),
            ..Message::default()
        };
        let e = event(Role::Assistant, &m, &span);
        assert_eq!(
            (e.content(), e.agent(), e.span_id()),
            ("hello", Some("bot"), "s7")
        );
    }

    #[test]
    fn tau_bench_system_prompt_comes_first_and_every_user_turn_once() {
        let t = fixture("tau-bench/gpt-4o-airline.subset.json");
        let entries = timeline(&t);
        let o = outline(&entries);
        assert_eq!(o[0], "span agent");
        assert_eq!(o[1], "System: # Airline Agent Poli");
        assert!(o[2].starts_with("User: "), "{o:?}");
        assert_eq!(o[3], "span llm");
        let users = entries
            .iter()
            .filter(|e| matches!(e, Entry::Message(m) if m.role == Role::User))
            .count();
        let user_spans = t.spans.iter().filter(|s| s.kind == SpanKind::User).count();
        assert_eq!(
            users, user_spans,
            "each user turn is one event, never repeated from LLM inputs"
        );
        let systems = entries
            .iter()
            .filter(|e| matches!(e, Entry::Message(m) if m.role == Role::System))
            .count();
        assert_eq!(systems, 1);
    }

    #[test]
    fn who_and_when_speakers_are_assistant_messages_of_their_agent() {
        let t = fixture("who-and-when/hand-crafted_1.json");
        let entries = timeline(&t);
        let Entry::Message(first) = &entries[1] else {
            panic!("{:?}", outline(&entries))
        };
        assert_eq!((first.role, first.agent()), (Role::User, Some("human")));
        let surfer = entries.iter().find_map(|e| match e {
            Entry::Message(m) if m.agent() == Some("WebSurfer") => Some(m),
            _ => None,
        });
        assert_eq!(surfer.map(|m| m.role), Some(Role::Assistant));
    }

    #[test]
    fn swe_agent_otel_and_openinference_inputs_become_messages() {
        for (rel, first_user) in [
            (
                "swe-agent/pydicom__pydicom-1458.gpt4.traj",
                "Here is a demonstrati",
            ),
            (
                "otel-genai-any-agent/OPENAI_trace.json",
                "Find what year it is ",
            ),
            (
                "openinference/openinference_client_span_tool_calls.json",
                "Weather in Paris?",
            ),
            (
                "synthetic/smolagents_nested_openinference.json",
                "New task:\nWhat is the ",
            ),
        ] {
            let t = fixture(rel);
            let entries = timeline(&t);
            let o = outline(&entries);
            let user = entries
                .iter()
                .position(|e| matches!(e, Entry::Message(m) if m.role == Role::User));
            let llm = entries
                .iter()
                .position(|e| matches!(e, Entry::Span(s) if s.kind == SpanKind::Llm));
            let (Some(user), Some(llm)) = (user, llm) else {
                panic!("{rel}: {o:?}")
            };
            assert!(
                user < llm,
                "{rel}: the user message precedes the LLM call: {o:?}"
            );
            let Entry::Message(m) = &entries[user] else {
                unreachable!()
            };
            assert!(
                m.content().starts_with(first_user),
                "{rel}: {:?}",
                m.content()
            );
            assert!(
                entries
                    .iter()
                    .any(|e| matches!(e, Entry::Message(m) if m.role == Role::Assistant)),
                "{rel}: {o:?}"
            );
        }
    }

    fn msg(role: &str, content: &str) -> Message {
        Message {
            role: role.into(),
            content: content.into(),
            ..Message::default()
        }
    }

    /// Two chat calls of one agent whose inputs repeat the history, as `OTel`
    /// `GenAI` and `OpenInference` record them.
    #[test]
    fn cumulative_inputs_yield_each_new_message_once_and_repeats_count() {
        let mut a = Span::new("a", "chat", SpanKind::Llm, 1);
        a.agent = Some("bot".into());
        a.input_messages = thin_vec::thin_vec![msg("system", "be nice"), msg("user", "cancel R1")];
        a.output_messages = thin_vec::thin_vec![msg("assistant", "Cancel R1? Say yes.")];
        let mut b = Span::new("b", "chat", SpanKind::Llm, 2);
        b.agent = Some("bot".into());
        b.input_messages = thin_vec::thin_vec![
            msg("system", "be nice"),
            msg("user", "cancel R1"),
            msg("assistant", "Cancel R1? Say yes."),
            msg("user", "yes"),
            msg("tool", "{}"),
        ];
        let mut c = Span::new("c", "chat", SpanKind::Llm, 3);
        c.agent = Some("bot".into());
        c.input_messages = b.input_messages.clone();
        c.input_messages.push(msg("user", "yes"));
        let t = Trace {
            id: "t".into(),
            format: TraceFormat::Otlp,
            spans: vec![a, b, c],
            final_output: None,
            metadata: std::collections::BTreeMap::new(),
            warnings: vec![],
        };
        assert_eq!(
            outline(&timeline(&t)),
            [
                "System: be nice",
                "User: cancel R1",
                "span llm",
                "Assistant: Cancel R1? Say yes.",
                "User: yes",
                "span llm",
                "User: yes",
                "span llm",
            ]
        );
    }
}
