//! Provider profiles (issue 21): which sampling parameters a request carries, per provider
//! and model family, and what to do when a provider rejects one anyway.
//!
//! - `OpenAI` reasoning models (`o1`, `o3`, `o4`…, `gpt-5*`) take `max_completion_tokens`
//!   instead of `max_tokens` and reject any `temperature` but the default, so none is sent
//!   (<https://platform.openai.com/docs/guides/reasoning>); every other `OpenAI`-compatible
//!   model gets `temperature` and `max_tokens`.
//! - Anthropic deprecated `temperature` from Claude Opus 4.7 on (`claude-opus-4-7`,
//!   `claude-opus-4-8`, every `claude-*-5…` model): "`temperature` is deprecated for this
//!   model" (<https://docs.claude.com/en/about-claude/model-deprecations>), so none is sent
//!   there. `max_tokens` is required by the Messages API, so it is always sent (the default
//!   when the config says `max_tokens: null`).
//! - `temperature: null` / `max_tokens: null` in a `judge:` block leave the parameter out.
//! - A model the table does not know and that rejects a parameter gets HTTP 400 naming it:
//!   [`Rejections`] remembers the parameter for the rest of the run and the question is asked
//!   again without it (`max_tokens` becomes `max_completion_tokens` first on `OpenAI`), once per
//!   parameter, with the provider's message kept for the run report.

use std::sync::{Mutex, PoisonError};

use serde_json::{Map, Value};

use super::provider::Params;
use crate::spec::judge::limits::DEFAULT_MAX_TOKENS;

/// What a model takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Profile {
    /// Name of the answer-length parameter.
    pub length_key: &'static str,
    /// The API requires the length parameter (Anthropic).
    pub length_required: bool,
    /// `temperature` may be sent.
    pub temperature: bool,
}

/// The model name without a routing prefix (`openai/o3` on a gateway, an Azure path).
fn base_name(model: &str) -> String {
    model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase()
}

/// `OpenAI`'s reasoning families: `o` and a digit (`o1`, `o3-mini`, `o4-mini`), and `gpt-5*`.
pub(crate) fn openai_reasoning(model: &str) -> bool {
    let m = base_name(model);
    let mut chars = m.chars();
    (chars.next() == Some('o') && chars.next().is_some_and(|c| c.is_ascii_digit()))
        || m.starts_with("gpt-5")
}

pub(crate) fn openai(model: &str) -> Profile {
    if openai_reasoning(model) {
        Profile {
            length_key: "max_completion_tokens",
            length_required: false,
            temperature: false,
        }
    } else {
        Profile {
            length_key: "max_tokens",
            length_required: false,
            temperature: true,
        }
    }
}

/// Claude models that deprecated `temperature`: `claude-<family>-<major>[-<minor>]…` with
/// major ≥ 5, or Opus 4.7 and later.
pub(crate) fn anthropic_without_temperature(model: &str) -> bool {
    let m = base_name(model);
    let Some(rest) = m.strip_prefix("claude-") else {
        return false;
    };
    let parts: Vec<&str> = rest.split(['-', '.']).collect();
    let number = |s: &str| s.parse::<u32>().ok().filter(|n| *n < 100);
    let Some(at) = parts.iter().position(|p| number(p).is_some()) else {
        return false;
    };
    let major = number(parts[at]).unwrap_or(0);
    let minor = parts.get(at + 1).and_then(|p| number(p)).unwrap_or(0);
    // The family name comes before the version (`claude-opus-4-7`) or after it in older
    // names (`claude-3-opus-20240229`).
    let opus = parts.contains(&"opus");
    major >= 5 || (opus && major == 4 && minor >= 7)
}

/// Whether an Anthropic model takes a JSON-Schema output format
/// (`output_config.format`, structured outputs): Claude Opus, Sonnet and Haiku
/// 4.5 and later, every `claude-*-5` model, and Mythos.
pub(crate) fn anthropic_structured(model: &str) -> bool {
    let m = base_name(model);
    let Some(rest) = m.strip_prefix("claude-") else {
        return false;
    };
    let parts: Vec<&str> = rest.split(['-', '.']).collect();
    if parts.contains(&"mythos") {
        return true;
    }
    let number = |s: &str| s.parse::<u32>().ok().filter(|n| *n < 100);
    let Some(at) = parts.iter().position(|p| number(p).is_some()) else {
        return false;
    };
    let major = number(parts[at]).unwrap_or(0);
    let minor = parts.get(at + 1).and_then(|p| number(p)).unwrap_or(0);
    major >= 5 || (major == 4 && minor >= 5)
}

pub(crate) fn anthropic(model: &str) -> Profile {
    Profile {
        length_key: "max_tokens",
        length_required: true,
        temperature: !anthropic_without_temperature(model),
    }
}

/// Parameters a provider rejected during this run, with its message.
#[derive(Debug, Default)]
pub(crate) struct Rejections {
    rejected: Mutex<Vec<(String, String)>>,
}

impl Rejections {
    fn has(&self, param: &str) -> bool {
        self.rejected
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .any(|(p, _)| p == param)
    }

    /// Record that `param` was rejected with `message`; false when it already was (the
    /// question is then not asked again).
    pub(crate) fn reject(&self, param: &str, message: &str) -> bool {
        let mut r = self.rejected.lock().unwrap_or_else(PoisonError::into_inner);
        if r.iter().any(|(p, _)| p == param) {
            return false;
        }
        r.push((param.to_owned(), message.to_owned()));
        true
    }

    /// After an HTTP 400 with `reply_body` to a request `body`: whether the reply names one
    /// of the `candidates` the request sent, not rejected before (it is now recorded, so
    /// the question is asked again without it).
    pub(crate) fn rejected_now(
        &self,
        reply_body: &str,
        body: &Value,
        candidates: &[&'static str],
    ) -> bool {
        let sent: Vec<&str> = candidates
            .iter()
            .copied()
            .filter(|k| body.get(k).is_some())
            .collect();
        rejected_param(reply_body, &sent)
            .is_some_and(|(param, message)| self.reject(param, &message))
    }

    /// One line per rejected parameter: what was rejected, the provider's message, and what
    /// the run did instead.
    pub(crate) fn notes(&self, judge: &str) -> Vec<String> {
        self.rejected
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(p, message)| {
                format!("{judge} rejected `{p}` (HTTP 400: {message}); asked again without it")
            })
            .collect()
    }

    /// The sampling fields of a request under `profile`, minus what was rejected.
    pub(crate) fn sampling(&self, profile: Profile, params: Params) -> Map<String, Value> {
        let mut out = Map::new();
        if profile.temperature
            && !self.has("temperature")
            && let Some(t) = params.temperature
        {
            out.insert("temperature".into(), t.into());
        }
        let length = if profile.length_required {
            Some(params.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS))
        } else {
            params.max_tokens
        };
        if let Some(n) = length {
            let mut key = profile.length_key;
            if key == "max_tokens" && !profile.length_required && self.has("max_tokens") {
                key = "max_completion_tokens";
            }
            if profile.length_required || !self.has(key) {
                out.insert(key.into(), n.into());
            }
        }
        out
    }
}

/// The sampling parameter (one of `sent`) a 400 reply names: the `OpenAI` error's `param`,
/// else the first of them its message mentions. `None` when it names none.
pub(crate) fn rejected_param<'a>(body: &str, sent: &[&'a str]) -> Option<(&'a str, String)> {
    let v: Value = serde_json::from_str(body).ok()?;
    let error = v.get("error")?;
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let message = super::prompts::cap_chars(message, 300);
    if let Some(p) = error.get("param").and_then(Value::as_str)
        && let Some(s) = sent.iter().find(|s| **s == p)
    {
        return Some((s, message));
    }
    sent.iter()
        .filter_map(|s| message.find(s).map(|at| (at, *s)))
        .filter(|(at, s)| {
            // A whole parameter name, not part of a longer one.
            let after = message[at + s.len()..].chars().next();
            let before = message[..*at].chars().next_back();
            !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                && !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
        .min_by_key(|(at, _)| *at)
        .map(|(_, s)| (s, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasoning_models_take_max_completion_tokens_and_no_temperature() {
        for m in [
            "o1",
            "o3-mini",
            "o4-mini-2025-04-16",
            "gpt-5",
            "gpt-5-mini",
            "openai/o3",
        ] {
            assert_eq!(openai(m).length_key, "max_completion_tokens", "{m}");
            assert!(!openai(m).temperature, "{m}");
        }
        for m in [
            "gpt-4o-mini",
            "gpt-4.1",
            "llama3.1:8b",
            "omni-moderation",
            "qwen2.5",
        ] {
            assert_eq!(openai(m), openai("gpt-4o"), "{m}");
            assert!(openai(m).temperature, "{m}");
        }
    }

    #[test]
    fn claude_models_that_deprecated_temperature_get_none() {
        for m in [
            "claude-opus-4-7",
            "claude-opus-4-8",
            "claude-sonnet-5",
            "claude-opus-5-1",
        ] {
            assert!(anthropic_without_temperature(m), "{m}");
        }
        for m in [
            "claude-haiku-4-5",
            "claude-sonnet-4-5-20250929",
            "claude-opus-4-1",
            "claude-3-5-haiku-20241022",
            "claude-3-opus-20240229",
            "not-claude-9",
        ] {
            assert!(!anthropic_without_temperature(m), "{m}");
        }
    }

    #[test]
    fn claude_models_with_structured_outputs() {
        for m in [
            "claude-haiku-4-5",
            "claude-sonnet-4-5-20250929",
            "claude-opus-4-5",
            "claude-opus-4-7",
            "claude-sonnet-4.6",
            "claude-sonnet-5",
            "claude-mythos-preview",
            "anthropic/claude-opus-4-6",
        ] {
            assert!(anthropic_structured(m), "{m}");
        }
        for m in [
            "claude-opus-4-1",
            "claude-sonnet-4-20250514",
            "claude-3-5-haiku-20241022",
            "claude-3-opus-20240229",
            "not-claude-9",
            "gpt-4o",
        ] {
            assert!(!anthropic_structured(m), "{m}");
        }
    }

    #[test]
    fn null_settings_and_rejections_leave_parameters_out() {
        let r = Rejections::default();
        let all = Params {
            temperature: Some(0.0),
            max_tokens: Some(512),
        };
        let keys = |m: Map<String, Value>| m.keys().cloned().collect::<Vec<_>>().join(",");
        assert_eq!(
            keys(r.sampling(openai("gpt-4o"), all)),
            "max_tokens,temperature"
        );
        assert_eq!(keys(r.sampling(openai("o3"), all)), "max_completion_tokens");
        let none = Params {
            temperature: None,
            max_tokens: None,
        };
        assert_eq!(keys(r.sampling(openai("gpt-4o"), none)), "");
        // Anthropic requires max_tokens: the default goes out when the config says null.
        assert_eq!(
            r.sampling(anthropic("claude-haiku-4-5"), none)["max_tokens"],
            DEFAULT_MAX_TOKENS
        );
        assert!(r.reject("max_tokens", "use max_completion_tokens"));
        assert!(!r.reject("max_tokens", "again"));
        assert_eq!(
            keys(r.sampling(openai("gpt-4o"), all)),
            "max_completion_tokens,temperature"
        );
        assert!(r.reject("temperature", "no"));
        assert_eq!(
            keys(r.sampling(openai("gpt-4o"), all)),
            "max_completion_tokens"
        );
    }

    #[test]
    fn a_rejection_names_a_sent_parameter_or_none() {
        let openai_max = r#"{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}"#;
        assert_eq!(
            rejected_param(openai_max, &["temperature", "max_tokens"]).map(|p| p.0),
            Some("max_tokens")
        );
        let claude = r#"{"type":"error","error":{"type":"invalid_request_error","message":"`temperature` is deprecated for this model."}}"#;
        let (p, message) = rejected_param(claude, &["max_tokens", "temperature"]).unwrap();
        assert_eq!(p, "temperature");
        assert_eq!(message, "`temperature` is deprecated for this model.");
        // `max_tokens` inside `max_completion_tokens` is not a mention of it.
        let other = r#"{"error":{"message":"max_completion_tokens is too large"}}"#;
        assert_eq!(rejected_param(other, &["max_tokens"]), None);
        assert_eq!(rejected_param("not json", &["temperature"]), None);
        let unrelated = r#"{"error":{"message":"messages: too long"}}"#;
        assert_eq!(
            rejected_param(unrelated, &["temperature", "max_tokens"]),
            None
        );
    }
}
