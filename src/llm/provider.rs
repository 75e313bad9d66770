//! The one `Judge` trait every provider implements, and what goes in and
//! out of a call.
//!
//! A judge answers one [`Completion`] per call and does nothing else: the
//! [`super::pipeline::Engine`] around it owns the cache, the budget,
//! retries, the fallback chain, concurrency and accounting, so a new
//! provider (or a new kind of question: trace-level GPA judges, judged root
//! causes, rubric generation) gets all of that by implementing
//! [`Judge::complete`] or by sending a new [`super::answer::AnswerFormat`].

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use super::answer::AnswerShape;
use super::error::CallError;
use super::prompts::Prompt;
use crate::spec::judge::JudgePrice;

/// A boxed future: keeps [`Judge`] object-safe without an extra crate.
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Sampling parameters of every call (part of the cache key). `None` leaves the parameter
/// out of the request (`temperature: null` / `max_tokens: null`); what a model accepts is
/// decided by its [`super::profile`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            temperature: Some(crate::spec::judge::limits::DEFAULT_TEMPERATURE),
            max_tokens: Some(crate::spec::judge::limits::DEFAULT_MAX_TOKENS),
        }
    }
}

/// One question to a judge.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub prompt: Prompt,
    pub format: AnswerShape,
    pub params: Params,
}

/// A provider's answer before parsing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawAnswer {
    pub text: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl RawAnswer {
    /// The answer `text` with the token counts the provider reports under
    /// `/usage/<input_key>` and `/usage/<output_key>` of its reply `v`
    /// (0 when absent: the cost is then underestimated, never invented).
    pub fn with_usage(
        text: String,
        v: &serde_json::Value,
        input_key: &str,
        output_key: &str,
    ) -> Self {
        let tokens = |k: &str| {
            v.pointer(&format!("/usage/{k}"))
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0)
        };
        Self {
            text,
            input_tokens: tokens(input_key),
            output_tokens: tokens(output_key),
        }
    }
}

/// Who judges: the provider family and the model. Part of every cache key,
/// and recorded as `judge:<provider>/<model>` on what it decided.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JudgeIdentity {
    pub provider: String,
    pub model: String,
}

impl JudgeIdentity {
    pub fn new(provider: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            provider: provider.into(),
            model: model.into(),
        }
    }

    /// `judge:<provider>/<model>`, the `evaluated_by` / `scored_by` label.
    pub fn label(&self) -> String {
        format!("judge:{self}")
    }
}

impl fmt::Display for JudgeIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.provider, self.model)
    }
}

/// An LLM judge: one attempt at one completion. No retries, no caching:
/// the engine does those for every judge alike.
pub trait Judge: Send + Sync {
    fn identity(&self) -> &JudgeIdentity;

    /// The base URL the judge is called at (without a trailing `/`): part of every
    /// cache key, so two servers that serve the same model name never share answers.
    fn base_url(&self) -> &str;

    /// USD per million tokens, when known (for cost and the budget).
    fn price(&self) -> Option<JudgePrice>;

    fn complete<'a>(&'a self, call: &'a Completion) -> BoxFuture<'a, Result<RawAnswer, CallError>>;

    /// What the provider made this judge change during the run (a parameter it rejected,
    /// with its message), for the run report.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Cost of `input`/`output` tokens at `price`.
pub(crate) fn cost_of(price: Option<JudgePrice>, input: u64, output: u64) -> Option<f64> {
    price.map(|p| {
        (input as f64 * p.input_per_mtok + output as f64 * p.output_per_mtok) / 1_000_000.0
    })
}
