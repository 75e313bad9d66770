//! Configuration layering (STYLE §7).
//!
//! Precedence: flags, then `AGENTEVAL_*` environment variables (clap's `env`),
//! then `agenteval.yaml` (found by walking up from the working directory, or
//! given with `--config`), then defaults. Paths in `agenteval.yaml` are
//! relative to the file's directory. `--isolated` skips the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::app::cli::{CliEvalArgs, CliFailOn, CliGlobal, CliJudge, CliSuiteArgs, CliTier};
use crate::app::error::{Error, Result};
use crate::diagnostic::{FileDiagnostic, named_source};
use crate::llm::JudgeMode;
use crate::runner::settings::{EvalSettings, EvidenceOverride, Shard, SuiteSettings, TierChoice};
use crate::runner::tiers::MAX_TRIALS;
use crate::spec::SpecError;
use crate::spec::judge::ProviderName;
use crate::spec::model::FailOn;

/// Name of the config file looked up by walking up from the working directory.
pub(crate) const CONFIG_FILE: &str = "agenteval.yaml";
pub(crate) const DEFAULT_SEED: u64 = 42;
pub(crate) use crate::stats::BootstrapConfig;
/// Fewest resamples accepted: the Monte Carlo p-value cannot go below `1/(B+1)`.
pub(crate) const MIN_RESAMPLES: u32 = 1_000;

/// `agenteval.yaml`: every field optional.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    #[serde(default)]
    pub suites_dir: Option<PathBuf>,
    #[serde(default)]
    pub baselines_dir: Option<PathBuf>,
    #[serde(default)]
    pub tier: Option<TierChoice>,
    /// A provider name (`judge: openai`) or the judge's settings map.
    #[serde(default)]
    pub judge: Option<crate::spec::judge::JudgeConfigValue>,
    #[serde(default)]
    pub judge_cache: Option<PathBuf>,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub resamples: Option<u32>,
    #[serde(default)]
    pub fail_on: Option<FailOn>,
    #[serde(default)]
    pub jobs: Option<usize>,
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
}

/// The config file found (if any) and its values.
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub path: Option<PathBuf>,
    pub values: FileConfig,
    /// `--isolated`: no config file, here or at the rules' revision.
    pub isolated: bool,
    /// The file's text, for the "changes to the gate" of a pull request.
    pub text: Option<String>,
}

impl Config {
    /// Find and read the config file per the global flags.
    pub fn discover(global: &CliGlobal) -> Result<Self> {
        if global.isolated {
            return Ok(Self {
                isolated: true,
                ..Self::default()
            });
        }
        let path = match &global.config {
            Some(p) => Some(p.clone()),
            None => std::env::current_dir().ok().and_then(|cwd| find_up(&cwd)),
        };
        let Some(path) = path else {
            return Ok(Self::default());
        };
        let text =
            std::fs::read_to_string(&path).map_err(|e| Error::io("read config", &path, e))?;
        Self::parse(path.clone(), &path, text)
    }

    /// The config at `path` as git revision `rev` has it (the rules of a pull request come
    /// from its base commit): the file the working tree uses, or the first `agenteval.yaml`
    /// walking up from the working directory to the repository's top; none when `rev` has
    /// none. `--isolated` reads nothing.
    pub(crate) fn at_rev(&self, rev: &str) -> Result<Self> {
        if self.isolated {
            return Ok(self.clone());
        }
        let candidates: Vec<PathBuf> = if let Some(p) = &self.path {
            vec![p.clone()]
        } else {
            let cwd = std::env::current_dir().unwrap_or_default();
            let top = crate::fsutil::git::toplevel(&cwd);
            cwd.ancestors()
                .take_while(|d| top.as_deref().is_none_or(|t| d.starts_with(t)))
                .map(|d| d.join(CONFIG_FILE))
                .collect()
        };
        for path in candidates {
            let shown = crate::fsutil::git::shown_at(rev, &path);
            match crate::fsutil::git::read_text_at(rev, &path) {
                Ok(text) => return Self::parse(path, &shown, text),
                Err(crate::fsutil::InputError::NotFound(_)) => {}
                Err(e) => return Err(Error::io("read config", &shown, e.into_io())),
            }
        }
        Ok(Self {
            path: self.path.clone(),
            ..Self::default()
        })
    }

    /// Parse a config file's `text`; `path` anchors its relative paths, `shown` names it
    /// in errors.
    fn parse(path: PathBuf, shown: &Path, text: String) -> Result<Self> {
        let source = named_source(shown, text);
        let values: FileConfig = serde_saphyr::from_str_with_options(source.inner(), crate::spec::load::yaml_options())
            .map_err(|e| {
                let d: FileDiagnostic = crate::spec::load::yaml_error(shown, &source, &e);
                SpecError::Config(Box::new(d.with_help(
                    "agenteval.yaml keys: suites_dir, baselines_dir, tier, judge (a provider name or a map: provider, model, base_url, api_key_env, auth, api_version, structured_output, price, concurrency, timeout_s, retries, fallback, max_cost_usd, max_total_tokens, temperature, max_tokens), judge_cache, seed, resamples, fail_on, jobs, tags",
                )))
            })?;
        Ok(Self {
            path: Some(path),
            values,
            isolated: false,
            text: Some(source.inner().clone()),
        })
    }

    /// Directory that relative paths in the file resolve against.
    fn base(&self) -> PathBuf {
        self.path
            .as_deref()
            .and_then(Path::parent)
            .map_or_else(PathBuf::new, Path::to_path_buf)
    }

    fn rel(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.base().join(p)
        }
    }

    pub fn suites_dir(&self, flag: Option<&PathBuf>) -> PathBuf {
        flag.cloned()
            .or_else(|| self.values.suites_dir.as_deref().map(|p| self.rel(p)))
            .unwrap_or_else(|| PathBuf::from("suites"))
    }

    pub fn baselines_dir(&self, flag: Option<&PathBuf>) -> PathBuf {
        flag.cloned()
            .or_else(|| self.values.baselines_dir.as_deref().map(|p| self.rel(p)))
            .unwrap_or_else(|| PathBuf::from("baselines"))
    }
}

fn find_up(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|d| d.join(CONFIG_FILE))
        .find(|p| p.is_file())
}

impl SuiteSettings {
    pub fn resolve(args: &CliSuiteArgs, config: &Config) -> Self {
        Self {
            suites_dir: config.suites_dir(args.suites_dir.as_ref()),
            baselines_dir: config.baselines_dir(args.baselines_dir.as_ref()),
            suites: args.suites.clone(),
        }
    }
}

impl EvalSettings {
    /// Resolve `args` over `config`; `default_tier` differs per command.
    pub fn resolve(args: &CliEvalArgs, config: &Config, default_tier: TierChoice) -> Result<Self> {
        let v = &config.values;
        let tier = args
            .tier
            .map(|t| match t {
                CliTier::Smoke => TierChoice::Smoke,
                CliTier::Full => TierChoice::Full,
                CliTier::Progressive => TierChoice::Progressive,
            })
            .or(v.tier)
            .unwrap_or(default_tier);
        let judge_options = crate::llm::JudgeOptions::resolve(
            crate::llm::JudgeFlags {
                mode: args.judge.map(|j| match j {
                    CliJudge::None => JudgeMode::None,
                    CliJudge::Openai => JudgeMode::Live(ProviderName::Openai),
                    CliJudge::Anthropic => JudgeMode::Live(ProviderName::Anthropic),
                    CliJudge::Replay => JudgeMode::Replay,
                }),
                model: args.judge_model.clone(),
                base_url: args.judge_base_url.clone(),
                cache: args.judge_cache.clone(),
                max_cost_usd: args.judge_max_cost,
                concurrency: args.judge_concurrency,
                insight_summaries: args.insight_summaries,
                trace_judges: args.trace_judges.as_ref().map(|v| {
                    v.iter()
                        .map(|t| match t {
                            crate::app::cli::CliTraceJudge::Gpa => {
                                crate::spec::judge::TraceJudgeName::Gpa
                            }
                        })
                        .collect()
                }),
            },
            v.judge.as_ref(),
            config.path.as_deref(),
            v.judge_cache.as_deref().map(|p| config.rel(p)),
        )
        .map_err(crate::runner::RunnerError::from)?;
        let shard = args
            .shard
            .as_deref()
            .map(str::parse::<Shard>)
            .transpose()
            .map_err(|e| {
                Error::usage_with_help(
                    format!("invalid `--shard`: {e}"),
                    "write `--shard 2/4` for the second of four shards",
                )
            })?;
        let mut tags = v.tags.clone();
        for t in &args.tags {
            let (k, val) = t
                .split_once('=')
                .filter(|(k, _)| !k.trim().is_empty())
                .ok_or_else(|| {
                    Error::usage_with_help(
                        format!("invalid `--tag {t}`"),
                        "write `--tag key=value`, e.g. `--tag model=gpt-4o`",
                    )
                })?;
            tags.insert(k.trim().to_owned(), val.trim().to_owned());
        }
        let jobs_cap = args.jobs.or(v.jobs);
        let jobs = jobs_cap.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
        });
        if jobs == 0 {
            return Err(Error::usage("`--jobs` must be at least 1"));
        }
        if let Some(n) = args.trials
            && let Err(help) = n.check(MAX_TRIALS)
        {
            return Err(Error::usage_with_help(
                format!("`--trials {n}` is out of range"),
                help,
            ));
        }
        Ok(Self {
            suite: SuiteSettings::resolve(&args.suite, config),
            traces: args.traces.clone(),
            evidence: args.evidence.as_ref().map(|p| {
                if p.as_os_str() == "none" {
                    EvidenceOverride::Disabled
                } else {
                    EvidenceOverride::Dir(p.clone())
                }
            }),
            tier,
            judge_run: crate::judged::tier::JudgeRun::new(judge_options),
            seed: args.seed.or(v.seed).unwrap_or(DEFAULT_SEED),
            deterministic: args.deterministic,
            shard,
            tags,
            allow_empty: args.allow_empty,
            jobs,
            jobs_cap,
            trials: args.trials,
        })
    }
}

/// Whether a judge is configured for `lint`'s pre-flight warnings:
/// `AGENTEVAL_JUDGE` (from `env`) over the config file's `judge:`; `none`
/// means no judge.
pub(crate) fn judge_configured(config: &Config, env: impl Fn(&str) -> Option<String>) -> bool {
    env("AGENTEVAL_JUDGE")
        .filter(|v| !v.is_empty())
        .map_or_else(
            || {
                config
                    .values
                    .judge
                    .as_ref()
                    .and_then(|j| j.provider())
                    .is_some_and(|p| p != "none")
            },
            |v| v != "none",
        )
}

/// `--resamples` (flag or `AGENTEVAL_RESAMPLES`) over `resamples:` in the config file over the
/// default, validated: out of range is a usage error (64) for the flag and a config error
/// (78) for the file, never a silently switched-off test.
pub(crate) fn resolve_resamples(flag: Option<u32>, config: &Config) -> Result<u32> {
    let range = MIN_RESAMPLES..=BootstrapConfig::MAX_RESAMPLES;
    let help = format!(
        "the paired test needs between {} and {} resamples; the default is {}",
        MIN_RESAMPLES,
        BootstrapConfig::MAX_RESAMPLES,
        BootstrapConfig::DEFAULT_RESAMPLES
    );
    if let Some(b) = flag {
        if !range.contains(&b) {
            return Err(Error::usage_with_help(
                format!("`--resamples {b}` is out of range"),
                help,
            ));
        }
        return Ok(b);
    }
    if let Some(b) = config.values.resamples {
        if !range.contains(&b) {
            let file = config
                .path
                .as_deref()
                .map_or_else(|| CONFIG_FILE.to_owned(), |p| p.display().to_string());
            return Err(SpecError::ConfigValue {
                message: format!("`resamples: {b}` in `{file}` is out of range"),
                help,
            }
            .into());
        }
        return Ok(b);
    }
    Ok(BootstrapConfig::DEFAULT_RESAMPLES)
}

/// `--fail-on` over the config file over the suite's `gates.fail_on` over `critical`.
pub(crate) fn resolve_fail_on(
    flag: Option<CliFailOn>,
    config: &Config,
    suite_default: Option<FailOn>,
) -> FailOn {
    flag.map(|f| match f {
        CliFailOn::Critical => FailOn::Critical,
        CliFailOn::High => FailOn::High,
        CliFailOn::Medium => FailOn::Medium,
        CliFailOn::Low => FailOn::Low,
        CliFailOn::Never => FailOn::Never,
    })
    .or(config.values.fail_on)
    .or(suite_default)
    .unwrap_or(FailOn::Critical)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_parsing() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        assert!("0/4".parse::<Shard>().is_err());
        assert!("5/4".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }

    #[test]
    fn config_file_paths_are_relative_to_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(CONFIG_FILE);
        std::fs::write(&p, "suites_dir: my-suites\nseed: 7\ntags: {model: m1}\n").unwrap();
        let global = CliGlobal {
            config: Some(p.clone()),
            ..CliGlobal::default()
        };
        let cfg = Config::discover(&global).unwrap();
        assert_eq!(cfg.suites_dir(None), dir.path().join("my-suites"));
        assert_eq!(
            cfg.suites_dir(Some(&PathBuf::from("flag"))),
            PathBuf::from("flag")
        );
        let args = CliEvalArgs {
            tags: vec!["prompt=v2".into(), "model=m2".into()],
            ..CliEvalArgs::default()
        };
        let s = EvalSettings::resolve(&args, &cfg, TierChoice::Full).unwrap();
        assert_eq!(s.seed, 7);
        assert_eq!(s.tags.get("model").map(String::as_str), Some("m2"));
        assert_eq!(s.tags.get("prompt").map(String::as_str), Some("v2"));
    }

    #[test]
    fn unknown_config_key_is_a_config_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(CONFIG_FILE);
        std::fs::write(&p, "seeds: 7\n").unwrap();
        let err = Config::discover(&CliGlobal {
            config: Some(p),
            ..CliGlobal::default()
        })
        .unwrap_err();
        assert_eq!(err.exit_code(), crate::ExitCode::Config);
    }
}
