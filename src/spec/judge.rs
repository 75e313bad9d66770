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
//! The fields both blocks take (`SamplingAndBudget`), and those the
//! config's primary shares with each fallback (`Endpoint`), are written
//! once, in `judge_block!`, and checked once (issue 19).
//!
//! Ranges are checked by `lint` (suite, exit 78) and when the config is
//! resolved (`agenteval.yaml`, exit 78; flags, exit 64): see
//! [`super::judge_check`].

use std::fmt;

use schemars::JsonSchema;

pub(crate) use super::judge_check::limits;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

/// Declares a `judge:` block whose fields include shared groups: a line
/// `..SamplingAndBudget,` or `..Endpoint,` expands, in place, to that
/// group's fields (written once, here), and the block gets the group's view
/// (`sampling_and_budget()`, `endpoint()`), which [`super::judge_check`]
/// range-checks once for every block.
///
/// Not `#[serde(flatten)]`: it does not work with `deny_unknown_fields`, and
/// it would change the "unknown field …, expected one of …" messages (which
/// list the fields in declaration order) and the suite's JSON Schema.
macro_rules! judge_block {
    ($(#[$($attr:tt)*])* pub struct $name:ident { $($body:tt)* }) => {
        judge_block!(@fields [$(#[$($attr)*])*] $name [] [] $($body)*);
    };
    (@fields [$($attr:tt)*] $name:ident [$($field:tt)*] [$($group:ident)*]) => {
        $($attr)*
        pub struct $name { $($field)* }
        $(judge_block!(@view $name $group);)*
    };
    (@fields $attr:tt $name:ident [$($field:tt)*] [$($group:ident)*]
        ..SamplingAndBudget, $($rest:tt)*) => {
        judge_block!(@fields $attr $name [$($field)*
            /// Stop calling the judge past this estimated spend (USD, > 0);
            /// remaining items become N/A "budget exhausted". Needs a price.
            #[serde(default)]
            pub max_cost_usd: Option<f64>,
            /// Stop calling the judge past this many estimated tokens (≥ 1).
            #[serde(default)]
            pub max_total_tokens: Option<u64>,
            /// Sampling temperature (0–2, default 0); `null` sends none (the model's
            /// default). Models that reject it get none whatever this says.
            #[serde(default, deserialize_with = "explicit_null")]
            #[schemars(with = "Option<f64>")]
            pub temperature: Option<Option<f64>>,
            /// Longest answer in tokens (16–32768, default 1024); `null` sends none
            /// (Anthropic requires one: it then gets the default).
            #[serde(default, deserialize_with = "explicit_null")]
            #[schemars(with = "Option<u32>")]
            pub max_tokens: Option<Option<u32>>,
        ] [$($group)* SamplingAndBudget] $($rest)*);
    };
    (@fields $attr:tt $name:ident [$($field:tt)*] [$($group:ident)*]
        ..Endpoint, $($rest:tt)*) => {
        judge_block!(@fields $attr $name [$($field)*
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
            /// Azure `OpenAI` `api-version` query parameter, e.g. `2024-10-21`.
            #[serde(default)]
            pub api_version: Option<String>,
            #[serde(default)]
            pub structured_output: Option<StructuredOutput>,
            #[serde(default)]
            pub price: Option<JudgePrice>,
        ] [$($group)* Endpoint] $($rest)*);
    };
    (@fields $attr:tt $name:ident [$($field:tt)*] $groups:tt
        $(#[$($a:tt)*])* pub $f:ident: $t:ty, $($rest:tt)*) => {
        judge_block!(@fields $attr $name [$($field)* $(#[$($a)*])* pub $f: $t,] $groups $($rest)*);
    };
    (@view $name:ident SamplingAndBudget) => {
        impl $name {
            pub(crate) fn sampling_and_budget(&self) -> SamplingAndBudget {
                SamplingAndBudget {
                    max_cost_usd: self.max_cost_usd,
                    max_total_tokens: self.max_total_tokens,
                    temperature: self.temperature.flatten(),
                    max_tokens: self.max_tokens.flatten(),
                }
            }
        }
    };
    (@view $name:ident Endpoint) => {
        impl $name {
            pub(crate) fn endpoint(&self) -> Endpoint<'_> {
                Endpoint {
                    base_url: self.base_url.as_deref(),
                    api_key_env: self.api_key_env.as_deref(),
                    auth: self.auth,
                    api_version: self.api_version.as_deref(),
                    structured_output: self.structured_output,
                    price: self.price,
                }
            }
        }
    };
}

/// A sampling setting as written: absent (`None`), `null` (`Some(None)`: leave the
/// parameter out of requests) or a value. Serde's `Option` reads `null` as absent, hence
/// this reader.
#[expect(
    clippy::option_option,
    reason = "absent (inherit), `null` (send none) and a value are three different settings"
)]
fn explicit_null<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// The caps and sampling settings both `judge:` blocks take.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct SamplingAndBudget {
    pub(crate) max_cost_usd: Option<f64>,
    pub(crate) max_total_tokens: Option<u64>,
    pub(crate) temperature: Option<f64>,
    pub(crate) max_tokens: Option<u32>,
}

/// Where and how one provider is called: `agenteval.yaml`'s primary or a
/// fallback (empty when the config names another provider).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Endpoint<'a> {
    pub(crate) base_url: Option<&'a str>,
    pub(crate) api_key_env: Option<&'a str>,
    pub(crate) auth: Option<AuthHeader>,
    pub(crate) api_version: Option<&'a str>,
    pub(crate) structured_output: Option<StructuredOutput>,
    pub(crate) price: Option<JudgePrice>,
}

judge_block! {
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
        ..SamplingAndBudget,
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
        /// Trace-level judges to run on every case (opt-in; `--trace-judges`
        /// overrides): `gpa` scores seven dimensions 0–3 with one call per case,
        /// each reported as the metric `gpa:<dimension>`.
        #[serde(default)]
        pub trace_judges: Option<Vec<TraceJudgeName>>,
        /// Let the judge name and summarise the most widespread recurring issues
        /// (at most 20 questions per run; default false). The grouping itself never
        /// needs a judge.
        #[serde(default)]
        pub insight_summaries: Option<bool>,
    }
}

/// A trace-level judge.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum TraceJudgeName {
    /// Agent GPA: goal fulfillment, logical consistency, execution efficiency,
    /// plan quality, plan adherence, tool selection, tool calling (0–3 each).
    Gpa,
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
    /// Base URL the cache was recorded from (part of every cache key; default:
    /// `--judge-base-url`, else the provider's base URL variable, else
    /// `judge.base_url` of agenteval.yaml, else the provider's public API).
    #[serde(default)]
    pub base_url: Option<String>,
}

/// A judge API family.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ProviderName {
    /// Any `OpenAI`-compatible chat-completions API (`OpenAI`, Azure
    /// `OpenAI`, vLLM, Ollama, `LiteLLM`).
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
    /// `Authorization: Bearer <key>` (`OpenAI`, vLLM, `LiteLLM`, Azure's v1 API).
    #[default]
    Bearer,
    /// `api-key: <key>` (Azure `OpenAI` deployments).
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

judge_block! {
    /// A fallback provider (the primary's fields live in [`JudgeConfigSpec`]).
    #[derive(Debug, Clone, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct ProviderSpec {
        pub provider: ProviderName,
        #[serde(default)]
        pub model: Option<String>,
        ..Endpoint,
    }
}

judge_block! {
    /// `agenteval.yaml`'s `judge:` map.
    #[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct JudgeConfigSpec {
        /// `none`, `openai`, `anthropic` or `replay`.
        #[serde(default)]
        pub provider: Option<String>,
        #[serde(default)]
        pub model: Option<String>,
        ..Endpoint,
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
        ..SamplingAndBudget,
    }
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
    fn the_suite_block_cannot_name_where_keys_go() {
        for key in ["provider: openai", "base_url: http://x", "api_key_env: K"] {
            assert!(
                serde_saphyr::from_str::<JudgeSpec>(&format!("{{{key}}}")).is_err(),
                "{key} must be refused in a suite"
            );
        }
    }
}
