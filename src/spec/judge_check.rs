//! Range checks of the judge settings (`lint` for a suite's `judge:`, the
//! config resolver for `agenteval.yaml`), and the limits and tests the flags
//! share. Every problem names its key and the allowed range. A field both
//! blocks declare is checked once, on its group's view ([`SamplingAndBudget`],
//! [`Endpoint`]), so the two blocks cannot drift apart.

use std::fmt;

use crate::env_policy::EnvClass;

use super::judge::{Endpoint, JudgeConfigSpec, JudgePrice, JudgeSpec, SamplingAndBudget};

/// Allowed ranges (inclusive), shared by `lint`, `agenteval.yaml` and the flags.
pub(crate) mod limits {
    pub(crate) const RUNS: (u32, u32) = (1, 10);
    pub(crate) const TEMPERATURE: (f64, f64) = (0.0, 2.0);
    pub(crate) const MAX_TOKENS: (u32, u32) = (16, 32_768);
    pub(crate) const CONCURRENCY: (usize, usize) = (1, 256);
    pub(crate) const TIMEOUT_S: (f64, f64) = (1.0, 600.0);
    pub(crate) const RETRIES: (u32, u32) = (0, 10);
    pub(crate) const EXCERPT_CHARS: (usize, usize) = (1_000, 200_000);
    pub(crate) const KAPPA: (f64, f64) = (-1.0, 1.0);
    /// USD per million tokens: 0 (a free local model) to 10,000.
    pub(crate) const PRICE: (f64, f64) = (0.0, 10_000.0);
    pub(crate) const DEFAULT_RUNS: u32 = 1;
    pub(crate) const DEFAULT_TEMPERATURE: f64 = 0.0;
    pub(crate) const DEFAULT_MAX_TOKENS: u32 = 1024;
    pub(crate) const DEFAULT_CONCURRENCY: usize = 8;
    pub(crate) const DEFAULT_TIMEOUT_S: f64 = 60.0;
    pub(crate) const DEFAULT_RETRIES: u32 = 3;
    pub(crate) const DEFAULT_EXCERPT_CHARS: usize = 12_000;
    pub(crate) const DEFAULT_KAPPA: f64 = 0.6;
}

/// One setting out of range: the key, what is wrong, and the allowed range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Dotted key, e.g. `judge.runs`.
    pub key: String,
    pub message: String,
    pub help: String,
}

/// Whether `v` lies in `(lo, hi)`, inclusive (NaN does not).
pub(crate) fn in_range<T: PartialOrd + Copy>(v: T, (lo, hi): (T, T)) -> bool {
    v >= lo && v <= hi
}

/// Whether a budget in US dollars is usable: finite and above 0.
pub(crate) fn is_positive_usd(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

/// Whether a base URL names an http(s) scheme.
pub(crate) fn is_http_url(url: &str) -> bool {
    url.starts_with("https://") || url.starts_with("http://")
}

fn range_problem<T: PartialOrd + fmt::Display + Copy>(
    out: &mut Vec<Problem>,
    key: &str,
    value: Option<T>,
    (lo, hi): (T, T),
    unit: &str,
) {
    if let Some(v) = value
        && !in_range(v, (lo, hi))
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
        && !is_positive_usd(v)
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
/// to the judge's base URL, and the CI's namespace (`GITHUB_*`, `GH_*`,
/// `ACTIONS_*`, `RUNNER_*`, the runner's file commands) holds the CI's own
/// credentials. The list is `crate::env_policy`'s, which the agent scrubber
/// reads too.
pub(crate) fn forbidden_key_env(name: &str) -> bool {
    !EnvClass::of(name).may_hold_judge_key()
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
                "`{key}` names `{name}`, {}: GitHub and Actions variables are never sent to a judge",
                EnvClass::of(name).describe()
            ),
            help: "store the judge's key in its own secret under a name outside `GITHUB_*`, `GH_*`, `ACTIONS_*`, `RUNNER_*`, e.g. `OPENAI_API_KEY`".to_owned(),
        });
    }
}

fn url_problems(out: &mut Vec<Problem>, key: &str, value: Option<&str>) {
    if let Some(url) = value
        && !is_http_url(url)
    {
        out.push(Problem {
            key: key.to_owned(),
            message: format!("`{key}` is `{url}`; it must start with `https://` or `http://`"),
            help: "e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`".to_owned(),
        });
    }
}

impl SamplingAndBudget {
    /// Out-of-range values of the fields both `judge:` blocks take (`key`
    /// is `judge.<field>` in either).
    fn problems(&self, out: &mut Vec<Problem>) {
        range_problem(
            out,
            "judge.temperature",
            self.temperature,
            limits::TEMPERATURE,
            "",
        );
        range_problem(
            out,
            "judge.max_tokens",
            self.max_tokens,
            limits::MAX_TOKENS,
            " tokens",
        );
        positive_problem(out, "judge.max_cost_usd", self.max_cost_usd);
        token_budget_problem(out, "judge.max_total_tokens", self.max_total_tokens);
    }
}

impl Endpoint<'_> {
    /// Out-of-range values of one provider's endpoint; `key` is where it
    /// sits (`judge`, `judge.fallback[0]`).
    fn problems(&self, out: &mut Vec<Problem>, key: &str) {
        url_problems(out, &format!("{key}.base_url"), self.base_url);
        key_env_problems(out, &format!("{key}.api_key_env"), self.api_key_env);
        price_problems(out, &format!("{key}.price"), self.price.as_ref());
    }
}

impl JudgeSpec {
    /// Every out-of-range value in the suite's `judge:` block (`key` is `judge.<field>`).
    pub fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        range_problem(&mut out, "judge.runs", self.runs, limits::RUNS, "");
        self.sampling_and_budget().problems(&mut out);
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
        // Only a cache key (replay sends nothing), but a typo would miss every answer.
        url_problems(
            &mut out,
            "judge.replay.base_url",
            self.replay.as_ref().and_then(|r| r.base_url.as_deref()),
        );
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
        self.endpoint().problems(&mut out, "judge");
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
        self.sampling_and_budget().problems(&mut out);
        for (i, f) in self.fallback.iter().enumerate() {
            let key = format!("judge.fallback[{i}]");
            f.endpoint().problems(&mut out, &key);
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
    fn out_of_range_values_name_the_range() {
        let spec: JudgeSpec = serde_saphyr::from_str(
            "{runs: 0, temperature: 3, max_cost_usd: -1, excerpt_chars: 10, replay: {base_url: 'localhost:8080'}}",
        )
        .unwrap();
        let keys: Vec<String> = spec.problems().into_iter().map(|p| p.key).collect();
        assert_eq!(
            keys,
            [
                "judge.runs",
                "judge.temperature",
                "judge.max_cost_usd",
                "judge.excerpt_chars",
                "judge.replay.base_url"
            ]
        );
        let p = &spec.problems()[0];
        assert!(p.message.contains("between 1 and 10"), "{}", p.message);
        let cfg: JudgeConfigSpec = serde_saphyr::from_str(
            "{provider: gpt, api_key_env: GITHUB_TOKEN, concurrency: 0, base_url: ftp://x, fallback: [{provider: openai, api_key_env: GH_TOKEN}]}",
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
                "judge.fallback[0].api_key_env",
                "judge.fallback[0].model"
            ]
        );
        for name in [
            "GH_TOKEN",
            "GH_ENTERPRISE_TOKEN",
            "gh_token",
            "GITHUB_ENV",
            "RUNNER_TEMP",
        ] {
            assert!(forbidden_key_env(name), "{name}");
        }
        for name in ["OPENAI_API_KEY", "AGENTEVAL_JUDGE_API_KEY", "MY_KEY"] {
            assert!(!forbidden_key_env(name), "{name}");
        }
        assert!(JudgeSpec::default().problems().is_empty());
        assert!(JudgeConfigSpec::default().problems().is_empty());
    }
}
