//! `agenteval-gate config show`: the resolved settings and their sources.

use crate::app::cli::{CliConfigShow, CliSummaryFormat};
use crate::app::config::{BootstrapConfig, CONFIG_FILE, Config, DEFAULT_SEED};
use crate::app::error::Result;
use crate::exit_code::ExitCode;

pub(crate) fn run(args: &CliConfigShow, config: &Config) -> Result<ExitCode> {
    let file = config.path.as_ref().map(|p| p.display().to_string());
    let v = &config.values;
    let env = |k: &str| std::env::var(k).ok().filter(|s| !s.is_empty());
    let mut rows: Vec<(&str, String, String)> = Vec::new();
    let mut row = |key: &'static str, env_key: &str, from_file: Option<String>, default: String| {
        let (value, source) = match (env(env_key), from_file) {
            (Some(e), _) => (e, format!("env {env_key}")),
            (None, Some(f)) => (f, "config file".to_owned()),
            (None, None) => (default, "default".to_owned()),
        };
        rows.push((key, value, source));
    };
    row(
        "suites_dir",
        "AGENTEVAL_SUITES_DIR",
        v.suites_dir
            .as_ref()
            .map(|_| config.suites_dir(None).display().to_string()),
        "suites".into(),
    );
    row(
        "baselines_dir",
        "AGENTEVAL_BASELINES_DIR",
        v.baselines_dir
            .as_ref()
            .map(|_| config.baselines_dir(None).display().to_string()),
        "baselines".into(),
    );
    row(
        "tier",
        "AGENTEVAL_TIER",
        v.tier.map(|t| format!("{t:?}").to_lowercase()),
        "progressive (compare), full (run)".into(),
    );
    row(
        "judge",
        "AGENTEVAL_JUDGE",
        v.judge
            .as_ref()
            .and_then(|j| j.provider().map(str::to_owned)),
        "none".into(),
    );
    row(
        "judge_cache",
        "AGENTEVAL_JUDGE_CACHE",
        v.judge_cache.as_ref().map(|p| p.display().to_string()),
        ".agenteval-cache".into(),
    );
    row(
        "seed",
        "AGENTEVAL_SEED",
        v.seed.map(|s| s.to_string()),
        DEFAULT_SEED.to_string(),
    );
    row(
        "resamples",
        "AGENTEVAL_RESAMPLES",
        v.resamples.map(|s| s.to_string()),
        BootstrapConfig::DEFAULT_RESAMPLES.to_string(),
    );
    row(
        "fail_on",
        "AGENTEVAL_FAIL_ON",
        v.fail_on.map(|f| f.to_string()),
        "the suite's gates.fail_on, else critical".into(),
    );
    row(
        "jobs",
        "AGENTEVAL_JOBS",
        v.jobs.map(|j| j.to_string()),
        "number of CPUs".into(),
    );
    let precedence = format!("flags > AGENTEVAL_* env > {CONFIG_FILE} > defaults");
    if args.format == CliSummaryFormat::Json {
        let settings: Vec<serde_json::Value> = rows
            .iter()
            .map(|(key, value, source)| {
                serde_json::json!({"key": key, "value": value, "source": source})
            })
            .collect();
        let json = serde_json::json!({
            "config_file": file,
            "settings": settings,
            "tags": v.tags,
            "precedence": precedence,
        });
        crate::output::write_document(&crate::output::to_json(&json))?;
        return Ok(ExitCode::Success);
    }
    outln!(
        "config file: {}",
        file.unwrap_or_else(|| format!("none (no {CONFIG_FILE} found)"))
    )?;
    for (key, value, source) in &rows {
        outln!("{key:<14} {value:<28} ({source})")?;
    }
    let tags: Vec<String> = v.tags.iter().map(|(k, val)| format!("{k}={val}")).collect();
    outln!(
        "{:<14} {}",
        "tags",
        if tags.is_empty() {
            "—".to_owned()
        } else {
            tags.join(", ")
        }
    )?;
    outln!("precedence: {precedence}")?;
    Ok(ExitCode::Success)
}
