//! The one internal trace model every adapter produces (DESIGN §4).
//!
//! Adapters in this module turn OTLP/JSON, `OTel` SDK span dumps, `OpenInference`
//! attribute maps, the workflow framework's JSONL telemetry and chat-message
//! trajectories into a [`Trace`]. Everything downstream (checkpoints, the
//! evaluation DAG, tool-use metrics) reads only this model.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thin_vec::ThinVec;

use crate::model::{ShortText, SortedMap};

pub use crate::trace::attr_value::AttrValue;
pub use crate::trace::shared_value::SharedValue;

/// The attributes a span keeps after its adapter has read what it knows
/// (flattened dotted keys): a small sorted list, as most spans keep one to
/// three (issue 25).
pub type Attributes = SortedMap<ShortText, AttrValue>;

/// The trace formats the ingester recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceFormat {
    /// OTLP/JSON export (`resourceSpans[].scopeSpans[].spans[]`), `GenAI` conventions.
    Otlp,
    /// `OTel` SDK `ReadableSpan.to_json()` dumps (`context.span_id`, decimal ids).
    OtelSdk,
    /// `OpenInference` spans (`openinference.span.kind`, flattened message keys).
    OpenInference,
    /// A single flat span-attribute map with `GenAI` keys and no envelope.
    AttributeMap,
    /// The workflow framework's JSONL telemetry (`tool_name`, `span_type`).
    TelemetryJsonl,
    /// `OpenAI` chat `messages` with `tool_calls` (tau-bench episodes).
    ChatMessages,
    /// SWE-agent `.traj` files.
    SweAgent,
    /// Multi-agent chat logs (Who&When: `history[]` with named speakers).
    MultiAgentChat,
}

impl TraceFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Otlp => "otlp",
            Self::OtelSdk => "otel_sdk",
            Self::OpenInference => "openinference",
            Self::AttributeMap => "attribute_map",
            Self::TelemetryJsonl => "telemetry_jsonl",
            Self::ChatMessages => "chat_messages",
            Self::SweAgent => "swe_agent",
            Self::MultiAgentChat => "multi_agent_chat",
        }
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One agent run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// Trace id as found in the file (normalised like span ids), or derived
    /// from the file name when the format has none.
    pub id: String,
    pub format: TraceFormat,
    /// Spans in time order: by `start`, ties broken by `seq` (file order).
    pub spans: Vec<Span>,
    /// The run's final answer when the format records one separately
    /// (any-agent `final_output`, SWE-agent `info.submission`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_output: Option<String>,
    /// Run-level facts that are not spans: tau-bench `reward`, SWE-agent
    /// `exit_status`, Who&When labels, OTLP resource attributes.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, Value>,
    /// Recoverable oddities met while ingesting (a parent that is missing, an
    /// id that repeats). Never silently dropped: they reach the report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// What a span is, normalised across conventions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpanKind {
    Agent,
    Llm,
    Tool,
    Chain,
    Retriever,
    /// A human or user-simulator turn in a chat trajectory.
    User,
    Other,
}

impl SpanKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Agent => "agent",
            Self::Llm => "llm",
            Self::Tool => "tool",
            Self::Chain => "chain",
            Self::Retriever => "retriever",
            Self::User => "user",
            Self::Other => "other",
        }
    }
}

impl fmt::Display for SpanKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One span.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// Normalised id: lower-case hex for OTLP, the decimal text for `OTel` SDK
    /// dumps, a synthetic `m<index>` for chat formats.
    pub id: ShortText,
    /// Parent id; `None` for roots. After ingestion every parent that is
    /// `Some` names a span of the same trace (dangling parents are re-attached
    /// to the root with a warning).
    pub parent: Option<ShortText>,
    pub name: ShortText,
    pub kind: SpanKind,
    /// The agent this span belongs to (`gen_ai.agent.name`, a chat speaker).
    pub agent: Option<ShortText>,
    /// Unix epoch nanoseconds; `None` when the format has no clock.
    pub start: Option<u64>,
    pub end: Option<u64>,
    /// Position in the source file (0-based). Orders spans without clocks
    /// and breaks ties between equal start times.
    pub seq: u32,
    /// The model, tokens and cost of an LLM call, behind one pointer (most
    /// spans have none of them: 64 bytes a span when kept inline, issue
    /// 25). Read and set with [`Span::model`], [`Span::tokens`],
    /// [`Span::cost`] and their setters.
    usage: Option<Box<ModelUsage>>,
    /// Set on tool-execution spans.
    pub tool: Option<Box<ToolExecution>>,
    /// Messages the span received (LLM spans), normalised.
    pub input_messages: ThinVec<Message>,
    /// Messages the span produced (LLM spans). Tool calls the model requested
    /// live here, in `Message::tool_calls`.
    pub output_messages: ThinVec<Message>,
    /// Generic input when it is not a message list (`input.value`, chain inputs).
    pub input: Option<Box<Value>>,
    /// Generic output when it is not a message list.
    pub output: Option<Box<Value>>,
    pub status: Status,
    /// Remaining attributes, flattened to dotted keys, values as JSON.
    pub attributes: Attributes,
}

impl Span {
    /// A span with only the required fields set; adapters fill in the rest.
    pub fn new(
        id: impl Into<ShortText>,
        name: impl Into<ShortText>,
        kind: SpanKind,
        seq: usize,
    ) -> Self {
        Self {
            id: id.into(),
            parent: None,
            name: name.into(),
            kind,
            agent: None,
            start: None,
            end: None,
            // A file under any read cap holds fewer than 2^32 spans.
            seq: u32::try_from(seq).unwrap_or(u32::MAX),
            usage: None,
            tool: None,
            input_messages: ThinVec::new(),
            output_messages: ThinVec::new(),
            input: None,
            output: None,
            status: Status::default(),
            attributes: Attributes::default(),
        }
    }

    /// The model of an LLM call, when the trace names it.
    pub fn model(&self) -> Option<&str> {
        self.usage.as_ref().and_then(|u| u.model.as_deref())
    }

    /// Tokens the call used, when the trace records them.
    pub fn tokens(&self) -> Option<Tokens> {
        self.usage.as_ref().and_then(|u| u.tokens)
    }

    /// Cost in USD when the trace records it.
    pub fn cost(&self) -> Option<f64> {
        self.usage.as_ref().and_then(|u| u.cost)
    }

    pub fn set_model(&mut self, model: Option<ShortText>) {
        self.edit_usage(|u| u.model = model);
    }

    pub fn set_tokens(&mut self, tokens: Option<Tokens>) {
        self.edit_usage(|u| u.tokens = tokens);
    }

    pub fn set_cost(&mut self, cost: Option<f64>) {
        self.edit_usage(|u| u.cost = cost);
    }

    /// Change the model, tokens or cost; the box goes once all are unset,
    /// so a span equals another with the same values however it got them.
    fn edit_usage(&mut self, edit: impl FnOnce(&mut ModelUsage)) {
        crate::model::rare::edit(&mut self.usage, edit);
    }

    /// Attribute naming the LLM span that requested this tool execution,
    /// set by adapters that know it for certain (chat trajectories, where
    /// call ids may repeat).
    pub const REQUESTED_BY: &'static str = "requested_by";

    /// The LLM span that requested this tool execution, when the format
    /// records it (see [`Span::REQUESTED_BY`]).
    pub fn requested_by(&self) -> Option<&str> {
        self.attributes
            .get(Self::REQUESTED_BY)
            .and_then(AttrValue::as_str)
    }

    /// Tool calls this (LLM) span asked for, in order.
    pub fn requested_tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.output_messages
            .iter()
            .flat_map(|m| m.tool_calls.iter())
    }

    /// Duration in milliseconds when both clocks are known.
    pub fn duration_ms(&self) -> Option<f64> {
        match (self.start, self.end) {
            (Some(s), Some(e)) if e >= s => Some((e - s) as f64 / 1e6),
            _ => None,
        }
    }

    /// Sort key for time order: clock first, then file position.
    pub fn order_key(&self) -> (u64, usize) {
        (self.start.unwrap_or(0), self.seq as usize)
    }

    pub fn is_error(&self) -> bool {
        self.status.code == StatusCode::Error
    }

    /// The text the span produced, whatever form it took.
    pub fn output_text(&self) -> Option<String> {
        self.output_str().map(Cow::into_owned)
    }

    /// [`Self::output_text`], borrowed from the span when it is one text.
    pub fn output_str(&self) -> Option<Cow<'_, str>> {
        let mut from_messages = self
            .output_messages
            .iter()
            .filter(|m| !m.content.is_empty())
            .map(|m| m.content.as_str());
        if let Some(first) = from_messages.next() {
            return Some(match from_messages.next() {
                None => Cow::Borrowed(first),
                Some(second) => {
                    let mut text = format!("{first}\n{second}");
                    for more in from_messages {
                        text.push('\n');
                        text.push_str(more);
                    }
                    Cow::Owned(text)
                }
            });
        }
        match self.output.as_deref() {
            Some(Value::String(s)) => Some(Cow::Borrowed(s)),
            Some(Value::Null) | None => None,
            Some(other) => Some(Cow::Owned(other.to_string())),
        }
    }
}

/// A tool execution: the span that ran the tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolExecution {
    pub name: ShortText,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<ShortText>,
    /// Arguments as JSON. A JSON object encoded in a string is decoded; a
    /// string that is not JSON stays a string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<SharedValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<SharedValue>,
    /// The arguments as the trace recorded them, when that was JSON text
    /// (`args_match` reads it: key order and spacing as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments_text: Option<String>,
    /// The result as recorded, when that was JSON text (`result_match`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_text: Option<String>,
}

/// A tool call requested by a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<ShortText>,
    pub name: ShortText,
    /// Decoded like [`ToolExecution::arguments`]; `Value::Null` when absent.
    /// Shared with the tool span that ran the call and with the DAG's
    /// PARAMGEN, as [`ToolExecution::arguments`] is.
    #[serde(default)]
    pub arguments: SharedValue,
    /// The arguments as recorded, when they were JSON text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments_text: Option<String>,
}

/// A chat message, normalised from `OpenAI` messages, `GenAI` `parts` and
/// `OpenInference` flattened keys.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Message {
    pub role: ShortText,
    /// Text content; parts of type text are joined with newlines.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub content: String,
    #[serde(default, skip_serializing_if = "ThinVec::is_empty")]
    pub tool_calls: ThinVec<ToolCall>,
    /// For tool-result messages: the call this answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<ShortText>,
    /// Speaker or tool name when the format records one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<ShortText>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusCode {
    #[default]
    Unset,
    Ok,
    Error,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Status {
    pub code: StatusCode,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Box<str>>,
}

impl Status {
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            code: StatusCode::Error,
            message: Some(message.into().into_boxed_str()),
        }
    }
}

/// What an LLM call span records of its model and usage ([`Span::model`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ModelUsage {
    pub model: Option<ShortText>,
    pub tokens: Option<Tokens>,
    pub cost: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
}

/// Sort spans by [`Span::order_key`], stably, without the scratch copy of
/// the spans a stable sort makes (a few MB on a large trace, at its peak):
/// the keys and positions are sorted, then the spans moved into place.
fn sort_in_time_order(spans: &mut [Span]) {
    if spans.is_sorted_by_key(Span::order_key) {
        return;
    }
    let mut keys: Vec<(u64, usize, usize)> = spans
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (start, seq) = s.order_key();
            (start, seq, i)
        })
        .collect();
    // The position breaks ties: the order a stable sort gives.
    keys.sort_unstable();
    let mut from: Vec<usize> = keys.into_iter().map(|(_, _, i)| i).collect();
    // Slot `j` takes the span at `from[j]`; each cycle is walked once.
    for i in 0..from.len() {
        let mut j = i;
        loop {
            let src = std::mem::replace(&mut from[j], usize::MAX);
            if src == usize::MAX || src == i {
                break;
            }
            spans.swap(j, src);
            j = src;
        }
    }
}

impl Trace {
    /// Sort spans into time order (stable on `seq`) and re-attach dangling
    /// parents to the root, recording a warning for each. Adapters call this
    /// once at the end.
    #[must_use]
    pub fn finish(mut self) -> Self {
        // Adapters grow the list as they read; a trace keeps no spare room.
        self.spans.shrink_to_fit();
        sort_in_time_order(&mut self.spans);
        // Spans whose parent is not in the trace (or is themselves). The ids
        // are borrowed, not copied: a copy of every id was a tenth of a
        // large chat's peak memory (issue 25).
        let orphans: Vec<usize> = {
            let ids: rustc_hash::FxHashSet<&str> =
                self.spans.iter().map(|s| s.id.as_str()).collect();
            self.spans
                .iter()
                .enumerate()
                .filter(|(_, s)| {
                    s.parent
                        .as_deref()
                        .is_some_and(|p| !ids.contains(p) || p == s.id)
                })
                .map(|(i, _)| i)
                .collect()
        };
        let root = self
            .spans
            .iter()
            .find(|s| s.parent.is_none())
            .map(|s| s.id.clone());
        let mut warnings = Vec::new();
        for i in orphans {
            let span = &mut self.spans[i];
            let Some(parent) = span.parent.clone() else {
                continue;
            };
            let target = root.clone().filter(|r| *r != span.id);
            warnings.push(format!(
                "span `{}` ({}) names parent `{parent}`, which is not in the trace; attached to {}",
                span.id,
                span.name,
                target
                    .as_deref()
                    .map_or("nothing (made a root)".to_owned(), |r| format!(
                        "root `{r}`"
                    ))
            ));
            span.parent = target;
        }
        self.warnings.extend(warnings);
        self
    }

    /// Spans in time order that execute tools.
    pub fn tool_spans(&self) -> impl Iterator<Item = &Span> {
        self.spans.iter().filter(|s| s.kind == SpanKind::Tool)
    }

    pub fn span(&self, id: &str) -> Option<&Span> {
        self.spans.iter().find(|s| s.id == id)
    }

    /// The root agent: the agent of the first root span, if any.
    pub fn root_agent(&self) -> Option<&str> {
        self.spans
            .iter()
            .find(|s| s.parent.is_none())
            .and_then(|s| s.agent.as_deref())
    }

    /// The final answer: the format's own record if any, else the output of
    /// the last LLM span of the root agent.
    pub fn final_answer(&self) -> Option<String> {
        if let Some(out) = &self.final_output {
            return Some(out.clone());
        }
        let root_agent = self.root_agent();
        self.spans
            .iter()
            .rev()
            .filter(|s| s.kind == SpanKind::Llm)
            .find(|s| root_agent.is_none() || s.agent.as_deref() == root_agent || s.agent.is_none())
            .and_then(Span::output_text)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn spans_sort_like_a_stable_sort_by_time_then_position() {
        // Equal keys included: the stable order is the only right one.
        let mut state = 7_u64;
        for n in [0_usize, 1, 2, 5, 40, 300] {
            let spans: Vec<Span> = (0..n)
                .map(|i| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1);
                    let mut s = Span::new(
                        format!("s{i}"),
                        "x",
                        SpanKind::Other,
                        (state >> 60) as usize,
                    );
                    s.start = (!(state >> 33).is_multiple_of(4)).then_some((state >> 40) % 5);
                    s
                })
                .collect();
            let mut expected = spans.clone();
            expected.sort_by_key(Span::order_key);
            let mut got = spans;
            sort_in_time_order(&mut got);
            let ids = |v: &[Span]| v.iter().map(|s| s.id.clone()).collect::<Vec<_>>();
            assert_eq!(ids(&got), ids(&expected), "{n}");
        }
    }

    use super::*;

    #[test]
    fn finish_orders_by_clock_then_seq_and_reattaches_orphans() {
        let mut root = Span::new("r", "invoke_agent", SpanKind::Agent, 2);
        root.start = Some(10);
        let mut a = Span::new("a", "chat", SpanKind::Llm, 0);
        a.start = Some(20);
        a.parent = Some("r".into());
        let mut b = Span::new("b", "tool", SpanKind::Tool, 1);
        b.start = Some(20);
        b.parent = Some("missing".into());
        let trace = Trace {
            id: "t".into(),
            format: TraceFormat::OtelSdk,
            spans: vec![b, a, root],
            final_output: None,
            metadata: BTreeMap::new(),
            warnings: Vec::new(),
        }
        .finish();
        let order: Vec<&str> = trace.spans.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(order, ["r", "a", "b"]);
        assert_eq!(trace.span("b").unwrap().parent.as_deref(), Some("r"));
        assert_eq!(trace.warnings.len(), 1);
        assert!(trace.warnings[0].contains("`missing`"));
    }

    #[test]
    fn output_text_prefers_messages_and_renders_json() {
        let mut s = Span::new("x", "chat", SpanKind::Llm, 0);
        s.output = Some(Box::new(serde_json::json!({"a": 1})));
        assert_eq!(s.output_text().as_deref(), Some(r#"{"a":1}"#));
        s.output_messages.push(Message {
            role: "assistant".into(),
            content: "hi".into(),
            ..Message::default()
        });
        assert_eq!(s.output_text().as_deref(), Some("hi"));
    }

    /// A large trace holds one span and one or two DAG nodes per span or
    /// message of the file, so their sizes are most of `trace`'s peak
    /// memory (issue 25, docs/resources.md memory round 9). Were 336,
    /// 120 and 288 bytes; an attribute's text value took a heap allocation.
    /// Until memory round 13 a span was 288 bytes (its model, tokens and
    /// cost inline). Until memory round 12 a node was 216 bytes, a report entry 272, and
    /// a step score's and a report entry's sub-scores a list on the heap.
    #[test]
    fn spans_nodes_and_messages_stay_small() {
        use std::mem::size_of;
        assert!(size_of::<Span>() <= 232, "{}", size_of::<Span>());
        assert!(
            size_of::<crate::trace::AttrValue>() <= 24,
            "{}",
            size_of::<crate::trace::AttrValue>()
        );
        assert!(size_of::<Message>() <= 104, "{}", size_of::<Message>());
        assert!(
            size_of::<crate::dag::Node>() <= 168,
            "{}",
            size_of::<crate::dag::Node>()
        );
        assert!(
            size_of::<crate::model::StepResult>() <= 208,
            "{}",
            size_of::<crate::model::StepResult>()
        );
        assert!(
            size_of::<crate::eval::steps::scorer::StepScore>() <= 104,
            "{}",
            size_of::<crate::eval::steps::scorer::StepScore>()
        );
        let mut span = Span::new("s", "n", SpanKind::Other, 0);
        span.attributes
            .insert("span.kind".into(), Value::String("internal".into()).into());
        assert!(
            matches!(&span.attributes["span.kind"], AttrValue::Text(t) if !t.is_heap_allocated())
        );
        let mut node = crate::dag::Node::new(crate::spec::model::StepType::Exec, "t");
        node.set_error(Some("boom".into()));
        node.set_error_type(None);
        assert_eq!((node.error(), node.error_type()), (Some("boom"), None));
        node.set_error(None);
        assert_eq!(
            node,
            crate::dag::Node::new(crate::spec::model::StepType::Exec, "t")
        );
    }
}
