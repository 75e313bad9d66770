//! The judge's settings as users write them (DESIGN §7, issue 11).
//!
//! Two blocks, because two people write them:
//!
//! - the suite's `judge:` ([`JudgeSpec`]) says what the suite needs: repeats,
//!   a model, caps, prompt overrides, where its cache lives, the identity a
//!   recorded cache was made with, the calibration threshold. It cannot
//!   choose a provider, a base URL or an API-key variable: a suite file is
//!   edited in pull requests, and those three decide where a secret is sent;
//! - `agenteval.yaml`'s `judge:` ([`JudgeConfigSpec`]) is the operator's:
//!   provider, base URL, key variable, prices, concurrency, timeouts,
//!   retries, the fallback chain and budgets. It may also be a bare provider
//!   name (`judge: openai`), the form earlier versions accepted.
//!
//! Ranges are checked by `lint` (suite, exit 78) and when the config is
//! resolved (`agenteval.yaml`, exit 78; flags, exit 64), in
//! [`crate::judge::config`].

use std::fmt;

use schemars::JsonSchema;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

/// The suite's `judge:` block.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JudgeSpec {
    /// Repeats per tier-3 item (1–10, default 1); > 1 reports confidence
    /// (range, mean, variance, HIGH/LOW).
    #[serde(default)]
    pub runs: Option<u32>,
    /// Model the suite is judged with, unless `--judge-model` /
    /// `AGENTEVAL_JUDGE_MODEL` says otherwise.
    #[serde(default)]
    pub model: Option<String>,
    /// Stop calling the judge past this estimated spend (USD, > 0);
    /// remaining items become N/A "budget exhausted". Needs a price.
    #[serde(default)]
    pub max_cost_usd: Option<f64>,
    /// Stop calling the judge past this many estimated tokens (≥ 1).
    #[serde(default)]
    pub max_total_tokens: Option<u64>,
    /// Sampling temperature (0–2, default 0).
    #[serde(default)]
    pub temperature: Option<f64>,
    /// Longest answer in tokens (16–32768, default 1024).
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// Directory (relative to the suite) whose `*.j2` files replace the
    /// built-in prompt templates of the same name.
    #[serde(default)]
    pub prompts: Option<String>,
    /// Judge cache directory, relative to the suite (default: the command's
    /// `--judge-cache`, else `.agenteval-cache`).
    #[serde(default)]
    pub cache: Option<String>,
    /// The provider and model a recorded cache was made with: what
    /// `--judge replay` looks up.
    #[serde(default)]
    pub replay: Option<ReplaySpec>,
    /// `calibrate` warns when Cohen's κ falls below this (−1–1, default 0.6).
    #[serde(default)]
    pub kappa_threshold: Option<f64>,
    /// Characters of trace shown to the judge per item (1000–200000, default 12000).
    #[serde(default)]
    pub excerpt_chars: Option<usize>,
    /// Judge step metrics (PLAN, TOOLSEL, PARAMGEN, SYNTH); default true.
    #[serde(default)]
    pub steps: Option<bool>,
}

/// The identity of a recorded judge cache.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplaySpec {
    /// Provider the cache was recorded from (default `openai`).
    #[serde(default)]
    pub provider: Option<ProviderName>,
    /// Model the cache was recorded from.
    #[serde(default)]
    pub model: Option<String>,
}

/// A judge API family.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ProviderName {
    /// Any OpenAI-compatible chat-completions API (OpenAI, Azure OpenAI,
    /// vLLM, Ollama, LiteLLM).
    Openai,
    /// Anthropic messages.
    Anthropic,
}

impl ProviderName {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Openai => "openai",
            Self::Anthropic => "anthropic",
        }
    }
}

impl fmt::Display for ProviderName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How the key is sent to an OpenAI-compatible server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum AuthHeader {
    /// `Authorization: Bearer <key>` (OpenAI, vLLM, LiteLLM, Azure's v1 API).
    #[default]
    Bearer,
    /// `api-key: <key>` (Azure OpenAI deployments).
    ApiKey,
}

/// Whether to ask the server for JSON-Schema-constrained output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StructuredOutput {
    /// Ask for it; if the server rejects `response_format`, ask again without
    /// it and parse strictly from then on.
    #[default]
    Auto,
    /// Always ask (the server must support it).
    JsonSchema,
    /// Never ask; parse the answer strictly.
    Off,
}

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JudgePrice {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

/// A fallback provider (the primary's fields live in [`JudgeConfigSpec`]).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProviderSpec {
    pub provider: ProviderName,
    #[serde(default)]
    pub model: Option<String>,
    /// API root: `https://api.openai.com/v1`, `http://localhost:11434/v1`,
    /// `https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT`,
    /// `https://api.anthropic.com`.
    #[serde(default)]
    pub base_url: Option<String>,
    /// Environment variable holding the key (default `OPENAI_API_KEY` /
    /// `ANTHROPIC_API_KEY`). GitHub and Actions variables are refused.
    #[serde(default)]
    pub api_key_env: Option<String>,
    #[serde(default)]
    pub auth: Option<AuthHeader>,
    /// Azure OpenAI `api-version` query parameter, e.g. `2024-10-21`.
    #[serde(default)]
    pub api_version: Option<String>,
    #[serde(default)]
    pub structured_output: Option<StructuredOutput>,
    #[serde(default)]
    pub price: Option<JudgePrice>,
}

/// `agenteval.yaml`'s `judge:` map.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JudgeConfigSpec {
    /// `none`, `openai`, `anthropic` or `replay`.
    #[serde(default)]
    pub provider: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub base_url: Option<String>,
    #[serde(default)]
    pub api_key_env: Option<String>,
    #[serde(default)]
    pub auth: Option<AuthHeader>,
    #[serde(default)]
    pub api_version: Option<String>,
    #[serde(default)]
    pub structured_output: Option<StructuredOutput>,
    #[serde(default)]
    pub price: Option<JudgePrice>,
    /// Judge calls in flight at once (1–256, default 8).
    #[serde(default)]
    pub concurrency: Option<usize>,
    /// Per-request timeout in seconds (1–600, default 60).
    #[serde(default)]
    pub timeout_s: Option<f64>,
    /// Retries per call after the first attempt (0–10, default 3).
    #[serde(default)]
    pub retries: Option<u32>,
    /// Providers tried in order when the primary fails.
    #[serde(default)]
    pub fallback: Vec<ProviderSpec>,
    #[serde(default)]
    pub max_cost_usd: Option<f64>,
    #[serde(default)]
    pub max_total_tokens: Option<u64>,
    #[serde(default)]
    pub temperature: Option<f64>,
    #[serde(default)]
    pub max_tokens: Option<u32>,
}

/// `judge:` in `agenteval.yaml`: a provider name or a settings map.
#[derive(Debug, Clone)]
pub enum JudgeConfigValue {
    Provider(String),
    Settings(Box<JudgeConfigSpec>),
}

impl JudgeConfigValue {
    /// The provider named, if any (`none|openai|anthropic|replay`, unchecked).
    pub fn provider(&self) -> Option<&str> {
        match self {
            Self::Provider(p) => Some(p),
            Self::Settings(s) => s.provider.as_deref(),
        }
    }

    /// The settings map (empty for the bare-name form).
    pub fn settings(&self) -> JudgeConfigSpec {
        match self {
            Self::Provider(p) => JudgeConfigSpec {
                provider: Some(p.clone()),
                ..JudgeConfigSpec::default()
            },
            Self::Settings(s) => (**s).clone(),
        }
    }
}

impl<'de> Deserialize<'de> for JudgeConfigValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = JudgeConfigValue;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a provider name (none, openai, anthropic, replay) or a map of judge settings",
                )
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(JudgeConfigValue::Provider(v.to_owned()))
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                JudgeConfigSpec::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|s| JudgeConfigValue::Settings(Box::new(s)))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// Allowed ranges (inclusive), shared by `lint`, `agenteval.yaml` and the flags.
pub mod limits {
    pub const RUNS: (u32, u32) = (1, 10);
    pub const TEMPERATURE: (f64, f64) = (0.0, 2.0);
    pub const MAX_TOKENS: (u32, u32) = (16, 32_768);
    pub const CONCURRENCY: (usize, usize) = (1, 256);
    pub const TIMEOUT_S: (f64, f64) = (1.0, 600.0);
    pub const RETRIES: (u32, u32) = (0, 10);
    pub const EXCERPT_CHARS: (usize, usize) = (1_000, 200_000);
    pub const KAPPA: (f64, f64) = (-1.0, 1.0);
    /// USD per million tokens: 0 (a free local model) to 10,000.
    pub const PRICE: (f64, f64) = (0.0, 10_000.0);
    pub const DEFAULT_RUNS: u32 = 1;
    pub const DEFAULT_TEMPERATURE: f64 = 0.0;
    pub const DEFAULT_MAX_TOKENS: u32 = 1024;
    pub const DEFAULT_CONCURRENCY: usize = 8;
    pub const DEFAULT_TIMEOUT_S: f64 = 60.0;
    pub const DEFAULT_RETRIES: u32 = 3;
    pub const DEFAULT_EXCERPT_CHARS: usize = 12_000;
    pub const DEFAULT_KAPPA: f64 = 0.6;
}

/// One setting out of range: the key, what is wrong, and the allowed range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Dotted key, e.g. `judge.runs`.
    pub key: String,
    pub message: String,
    pub help: String,
}

fn range_problem<T: PartialOrd + fmt::Display + Copy>(
    out: &mut Vec<Problem>,
    key: &str,
    value: Option<T>,
    (lo, hi): (T, T),
    unit: &str,
) {
    if let Some(v) = value
        && !(v >= lo && v <= hi)
    {
        out.push(Problem {
            key: key.to_owned(),
            message: format!("`{key}` is {v}; it must lie between {lo} and {hi}{unit}"),
            help: format!("set `{key}` to a value from {lo} to {hi}"),
        });
    }
}

fn positive_problem(out: &mut Vec<Problem>, key: &str, value: Option<f64>) {
    if let Some(v) = value
        && !(v.is_finite() && v > 0.0)
    {
        out.push(Problem {
            key: key.to_owned(),
            message: format!("`{key}` is {v}; it must be a positive number of US dollars"),
            help: format!("set `{key}` above 0, e.g. 5.0"),
        });
    }
}

fn token_budget_problem(out: &mut Vec<Problem>, key: &str, value: Option<u64>) {
    if value == Some(0) {
        out.push(Problem {
            key: key.to_owned(),
            message: format!("`{key}` is 0; it must be at least 1 token"),
            help: format!("remove `{key}` or set it to the most tokens a run may spend"),
        });
    }
}

fn price_problems(out: &mut Vec<Problem>, key: &str, price: Option<&JudgePrice>) {
    if let Some(p) = price {
        range_problem(
            out,
            &format!("{key}.input_per_mtok"),
            Some(p.input_per_mtok),
            limits::PRICE,
            " USD per million tokens",
        );
        range_problem(
            out,
            &format!("{key}.output_per_mtok"),
            Some(p.output_per_mtok),
            limits::PRICE,
            " USD per million tokens",
        );
    }
}

/// Environment variables a judge key may never come from: the key is sent
/// to the judge's base URL, and these hold the CI's own credentials.
pub fn forbidden_key_env(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    ["GITHUB_", "ACTIONS_", "RUNNER_", "AGENTEVAL_GITHUB"]
        .iter()
        .any(|p| upper.starts_with(p))
}

fn key_env_problems(out: &mut Vec<Problem>, key: &str, value: Option<&str>) {
    let Some(name) = value else { return };
    let valid = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if !valid {
        out.push(Problem {
            key: key.to_owned(),
            message: format!("`{key}` is `{name}`, which is not an environment variable name"),
            help: "name the variable that holds the key, e.g. `OPENAI_API_KEY`".to_owned(),
        });
    } else if forbidden_key_env(name) {
        out.push(Problem {
            key: key.to_owned(),
            message: format!(
                "`{key}` names `{name}`: GitHub and Actions credentials are never sent to a judge"
            ),
            help: "store the judge's key in its own secret, e.g. `OPENAI_API_KEY`".to_owned(),
        });
    }
}

fn url_problems(out: &mut Vec<Problem>, key: &str, value: Option<&str>) {
    if let Some(url) = value
        && !(url.starts_with("https://") || url.starts_with("http://"))
    {
        out.push(Problem {
            key: key.to_owned(),
            message: format!("`{key}` is `{url}`; it must start with `https://` or `http://`"),
            help: "e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`".to_owned(),
        });
    }
}

impl JudgeSpec {
    /// Every out-of-range value in the suite's `judge:` block (`key` is `judge.<field>`).
    pub fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        range_problem(&mut out, "judge.runs", self.runs, limits::RUNS, "");
        range_problem(
            &mut out,
            "judge.temperature",
            self.temperature,
            limits::TEMPERATURE,
            "",
        );
        range_problem(
            &mut out,
            "judge.max_tokens",
            self.max_tokens,
            limits::MAX_TOKENS,
            " tokens",
        );
        positive_problem(&mut out, "judge.max_cost_usd", self.max_cost_usd);
        token_budget_problem(&mut out, "judge.max_total_tokens", self.max_total_tokens);
        range_problem(
            &mut out,
            "judge.kappa_threshold",
            self.kappa_threshold,
            limits::KAPPA,
            "",
        );
        range_problem(
            &mut out,
            "judge.excerpt_chars",
            self.excerpt_chars,
            limits::EXCERPT_CHARS,
            " characters",
        );
        if let Some(m) = &self.model
            && m.trim().is_empty()
        {
            out.push(Problem {
                key: "judge.model".into(),
                message: "`judge.model` is empty".into(),
                help: "name the model, e.g. `gpt-4o-mini`, or remove the key".into(),
            });
        }
        out
    }
}

impl JudgeConfigSpec {
    /// Every out-of-range value in `agenteval.yaml`'s `judge:` map.
    pub fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        if let Some(p) = &self.provider
            && !matches!(p.as_str(), "none" | "openai" | "anthropic" | "replay")
        {
            out.push(Problem {
                key: "judge.provider".into(),
                message: format!("`judge.provider` is `{p}`"),
                help: "use `none`, `openai` (any OpenAI-compatible API), `anthropic` or `replay`"
                    .into(),
            });
        }
        url_problems(&mut out, "judge.base_url", self.base_url.as_deref());
        key_env_problems(&mut out, "judge.api_key_env", self.api_key_env.as_deref());
        price_problems(&mut out, "judge.price", self.price.as_ref());
        range_problem(
            &mut out,
            "judge.concurrency",
            self.concurrency,
            limits::CONCURRENCY,
            "",
        );
        range_problem(
            &mut out,
            "judge.timeout_s",
            self.timeout_s,
            limits::TIMEOUT_S,
            " seconds",
        );
        range_problem(&mut out, "judge.retries", self.retries, limits::RETRIES, "");
        range_problem(
            &mut out,
            "judge.temperature",
            self.temperature,
            limits::TEMPERATURE,
            "",
        );
        range_problem(
            &mut out,
            "judge.max_tokens",
            self.max_tokens,
            limits::MAX_TOKENS,
            " tokens",
        );
        positive_problem(&mut out, "judge.max_cost_usd", self.max_cost_usd);
        token_budget_problem(&mut out, "judge.max_total_tokens", self.max_total_tokens);
        for (i, f) in self.fallback.iter().enumerate() {
            let key = format!("judge.fallback[{i}]");
            url_problems(&mut out, &format!("{key}.base_url"), f.base_url.as_deref());
            key_env_problems(
                &mut out,
                &format!("{key}.api_key_env"),
                f.api_key_env.as_deref(),
            );
            price_problems(&mut out, &format!("{key}.price"), f.price.as_ref());
            if f.model.as_deref().is_none_or(|m| m.trim().is_empty()) {
                out.push(Problem {
                    key: format!("{key}.model"),
                    message: format!("`{key}` has no `model`"),
                    help: "every fallback names its model, e.g. `{provider: anthropic, model: claude-3-5-haiku-latest}`".into(),
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_judge_is_a_name_or_a_map() {
        let v: JudgeConfigValue = serde_saphyr::from_str("openai").unwrap();
        assert_eq!(v.provider(), Some("openai"));
        let v: JudgeConfigValue = serde_saphyr::from_str(
            "{provider: anthropic, model: m, fallback: [{provider: openai, model: x}]}",
        )
        .unwrap();
        assert_eq!(v.provider(), Some("anthropic"));
        assert_eq!(v.settings().fallback.len(), 1);
        assert!(serde_saphyr::from_str::<JudgeConfigValue>("{provder: openai}").is_err());
    }

    #[test]
    fn out_of_range_values_name_the_range() {
        let spec: JudgeSpec = serde_saphyr::from_str(
            "{runs: 0, temperature: 3, max_cost_usd: -1, excerpt_chars: 10}",
        )
        .unwrap();
        let keys: Vec<String> = spec.problems().into_iter().map(|p| p.key).collect();
        assert_eq!(
            keys,
            [
                "judge.runs",
                "judge.temperature",
                "judge.max_cost_usd",
                "judge.excerpt_chars"
            ]
        );
        let p = &spec.problems()[0];
        assert!(p.message.contains("between 1 and 10"), "{}", p.message);
        let cfg: JudgeConfigSpec = serde_saphyr::from_str(
            "{provider: gpt, api_key_env: GITHUB_TOKEN, concurrency: 0, base_url: ftp://x, fallback: [{provider: openai}]}",
        )
        .unwrap();
        let keys: Vec<String> = cfg.problems().into_iter().map(|p| p.key).collect();
        assert_eq!(
            keys,
            [
                "judge.provider",
                "judge.base_url",
                "judge.api_key_env",
                "judge.concurrency",
                "judge.fallback[0].model"
            ]
        );
        assert!(JudgeSpec::default().problems().is_empty());
        assert!(JudgeConfigSpec::default().problems().is_empty());
    }

    #[test]
    fn the_suite_block_cannot_name_where_keys_go() {
        for key in ["provider: openai", "base_url: http://x", "api_key_env: K"] {
            assert!(
                serde_saphyr::from_str::<JudgeSpec>(&format!("{{{key}}}")).is_err(),
                "{key} must be refused in a suite"
            );
        }
    }
}
