//! Phase 1 of a compare: for every metric of every suite, the paired
//! bootstrap and the historical 2σ band. Pure: reports in, numbers out.

use std::collections::BTreeMap;

use crate::baseline::model::{BaselineMeta, HistoryLine};
use crate::compare::model::{Direction, SigmaBandOut};
use crate::compare::pairing::{Paired, pair};
use crate::report::metrics::higher_is_better;
use crate::report::model::RunReport;
use crate::spec::model::{FailOn, GatesSpec, Severity};
use crate::stats::{
    BootstrapConfig, PairedBootstrap, SigmaOutcome, fires, minimum_detectable_effect,
    paired_bootstrap_many, sigma_band,
};

/// Defaults of `gates:` (DESIGN §8).
pub const DEFAULT_ALPHA: f64 = 0.05;
pub const DEFAULT_MIN_CASES: usize = 5;
pub const DEFAULT_HISTORY_WINDOW: usize = 20;
pub const K_SIGMA: f64 = 2.0;

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

    /// Severity of a metric: the checkpoint's for `checkpoint:<id>`, else `gates.metrics`, else a default.
    pub fn severity(&self, metric: &str) -> Severity {
        if let Some(s) = self.gates.metrics.get(metric).and_then(|g| g.severity) {
            return s;
        }
        if let Some(id) = metric.strip_prefix("checkpoint:") {
            return self
                .checkpoint_severity
                .get(id)
                .copied()
                .unwrap_or(Severity::Medium);
        }
        default_severity(metric)
    }

    pub fn min_effect(&self, metric: &str) -> Option<f64> {
        self.gates.metrics.get(metric).and_then(|g| g.min_effect)
    }
}

/// Severities of metrics the suite's `gates.metrics` does not name.
pub fn default_severity(metric: &str) -> Severity {
    match metric {
        "compliance_percent" | "task_success" => Severity::High,
        "workflow_quality" => Severity::Medium,
        m if m.starts_with("step_type:") || m.starts_with("step:") => Severity::Medium,
        _ => Severity::Low,
    }
}

/// Raw statistics of one metric, before multiple-comparison correction.
#[derive(Debug, Clone)]
pub struct MetricStats {
    pub suite_index: usize,
    pub name: String,
    pub direction: Direction,
    pub severity: Severity,
    pub n: usize,
    pub base_mean: Option<f64>,
    pub head_mean: Option<f64>,
    /// Oriented mean difference (negative = worse).
    pub oriented_delta: Option<f64>,
    pub bootstrap: Option<PairedBootstrap>,
    pub sigma: Option<SigmaBandOut>,
    pub sigma_note: String,
    pub min_effect: Option<f64>,
    pub mde: Option<f64>,
    pub alpha: f64,
    pub min_cases: usize,
}

/// Phase 1 for one suite. Returns the pairing and the stats of every metric.
pub fn suite_stats(
    index: usize,
    input: &SuiteInput<'_>,
    resamples: u32,
    seed: u64,
) -> (Paired, Vec<MetricStats>) {
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
    let cfg = BootstrapConfig {
        resamples,
        confidence: 0.95,
        seed,
    };
    let names: Vec<String> = paired.metrics.iter().cloned().collect();
    let keys: Vec<String> = names
        .iter()
        .map(|n| format!("{}/{n}", input.suite))
        .collect();
    let diffs: Vec<Vec<f64>> = names
        .iter()
        .map(|name| {
            let higher = higher_is_better(name);
            paired
                .values(name)
                .into_iter()
                .map(|(_, b, h)| if higher { h - b } else { b - h })
                .collect()
        })
        .collect();
    let min_cases = input.min_cases();
    // Only metrics with enough pairs are tested (the rest are insufficient data).
    let items: Vec<(&str, &[f64])> = keys
        .iter()
        .zip(&diffs)
        .filter(|(_, d)| d.len() >= min_cases)
        .map(|(k, d)| (k.as_str(), d.as_slice()))
        .collect();
    let mut results = paired_bootstrap_many(&items, &cfg).into_iter();
    let stats = names
        .iter()
        .zip(&diffs)
        .map(|(name, d)| {
            let higher = higher_is_better(name);
            let values = paired.values(name);
            let n = values.len();
            let mean = |f: fn(&(&str, f64, f64)) -> f64| {
                (n > 0).then(|| values.iter().map(f).sum::<f64>() / n as f64)
            };
            let bootstrap = if d.len() >= min_cases {
                results.next().flatten()
            } else {
                None
            };
            let (sigma, sigma_note) = sigma_leg(input, name, higher);
            MetricStats {
                suite_index: index,
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
                oriented_delta: (n > 0).then(|| d.iter().sum::<f64>() / n as f64),
                mde: bootstrap
                    .and_then(|b| b.sd_diff)
                    .and_then(|sd| minimum_detectable_effect(n, sd, input.alpha())),
                bootstrap,
                sigma,
                sigma_note,
                min_effect: input.min_effect(name),
                alpha: input.alpha(),
                min_cases,
            }
        })
        .collect();
    (paired, stats)
}

/// The 2σ leg: the head run's suite mean against the band of the last K
/// baseline suite means.
fn sigma_leg(input: &SuiteInput<'_>, name: &str, higher: bool) -> (Option<SigmaBandOut>, String) {
    if !input.use_sigma {
        return (
            None,
            "not used on the smoke tier (history holds full-suite means)".into(),
        );
    }
    let history: Vec<f64> = input
        .history
        .iter()
        .filter_map(|h| h.metrics.get(name).copied())
        .collect();
    let Some(head_mean) = input.head.aggregate.metrics.get(name).copied() else {
        return (None, "no head value".into());
    };
    match sigma_band(&history, input.history_window(), K_SIGMA) {
        Ok(SigmaOutcome::Available(band)) => {
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
            (
                Some(out),
                if fired {
                    "outside the 2σ band".into()
                } else {
                    "within the 2σ band".into()
                },
            )
        }
        Ok(SigmaOutcome::Unavailable { points }) => (
            None,
            format!(
                "unavailable: {points} history point{} (needs 5)",
                if points == 1 { "" } else { "s" }
            ),
        ),
        Err(e) => (None, format!("unavailable: {e}")),
    }
}
