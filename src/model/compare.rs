//! The compare report (`compare --format json --out F`, DESIGN §13).
//!
//! One report covers every suite of a compare: `metrics[]` is flat, each
//! entry names its `suite`; `regressions[]` holds `<suite>/<metric>` names.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::run::Tier;
use crate::model::vocab::{FailOn, InconclusivePolicy, Severity, UnevaluatedPolicy};

/// Version of the compare report JSON. 2: `p_value` comes from the sign-flip test named in
/// `test` (was: the centered bootstrap); added `test`, `nonzero`, `min_p`, `missing`,
/// `family`, `coverage`.
pub(crate) const COMPARE_REPORT_SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareReport {
    pub schema_version: u32,
    pub tool_version: String,
    pub verdict: Verdict,
    pub fail_on: FailOn,
    /// `--warn-only`: the verdict is reported but the exit code is 0.
    #[serde(default)]
    pub warn_only: bool,
    pub baseline: BaselineRef,
    pub tiers: Vec<TierOutcome>,
    pub metrics: Vec<MetricComparison>,
    /// The multiple-comparison family of the tier the metrics come from.
    #[serde(default)]
    pub family: Family,
    /// Per suite and checkpoint: in how many head cases it was decided, N/A or BLOCKED.
    #[serde(default)]
    pub coverage: Vec<CheckpointCoverage>,
    /// `<suite>/<metric>` of every metric whose status is `regression`.
    pub regressions: Vec<String>,
    pub absolute_breaches: Vec<SuiteBreach>,
    /// Share of judge calls that failed; `None` without a judge.
    pub judge_error_rate: Option<f64>,
    /// Pairing and spec differences per suite.
    pub suites: Vec<SuitePairing>,
    pub settings: CompareSettings,
    /// Why the verdict is what it is, one line per reason.
    pub reasons: Vec<String>,
    /// Suites that have no baseline of this name yet: not compared (the gate passes for them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_baselines: Vec<String>,
    /// Gating metrics the gate could not decide (see [`Verdict::Inconclusive`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inconclusive: Vec<Inconclusive>,
    /// Head cases the gate could not read (trace missing, empty or unparsable): nothing was
    /// evaluated on them, so they fail the gate under `gates.unevaluated: fail`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<UnreadableCase>,
    /// Where the suites, gates and config that decided this verdict came from
    /// (the PR's base commit in a pull request) and what the PR changes in them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<crate::model::rules::RulesInfo>,
    /// Recurring issues per suite against the baseline's (new, grew, gone).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub insights: Vec<crate::model::insights::SuiteInsights>,
    /// Per suite, the cases whose earlier trials (the baseline's and its per-case history's)
    /// disagree: only suites where some case has more than one earlier trial (issue 20).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flakiness: Vec<SuiteFlakiness>,
    /// Mermaid DAG of the worst regressed case, when one has a DAG.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst_case: Option<WorstCase>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluated_at: Option<String>,
    /// What the drawn views (HTML report, history charts) need when the report
    /// is rendered later from the saved file; size policy in `report::views::build`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub views: Option<crate::model::views::CompareViews>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Fail,
    /// Most cases failed for one infrastructure cause (the agent could not start, a missing
    /// secret): no verdict on the agent; exit 69.
    #[serde(rename = "could_not_evaluate")]
    CouldNotEvaluate,
    /// A gating metric got worse in every case that changed, but in too few cases for the
    /// test to reach α: the gate cannot tell (`inconclusive[]` names the cases and what would
    /// decide it). Never shown as a pass; `gates.inconclusive` chooses exit 2 or 0.
    Inconclusive,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail => "fail",
            Self::CouldNotEvaluate => "could_not_evaluate",
            Self::Inconclusive => "inconclusive",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaselineRef {
    pub name: String,
    /// Of the first suite (baselines are normally updated together).
    pub git_sha: Option<String>,
    pub updated_at: Option<String>,
    /// Fewest history points over the suites (the 2σ leg needs 5).
    pub history_points: usize,
    /// Where the baseline was read from (`--baseline-ref`), and the
    /// baseline files the working tree changes relative to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<crate::model::compare::SourceInfo>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TierOutcome {
    pub suite: String,
    pub tier: Tier,
    pub cases: usize,
    pub verdict: Verdict,
    /// The smoke tier found a confirmed critical regression, so the full tier did not run.
    pub stopped_early: bool,
    /// Agent runs (or replays) the full tier would have added when it was skipped.
    #[serde(default)]
    pub runs_saved: usize,
    /// Wall time; omitted with `--deterministic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_time_ms: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Higher,
    Lower,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricStatus {
    Regression,
    Suspected,
    Improvement,
    Unchanged,
    InsufficientData,
    /// Judge coverage differs between baseline and head, and fewer than `min_cases` paired
    /// cases were judged alike on both sides (`judge_note` says why): no verdict on the
    /// metric, and one that can fail the gate fails it (issue 21).
    NotComparable,
}

impl MetricStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Regression => "regression",
            Self::Suspected => "suspected",
            Self::Improvement => "improvement",
            Self::Unchanged => "unchanged",
            Self::InsufficientData => "insufficient_data",
            Self::NotComparable => "not_comparable",
        }
    }
}

impl fmt::Display for MetricStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricComparison {
    pub suite: String,
    pub name: String,
    pub direction: Direction,
    pub severity: Severity,
    /// Paired cases with a value in both runs.
    pub n: usize,
    /// Means over the paired cases.
    pub base_mean: Option<f64>,
    pub head_mean: Option<f64>,
    /// head − base (metric units; not oriented).
    pub delta: Option<f64>,
    /// 95% CI of `delta`.
    pub ci95: Option<[f64; 2]>,
    /// Which test gave `p_value`; `None` with insufficient data.
    #[serde(default)]
    pub test: Option<TestName>,
    /// Why the metric is outside the family when `test` is `no_variation`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub test_note: String,
    /// Paired cases whose value changed (non-zero differences).
    #[serde(default)]
    pub nonzero: Option<usize>,
    /// Smallest p-value the test could give with these cases (Tarone's rule).
    #[serde(default)]
    pub min_p: Option<f64>,
    /// One-sided p for "head is worse" (DESIGN §8), from the test named in `test`.
    pub p_value: Option<f64>,
    /// Benjamini–Hochberg q over the family (`= p` with `--fdr off`); `None` outside it.
    pub q_value: Option<f64>,
    /// Cases present in both runs where the metric is undefined in one of them (e.g. no cost
    /// recorded), so they are not in `n`: never silently dropped.
    #[serde(default, skip_serializing_if = "Missing::is_none")]
    pub missing: Missing,
    /// Historical band of suite means; `None` when unavailable (see `sigma_note`).
    pub sigma_band: Option<SigmaBandOut>,
    pub sigma_note: String,
    /// How judge coverage narrowed the comparison (cases left out because a judge answer is
    /// missing on one side, or another judge judged them), or why it is `not_comparable`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub judge_note: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_effect: Option<f64>,
    /// Smallest |Δ| this test detects with 80% power at α (metric units).
    pub mde: Option<f64>,
    pub status: MetricStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub localization: Option<Localization>,
    /// With several trials per case or per-case history: what the stratified
    /// test used. Absent for one trial against one trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials: Option<TrialsUsed>,
}

/// The trials behind a metric's stratified test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TrialsUsed {
    /// Head trials over the paired cases.
    pub head: usize,
    /// Baseline trials over the paired cases (the baseline's and its per-case history's).
    pub base: usize,
    /// History updates whose per-case outcomes of this metric were pooled (same spec and
    /// config tags, or accepted by the drift check).
    pub history_points: usize,
    /// History updates of the same spec the drift check refused for this metric
    /// (`gates.history_pooling: drift_check`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub history_refused: usize,
    /// Cases whose trials are not all equal (the rest cannot move the test).
    pub informative: usize,
}

impl MetricComparison {
    pub fn qualified_name(&self) -> String {
        format!("{}/{}", self.suite, self.name)
    }

    /// `delta` oriented so that negative is worse.
    pub fn oriented_delta(&self) -> Option<f64> {
        self.delta.map(|d| match self.direction {
            Direction::Higher => d,
            Direction::Lower => -d,
        })
    }
}

/// The test behind a metric's p-value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestName {
    /// Every sign pattern counted: exact (for 0/1 metrics, the exact sign test).
    ExactSignFlip,
    /// Random sign patterns (`settings.resamples` of them).
    MonteCarloSignFlip,
    /// No paired difference, or too few to ever reach α: left out of the family.
    NoVariation,
    /// Several trials per case (head trials, baseline trials and per-case
    /// history): the stratified permutation test, every arrangement counted.
    ExactStratified,
    /// The stratified permutation test with random arrangements.
    MonteCarloStratified,
}

impl TestName {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ExactSignFlip => "exact sign-flip",
            Self::MonteCarloSignFlip => "Monte Carlo sign-flip",
            Self::NoVariation => "no variation",
            Self::ExactStratified => "exact stratified permutation",
            Self::MonteCarloStratified => "Monte Carlo stratified permutation",
        }
    }

    /// Whether the p-value is a Monte Carlo estimate (its floor is `1/(B+1)`).
    pub fn is_monte_carlo(self) -> bool {
        matches!(self, Self::MonteCarloSignFlip | Self::MonteCarloStratified)
    }
}

/// Paired cases without a value, per run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Missing {
    pub head: usize,
    pub base: usize,
}

impl Missing {
    pub fn is_none(&self) -> bool {
        self.head == 0 && self.base == 0
    }
}

/// The families Benjamini–Hochberg runs over, and the significance level of the tier.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Family {
    /// Testable metrics that can fail the gate (severity at or above `fail_on`): the family
    /// whose q-values decide the verdict.
    pub size: usize,
    /// Other testable metrics: their own family, reported, never failing the gate.
    pub informational: usize,
    /// Metrics left out: no variation, or a smallest achievable p above α.
    pub untestable: usize,
    /// Metrics with fewer than `min_cases` pairs.
    pub insufficient: usize,
    /// The level this tier tests at (α, or its share under progressive α-spending).
    pub alpha: f64,
    /// How `alpha` was arrived at.
    pub alpha_note: String,
}

/// How well one checkpoint was covered in the head run of a suite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointCoverage {
    pub suite: String,
    pub id: String,
    pub severity: Severity,
    /// PASS, PARTIAL or FAIL.
    pub decided: usize,
    /// N/A because nothing was to be checked (trigger absent, scoped out).
    pub vacuous: usize,
    /// N/A because it could not be checked (no judge, judge error, no evidence, …).
    pub not_evaluated: usize,
    pub blocked: usize,
    /// The most common reason it was not decided, when it never was.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Decided in no case while something kept it from being checked, or a
    /// [`CoverageChange`] that hides a result from the comparison: the gate cannot vouch
    /// for it.
    pub unevaluated: bool,
    /// The checkpoint was checked on one side only: decided in some baseline case and in no
    /// head case (its trigger never happened, e.g. a tool renamed), or the reverse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<CoverageChange>,
}

/// A gating checkpoint checked on one side of the comparison only (see
/// [`CheckpointCoverage::change`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoverageChange {
    pub kind: CoverageChangeKind,
    /// Baseline cases where it was decided (PASS, PARTIAL or FAIL).
    pub base_decided: usize,
    /// Head cases where it was decided, and of those, how many did not pass.
    pub head_decided: usize,
    pub head_not_passed: usize,
    /// Listed in the suite's `gates.may_be_vacuous`: reported, never failing.
    pub allowed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoverageChangeKind {
    /// Decided in some baseline case, vacuous in every head case.
    NoLongerChecked,
    /// Vacuous in every baseline case, decided in some head case.
    NewlyChecked,
}

impl CheckpointCoverage {
    /// Why an unevaluated checkpoint without a coverage change is unevaluated: `was
    /// evaluated in no case: …`, or `could not be evaluated in some case: …` when other
    /// cases decided it.
    pub fn unevaluated_sentence(&self, reason: &str) -> String {
        if self.decided == 0 {
            format!("was evaluated in no case: {reason}")
        } else {
            format!("could not be evaluated in some case: {reason}")
        }
    }
}

impl CoverageChange {
    /// Whether it hides something from the comparison: a checkpoint no longer checked, or
    /// newly checked and not passed where the baseline has nothing to compare with.
    pub fn hides_a_result(&self) -> bool {
        !self.allowed
            && match self.kind {
                CoverageChangeKind::NoLongerChecked => true,
                CoverageChangeKind::NewlyChecked => self.head_not_passed > 0,
            }
    }

    /// One sentence in plain words, after "checkpoint `ID` (severity) ".
    pub fn sentence(&self) -> String {
        let cases = |n: usize| {
            if n == 1 {
                "1 case".to_owned()
            } else {
                format!("{n} cases")
            }
        };
        match self.kind {
            CoverageChangeKind::NoLongerChecked => format!(
                "was checked in {} of the baseline and in no case of this run: what triggers it never happened (a renamed tool or event?), so it no longer protects anything",
                cases(self.base_decided)
            ),
            CoverageChangeKind::NewlyChecked if self.head_not_passed > 0 => format!(
                "applied in no baseline case and now applies in {}, failing in {}: the baseline has nothing to compare it with",
                cases(self.head_decided),
                self.head_not_passed
            ),
            CoverageChangeKind::NewlyChecked => format!(
                "applied in no baseline case and now applies in {}, passing in all",
                cases(self.head_decided)
            ),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SigmaBandOut {
    pub mean: f64,
    pub sd: f64,
    pub lower: f64,
    pub upper: f64,
    pub points: usize,
    /// The head run's suite mean compared with the band.
    pub head_mean: f64,
    /// Whether the head mean lies outside the band on the worse side.
    pub fired: bool,
}

/// What moved, for a regression (DESIGN §8 "Localization").
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Localization {
    /// For `checkpoint:<id>` metrics: the checkpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<CheckpointRef>,
    /// Checkpoints whose pass rate dropped most (for suite-level metrics).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checkpoints_moved: Vec<Moved>,
    /// Step types and workflow steps whose scores dropped most.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps_moved: Vec<Moved>,
    /// Cases that got worse on this metric, worst first (at most 10).
    pub flipped_cases: Vec<FlippedCase>,
    /// The most common root-cause step among newly failing cases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_cause: Option<RootCauseRef>,
    /// Every case that got worse, when each of them is flaky in its earlier trials (on this
    /// metric; for a metric that is not pass/fail, on any): the change may be their noise.
    /// Information only: the status is the test's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub carried_by_flaky: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointRef {
    pub id: String,
    pub instruction: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Moved {
    pub metric: String,
    pub base_mean: f64,
    pub head_mean: f64,
    pub delta: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlippedCase {
    pub case: String,
    pub base: f64,
    pub head: f64,
    /// For checkpoint metrics: the head verdict's notes; for trace-judge metrics
    /// (`gpa:<dimension>`): the head score's rationale.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// For trace-judge metrics: the spans the head score cites.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cited_spans: Vec<String>,
    /// For a pass/fail metric with several head trials: how they went.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_outcomes: Option<Outcomes>,
    /// The case's earlier outcomes (the baseline's trials and its per-case history), when
    /// there are more than one: on this metric when it is pass/fail, else on the case's
    /// flakiest pass/fail metric when the case is flaky.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<MetricOutcomes>,
}

/// Pass/fail outcomes of one case on one pass/fail metric (`task_success`, a checkpoint)
/// over several trials: a trial passes when its value is 1 (a checkpoint's PASS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Outcomes {
    pub passed: usize,
    pub trials: usize,
}

impl Outcomes {
    /// The trials disagree.
    pub fn is_flaky(self) -> bool {
        self.passed > 0 && self.passed < self.trials
    }

    pub fn failed(self) -> usize {
        self.trials - self.passed
    }

    /// How far from stable: the minority's share of the trials (0 stable, ½ a coin flip).
    pub fn flakiness(self) -> f64 {
        if self.trials == 0 {
            0.0
        } else {
            self.passed.min(self.failed()) as f64 / self.trials as f64
        }
    }
}

/// [`Outcomes`] of a named metric.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetricOutcomes {
    pub metric: String,
    #[serde(flatten)]
    pub outcomes: Outcomes,
}

/// Which cases of a suite are flaky, from their earlier trials.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteFlakiness {
    pub suite: String,
    /// Cases with more than one earlier trial of some pass/fail metric.
    pub cases: usize,
    /// History updates whose per-case outcomes were pooled with the baseline's (same spec
    /// and config tags); 0 when the baseline's own trials were all there was.
    pub history_points: usize,
    /// The most earlier trials any case has of one metric.
    pub max_trials: usize,
    /// Cases whose earlier trials disagree on some pass/fail metric, flakiest first.
    pub flaky: Vec<FlakyCase>,
}

/// One flaky case: the metrics its earlier trials disagree on, flakiest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlakyCase {
    pub case: String,
    pub metrics: Vec<MetricOutcomes>,
}

impl FlakyCase {
    /// The flakiness of its flakiest metric.
    pub fn flakiness(&self) -> f64 {
        self.metrics
            .iter()
            .map(|m| m.outcomes.flakiness())
            .fold(0.0, f64::max)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootCauseRef {
    /// `TYPE name`, e.g. `EXEC lookup_account`.
    pub step: String,
    /// Newly failing cases whose root cause is this step.
    pub cases: usize,
    pub example_case: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteBreach {
    pub suite: String,
    #[serde(flatten)]
    pub breach: AbsoluteBreach,
    /// Whether this breach fails the gate at `fail_on`.
    pub fails: bool,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SuitePairing {
    pub suite: String,
    pub baseline_git_sha: Option<String>,
    pub baseline_updated_at: Option<String>,
    pub history_points: usize,
    pub paired_cases: usize,
    /// In the head run only.
    pub new_cases: Vec<String>,
    /// In the baseline only.
    pub removed_cases: Vec<String>,
    pub new_checkpoints: Vec<String>,
    pub removed_checkpoints: Vec<String>,
    /// Same id, different instruction: not compared (IDs are immutable).
    pub changed_checkpoints: Vec<String>,
    pub spec_changed: bool,
    /// Config tags that differ: tag → [base, head].
    pub config_changes: BTreeMap<String, [Option<String>; 2]>,
    /// Head cases that did not complete (status ≠ ok).
    pub failed_cases: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareSettings {
    pub resamples: u32,
    pub seed: u64,
    pub alpha: f64,
    pub fdr: bool,
    pub min_cases: usize,
    pub history_window: usize,
    pub k_sigma: f64,
    /// `gates.unevaluated`: whether an unevaluated checkpoint fails (`fail`) or warns.
    #[serde(default)]
    pub unevaluated: UnevaluatedPolicy,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorstCase {
    pub suite: String,
    pub case: String,
    pub metric: String,
    pub mermaid: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbsoluteBreach {
    pub metric: String,
    /// The suite mean, or `None` when the metric had no value at all.
    pub value: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    pub severity: Severity,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    Worktree,
    Git,
}

/// Where the baseline came from, for the compare report and the comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceInfo {
    pub kind: SourceKind,
    /// The revision read (`--baseline-ref`, or the PR's base sha).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rev: Option<String>,
    /// Why this source was used: `--baseline-ref`, `pull request base`, `default`.
    pub chosen_by: String,
    /// Baseline files (repository paths) that the working tree changes
    /// relative to `rev`: a pull request that edits `baselines/`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edited: Vec<String>,
}

/// A head case whose trace could not be read: missing, empty or unparsable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnreadableCase {
    pub suite: String,
    pub case: String,
    pub trial: u32,
    pub status: crate::model::run::CaseStatus,
    /// The reader's message (with file and line where it has them).
    pub message: String,
    /// Whether it fails the gate (`gates.unevaluated: fail`).
    pub fails: bool,
}

/// A gating metric that got worse in every case that changed, in too few cases for the test
/// to reach α.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inconclusive {
    pub suite: String,
    pub metric: String,
    pub severity: Severity,
    /// Paired cases.
    pub n: usize,
    /// The cases that got worse (all the cases that changed), worst first.
    pub cases: Vec<String>,
    /// Changed cases, all in the same direction, that the test needs to reach α.
    pub needed_changed: usize,
    /// Paired cases a suite would need to see that many at the rate observed here.
    pub cases_needed: usize,
    /// `gates.min_cases`: below it no metric is tested.
    pub min_cases: usize,
    /// Even had every paired case got worse, the test could not have reached α: the suite
    /// is too small to decide this metric at any effect.
    #[serde(default)]
    pub undecidable: bool,
    /// More than half of the paired cases got worse.
    #[serde(default)]
    pub majority_worse: bool,
    /// `gates.inconclusive` as it applied.
    #[serde(default)]
    pub policy: InconclusivePolicy,
    /// Whether it fails the gate: `fail`, or `auto` and undecidable.
    pub fails: bool,
}

impl Inconclusive {
    /// Why it does not block the build, in words (empty when it does).
    pub fn not_blocking(&self) -> &'static str {
        match (self.fails, self.policy) {
            (true, _) => "",
            (false, InconclusivePolicy::Warn) => "`gates.inconclusive: warn`: not blocking",
            (false, _) => {
                "not blocking: a minority of the cases got worse and the suite can decide a larger change; `gates.inconclusive: fail` blocks this too"
            }
        }
    }
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}
