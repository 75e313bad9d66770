//! Resolving the judge's settings: the command-level part (flags and
//! `agenteval.yaml`) here, the per-suite part in [`super::settings`].
//!
//! Precedence, per setting: flags (`--judge`, `--judge-model`,
//! `--judge-base-url`, `--judge-cache`, `--judge-max-cost`,
//! `--judge-concurrency`), then their `AGENTEVAL_*` variables (clap's
//! `env`), then the providers' own variables for the base URL
//! (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`), then the suite's `judge:`
//! block, then `agenteval.yaml`'s `judge:`, then defaults. Two exceptions:
//! budgets are caps, so the strictest of flag, suite and config applies; and
//! where the key is sent (provider, base URL, key variable) is never read
//! from a suite. Provider-specific keys of `agenteval.yaml` (base URL, key
//! variable, auth, API version, price) apply only when its `provider` is the
//! one in use (or unset).
//!
//! Out-of-range flags are usage errors (exit 64); out-of-range files and a
//! missing key are configuration errors (exit 78), each naming the range.

use std::path::{Path, PathBuf};

use crate::spec::judge::{JudgeConfigSpec, JudgeConfigValue, ProviderName, limits};
use crate::spec::judge_check::{in_range, is_http_url, is_positive_usd};
use crate::spec::suite::Suite;

use super::error::JudgeError;

pub use super::settings::{JudgeSettings, ProviderSettings, Secret};

/// Default cache directory (relative to the working directory).
pub(crate) const DEFAULT_CACHE_DIR: &str = ".agenteval-cache";
pub(crate) const OPENAI_DEFAULT_URL: &str = "https://api.openai.com/v1";
pub(crate) const ANTHROPIC_DEFAULT_URL: &str = "https://api.anthropic.com";

/// Whether and how to judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JudgeMode {
    /// No judge: tier-3 checkpoints and judged metrics are N/A.
    #[default]
    None,
    /// Call a provider (cache first).
    Live(ProviderName),
    /// Answer from the cache only.
    Replay,
}

impl JudgeMode {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "none" => Some(Self::None),
            "openai" => Some(Self::Live(ProviderName::Openai)),
            "anthropic" => Some(Self::Live(ProviderName::Anthropic)),
            "replay" => Some(Self::Replay),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Live(p) => p.as_str(),
            Self::Replay => "replay",
        }
    }
}

/// The judge flags as given (each already merged with its `AGENTEVAL_*` variable).
#[derive(Debug, Clone, Default)]
pub struct JudgeFlags {
    pub mode: Option<JudgeMode>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub cache: Option<PathBuf>,
    pub max_cost_usd: Option<f64>,
    pub concurrency: Option<usize>,
    /// `--trace-judges` (replaces the suite's `judge.trace_judges`).
    pub trace_judges: Option<Vec<crate::spec::judge::TraceJudgeName>>,
    /// `--insight-summaries` (turns the suite's `judge.insight_summaries` on).
    pub insight_summaries: bool,
}

/// The command-level judge settings: flags and `agenteval.yaml`, validated.
#[derive(Debug, Clone, Default)]
pub struct JudgeOptions {
    pub mode: JudgeMode,
    pub flags: JudgeFlags,
    /// `agenteval.yaml`'s `judge:` map (empty when absent).
    pub config: JudgeConfigSpec,
    pub config_path: Option<PathBuf>,
    /// `agenteval.yaml`'s `judge_cache`, resolved against the file.
    pub config_cache: Option<PathBuf>,
}

impl JudgeOptions {
    /// The trace judges `suite` asks for: `--trace-judges`, else the suite's
    /// `judge.trace_judges`, else none. Asked for even without a judge (then
    /// every dimension is N/A "no judge configured").
    pub fn trace_judges(
        &self,
        suite: &crate::spec::suite::Suite,
    ) -> Vec<crate::spec::judge::TraceJudgeName> {
        let mut v = self
            .flags
            .trace_judges
            .clone()
            .or_else(|| suite.judge.trace_judges.clone())
            .unwrap_or_default();
        v.sort();
        v.dedup();
        v
    }

    /// Validate the flags (exit 64) and the config file's `judge:` (exit 78).
    pub fn resolve(
        flags: JudgeFlags,
        file: Option<&JudgeConfigValue>,
        config_path: Option<&Path>,
        config_cache: Option<PathBuf>,
    ) -> Result<Self, JudgeError> {
        let config = file.map(JudgeConfigValue::settings).unwrap_or_default();
        if let Some(p) = config.problems().into_iter().next() {
            return Err(JudgeError::config(
                config_path.map(Path::to_path_buf),
                p.message,
                p.help,
            ));
        }
        if let Some(m) = &flags.model
            && m.trim().is_empty()
        {
            return Err(JudgeError::usage(
                "`--judge-model` is empty",
                "name the model, e.g. `--judge-model gpt-4o-mini`",
            ));
        }
        if let Some(u) = &flags.base_url
            && !is_http_url(u)
        {
            return Err(JudgeError::usage(
                format!("`--judge-base-url` is `{u}`; it must start with `https://` or `http://`"),
                "e.g. `--judge-base-url http://localhost:11434/v1` for Ollama",
            ));
        }
        if let Some(c) = flags.max_cost_usd
            && !is_positive_usd(c)
        {
            return Err(JudgeError::usage(
                format!("`--judge-max-cost` is {c}; it must be a positive number of US dollars"),
                "e.g. `--judge-max-cost 2.50`",
            ));
        }
        if let Some(n) = flags.concurrency {
            let (lo, hi) = limits::CONCURRENCY;
            if !in_range(n, (lo, hi)) {
                return Err(JudgeError::usage(
                    format!("`--judge-concurrency` is {n}; it must lie between {lo} and {hi}"),
                    "the default is 8 calls in flight",
                ));
            }
        }
        let from_file = config
            .provider
            .as_deref()
            .and_then(JudgeMode::parse)
            .unwrap_or_default();
        Ok(Self {
            mode: flags.mode.unwrap_or(from_file),
            flags,
            config,
            config_path: config_path.map(Path::to_path_buf),
            config_cache,
        })
    }

    /// The cache directory for `suite`: flag/env, then the suite's
    /// `judge.cache`, then `agenteval.yaml`, then the default.
    pub fn cache_dir(&self, suite: &Suite) -> PathBuf {
        self.flags
            .cache
            .clone()
            .or_else(|| suite.judge.cache.as_ref().map(|c| suite.dir.join(c)))
            .or_else(|| self.config_cache.clone())
            .unwrap_or_else(|| PathBuf::from(DEFAULT_CACHE_DIR))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(flags: JudgeFlags, cfg: &str) -> Result<JudgeOptions, JudgeError> {
        let v: JudgeConfigValue = serde_saphyr::from_str(cfg).unwrap();
        JudgeOptions::resolve(flags, Some(&v), None, None)
    }

    #[test]
    fn flags_out_of_range_are_usage_errors() {
        let bad = [
            JudgeFlags {
                max_cost_usd: Some(0.0),
                ..JudgeFlags::default()
            },
            JudgeFlags {
                concurrency: Some(0),
                ..JudgeFlags::default()
            },
            JudgeFlags {
                concurrency: Some(1000),
                ..JudgeFlags::default()
            },
            JudgeFlags {
                base_url: Some("localhost:1".into()),
                ..JudgeFlags::default()
            },
            JudgeFlags {
                model: Some(" ".into()),
                ..JudgeFlags::default()
            },
        ];
        for f in bad {
            let e = JudgeOptions::resolve(f, None, None, None).unwrap_err();
            assert_eq!(e.exit_code(), crate::ExitCode::Usage, "{e}");
        }
        let e = options(JudgeFlags::default(), "{retries: 11}").unwrap_err();
        assert_eq!(e.exit_code(), crate::ExitCode::Config);
        assert!(e.to_string().contains("between 0 and 10"), "{e}");
    }
}
