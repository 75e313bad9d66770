//! The top level of `suite.yaml`: what the suite is, where its traces and
//! evidence live, how to run the agent, the tool catalog and the workflow.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;

use super::{
    CaseEntry, CheckpointSpec, EnvConstraintSpec, GatesSpec, PartialMode, ScoringSpec, StepType,
    TaskSpec, ThresholdsSpec, TiersSpec,
};

/// A string with its YAML location. In JSONL case files the location is
/// unknown and the loader supplies the line instead.
pub type SpannedString = Spanned<String>;

/// Top level of `suite.yaml`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "agenteval-gate suite",
    description = "A suite of agent test cases with checkpoints, an optional workflow schema and regression gates. The guide is docs/suites.md."
)]
pub struct SuiteFile {
    /// Suite name; also names the baseline file `baselines/<name>/<suite>.json`.
    #[schemars(with = "String")]
    pub suite: SpannedString,
    /// Version of this spec. Bump it when checkpoints change meaning.
    pub spec_version: String,
    #[serde(default)]
    pub description: Option<String>,
    /// Facts about the configuration under test (model, prompt version…);
    /// stored with every report and baseline. `--tag key=value` adds more.
    #[serde(default)]
    pub config_tags: BTreeMap<String, String>,
    /// Replay mode: directory of recorded traces, `<case_id>.<json|jsonl|traj>`.
    #[serde(default)]
    pub traces: Option<String>,
    /// Tier-1 evidence directory: `<case_id>.json` per case.
    #[serde(default)]
    pub evidence: Option<String>,
    /// Run mode: how to run the agent for one case.
    #[serde(default)]
    pub agent: Option<AgentSpec>,
    /// Tool catalog: PARAMGEN validation, unknown-tool checks, judge prompts,
    /// and lint of the argument keys and values that matchers name.
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    /// Optional schema-defined workflow matched against every trace.
    #[serde(default)]
    pub workflow: Option<WorkflowSpec>,
    /// Per-step-type pass thresholds on the 1–5 step score.
    #[serde(default)]
    pub thresholds: Option<ThresholdsSpec>,
    #[serde(default)]
    pub environment_constraints: Vec<EnvConstraintSpec>,
    /// Checkpoints in document order (= `position_index` 1..N). IDs are
    /// immutable and append-only.
    #[serde(default)]
    pub checkpoints: Vec<CheckpointSpec>,
    #[serde(default)]
    pub tiers: Option<TiersSpec>,
    #[serde(default)]
    pub gates: Option<GatesSpec>,
    /// How PARTIAL is scored: `B` (default) earns the matched criterion's
    /// weight; `A` (strict) turns every PARTIAL into FAIL.
    #[serde(default)]
    pub partial_mode: Option<PartialMode>,
    /// Step scoring and root-cause options.
    #[serde(default)]
    pub scoring: Option<ScoringSpec>,
    /// Price table for cost: model name → USD per million tokens.
    #[serde(default)]
    pub pricing: BTreeMap<String, PriceSpec>,
    /// LLM judge settings for tier-3 checkpoints and step metrics.
    #[serde(default)]
    pub judge: Option<JudgeSpec>,
    /// Task success from ground truth (an evidence condition, named
    /// checkpoints), next to each case's `expected_output`.
    #[serde(default)]
    pub task: Option<TaskSpec>,
    /// Cases, inline or `- include: cases.jsonl` (one case object per line).
    #[serde(default)]
    pub cases: Vec<CaseEntry>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentSpec {
    /// argv; placeholders `{case_id} {input_file} {trace_file} {evidence_file} {workdir}`.
    /// Never run through a shell unless you write `sh -c`.
    pub command: Vec<String>,
    /// Per-case timeout in seconds (default 300); kills the process group.
    #[serde(default)]
    pub timeout_s: Option<u64>,
    /// Cases run at once (default: number of CPUs).
    #[serde(default)]
    pub concurrency: Option<usize>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Working directory, relative to the suite directory (default: the suite directory).
    #[serde(default)]
    pub cwd: Option<String>,
    /// Retries when the process could not start (default 2). Agent failures are never retried.
    #[serde(default)]
    pub retries: Option<u32>,
    /// Judge keys the agent may inherit. By default it runs without them
    /// (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `AGENTEVAL_JUDGE_*`, …); list
    /// one here to pass it through, e.g. `[OPENAI_API_KEY]`. GitHub/Actions
    /// credentials (`GITHUB_TOKEN`, every `GH_*`, `ACTIONS_*` runtime tokens,
    /// …) and the runner's file commands (`GITHUB_ENV`, `GITHUB_OUTPUT`, …)
    /// never reach an agent: listing one here or in `env` is an error.
    #[serde(default)]
    pub env_passthrough: Vec<String>,
    /// Times each case is run (default 1). Agents are stochastic: with k > 1
    /// every trial is kept in the report (`AGENTEVAL_TRIAL` = 0 … k−1, each in
    /// its own work directory), a case's value is its mean over trials, and
    /// pass^k / pass@k are reported. `{min: 1, max: 3}` confirms adaptively:
    /// every case runs `min` times and only the cases not settled (task
    /// success or a checkpoint differs from the baseline trials, or those are
    /// mixed) are re-run, up to `max` times (a compare tests conditionally on
    /// those decisions). `--trials` overrides it.
    #[serde(default)]
    pub trials: Option<TrialsSpec>,
}

/// `agent.trials`: a number of trials, or adaptive bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TrialsSpec {
    /// Every case runs this many times.
    Fixed(u32),
    /// Every case runs `min` times; the cases that moved against their baseline are re-run
    /// up to `max` times.
    Adaptive { min: u32, max: u32 },
}

impl TrialsSpec {
    /// `(min, max)` trials per case (equal when fixed).
    pub fn bounds(self) -> (u32, u32) {
        match self {
            Self::Fixed(k) => (k, k),
            Self::Adaptive { min, max } => (min, max),
        }
    }

    /// Whether the bounds are usable: `1 ≤ min ≤ max ≤ most`; the reason otherwise.
    pub fn check(self, most: u32) -> Result<(), String> {
        let (min, max) = self.bounds();
        if min == 0 || max > most {
            return Err(format!("give 1 to {most} runs per case"));
        }
        if min > max {
            return Err(format!("`min` ({min}) is above `max` ({max})"));
        }
        Ok(())
    }
}

impl std::fmt::Display for TrialsSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Fixed(k) => write!(f, "{k}"),
            Self::Adaptive { min, max } => write!(f, "{{min: {min}, max: {max}}}"),
        }
    }
}

impl std::str::FromStr for TrialsSpec {
    type Err = String;

    /// `K`, or `MIN:MAX` for adaptive confirmation.
    fn from_str(s: &str) -> Result<Self, String> {
        let number = |t: &str| {
            t.trim()
                .parse::<u32>()
                .map_err(|_| format!("`{s}` is not a number of trials (K, or MIN:MAX)"))
        };
        match s.split_once(':') {
            None => Ok(Self::Fixed(number(s)?)),
            Some((min, max)) => Ok(Self::Adaptive {
                min: number(min)?,
                max: number(max)?,
            }),
        }
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolSpec {
    #[schemars(with = "String")]
    pub name: SpannedString,
    #[serde(default)]
    pub description: Option<String>,
    /// JSON Schema of the tool's arguments.
    #[serde(default)]
    pub schema: Option<Value>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowSpec {
    /// Whether the steps list every tool the agent may call. `true`: a call
    /// of a tool no step names is an `unexpected_step` deviation and its
    /// TOOLSEL step fails (`unexpected_tool`). `false` (the default): the
    /// workflow lists the steps that must happen, and other tools may be
    /// called in between. Lint warns when a workflow names only some of the
    /// catalog's tools and this is not set.
    #[serde(default)]
    pub exhaustive: Option<bool>,
    pub steps: Vec<WorkflowStepSpec>,
}

impl WorkflowSpec {
    /// `exhaustive`, defaulting to `false`.
    pub fn is_exhaustive(&self) -> bool {
        self.exhaustive.unwrap_or(false)
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowStepSpec {
    #[schemars(with = "String")]
    pub id: SpannedString,
    #[serde(rename = "type")]
    pub step_type: StepType,
    /// For TOOLSEL/PARAMGEN/EXEC steps: the tool this step calls, or a
    /// list of alternatives (any one of them matches the step).
    #[serde(default)]
    pub tool: Option<StepTools>,
    /// Steps that must come before this one.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub after: Vec<SpannedString>,
    /// A missing optional step is not a deviation.
    #[serde(default)]
    pub optional: bool,
    #[serde(default)]
    pub description: Option<String>,
}

/// A workflow step's `tool`: one name, or a list of alternatives. Names
/// are exact (no globs).
#[derive(Debug, Clone, PartialEq, Eq, JsonSchema)]
#[serde(untagged)]
pub enum StepTools {
    One(String),
    Any(Vec<String>),
}

/// By hand, so that a wrong type says what is expected (an untagged enum
/// says only "data did not match any variant").
impl<'de> Deserialize<'de> for StepTools {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Names;
        impl<'de> serde::de::Visitor<'de> for Names {
            type Value = StepTools;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a tool name, or a list of alternative tool names (`tool: [a, b]`)")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<StepTools, E> {
                Ok(StepTools::One(v.to_owned()))
            }
            // A plain scalar that YAML reads as a number or a boolean is
            // still a name (`tool: 411`).
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<StepTools, E> {
                Ok(StepTools::One(v.to_string()))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<StepTools, E> {
                Ok(StepTools::One(v.to_string()))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<StepTools, E> {
                Ok(StepTools::One(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<StepTools, A::Error> {
                let mut names = Vec::new();
                while let Some(name) = seq.next_element::<String>()? {
                    names.push(name);
                }
                Ok(StepTools::Any(names))
            }
        }
        deserializer.deserialize_any(Names)
    }
}

impl StepTools {
    /// The names, in the order written.
    pub fn names(&self) -> &[String] {
        match self {
            Self::One(name) => std::slice::from_ref(name),
            Self::Any(names) => names,
        }
    }

    /// Whether `tool` is one of the names.
    pub fn contains(&self, tool: &str) -> bool {
        self.names().iter().any(|n| n == tool)
    }

    /// `` `a` `` or `` `a`/`b` `` for messages.
    pub fn quoted(&self) -> String {
        self.names()
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join("/")
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PriceSpec {
    /// USD per million input tokens.
    pub input_per_mtok: f64,
    /// USD per million output tokens.
    pub output_per_mtok: f64,
}

/// The suite's `judge:` block lives with the other judge settings.
pub use crate::spec::judge::JudgeSpec;
