//! Anthropic messages: `POST {base}/v1/messages` with `x-api-key` and
//! `anthropic-version`. JSON answers are requested with structured outputs
//! (`output_config: {format: {type: json_schema, schema}}`) on the models
//! that have them (Claude 4.5 and later, see [`super::profile`]) or always
//! with `structured_output: json_schema`; the schema loses the keywords
//! Anthropic does not take (numeric and length bounds), which the strict
//! parser still checks. A server that rejects `output_config` (HTTP 400 naming
//! it) is asked again without, for the rest of the run, and the answer is
//! parsed strictly from the text, which the prompts ask to be JSON. Sampling
//! parameters follow the model's [`super::profile`]: no `temperature` for the
//! models that deprecated it, and a 400 naming a parameter is asked again
//! without it.
//! <https://docs.anthropic.com/en/api/messages>

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue};
use serde_json::{Value, json};

use super::config::ProviderSettings;
use super::error::{CallError, JudgeError};
use super::http::{self, Reply};
use super::profile::{Profile, Rejections};
use super::provider::{BoxFuture, Completion, Judge, JudgeIdentity, RawAnswer};
use crate::spec::judge::{JudgePrice, StructuredOutput};

/// The API version this client speaks.
const ANTHROPIC_VERSION: &str = "2023-06-01";

pub struct AnthropicJudge {
    client: reqwest::Client,
    identity: JudgeIdentity,
    /// The base URL, part of every cache key.
    base_url: String,
    url: String,
    headers: Vec<(HeaderName, HeaderValue)>,
    price: Option<JudgePrice>,
    timeout: Duration,
    profile: Profile,
    rejections: Rejections,
    /// Whether JSON answers are asked for with a schema: `json_schema`, or `auto`
    /// for a model that has structured outputs.
    structured: bool,
    /// Set once the server has rejected `output_config` (auto mode).
    structured_rejected: AtomicBool,
    auto: bool,
}

impl AnthropicJudge {
    pub fn new(settings: &ProviderSettings, timeout: Duration) -> Result<Self, JudgeError> {
        let base = settings.base_url.trim_end_matches('/');
        let base = base.strip_suffix("/v1").unwrap_or(base);
        let mut headers = vec![http::header("anthropic-version", ANTHROPIC_VERSION)?];
        if let Some(key) = &settings.api_key {
            headers.push(http::header("x-api-key", key.expose())?);
        }
        Ok(Self {
            client: http::client(timeout)?,
            identity: JudgeIdentity::new("anthropic", &settings.model),
            base_url: settings.base_url.trim_end_matches('/').to_owned(),
            url: format!("{base}/v1/messages"),
            headers,
            price: settings.price,
            timeout,
            profile: super::profile::anthropic(&settings.model),
            rejections: Rejections::default(),
            structured: match settings.structured {
                StructuredOutput::Off => false,
                StructuredOutput::JsonSchema => true,
                StructuredOutput::Auto => super::profile::anthropic_structured(&settings.model),
            },
            structured_rejected: AtomicBool::new(false),
            auto: settings.structured == StructuredOutput::Auto,
        })
    }

    /// One question: asked again (once per cause) without `output_config` or a sampling
    /// parameter the API rejected with HTTP 400 (`max_tokens` is required, so only
    /// `temperature` can go).
    async fn send(&self, call: &Completion) -> Result<RawAnswer, CallError> {
        for _ in 0..3 {
            let mut body = json!({
                "model": self.identity.model,
                "system": call.prompt.system,
                "messages": [{"role": "user", "content": call.prompt.user}],
            });
            if let Value::Object(fields) = &mut body {
                fields.extend(self.rejections.sampling(self.profile, call.params));
            }
            let schema =
                call.format.json_schema.as_ref().filter(|_| {
                    self.structured && !self.structured_rejected.load(Ordering::Relaxed)
                });
            if let Some(schema) = schema {
                body["output_config"] = json!({
                    "format": {"type": "json_schema", "schema": supported_schema(schema)},
                });
            }
            let reply =
                http::post_json(&self.client, &self.url, &self.headers, &body, self.timeout)
                    .await?;
            if reply.status != 400 {
                return parse(&reply);
            }
            if schema.is_some() && self.auto && rejects_output_config(&reply) {
                self.structured_rejected.store(true, Ordering::Relaxed);
                continue;
            }
            if !self
                .rejections
                .rejected_now(&reply.body, &body, &["temperature"])
            {
                return parse(&reply);
            }
        }
        Err(CallError::Rejected {
            status: 400,
            message: "rejected again after leaving out `temperature`".into(),
        })
    }
}

fn rejects_output_config(reply: &Reply) -> bool {
    let text = reply.body.to_ascii_lowercase();
    text.contains("output_config") || text.contains("json_schema")
}

/// `schema` without the keywords Anthropic's structured outputs do not take: numeric
/// and length bounds (`minimum`, `maxLength`, `maxItems`, a `minItems` above 1…). The
/// answer is still checked against them by the strict parser.
fn supported_schema(schema: &Value) -> Value {
    const DROPPED: [&str; 9] = [
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "maxItems",
        "pattern",
    ];
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, v)| {
                    let above_one = k.as_str() == "minItems" && v.as_u64().is_some_and(|n| n > 1);
                    !(DROPPED.contains(&k.as_str()) || above_one)
                })
                .map(|(k, v)| {
                    // Under `properties` (and `$defs`) the keys are names, not keywords.
                    let v = match (k.as_str(), v) {
                        ("properties" | "$defs" | "definitions", Value::Object(named)) => {
                            Value::Object(
                                named
                                    .iter()
                                    .map(|(n, s)| (n.clone(), supported_schema(s)))
                                    .collect(),
                            )
                        }
                        _ => supported_schema(v),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(supported_schema).collect()),
        other => other.clone(),
    }
}

fn parse(reply: &Reply) -> Result<RawAnswer, CallError> {
    if !(200..300).contains(&reply.status) {
        return Err(http::status_error(reply));
    }
    let v: Value = serde_json::from_str(&reply.body)
        .map_err(|e| CallError::Malformed(format!("the body is not JSON: {e}")))?;
    match v.get("stop_reason").and_then(Value::as_str) {
        Some("refusal") => return Err(CallError::Refusal("stop_reason `refusal`".into())),
        Some("max_tokens") => return Err(CallError::Truncated),
        _ => {}
    }
    let blocks = v
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| CallError::Malformed("no `content` array in the reply".into()))?;
    let text: String = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("");
    if text.trim().is_empty() {
        return Err(CallError::Malformed("the answer has no text".into()));
    }
    Ok(RawAnswer::with_usage(
        text,
        &v,
        "input_tokens",
        "output_tokens",
    ))
}

impl Judge for AnthropicJudge {
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

    #[test]
    fn replies_parse_or_say_why_not() {
        let reply = |status, body: &str| Reply {
            status,
            retry_after: None,
            body: body.to_owned(),
        };
        let ok = r#"{"content":[{"type":"text","text":"Score: 2"}],"stop_reason":"end_turn","usage":{"input_tokens":7,"output_tokens":2}}"#;
        assert_eq!(parse(&reply(200, ok)).unwrap().text, "Score: 2");
        let refused = r#"{"content":[],"stop_reason":"refusal"}"#;
        assert!(matches!(
            parse(&reply(200, refused)),
            Err(CallError::Refusal(_))
        ));
        let cut = r#"{"content":[{"type":"text","text":"Sc"}],"stop_reason":"max_tokens"}"#;
        assert_eq!(parse(&reply(200, cut)), Err(CallError::Truncated));
        assert!(matches!(
            parse(&reply(
                529,
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            )),
            Err(CallError::Server { status: 529, .. })
        ));
    }

    #[test]
    fn bounds_are_dropped_from_keywords_not_from_property_names() {
        let schema = json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["maximum", "items"],
            "properties": {
                "maximum": {"type": "integer", "minimum": 0, "maximum": 3},
                "items": {"type": "array", "minItems": 2, "maxItems": 5, "items": {"type": "string", "maxLength": 9}},
                "one": {"type": "array", "minItems": 1, "items": {"type": "string"}}
            }
        });
        assert_eq!(
            supported_schema(&schema),
            json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["maximum", "items"],
                "properties": {
                    "maximum": {"type": "integer"},
                    "items": {"type": "array", "items": {"type": "string"}},
                    "one": {"type": "array", "minItems": 1, "items": {"type": "string"}}
                }
            })
        );
    }
}
