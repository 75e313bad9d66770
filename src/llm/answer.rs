//! What the transport knows of an answer: a format that names itself (part
//! of the cache key and of the JSON Schema's name), may offer a JSON Schema
//! for structured output, and parses an answer strictly. The kinds of
//! question live above (`judged/`), each implementing [`AnswerFormat`]; the
//! engine is generic over it, so no enum here knows the features.
//!
//! An answer that does not parse is never guessed at: the call fails with
//! [`super::error::CallError::Invalid`] and the item becomes N/A
//! `judge_error`. Only answers that parse are cached.

use serde_json::Value;

/// The shape an answer must have.
pub trait AnswerFormat: Clone + Send + Sync + 'static {
    /// What a parsed answer is.
    type Parsed: Clone + Send + 'static;

    /// Stable name: part of the cache key and of the JSON Schema's name.
    fn name(&self) -> &'static str;

    /// The JSON Schema sent as structured output, for JSON answers.
    fn json_schema(&self) -> Option<Value>;

    /// Parse `text` strictly; the error says what is wrong with it.
    fn parse(&self, text: &str) -> Result<Self::Parsed, String>;

    /// Output tokens the budget charges for one answer before the call (capped at
    /// `max_tokens`): a deterministic estimate of the answer's size, so a budget stops
    /// near the real spend instead of charging `max_tokens` for every question (issue 21).
    fn expected_output_tokens(&self) -> u32 {
        DEFAULT_EXPECTED_OUTPUT_TOKENS
    }
}

/// The budget's output estimate for formats that do not state one.
pub(crate) const DEFAULT_EXPECTED_OUTPUT_TOKENS: u32 = 300;

/// What a provider sends about the expected answer: its name and, for JSON
/// answers, the schema.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerShape {
    pub name: &'static str,
    pub json_schema: Option<Value>,
}

impl AnswerShape {
    pub fn of(format: &impl AnswerFormat) -> Self {
        Self {
            name: format.name(),
            json_schema: format.json_schema(),
        }
    }
}
