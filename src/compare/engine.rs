//! Phase 1 of a compare: for every metric of a suite, the paired numbers (means, Δ, the
//! sign-flip test, the bootstrap CI) and the historical 2σ band. Pure: reports in, numbers
//! out. No decision is taken here: statuses, the family and the verdict are in
//! [`super::decide`].

use std::collections::BTreeMap;

use rayon::prelude::*;

use crate::baseline::model::{BaselineMeta, HistoryLine};
use crate::compare::error::CompareError;
use crate::compare::history_pool::Pooling;
use crate::compare::pairing::{Paired, pair};
use crate::compare::trials::{
    FirstStage, RerunDrivers, StratifiedLeg, pooled_trials, stratified_leg,
};
use crate::model::StepMetrics;
use crate::model::compare::{
    Direction, MetricComparison, MetricStatus, Missing, SigmaBandOut, TestName,
};
use crate::model::metric::{higher_is_better, metric_domain};
use crate::model::metric_id::MetricId;
use crate::model::run::RunReport;
use crate::spec::gates::{DEFAULT_ALPHA, DEFAULT_HISTORY_WINDOW, DEFAULT_MIN_CASES};
use crate::spec::model::{FailOn, GatesSpec, Severity, UnevaluatedPolicy};
use crate::stats::{
    BootstrapConfig, DEFAULT_K_SIGMA, PairedTestKind, SigmaOutcome, fires,
    minimum_detectable_effect, paired_test_many, sample_sd, sigma_band,
};

/// Drop what a compare never reads of a baseline's report, once it is read:
/// every case's DAG edges and every step's per-metric sub-scores. Of a
/// baseline step a compare reads its type, name, score and schema step
/// (the step metrics), its root-cause mark ([`super::localize`]), its
/// scorer and judge gap ([`super::judge_coverage`]), and a failing step's
/// notes, taxonomy, agent and span (the insights of cases paired on one
/// side only); nothing it writes holds a baseline case. On a large trace
/// the two were a sixth of the baseline, held through the head's
/// evaluation (issue 25).
pub fn shed_unread(report: &mut RunReport) {
    for case in &mut report.cases {
        case.dag.edges = Vec::new();
        for step in &mut case.steps {
            step.metrics = StepMetrics::default();
        }
    }
}

/// Severity of a metric: `gates.metrics`' for it, else the checkpoint's (`checkpoint_severity`
/// of its id) for `checkpoint:<id>`, else the metric's default.
pub(crate) fn metric_severity(
    gates: &GatesSpec,
    checkpoint_severity: impl Fn(&str) -> Option<Severity>,
    metric: &str,
) -> Severity {
    if let Some(s) = gates.metrics.get(metric).and_then(|g| g.severity) {
        return s;
    }
    let id = MetricId::parse(metric);
    if let Some(id) = id.checkpoint_id() {
        return checkpoint_severity(id).unwrap_or(Severity::Medium);
    }
    id.default_severity()
}

/// Everything compare needs about one suite.
pub struct SuiteInput<'a> {
    pub suite: &'a str,
    pub head: &'a RunReport,
    pub base: &'a RunReport,
    pub history: &'a [HistoryLine],
    pub meta: &'a BaselineMeta,
    pub gates: &'a GatesSpec,
    /// `--fail-on` over the config over the suite's `gates.fail_on`.
    pub fail_on: FailOn,
    /// Checkpoint id → severity, from the suite spec.
    pub checkpoint_severity: BTreeMap<String, Severity>,
    /// False for the smoke tier: history holds full-tier means, so the band
    /// does not apply to a subset of cases.
    pub use_sigma: bool,
}

impl SuiteInput<'_> {
    pub fn alpha(&self) -> f64 {
        self.gates.alpha.unwrap_or(DEFAULT_ALPHA)
    }

    pub fn min_cases(&self) -> usize {
        self.gates.min_cases.unwrap_or(DEFAULT_MIN_CASES)
    }

    pub fn history_window(&self) -> usize {
        self.gates.history_window.unwrap_or(DEFAULT_HISTORY_WINDOW)
    }

    pub fn unevaluated(&self) -> UnevaluatedPolicy {
        self.gates.unevaluated.unwrap_or_default()
    }

    pub fn inconclusive(&self) -> crate::spec::model::InconclusivePolicy {
        self.gates.inconclusive.unwrap_or_default()
    }

    /// Severity of a metric: the checkpoint's for `checkpoint:<id>`, else `gates.metrics`, else a default.
    pub fn severity(&self, metric: &str) -> Severity {
        metric_severity(
            self.gates,
            |id| self.checkpoint_severity.get(id).copied(),
            metric,
        )
    }

    /// The metrics whose disagreement with the baseline re-runs a case in an adaptive run.
    pub(crate) fn rerun_drivers(&self) -> RerunDrivers {
        RerunDrivers::new(
            self.gates,
            self.checkpoint_severity
                .iter()
                .map(|(id, s)| (id.as_str(), *s)),
            self.fail_on,
        )
    }

    pub fn min_effect(&self, metric: &str) -> Option<f64> {
        self.gates.metrics.get(metric).and_then(|g| g.min_effect)
    }
}

/// Phase 1 for one suite: the pairing and one [`MetricComparison`] per metric, with every
/// number filled in and the status, q-value and localization left for [`super::decide`]
/// (status `unchanged`, or `insufficient_data` below `min_cases`). Monte Carlo p-values of
/// the stratified legs stop once certain to exceed `stop_above`.
pub(crate) fn suite_metrics(
    input: &SuiteInput<'_>,
    resamples: u32,
    seed: u64,
    stop_above: f64,
) -> Result<(Paired, Vec<MetricComparison>), CompareError> {
    let mut paired = pair(input.suite, input.head, input.base);
    paired
        .pairing
        .baseline_git_sha
        .clone_from(&input.meta.git_sha);
    paired
        .pairing
        .baseline_updated_at
        .clone_from(&input.meta.updated_at);
    paired.pairing.history_points = input.history.len();
    let cfg = BootstrapConfig::new(resamples, BootstrapConfig::DEFAULT_CONFIDENCE, seed).map_err(
        |source| CompareError::Stats {
            metric: format!("{}/*", input.suite),
            source,
        },
    )?;
    let mut baseline = pooled_trials(
        paired.own_baseline(),
        &paired.cases,
        input.history,
        input.meta,
        input.base,
        Pooling::of(input.gates),
    );
    paired.keep_aligned_own(&mut baseline);
    paired.baseline = baseline;
    let paired = paired;
    let names: &[String] = &paired.metrics;
    let keys: Vec<String> = names
        .iter()
        .map(|n| format!("{}/{n}", input.suite))
        .collect();
    // Each metric's paired values, once.
    let values: Vec<Vec<(&str, f64, f64)>> = names.iter().map(|n| paired.values(n)).collect();
    let diffs: Vec<Vec<f64>> = names
        .iter()
        .zip(&values)
        .map(|(name, values)| {
            let higher = higher_is_better(name);
            values
                .iter()
                .map(|(_, b, h)| if higher { h - b } else { b - h })
                .collect()
        })
        .collect();
    let min_cases = input.min_cases();
    // Only metrics with enough pairs are tested (the rest are insufficient data).
    let tested: Vec<usize> = (0..names.len())
        .filter(|&i| diffs[i].len() >= min_cases)
        .collect();
    let first = FirstStage::of(input.head);
    let drivers = input.rerun_drivers();
    // The stratified legs first, in parallel (each metric draws from its own stream).
    let strats = tested
        .par_iter()
        .map(|&i| {
            stratified_leg(
                &paired,
                first.as_ref().map(|f| (f, &drivers)),
                &names[i],
                &cfg,
                &keys[i],
                stop_above,
            )
            .map(|s| (i, s))
            .map_err(|source| CompareError::Stats {
                metric: keys[i].clone(),
                source,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let strats: BTreeMap<usize, StratifiedLeg> = strats
        .into_iter()
        .filter_map(|(i, s)| s.map(|s| (i, s)))
        .collect();
    // Today's paired test where no stratified leg applies (one trial on each side).
    let paired_only: Vec<usize> = tested
        .iter()
        .copied()
        .filter(|i| !strats.contains_key(i))
        .collect();
    let items: Vec<(&str, &[f64])> = paired_only
        .iter()
        .map(|&i| (keys[i].as_str(), diffs[i].as_slice()))
        .collect();
    let mut tests = BTreeMap::new();
    for (&i, result) in paired_only.iter().zip(paired_test_many(&items, &cfg)) {
        let test = result.map_err(|source| CompareError::Stats {
            metric: keys[i].clone(),
            source,
        })?;
        tests.insert(i, test);
    }
    let mut out = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let higher = higher_is_better(name);
        let values = &values[i];
        let n = values.len();
        let mean = |f: fn(&(&str, f64, f64)) -> f64| {
            (n > 0).then(|| values.iter().map(f).sum::<f64>() / n as f64)
        };
        let test = tests.get(&i);
        let orient = |v: f64| if higher { v } else { -v };
        let (sigma_band, sigma_note) =
            sigma_leg(input, name, higher, &paired.base_run_values(name))?;
        let strat = strats.get(&i).copied();
        let mut m = MetricComparison {
            suite: input.suite.to_owned(),
            name: name.clone(),
            direction: if higher {
                Direction::Higher
            } else {
                Direction::Lower
            },
            severity: input.severity(name),
            n,
            base_mean: mean(|v| v.1),
            head_mean: mean(|v| v.2),
            delta: (n > 0).then(|| orient(diffs[i].iter().sum::<f64>() / n as f64)),
            ci95: test.map(|t| {
                let (lo, hi) = (orient(t.ci_low), orient(t.ci_high));
                [lo.min(hi), lo.max(hi)]
            }),
            test: test.map(|t| match t.kind {
                PairedTestKind::NoVariation => TestName::NoVariation,
                PairedTestKind::ExactSignFlip => TestName::ExactSignFlip,
                PairedTestKind::MonteCarloSignFlip => TestName::MonteCarloSignFlip,
            }),
            test_note: String::new(),
            nonzero: test.map(|t| t.nonzero),
            min_p: test.map(|t| t.min_p),
            p_value: test.map(|t| t.p_value),
            q_value: None,
            missing: missing(&paired, name, i),
            sigma_band,
            sigma_note,
            judge_note: String::new(),
            min_effect: input.min_effect(name),
            mde: test
                .and_then(|t| t.sd_diff)
                .and_then(|sd| minimum_detectable_effect(n, sd, input.alpha())),
            status: if n < min_cases {
                MetricStatus::InsufficientData
            } else {
                MetricStatus::Unchanged
            },
            localization: None,
            trials: None,
        };
        // Several trials on a side: the stratified leg replaces the paired test.
        if let Some(s) = strat {
            m.base_mean = Some(s.base_mean);
            m.head_mean = Some(s.head_mean);
            m.delta = Some(s.head_mean - s.base_mean);
            m.ci95 = Some(s.ci);
            m.test = Some(s.test);
            m.nonzero = Some(s.used.informative);
            m.min_p = Some(s.min_p);
            m.p_value = Some(s.p_value);
            m.mde = None;
            m.trials = Some(s.used);
        }
        out.push(m);
    }
    Ok((paired, out))
}

/// Paired cases where metric `name` (`metric`, its index into [`Paired::metrics`]) has trials
/// on one side but not the other (the baseline's: those the comparison uses).
fn missing(paired: &Paired, name: &str, metric: usize) -> Missing {
    let mut m = Missing::default();
    let compared = paired.baseline.columns.get(name);
    for c in 0..paired.cases.len() {
        let base = compared.is_some_and(|column| !column.trials(c).is_empty());
        let head = !paired.head_trials(metric, c).is_empty();
        match (base, head) {
            (true, false) => m.head += 1,
            (false, true) => m.base += 1,
            _ => {}
        }
    }
    m
}

/// The 2σ leg: the head run's suite mean against the band of the last K baseline suite
/// means, with σ at least the standard error of the baseline's own suite mean.
fn sigma_leg(
    input: &SuiteInput<'_>,
    name: &str,
    higher: bool,
    base_values: &[f64],
) -> Result<(Option<SigmaBandOut>, String), CompareError> {
    if !input.use_sigma {
        return Ok((
            None,
            "not used on the smoke tier (history holds full-suite means)".into(),
        ));
    }
    let history: Vec<f64> = input
        .history
        .iter()
        .filter_map(|h| h.metrics.get(name).copied())
        .collect();
    let Some(head_mean) = input.head.aggregate.metrics.get(name).copied() else {
        return Ok((None, "unavailable: no head value".into()));
    };
    let se_floor = Some(base_values)
        .filter(|v| v.len() >= 2)
        .and_then(|v| sample_sd(v).map(|sd| sd / (v.len() as f64).sqrt()))
        .unwrap_or(0.0);
    let outcome = sigma_band(
        &history,
        input.history_window(),
        DEFAULT_K_SIGMA,
        se_floor,
        metric_domain(name),
    )
    .map_err(|source| CompareError::Stats {
        metric: format!("{}/{name} (history)", input.suite),
        source,
    })?;
    Ok(match outcome {
        SigmaOutcome::Available(band) => {
            let fired = fires(&band, head_mean, higher);
            let out = SigmaBandOut {
                mean: band.mean,
                sd: band.sd,
                lower: band.lower,
                upper: band.upper,
                points: band.points,
                head_mean,
                fired,
            };
            let note = if fired {
                "outside the 2σ band"
            } else {
                "within the 2σ band"
            };
            (Some(out), note.into())
        }
        SigmaOutcome::Unavailable(why) => (None, format!("unavailable: {why}")),
    })
}
