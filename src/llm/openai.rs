//! `OpenAI`-compatible chat completions: `OpenAI`, Azure `OpenAI`, vLLM,
//! Ollama, `LiteLLM` and anything else that serves `POST {base}/chat/completions`.
//!
//! JSON answers are requested with `response_format: {type: json_schema,
//! strict: true}`. Servers that reject it (HTTP 400 naming
//! `response_format`) are asked again without it, once, and from then on
//! this client parses strictly without asking; `structured_output: off`
//! never asks, `json_schema` always does. Sampling parameters follow the
//! model's [`super::profile`]: reasoning models get `max_completion_tokens`
//! and no `temperature`, and a 400 naming a parameter is asked again without it.
//! <https://platform.openai.com/docs/api-reference/chat/create>

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue};
use serde_json::{Value, json};

use super::config::ProviderSettings;
use super::error::{CallError, JudgeError};
use super::http::{self, Reply};
use super::profile::{Profile, Rejections};
use super::provider::{BoxFuture, Completion, Judge, JudgeIdentity, RawAnswer};
use crate::spec::judge::{AuthHeader, JudgePrice, StructuredOutput};

pub struct OpenAiJudge {
    client: reqwest::Client,
    identity: JudgeIdentity,
    /// The base URL, part of every cache key.
    base_url: String,
    url: String,
    headers: Vec<(HeaderName, HeaderValue)>,
    structured: StructuredOutput,
    /// Set once the server has rejected `response_format` (auto mode).
    structured_rejected: AtomicBool,
    price: Option<JudgePrice>,
    timeout: Duration,
    profile: Profile,
    rejections: Rejections,
}

impl OpenAiJudge {
    pub fn new(settings: &ProviderSettings, timeout: Duration) -> Result<Self, JudgeError> {
        let mut url = format!(
            "{}/chat/completions",
            settings.base_url.trim_end_matches('/')
        );
        if let Some(v) = &settings.api_version {
            url.push_str(&format!("?api-version={v}"));
        }
        let mut headers = Vec::new();
        if let Some(key) = &settings.api_key {
            headers.push(match settings.auth {
                AuthHeader::Bearer => {
                    http::header("authorization", &format!("Bearer {}", key.expose()))?
                }
                AuthHeader::ApiKey => http::header("api-key", key.expose())?,
            });
        }
        Ok(Self {
            client: http::client(timeout)?,
            identity: JudgeIdentity::new("openai", &settings.model),
            base_url: settings.base_url.trim_end_matches('/').to_owned(),
            url,
            headers,
            structured: settings.structured,
            structured_rejected: AtomicBool::new(false),
            price: settings.price,
            timeout,
            profile: super::profile::openai(&settings.model),
            rejections: Rejections::default(),
        })
    }

    fn body(&self, call: &Completion, structured: bool) -> Value {
        let mut body = json!({
            "model": self.identity.model,
            "messages": [
                {"role": "system", "content": call.prompt.system},
                {"role": "user", "content": call.prompt.user},
            ],
        });
        if let Value::Object(fields) = &mut body {
            fields.extend(self.rejections.sampling(self.profile, call.params));
        }
        if structured && let Some(schema) = call.format.json_schema.clone() {
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": {"name": call.format.name, "strict": true, "schema": schema},
            });
        }
        body
    }

    fn wants_structured(&self) -> bool {
        match self.structured {
            StructuredOutput::Off => false,
            StructuredOutput::JsonSchema => true,
            StructuredOutput::Auto => !self.structured_rejected.load(Ordering::Relaxed),
        }
    }

    /// One question: asked again (once per cause) without `response_format` or a sampling
    /// parameter the server rejected with HTTP 400.
    async fn send(&self, call: &Completion) -> Result<RawAnswer, CallError> {
        // At most: response_format, temperature, max_tokens, max_completion_tokens.
        for _ in 0..4 {
            let structured = self.wants_structured() && call.format.json_schema.is_some();
            let body = self.body(call, structured);
            let reply =
                http::post_json(&self.client, &self.url, &self.headers, &body, self.timeout)
                    .await?;
            if reply.status != 400 {
                return parse(&reply);
            }
            if structured
                && self.structured == StructuredOutput::Auto
                && rejects_response_format(&reply)
            {
                self.structured_rejected.store(true, Ordering::Relaxed);
                continue;
            }
            if !self.rejections.rejected_now(
                &reply.body,
                &body,
                &["temperature", "max_tokens", "max_completion_tokens"],
            ) {
                return parse(&reply);
            }
        }
        Err(CallError::Rejected {
            status: 400,
            message: "rejected again after leaving out every parameter it named".into(),
        })
    }
}

fn rejects_response_format(reply: &Reply) -> bool {
    let text = reply.body.to_ascii_lowercase();
    text.contains("response_format") || text.contains("json_schema")
}

/// A chat-completions reply as an answer, or why it is not one.
fn parse(reply: &Reply) -> Result<RawAnswer, CallError> {
    if !(200..300).contains(&reply.status) {
        return Err(http::status_error(reply));
    }
    let v: Value = serde_json::from_str(&reply.body)
        .map_err(|e| CallError::Malformed(format!("the body is not JSON: {e}")))?;
    let choice = v
        .pointer("/choices/0")
        .ok_or_else(|| CallError::Malformed("no `choices[0]` in the reply".into()))?;
    let message = choice
        .get("message")
        .ok_or_else(|| CallError::Malformed("no `message` in `choices[0]`".into()))?;
    if let Some(refusal) = message.get("refusal").and_then(Value::as_str) {
        return Err(CallError::Refusal(super::prompts::cap_chars(refusal, 300)));
    }
    match choice.get("finish_reason").and_then(Value::as_str) {
        Some("content_filter") => {
            return Err(CallError::Refusal("stopped by the content filter".into()));
        }
        Some("length") => return Err(CallError::Truncated),
        _ => {}
    }
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        // Some servers send content parts.
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => return Err(CallError::Malformed("`message.content` is missing".into())),
    };
    if text.trim().is_empty() {
        return Err(CallError::Malformed("the answer is empty".into()));
    }
    Ok(RawAnswer::with_usage(
        text,
        &v,
        "prompt_tokens",
        "completion_tokens",
    ))
}

impl Judge for OpenAiJudge {
    fn identity(&self) -> &JudgeIdentity {
        &self.identity
    }

    fn base_url(&self) -> &str {
        &self.base_url
    }

    fn price(&self) -> Option<JudgePrice> {
        self.price
    }

    fn complete<'a>(&'a self, call: &'a Completion) -> BoxFuture<'a, Result<RawAnswer, CallError>> {
        Box::pin(self.send(call))
    }

    fn notes(&self) -> Vec<String> {
        self.rejections.notes(&self.identity.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(status: u16, body: &str) -> Reply {
        Reply {
            status,
            retry_after: None,
            body: body.to_owned(),
        }
    }

    #[test]
    fn replies_parse_or_say_why_not() {
        let ok = r#"{"choices":[{"message":{"content":"Score: 4"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":3}}"#;
        assert_eq!(
            parse(&reply(200, ok)).unwrap(),
            RawAnswer {
                text: "Score: 4".into(),
                input_tokens: 10,
                output_tokens: 3
            }
        );
        let refusal = r#"{"choices":[{"message":{"content":null,"refusal":"I can't help with that"},"finish_reason":"stop"}]}"#;
        assert!(matches!(
            parse(&reply(200, refusal)),
            Err(CallError::Refusal(_))
        ));
        let cut = r#"{"choices":[{"message":{"content":"Score"},"finish_reason":"length"}]}"#;
        assert_eq!(parse(&reply(200, cut)), Err(CallError::Truncated));
        assert!(matches!(
            parse(&reply(200, "{not json")),
            Err(CallError::Malformed(_))
        ));
        assert!(matches!(
            parse(&reply(200, "{}")),
            Err(CallError::Malformed(_))
        ));
        assert!(matches!(
            parse(&reply(500, "oops")),
            Err(CallError::Server { status: 500, .. })
        ));
        assert!(rejects_response_format(&reply(
            400,
            r#"{"error":{"message":"Invalid parameter: 'response_format' of type 'json_schema' is not supported"}}"#
        )));
    }
}
