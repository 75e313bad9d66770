//! The clap structs. Help text here is the user's documentation: keep it exact.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// A regression gate for AI agents: evaluates agent traces against a suite of
/// checkpoints, compares with a versioned baseline, and fails CI on a
/// confirmed regression.
#[derive(Debug, Parser)]
#[command(name = "agenteval-gate", version, about, long_about = None, max_term_width = 100)]
#[command(
    after_help = "Exit codes: 0 pass, 2 gate failed, 4 nothing evaluated, 64 usage, 65 bad input data, \
69 judge/GitHub unavailable, 74 I/O, 78 invalid suite/config, 130 interrupted (SIGINT), \
143 terminated (SIGTERM), 1 internal error."
)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub global: CliGlobal,
    #[command(subcommand)]
    pub command: CliCommand,
}

#[derive(Debug, Args, Clone, Default)]
pub struct CliGlobal {
    /// When to use colour on stderr.
    #[arg(long, value_enum, global = true, default_value_t = CliColor::Auto, env = "AGENTEVAL_COLOR")]
    pub color: CliColor,
    /// Config file (default: `agenteval.yaml`, found by walking up from the working directory).
    #[arg(long, global = true, value_name = "FILE", env = "AGENTEVAL_CONFIG")]
    pub config: Option<PathBuf>,
    /// Ignore `agenteval.yaml`.
    #[arg(long, global = true)]
    pub isolated: bool,
    /// Only errors on stderr.
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// Largest input file read (trace, suite, report, baseline…), e.g. `64MiB`, `1GiB` [default: 256MiB].
    #[arg(long, global = true, value_name = "SIZE", env = "AGENTEVAL_MAX_FILE_SIZE", value_parser = crate::fsutil::parse_size)]
    pub max_file_size: Option<u64>,
    /// Most memory one input may need, e.g. `6GiB`; a trace that would need more is refused with the size it needs [default: the memory available at start].
    #[arg(long, global = true, value_name = "SIZE", env = "AGENTEVAL_MAX_MEMORY", value_parser = crate::fsutil::parse_size)]
    pub max_memory: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum CliColor {
    #[default]
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub(crate) enum CliCommand {
    /// Evaluate suites and write run reports (applies only `gates.absolute`).
    Run(CliRun),
    /// Compare with a baseline (the main CI job); exit code = verdict.
    Compare(CliCompare),
    /// Create, inspect and list baselines.
    #[command(subcommand)]
    Baseline(CliBaseline),
    /// Pre-flight checks of every suite, including ID stability against the baseline.
    Lint(CliLint),
    /// Render a saved run or compare report.
    Report(CliReport),
    /// Ingest one trace: detected format and spans.
    Trace(CliTrace),
    /// Draft a starter suite from recorded traces: the tool catalog with argument schemas,
    /// one case per trace, starter tier-2 checkpoints.
    Init(CliInit),
    /// Post a saved compare report as the sticky PR comment (fork-safe `workflow_run` job).
    Comment(CliComment),
    /// Show the resolved configuration.
    #[command(subcommand)]
    Config(CliConfig),
    /// Merge the shard reports of one run (`run --shard I/N --out FILE`) into one report.
    Merge(CliMerge),
    /// Judge vs human labels on a golden set: agreement, Cohen's κ, Krippendorff's α, confusion matrix.
    Calibrate(CliCalibrate),
    /// Draft task-specific tier-3 checkpoints with the judge (`generate`), and verify a draft on labelled cases (`verify`).
    #[command(subcommand)]
    Rubric(super::rubric::CliRubric),
    /// Print the JSON Schema of `suite.yaml`.
    #[command(hide = true)]
    Schema,
    /// Print a shell completion script on stdout (e.g. `agenteval-gate completions bash > ~/.local/share/bash-completion/completions/agenteval-gate`).
    Completions(CliCompletions),
    /// Print the man page (roff) on stdout (e.g. `agenteval-gate man > agenteval-gate.1`), or
    /// write one page per subcommand with `--out-dir`.
    Man(CliMan),
}

#[derive(Debug, Args)]
pub(crate) struct CliMan {
    /// Write `agenteval-gate.1` and one page per subcommand (`agenteval-gate-compare.1`, …)
    /// into DIR (created if missing) instead of printing the top page.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct CliCompletions {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Flags shared by `run`, `compare`, `baseline update` and `lint`.
#[derive(Debug, Args, Clone, Default)]
pub struct CliSuiteArgs {
    /// Suite to use, by name or directory; repeatable (default: every suite under the suites directory).
    #[arg(long = "suite", value_name = "NAME|DIR")]
    pub suites: Vec<String>,
    /// Directory holding `<suite>/suite.yaml` [default: suites].
    #[arg(long, value_name = "DIR", env = "AGENTEVAL_SUITES_DIR")]
    pub suites_dir: Option<PathBuf>,
    /// Directory holding `<name>/<suite>.json` baselines [default: baselines].
    #[arg(long, value_name = "DIR", env = "AGENTEVAL_BASELINES_DIR")]
    pub baselines_dir: Option<PathBuf>,
}

/// Flags that control an evaluation.
#[derive(Debug, Args, Clone, Default)]
pub struct CliEvalArgs {
    #[command(flatten)]
    pub suite: CliSuiteArgs,
    /// Read recorded traces from DIR (`<case_id>.<ext>`) instead of the suite's `traces:`; forces replay mode.
    #[arg(long, value_name = "DIR", env = "AGENTEVAL_TRACES")]
    pub traces: Option<PathBuf>,
    /// Read evidence from DIR (`<case_id>.json`) instead of the suite's `evidence:`; `none`
    /// reads no evidence (tier-1 checkpoints become N/A). Required with `--traces` when the
    /// suite reads evidence, so new traces are never judged on another run's evidence.
    #[arg(long, value_name = "DIR|none", env = "AGENTEVAL_EVIDENCE")]
    pub evidence: Option<PathBuf>,
    /// Which cases: the smoke tier, the full suite, or smoke then full [default: progressive for compare, full for run].
    #[arg(long, value_enum, env = "AGENTEVAL_TIER")]
    pub tier: Option<CliTier>,
    /// LLM judge for tier-3 checkpoints, step metrics and semantic task success: `openai` (any OpenAI-compatible API), `anthropic`, or `replay` (the judge cache only, no key) [default: none].
    #[arg(long, value_enum, env = "AGENTEVAL_JUDGE")]
    pub judge: Option<CliJudge>,
    /// Judge model, e.g. `gpt-4o-mini` [default: the suite's or agenteval.yaml's `judge.model`].
    #[arg(long, value_name = "MODEL", env = "AGENTEVAL_JUDGE_MODEL")]
    pub judge_model: Option<String>,
    /// Judge API root, e.g. `http://localhost:11434/v1` [default: `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL`, then agenteval.yaml, then the provider's].
    #[arg(long, value_name = "URL", env = "AGENTEVAL_JUDGE_BASE_URL")]
    pub judge_base_url: Option<String>,
    /// Judge cache directory [default: the suite's `judge.cache`, else .agenteval-cache].
    #[arg(long, value_name = "DIR", env = "AGENTEVAL_JUDGE_CACHE")]
    pub judge_cache: Option<PathBuf>,
    /// Stop calling the judge past this estimated spend (USD); later questions are N/A "budget exhausted".
    #[arg(long, value_name = "USD", env = "AGENTEVAL_JUDGE_MAX_COST")]
    pub judge_max_cost: Option<f64>,
    /// Judge calls in flight at once (1–256) [default: agenteval.yaml's `judge.concurrency`, else 8].
    #[arg(long, value_name = "N", env = "AGENTEVAL_JUDGE_CONCURRENCY")]
    pub judge_concurrency: Option<usize>,
    /// Trace-level judges to run on every case, e.g. `gpa` (one judge call per case; metrics `gpa:<dimension>`) [default: the suite's `judge.trace_judges`].
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "JUDGE",
        env = "AGENTEVAL_TRACE_JUDGES"
    )]
    pub trace_judges: Option<Vec<CliTraceJudge>>,
    /// Let the judge name and summarise the 20 most widespread recurring issues (20 questions per run at most) [default: the suite's `judge.insight_summaries`].
    #[arg(long, env = "AGENTEVAL_INSIGHT_SUMMARIES")]
    pub insight_summaries: bool,
    /// Seed for every random choice (bootstrap resampling) [default: 42].
    #[arg(long, env = "AGENTEVAL_SEED")]
    pub seed: Option<u64>,
    /// Omit wall-clock fields so identical inputs give byte-identical reports.
    #[arg(long, env = "AGENTEVAL_DETERMINISTIC")]
    pub deterministic: bool,
    /// Evaluate only shard I of N (cases partitioned by a stable hash of the case ID).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Add a config tag (`model=gpt-4o`); repeatable; overrides the suite's `config_tags`.
    #[arg(long = "tag", value_name = "KEY=VALUE")]
    pub tags: Vec<String>,
    /// Exit 0 instead of 4 when no case is selected.
    #[arg(long)]
    pub allow_empty: bool,
    /// Parallel trace evaluations [default: number of CPUs]; also caps `agent.concurrency` in run mode.
    #[arg(long, short = 'j', value_name = "N", env = "AGENTEVAL_JOBS")]
    pub jobs: Option<usize>,
    /// Run each case K times in run mode, or MIN:MAX for adaptive confirmation (run every case
    /// MIN times, re-run up to MAX times the cases whose task success or a checkpoint that can
    /// fail the gate differs from their baseline trials, or whose baseline trials are mixed;
    /// needs a baseline, i.e. `compare`). Overrides `agent.trials`; 1–100. Replay reads trials from `trial-<i>/`
    /// directories instead.
    #[arg(long, value_name = "K|MIN:MAX", env = "AGENTEVAL_TRIALS")]
    pub trials: Option<crate::spec::model::TrialsSpec>,
    /// Run mode: keep each case's input, workdir and trace under DIR/<suite>/ [default: a temporary directory, removed].
    #[arg(long, value_name = "DIR", env = "AGENTEVAL_ARTIFACTS")]
    pub artifacts: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CliTier {
    Smoke,
    Full,
    Progressive,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CliJudge {
    None,
    Openai,
    Anthropic,
    Replay,
}

/// A trace-level judge (`--trace-judges`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CliTraceJudge {
    /// Agent GPA: seven dimensions scored 0–3 with cited spans.
    Gpa,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CliFailOn {
    Critical,
    High,
    Medium,
    Low,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CliRunFormat {
    Table,
    Json,
    Markdown,
    Junit,
}

#[derive(Debug, Args)]
pub(crate) struct CliRun {
    #[command(flatten)]
    pub eval: CliEvalArgs,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = CliRunFormat::Table, env = "AGENTEVAL_FORMAT")]
    pub format: CliRunFormat,
    /// Write the JSON run report to FILE (`-` = stdout); needs exactly one suite.
    #[arg(long, value_name = "FILE", conflicts_with = "out_dir")]
    pub out: Option<PathBuf>,
    /// Write one `<suite>.json` run report per suite into DIR.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Lowest severity of an absolute-gate breach that fails the run [default: critical].
    #[arg(long, value_enum, env = "AGENTEVAL_FAIL_ON")]
    pub fail_on: Option<CliFailOn>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CliCompareFormat {
    Table,
    Markdown,
    Json,
    Junit,
}

#[derive(Debug, Args)]
pub(crate) struct CliCompare {
    #[command(flatten)]
    pub eval: CliEvalArgs,
    /// Baseline name (`baselines/<NAME>/`).
    #[arg(
        long,
        value_name = "NAME",
        env = "AGENTEVAL_BASELINE",
        default_value = "main"
    )]
    pub baseline: String,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = CliCompareFormat::Table, env = "AGENTEVAL_FORMAT")]
    pub format: CliCompareFormat,
    /// Write the JSON compare report to FILE.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Lowest severity that fails the gate [default: the suite's `gates.fail_on`, else critical].
    #[arg(long, value_enum, env = "AGENTEVAL_FAIL_ON")]
    pub fail_on: Option<CliFailOn>,
    /// Bootstrap resamples per metric [default: 10000].
    #[arg(long, value_name = "B", env = "AGENTEVAL_RESAMPLES")]
    pub resamples: Option<u32>,
    /// Benjamini–Hochberg correction across metrics; `off` uses raw p-values.
    #[arg(long, value_enum, default_value_t = CliOnOff::On)]
    pub fdr: CliOnOff,
    /// Report regressions but always exit 0.
    #[arg(long)]
    pub warn_only: bool,
    /// Fail (exit 65) when a suite has no baseline yet, instead of passing with a note that
    /// says how the baseline gets created (the first pull request of a new suite).
    #[arg(long, env = "AGENTEVAL_REQUIRE_BASELINE")]
    pub require_baseline: bool,
    /// Pass with a note when the suite has other baselines but none named `--baseline` (a new
    /// baseline name); without it that is a usage error (exit 64) with the names it has. A
    /// suite with no baseline at all passes with a note either way.
    #[arg(long, conflicts_with = "require_baseline")]
    pub allow_missing_baseline: bool,
    /// Read `baselines/` from git object REF (a sha, branch or `origin/agenteval-baselines`), or `worktree`
    /// [default: the PR's base commit in a `pull_request` event, else the working tree].
    #[arg(long, value_name = "REF", env = "AGENTEVAL_BASELINE_REF")]
    pub baseline_ref: Option<String>,
    /// Read the rules (the suites' checkpoints, gates and cases, and `agenteval.yaml`) from git
    /// object REF, or `worktree` to use the pull request's own rules (a maintainer's override)
    /// [default: the PR's base commit in a `pull_request` event, else the working tree].
    #[arg(long, value_name = "REF", env = "AGENTEVAL_RULES_REF")]
    pub rules_ref: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CliOnOff {
    On,
    Off,
}

#[derive(Debug, Subcommand)]
pub(crate) enum CliBaseline {
    /// Write the baseline files atomically and append history.
    Update(Box<CliBaselineUpdate>),
    /// Show one baseline's metadata and suite metrics.
    Show(CliBaselineShow),
    /// List baselines and their suites.
    List(CliBaselineList),
}

#[derive(Debug, Args)]
pub(crate) struct CliBaselineUpdate {
    #[command(flatten)]
    pub eval: CliEvalArgs,
    /// Baseline name.
    #[arg(long, value_name = "NAME", default_value = "main")]
    pub name: String,
    /// Use saved run reports instead of running the suites; repeatable (one per suite).
    #[arg(long = "from-report", value_name = "FILE")]
    pub from_report: Vec<PathBuf>,
    /// Git commit recorded in the metadata.
    #[arg(long, env = "GITHUB_SHA")]
    pub git_sha: Option<String>,
    /// Git ref recorded in the metadata.
    #[arg(long, env = "GITHUB_REF")]
    pub git_ref: Option<String>,
    /// History lines kept per suite [default: 50].
    #[arg(long, value_name = "N")]
    pub history_cap: Option<usize>,
}

#[derive(Debug, Args)]
pub(crate) struct CliBaselineShow {
    #[command(flatten)]
    pub suite: CliSuiteArgs,
    #[arg(long, value_name = "NAME", default_value = "main")]
    pub name: String,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = CliBaselineShowFormat::Table)]
    pub format: CliBaselineShowFormat,
    /// The former spelling of `--format json`.
    #[arg(long, hide = true)]
    pub json: bool,
}

/// `--format` of commands whose output is a short summary: text for people, JSON for scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub(crate) enum CliSummaryFormat {
    #[default]
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CliBaselineShowFormat {
    Table,
    Json,
}

impl CliBaselineShow {
    /// `--format json`, or the hidden `--json`.
    pub(crate) fn wants_json(&self) -> bool {
        self.json || self.format == CliBaselineShowFormat::Json
    }
}

#[derive(Debug, Args)]
pub(crate) struct CliBaselineList {
    #[command(flatten)]
    pub suite: CliSuiteArgs,
    /// `table`, or `json`: one object per baseline and suite (`baseline`, `suite`, `cases`,
    /// `history_points`, `updated_at`, `git_sha`).
    #[arg(long, value_enum, default_value_t = CliBaselineShowFormat::Table)]
    pub format: CliBaselineShowFormat,
}

#[derive(Debug, Args)]
pub(crate) struct CliLint {
    #[command(flatten)]
    pub suite: CliSuiteArgs,
    /// Treat warnings as errors.
    #[arg(long)]
    pub deny_warnings: bool,
    /// `json`: one document on stdout with every problem (level, file, line, column,
    /// message, help) and the counts, instead of the diagnostics on stderr.
    #[arg(long, value_enum, default_value_t = CliSummaryFormat::Text)]
    pub format: CliSummaryFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CliReportFormat {
    Table,
    Markdown,
    Json,
    Junit,
    Html,
}

#[derive(Debug, Args)]
pub(crate) struct CliReport {
    /// A run report (`run --out`) or compare report (`compare --out`).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    #[arg(long, value_enum, default_value_t = CliReportFormat::Table)]
    pub format: CliReportFormat,
    /// Write to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// `comment --report F --pr N`.
#[derive(Debug, Args)]
#[command(
    long_about = "Post a saved compare report as the sticky PR comment.\n\n\
This is the trusted half of the fork-safe two-workflow pattern: a `pull_request` workflow \
runs `compare --out F` with a read-only token and uploads F and the PR number as an artifact; \
a `workflow_run` workflow with `pull-requests: write` downloads them and runs this command. \
The comment is rendered from the report exactly as `compare` renders it, and replaces the \
comment `compare` (or an earlier `comment`) posted for the same baseline and suites. \
The exit code says whether posting worked, not what the verdict was.",
    after_help = "Environment: `GITHUB_TOKEN` (or `AGENTEVAL_GITHUB_TOKEN`, which wins) authenticates; \
`GITHUB_REPOSITORY` is the default for --repo; `GITHUB_API_URL` selects the API (GitHub Enterprise \
Server: https://HOST/api/v3); `AGENTEVAL_BOT_LOGIN` names the account whose comment is updated when \
the token may not read `GET /user` [default: github-actions[bot]].\n\n\
Exit codes: 0 posted or updated; 65 not a compare report; 69 GitHub unavailable after retries, \
or the token may not comment (with a hint); 74 the report cannot be read; 78 no token or no repository."
)]
pub(crate) struct CliComment {
    /// The compare report to post: the JSON written by `compare --out FILE`.
    #[arg(long, value_name = "FILE")]
    pub report: PathBuf,
    /// Number of the pull request to comment on.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub pr: u64,
    /// Repository to comment in [default: `GITHUB_REPOSITORY`].
    #[arg(long, value_name = "OWNER/NAME")]
    pub repo: Option<String>,
    /// `json`: what was posted (action, URL, pull request, verdict) as one document on stdout.
    #[arg(long, value_enum, default_value_t = CliSummaryFormat::Text)]
    pub format: CliSummaryFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CliTraceFormat {
    Text,
    Json,
    Mermaid,
}

#[derive(Debug, Args)]
pub(crate) struct CliTrace {
    /// Trace file (any supported format; detected).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    #[arg(long, value_enum, default_value_t = CliTraceFormat::Text)]
    pub format: CliTraceFormat,
    /// Print the event list tier-2 matchers see (kind, agent, turn, tool, status, arguments,
    /// result, text), to write matchers against; with `--format text` or `json`.
    #[arg(long)]
    pub events: bool,
    /// Suite (name or directory) whose tool catalog validates arguments.
    #[arg(long, value_name = "NAME|DIR")]
    pub suite: Option<String>,
    /// Directory holding suites [default: suites].
    #[arg(long, value_name = "DIR", env = "AGENTEVAL_SUITES_DIR")]
    pub suites_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct CliInit {
    /// Traces to draft from (any supported format, one trace per file); each becomes a case.
    #[arg(long = "from-trace", value_name = "FILE", required = true, num_args = 1..)]
    pub from_trace: Vec<PathBuf>,
    /// The suite's name: its directory under the suites directory.
    #[arg(long, value_name = "NAME", default_value = "my-agent")]
    pub name: String,
    /// Directory holding suites [default: suites].
    #[arg(long, value_name = "DIR", env = "AGENTEVAL_SUITES_DIR")]
    pub suites_dir: Option<PathBuf>,
    /// Replace the files of a suite that already exists there.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum CliConfig {
    /// Print the resolved settings and where each came from.
    Show(CliConfigShow),
}

#[derive(Debug, Args)]
pub(crate) struct CliConfigShow {
    /// `json`: the settings as one document (key, value, source).
    #[arg(long, value_enum, default_value_t = CliSummaryFormat::Text)]
    pub format: CliSummaryFormat,
}

#[derive(Debug, Args)]
pub(crate) struct CliMerge {
    /// Shard run reports (`run --shard I/N --out FILE`) of one suite; a shard with no case may be left out.
    #[arg(value_name = "REPORT", required = true)]
    pub reports: Vec<PathBuf>,
    /// Write the merged run report to FILE (`-` = stdout).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// The suite, by name or directory, that orders the cases and checks the shards [default: the reports' suite].
    #[arg(long, value_name = "NAME|DIR")]
    pub suite: Option<String>,
    /// Directory holding `<suite>/suite.yaml` [default: suites].
    #[arg(long, value_name = "DIR", env = "AGENTEVAL_SUITES_DIR")]
    pub suites_dir: Option<PathBuf>,
    /// `json`: what was merged as one document on stdout (not with `--out -`).
    #[arg(long, value_enum, default_value_t = CliSummaryFormat::Text)]
    pub format: CliSummaryFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CliCalibrateFormat {
    Text,
    Json,
}

/// `calibrate --suite NAME --judge PROVIDER [--judge-model M] [--golden FILE]`.
#[derive(Debug, Args)]
#[command(
    long_about = "Judge vs human labels on a golden set.\n\n\
The judge answers every labelled item of the suite's recorded traces (tier-3 checkpoints and judged \
step metrics) through the same prompts, cache and settings as `run`; calibrate then reports the \
agreement, Cohen's κ (nominal), Krippendorff's α (nominal for verdicts, ordinal for 1–5 scores), the \
confusion matrix, and warns when κ is below the suite's `judge.kappa_threshold` (default 0.6).",
    after_help = "Golden set (YAML): `source: <who labelled>` and `labels:` of `{case, checkpoint, label: PASS|PARTIAL|FAIL}` \
or `{case, step, metric?, label: 1-5}`.\n\nExit codes: 0 reported (warnings do not fail); 64 no judge or not one suite; \
65 a bad golden set; 69 the judge unavailable; 78 bad judge settings."
)]
pub(crate) struct CliCalibrate {
    #[command(flatten)]
    pub eval: CliEvalArgs,
    /// Golden set [default: `<suite dir>/golden.yaml`].
    #[arg(long, value_name = "FILE")]
    pub golden: Option<PathBuf>,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = CliCalibrateFormat::Text)]
    pub format: CliCalibrateFormat,
    /// Also write the report as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}
