//! What a run needs to know, resolved once by `app::config` from flags,
//! environment and `agenteval.yaml`: plain data, so the runner never reads
//! a flag, a variable or the config file itself.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TierChoice {
    Smoke,
    Full,
    Progressive,
}

/// `--shard i/n`: 1-based index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("`{s}` is not I/N"))?;
        let index: u32 = i
            .trim()
            .parse()
            .map_err(|_| format!("shard index `{i}` is not a number"))?;
        let count: u32 = n
            .trim()
            .parse()
            .map_err(|_| format!("shard count `{n}` is not a number"))?;
        if count == 0 || index == 0 || index > count {
            return Err(format!("shard `{s}` is out of range: use 1/N … N/N"));
        }
        Ok(Self { index, count })
    }
}

/// `--evidence`: another directory, or no evidence at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvidenceOverride {
    Dir(PathBuf),
    /// `--evidence none`.
    Disabled,
}

/// Where suites and baselines are.
#[derive(Debug, Clone)]
pub struct SuiteSettings {
    pub suites_dir: PathBuf,
    pub baselines_dir: PathBuf,
    pub suites: Vec<String>,
}

/// Resolved settings of an evaluation.
#[derive(Debug, Clone)]
pub struct EvalSettings {
    pub suite: SuiteSettings,
    pub traces: Option<PathBuf>,
    /// `--evidence DIR|none` override.
    pub evidence: Option<EvidenceOverride>,
    pub tier: TierChoice,
    /// The judge's flags and `agenteval.yaml` settings, and the budgets the
    /// command's suites share.
    pub judge_run: crate::judged::tier::JudgeRun,
    pub seed: u64,
    pub deterministic: bool,
    pub shard: Option<Shard>,
    /// `--tag` overlays (config file tags first, flags win).
    pub tags: BTreeMap<String, String>,
    pub allow_empty: bool,
    /// Threads for evaluation: `--jobs`, else the machine's parallelism.
    pub jobs: usize,
    /// `--jobs` (or `jobs:` in agenteval.yaml) when given: caps `agent.concurrency`.
    pub jobs_cap: Option<usize>,
    /// `--trials K|MIN:MAX` (run mode), over the suite's `agent.trials`.
    pub trials: Option<crate::spec::model::TrialsSpec>,
}
