//! Tier-2 event matchers: which events of the trace a sequence form talks
//! about, and the values they capture for a later matcher to compare.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;

use super::SpannedString;

/// Matches trace events. All given fields must match.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventMatcher {
    /// Tool name, list of names, or glob (`lookup_*`, `update_{a,b}`); only
    /// tool events have one.
    #[serde(default)]
    pub tool: Option<ToolPattern>,
    /// Object: every key/value must appear in the tool arguments
    /// (recursively; keys and enum values are linted against the tool's
    /// schema); string: substring of the JSON-encoded arguments.
    #[serde(default)]
    pub args_contains: Option<Value>,
    /// Regular expression on the compact JSON-encoded arguments.
    #[serde(default)]
    pub args_match: Option<String>,
    /// Like `args_contains`, on the tool's result (JSON results are decoded).
    #[serde(default)]
    pub result_contains: Option<Value>,
    /// Regular expression on the tool's result (compact JSON, or the text).
    #[serde(default)]
    pub result_match: Option<String>,
    /// Substring (case-sensitive) of the event's text: a message's content,
    /// an LLM call's output, a tool's result.
    #[serde(default)]
    pub content_contains: Option<String>,
    /// Regular expression on the event's text (`(?i)` for any case).
    #[serde(default)]
    pub content_matches: Option<String>,
    /// The agent (speaker) the event belongs to.
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(default)]
    pub kind: Option<EventKind>,
    #[serde(default)]
    pub status: Option<EventStatus>,
    /// The last LLM event of the root agent.
    #[serde(default, rename = "final")]
    pub is_final: Option<bool>,
    /// Captures: name → JSON Pointer into the event (`/args/…`, `/result/…`
    /// or `/content`). The same name in two matchers of a checkpoint means
    /// the two values must be equal ("read THIS reservation before
    /// cancelling it"). An event without a value at the pointer does not match.
    #[serde(default)]
    pub capture: BTreeMap<String, String>,
    /// A CEL predicate over the event (`args`, `result`, `content`, `agent`,
    /// `kind`, `status`, `tool`, `turn`, `turn_tool_calls`, `turn_replies`),
    /// the values captured so far (`captures`), the case's `evidence` and
    /// `metadata`. Evaluated after the other fields match; an error makes the
    /// checkpoint unevaluated (docs/suites.md, "Expressions").
    #[serde(default, rename = "where")]
    #[schemars(with = "Option<String>")]
    pub where_: Option<SpannedString>,
    /// At least one of these matchers matches the same event (the first that
    /// does binds its captures).
    #[serde(default)]
    #[schemars(with = "Vec<EventMatcher>")]
    pub any_of: Vec<Spanned<EventMatcher>>,
    /// Every one of these matchers matches the same event.
    #[serde(default)]
    #[schemars(with = "Vec<EventMatcher>")]
    pub all_of: Vec<Spanned<EventMatcher>>,
    /// This matcher does not match the event (no captures inside).
    #[serde(default)]
    #[schemars(with = "Option<Box<EventMatcher>>")]
    pub not: Option<Box<Spanned<EventMatcher>>>,
    /// The number of tool calls in the LLM turn the event belongs to.
    #[serde(default)]
    pub turn_tool_calls: Option<CountRange>,
    /// The number of text replies (assistant messages) in the event's turn.
    #[serde(default)]
    pub turn_replies: Option<CountRange>,
}

/// `{min, max}`, both inclusive, either optional.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CountRange {
    #[serde(default)]
    pub min: Option<u32>,
    #[serde(default)]
    pub max: Option<u32>,
}

impl CountRange {
    pub fn holds(self, n: u32) -> bool {
        self.min.is_none_or(|a| n >= a) && self.max.is_none_or(|b| n <= b)
    }
}

impl EventMatcher {
    /// Whether no field is set (the matcher would match every event).
    pub fn is_empty(&self) -> bool {
        self.tool.is_none()
            && self.args_contains.is_none()
            && self.args_match.is_none()
            && self.result_contains.is_none()
            && self.result_match.is_none()
            && self.content_contains.is_none()
            && self.content_matches.is_none()
            && self.agent.is_none()
            && self.kind.is_none()
            && self.status.is_none()
            && self.is_final.is_none()
            && self.capture.is_empty()
            && self.where_.is_none()
            && self.any_of.is_empty()
            && self.all_of.is_empty()
            && self.not.is_none()
            && self.turn_tool_calls.is_none()
            && self.turn_replies.is_none()
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ToolPattern {
    One(String),
    Any(Vec<String>),
}

impl ToolPattern {
    pub fn patterns(&self) -> Vec<&str> {
        match self {
            Self::One(p) => vec![p.as_str()],
            Self::Any(ps) => ps.iter().map(String::as_str).collect(),
        }
    }
}

/// What an event is: a call (`llm`, `tool`, `agent`) or a message of the
/// conversation (`user`, `assistant`, `system`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    Llm,
    Tool,
    Agent,
    User,
    Assistant,
    System,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Llm => "llm",
            Self::Tool => "tool",
            Self::Agent => "agent",
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::System => "system",
        }
    }

    /// A message of the conversation rather than a call.
    pub fn is_message(self) -> bool {
        matches!(self, Self::User | Self::Assistant | Self::System)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EventStatus {
    Ok,
    Error,
}
