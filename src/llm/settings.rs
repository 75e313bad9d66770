//! The judge settings of one suite, resolved from the command's
//! [`JudgeOptions`] and the suite's `judge:` block (precedence in
//! [`super::config`]), and each provider's endpoint, key and price.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::spec::judge::{
    AuthHeader, Endpoint, JudgePrice, ProviderName, StructuredOutput, limits,
};
use crate::spec::judge_check::{forbidden_key_env, is_http_url};
use crate::spec::suite::Suite;

use super::config::{ANTHROPIC_DEFAULT_URL, JudgeMode, JudgeOptions, OPENAI_DEFAULT_URL};
use super::error::JudgeError;
use super::prompts::Prompts;
use super::provider::{JudgeIdentity, Params};

/// A secret read from the environment; never printed.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: String) -> Self {
        Self(value)
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// One provider, ready to call.
#[derive(Debug, Clone)]
pub struct ProviderSettings {
    pub provider: ProviderName,
    pub model: String,
    pub base_url: String,
    pub api_key: Option<Secret>,
    /// The variable the key came from (for messages).
    pub api_key_env: String,
    pub auth: AuthHeader,
    pub api_version: Option<String>,
    pub structured: StructuredOutput,
    pub price: Option<JudgePrice>,
}

impl ProviderSettings {
    pub fn identity(&self) -> JudgeIdentity {
        JudgeIdentity::new(self.provider.as_str(), &self.model)
    }
}

/// Everything a suite's judge run needs.
#[derive(Debug)]
pub struct JudgeSettings {
    /// `Live` or `Replay` (never `None`).
    pub mode: JudgeMode,
    /// Live: the providers in order. Replay: empty.
    pub chain: Vec<ProviderSettings>,
    /// The identity answers are looked up under (the primary's, or the replayed one).
    pub identity: JudgeIdentity,
    /// Replay: every judge of the recorded chain (the replayed one, then the
    /// config's fallbacks) with its base URL, looked up in order. Live: the chain's.
    pub replay_chain: Vec<(JudgeIdentity, String)>,
    pub params: Params,
    pub runs: u32,
    pub concurrency: usize,
    pub timeout: Duration,
    pub retries: u32,
    pub max_cost_usd: Option<f64>,
    pub max_total_tokens: Option<u64>,
    pub cache_dir: PathBuf,
    pub prompts: Prompts,
    pub excerpt_chars: usize,
    pub steps: bool,
    /// Trace-level judges asked of every case (`gpa`).
    pub trace_judges: Vec<crate::spec::judge::TraceJudgeName>,
    /// Name and summarise the most widespread recurring issues.
    pub insight_summaries: bool,
    pub kappa_threshold: f64,
}

impl JudgeSettings {
    /// The judge settings of `suite`; `None` when no judge is configured.
    /// `env` reads environment variables (injected for tests).
    pub fn for_suite(
        options: &JudgeOptions,
        suite: &Suite,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<Self>, JudgeError> {
        if options.mode == JudgeMode::None {
            return Ok(None);
        }
        let spec = &suite.judge;
        let cfg = &options.config;
        let suite_path = Some(suite.path.clone());
        if let Some(p) = spec.problems().into_iter().next() {
            return Err(JudgeError::config(suite_path, p.message, p.help));
        }
        let model_missing = || {
            JudgeError::config(
                options.config_path.clone(),
                format!("no judge model for suite `{}`", suite.name),
                "pass `--judge-model NAME` (or set AGENTEVAL_JUDGE_MODEL), or set `judge.model` in agenteval.yaml or the suite",
            )
        };
        let (chain, identity, replay_chain) = match options.mode {
            JudgeMode::None => return Ok(None),
            JudgeMode::Replay => {
                let replay = spec.replay.clone().unwrap_or_default();
                let model = options
                    .flags
                    .model
                    .clone()
                    .or(replay.model)
                    .or_else(|| spec.model.clone())
                    .or_else(|| cfg.model.clone())
                    .ok_or_else(model_missing)?;
                let provider = replay
                    .provider
                    .or_else(
                        || match cfg.provider.as_deref().and_then(JudgeMode::parse) {
                            Some(JudgeMode::Live(p)) => Some(p),
                            _ => None,
                        },
                    )
                    .unwrap_or(ProviderName::Openai);
                let applies = cfg
                    .provider
                    .as_deref()
                    .and_then(JudgeMode::parse)
                    .is_none_or(|m| m == JudgeMode::Live(provider));
                let config_url = if applies {
                    cfg.base_url.as_deref()
                } else {
                    None
                };
                // The recording's base URL, unless the flag says otherwise.
                let base_url = match (
                    options.flags.base_url.as_deref(),
                    replay.base_url.as_deref(),
                ) {
                    (None, Some(recorded)) => recorded.trim().trim_end_matches('/').to_owned(),
                    (flag, _) => resolve_base_url(provider, config_url, flag, env),
                };
                if !is_http_url(&base_url) {
                    return Err(JudgeError::config(
                        suite_path,
                        format!("the replayed judge's base URL `{base_url}` is not an http(s) URL"),
                        "set `judge.replay.base_url` to the URL the cache was recorded from, e.g. `http://127.0.0.1:8080/v1`",
                    ));
                }
                let identity = JudgeIdentity::new(provider.as_str(), model);
                let mut replay_chain = vec![(identity.clone(), base_url)];
                for f in &cfg.fallback {
                    replay_chain.push((
                        JudgeIdentity::new(
                            f.provider.as_str(),
                            f.model.clone().unwrap_or_default(),
                        ),
                        resolve_base_url(f.provider, f.base_url.as_deref(), None, env),
                    ));
                }
                (Vec::new(), identity, replay_chain)
            }
            JudgeMode::Live(provider) => {
                let model = options
                    .flags
                    .model
                    .clone()
                    .or_else(|| spec.model.clone())
                    .or_else(|| cfg.model.clone())
                    .ok_or_else(model_missing)?;
                let applies = cfg
                    .provider
                    .as_deref()
                    .and_then(JudgeMode::parse)
                    .is_none_or(|m| m == JudgeMode::Live(provider));
                let endpoint = if applies {
                    cfg.endpoint()
                } else {
                    Endpoint::default()
                };
                let primary = provider_settings(
                    provider,
                    model,
                    &endpoint,
                    options.flags.base_url.as_deref(),
                    options.config_path.as_deref(),
                    env,
                )?;
                let mut chain = vec![primary];
                for f in &cfg.fallback {
                    chain.push(provider_settings(
                        f.provider,
                        f.model.clone().unwrap_or_default(),
                        &f.endpoint(),
                        None,
                        options.config_path.as_deref(),
                        env,
                    )?);
                }
                let identity = chain[0].identity();
                let replay_chain = chain
                    .iter()
                    .map(|p| (p.identity(), p.base_url.clone()))
                    .collect();
                (chain, identity, replay_chain)
            }
        };
        let max_cost_usd = [
            options.flags.max_cost_usd,
            spec.max_cost_usd,
            cfg.max_cost_usd,
        ]
        .into_iter()
        .flatten()
        .reduce(f64::min);
        let max_total_tokens = [spec.max_total_tokens, cfg.max_total_tokens]
            .into_iter()
            .flatten()
            .min();
        if max_cost_usd.is_some()
            && let Some(unpriced) = chain.iter().find(|p| p.price.is_none())
        {
            return Err(JudgeError::config(
                options.config_path.clone(),
                format!(
                    "a cost budget is set but judge `{}` has no price",
                    unpriced.identity()
                ),
                "set `judge.price: {input_per_mtok: …, output_per_mtok: …}` in agenteval.yaml (and on each fallback), or use `max_total_tokens` instead",
            ));
        }
        // Read with the suite, where its rules were read (the PR's base commit in a pull request).
        let prompts = Prompts::from_files(&suite.prompt_files)?;
        Ok(Some(Self {
            mode: options.mode,
            chain,
            identity,
            replay_chain,
            // The suite's setting, then the config's, then the default; an explicit `null`
            // at either level leaves the parameter out.
            params: Params {
                temperature: spec
                    .temperature
                    .or(cfg.temperature)
                    .unwrap_or(Some(limits::DEFAULT_TEMPERATURE)),
                max_tokens: spec
                    .max_tokens
                    .or(cfg.max_tokens)
                    .unwrap_or(Some(limits::DEFAULT_MAX_TOKENS)),
            },
            runs: spec.runs.unwrap_or(limits::DEFAULT_RUNS),
            concurrency: options
                .flags
                .concurrency
                .or(cfg.concurrency)
                .unwrap_or(limits::DEFAULT_CONCURRENCY),
            timeout: Duration::from_secs_f64(cfg.timeout_s.unwrap_or(limits::DEFAULT_TIMEOUT_S)),
            retries: cfg.retries.unwrap_or(limits::DEFAULT_RETRIES),
            max_cost_usd,
            max_total_tokens,
            cache_dir: options.cache_dir(suite),
            prompts,
            excerpt_chars: spec.excerpt_chars.unwrap_or(limits::DEFAULT_EXCERPT_CHARS),
            steps: spec.steps.unwrap_or(true),
            trace_judges: options.trace_judges(suite),
            insight_summaries: options.flags.insight_summaries
                || spec.insight_summaries.unwrap_or(false),
            kappa_threshold: spec.kappa_threshold.unwrap_or(limits::DEFAULT_KAPPA),
        }))
    }
}

/// Where `provider` is called: the flag, else its base URL variable, else the
/// config's `base_url`, else its public API; without a trailing `/`.
fn resolve_base_url(
    provider: ProviderName,
    config_url: Option<&str>,
    flag: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> String {
    let (url_env, default_url) = match provider {
        ProviderName::Openai => ("OPENAI_BASE_URL", OPENAI_DEFAULT_URL),
        ProviderName::Anthropic => ("ANTHROPIC_BASE_URL", ANTHROPIC_DEFAULT_URL),
    };
    let env_url = env(url_env).filter(|s| !s.trim().is_empty());
    flag.map(str::to_owned)
        .or(env_url)
        .or_else(|| config_url.map(str::to_owned))
        .unwrap_or_else(|| default_url.to_owned())
        .trim()
        .trim_end_matches('/')
        .to_owned()
}

fn provider_settings(
    provider: ProviderName,
    model: String,
    fields: &Endpoint<'_>,
    flag_base_url: Option<&str>,
    config_path: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ProviderSettings, JudgeError> {
    let (url_env, key_env, default_url) = match provider {
        ProviderName::Openai => ("OPENAI_BASE_URL", "OPENAI_API_KEY", OPENAI_DEFAULT_URL),
        ProviderName::Anthropic => (
            "ANTHROPIC_BASE_URL",
            "ANTHROPIC_API_KEY",
            ANTHROPIC_DEFAULT_URL,
        ),
    };
    let base_url = resolve_base_url(provider, fields.base_url, flag_base_url, env);
    if !is_http_url(&base_url) || reqwest::Url::parse(&base_url).is_err() {
        return Err(JudgeError::config(
            config_path.map(Path::to_path_buf),
            format!(
                "the judge base URL `{base_url}` ({url_env} or `judge.base_url`) is not an http(s) URL"
            ),
            format!("e.g. `{default_url}`"),
        ));
    }
    let host = reqwest::Url::parse(&base_url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
        .unwrap_or_default();
    let azure =
        host.ends_with(".openai.azure.com") || host.ends_with(".cognitiveservices.azure.com");
    let official = host == "api.openai.com" || host == "api.anthropic.com" || azure;
    let api_key_env = fields.api_key_env.unwrap_or(key_env).to_owned();
    // `JudgeConfigSpec::problems` refuses these at resolve; this is the
    // second line, next to the one read of the key.
    if forbidden_key_env(&api_key_env) {
        return Err(JudgeError::config(
            config_path.map(Path::to_path_buf),
            format!(
                "`judge.api_key_env` names `{api_key_env}`: GitHub and Actions variables are never sent to a judge"
            ),
            "store the judge's key in its own secret, e.g. `OPENAI_API_KEY`",
        ));
    }
    let api_key = env(&api_key_env)
        .filter(|k| !k.trim().is_empty())
        .map(|k| Secret::new(k.trim().to_owned()));
    if api_key.is_none() && (official || fields.api_key_env.is_some()) {
        return Err(JudgeError::config(
            config_path.map(Path::to_path_buf),
            format!(
                "`{api_key_env}` is not set; the `{provider}` judge at {base_url} needs an API key"
            ),
            format!(
                "export {api_key_env}=… (in GitHub Actions: `env: {{{api_key_env}: ${{{{ secrets.{api_key_env} }}}}}}`), or run with `--judge none` or `--judge replay`"
            ),
        ));
    }
    if model.trim().is_empty() {
        return Err(JudgeError::config(
            config_path.map(Path::to_path_buf),
            format!("the `{provider}` judge has no model"),
            "set `model` for every provider",
        ));
    }
    if azure && base_url.contains("/openai/deployments/") && fields.api_version.is_none() {
        return Err(JudgeError::config(
            config_path.map(Path::to_path_buf),
            format!("the Azure OpenAI deployment URL `{base_url}` needs `judge.api_version`"),
            "e.g. `api_version: 2024-10-21`, or use the v1 API root `https://RESOURCE.openai.azure.com/openai/v1`",
        ));
    }
    Ok(ProviderSettings {
        provider,
        model,
        base_url,
        api_key,
        api_key_env,
        auth: fields.auth.unwrap_or(if azure {
            AuthHeader::ApiKey
        } else {
            AuthHeader::Bearer
        }),
        api_version: fields.api_version.map(str::to_owned),
        structured: fields.structured_output.unwrap_or_default(),
        price: fields.price,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::config::JudgeFlags;
    use crate::spec::judge::JudgeConfigValue;

    fn suite(judge_yaml: &str) -> Suite {
        let dir = tempfile::tempdir().unwrap();
        let text = format!(
            "suite: s\nspec_version: '1'\ntraces: t\njudge: {judge_yaml}\ncheckpoints: []\ncases: [{{id: c1}}]\n"
        );
        std::fs::create_dir_all(dir.path().join("t")).unwrap();
        let p = dir.path().join("suite.yaml");
        std::fs::write(&p, text).unwrap();
        let s = crate::spec::discover::load_checked(&p).unwrap().suite;
        std::mem::forget(dir);
        s
    }

    fn options(flags: JudgeFlags, cfg: &str) -> Result<JudgeOptions, JudgeError> {
        let v: JudgeConfigValue = serde_saphyr::from_str(cfg).unwrap();
        JudgeOptions::resolve(flags, Some(&v), None, None)
    }

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |k| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn precedence_flags_env_suite_config_defaults() {
        let s = suite("{model: suite-model, max_cost_usd: 5, temperature: 0.2}");
        let o = options(
            JudgeFlags {
                mode: Some(JudgeMode::Live(ProviderName::Openai)),
                max_cost_usd: Some(9.0),
                ..JudgeFlags::default()
            },
            "{model: cfg-model, base_url: 'http://cfg:1/v1', price: {input_per_mtok: 1, output_per_mtok: 2}, max_cost_usd: 7, concurrency: 3}",
        )
        .unwrap();
        let j = JudgeSettings::for_suite(&o, &s, &env(&[]))
            .unwrap()
            .unwrap();
        assert_eq!(j.identity, JudgeIdentity::new("openai", "suite-model"));
        assert_eq!(j.chain[0].base_url, "http://cfg:1/v1");
        assert!(j.chain[0].api_key.is_none(), "a local server needs no key");
        assert_eq!(j.max_cost_usd, Some(5.0), "the strictest budget wins");
        assert_eq!((j.concurrency, j.params.temperature), (3, Some(0.2)));
        let j = JudgeSettings::for_suite(
            &o,
            &s,
            &env(&[
                ("OPENAI_BASE_URL", "http://env:2/v1/"),
                ("OPENAI_API_KEY", "sk-x"),
            ]),
        )
        .unwrap()
        .unwrap();
        assert_eq!(j.chain[0].base_url, "http://env:2/v1");
        assert_eq!(
            j.chain[0].api_key.as_ref().map(Secret::expose),
            Some("sk-x")
        );
        assert_eq!(
            format!("{:?}", j.chain[0].api_key),
            "Some(Secret(<redacted>))"
        );
    }

    #[test]
    fn official_endpoints_need_their_key_and_budgets_need_prices() {
        let s = suite("{model: m}");
        let o = options(
            JudgeFlags {
                mode: Some(JudgeMode::Live(ProviderName::Anthropic)),
                ..JudgeFlags::default()
            },
            "{}",
        )
        .unwrap();
        let e = JudgeSettings::for_suite(&o, &s, &env(&[])).unwrap_err();
        assert_eq!(e.exit_code(), crate::ExitCode::Config);
        assert!(e.to_string().contains("ANTHROPIC_API_KEY"), "{e}");
        let o = options(
            JudgeFlags {
                mode: Some(JudgeMode::Live(ProviderName::Openai)),
                max_cost_usd: Some(1.0),
                ..JudgeFlags::default()
            },
            "{base_url: 'http://localhost:9/v1'}",
        )
        .unwrap();
        let e = JudgeSettings::for_suite(&o, &s, &env(&[])).unwrap_err();
        assert!(e.to_string().contains("no price"), "{e}");
    }

    #[test]
    fn replay_uses_the_recorded_identity_and_needs_no_key() {
        let s = suite("{model: live-model, replay: {provider: anthropic, model: recorded}}");
        let o = options(
            JudgeFlags {
                mode: Some(JudgeMode::Replay),
                ..JudgeFlags::default()
            },
            "{}",
        )
        .unwrap();
        let j = JudgeSettings::for_suite(&o, &s, &env(&[]))
            .unwrap()
            .unwrap();
        assert_eq!(j.identity, JudgeIdentity::new("anthropic", "recorded"));
        assert!(j.chain.is_empty());
        let none = options(JudgeFlags::default(), "{}").unwrap();
        assert!(
            JudgeSettings::for_suite(&none, &s, &env(&[]))
                .unwrap()
                .is_none()
        );
    }
}
