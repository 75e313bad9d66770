//! Pairing a head run with its baseline by case id, and the per-metric
//! values of the paired cases.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::compare::SuitePairing;
use crate::model::metric::{case_trial_values, trial_mean};
use crate::model::run::{CaseStatus, RunReport};

/// Per-case metric values of both runs, restricted to paired cases.
#[derive(Debug, Clone, Default)]
pub(crate) struct Paired {
    /// Paired case ids in head order.
    pub cases: Vec<String>,
    /// Each case's value of every metric (its mean over trials).
    pub base: BTreeMap<String, BTreeMap<String, f64>>,
    pub head: BTreeMap<String, BTreeMap<String, f64>>,
    /// Each case's per-trial values of every metric (one value with one trial); the engine
    /// moves the baseline's into [`Paired::baseline_trials`] with the per-case history.
    pub base_trials: BTreeMap<String, BTreeMap<String, Vec<f64>>>,
    pub head_trials: BTreeMap<String, BTreeMap<String, Vec<f64>>>,
    /// Every baseline trial of every case and metric and the history lines pooled
    /// ([`super::trials::baseline_trials`]); set by the engine.
    pub baseline_trials: (crate::baseline::model::CaseValues, usize),
    /// Every metric name seen in either run, minus excluded checkpoints.
    pub metrics: BTreeSet<String>,
    pub pairing: SuitePairing,
    /// Judge-fed metrics whose paired cases judge coverage narrowed
    /// ([`super::judge_coverage::align`]).
    pub judge_gaps: BTreeMap<String, super::judge_coverage::JudgeGap>,
}

impl Paired {
    /// `(case, base, head)` for every paired case where `metric` is defined in both runs.
    pub(crate) fn values(&self, metric: &str) -> Vec<(&str, f64, f64)> {
        self.cases
            .iter()
            .filter_map(|c| {
                let b = self.base.get(c)?.get(metric)?;
                let h = self.head.get(c)?.get(metric)?;
                Some((c.as_str(), *b, *h))
            })
            .collect()
    }
}

pub(crate) fn pair(suite: &str, head: &RunReport, base: &RunReport) -> Paired {
    let base_ids: BTreeSet<&str> = base.cases.iter().map(|c| c.id.as_str()).collect();
    let head_ids: BTreeSet<&str> = head.cases.iter().map(|c| c.id.as_str()).collect();
    let cases: Vec<String> = unique(
        head.cases
            .iter()
            .filter(|c| base_ids.contains(c.id.as_str()))
            .map(|c| c.id.clone()),
    );

    let base_cp: BTreeMap<&str, &str> = base
        .checkpoint_catalog
        .iter()
        .map(|c| (c.id.as_str(), c.instruction.as_str()))
        .collect();
    let head_cp: BTreeMap<&str, &str> = head
        .checkpoint_catalog
        .iter()
        .map(|c| (c.id.as_str(), c.instruction.as_str()))
        .collect();
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let changed: Vec<String> = head_cp
        .iter()
        .filter(|(id, text)| base_cp.get(*id).is_some_and(|old| norm(old) != norm(text)))
        .map(|(id, _)| (*id).to_owned())
        .collect();
    let excluded: BTreeSet<String> = changed
        .iter()
        .map(|id| format!("checkpoint:{id}"))
        .collect();

    let paired: BTreeSet<&str> = cases.iter().map(String::as_str).collect();
    let pick = |r: &RunReport| {
        let mut means = BTreeMap::new();
        let mut trials = BTreeMap::new();
        for (id, mut values) in case_trial_values(&r.cases) {
            if !paired.contains(id.as_str()) {
                continue;
            }
            values.retain(|k, _| !excluded.contains(k));
            let m: BTreeMap<String, f64> = values
                .iter()
                .map(|(k, v)| (k.clone(), trial_mean(v)))
                .collect();
            means.insert(id.clone(), m);
            trials.insert(id, values);
        }
        (means, trials)
    };
    let ((base_values, base_trials), (head_values, head_trials)) =
        rayon::join(|| pick(base), || pick(head));
    let metrics: BTreeSet<String> = base_values
        .values()
        .chain(head_values.values())
        .flat_map(|m| m.keys().cloned())
        .collect();

    let mut config_changes = BTreeMap::new();
    for key in base.config_tags.keys().chain(head.config_tags.keys()) {
        let (b, h) = (base.config_tags.get(key), head.config_tags.get(key));
        if b != h {
            config_changes.insert(key.clone(), [b.cloned(), h.cloned()]);
        }
    }
    let pairing = SuitePairing {
        suite: suite.to_owned(),
        paired_cases: cases.len(),
        new_cases: unique(
            head.cases
                .iter()
                .filter(|c| !base_ids.contains(c.id.as_str()))
                .map(|c| c.id.clone()),
        ),
        removed_cases: unique(
            base.cases
                .iter()
                .filter(|c| !head_ids.contains(c.id.as_str()))
                .map(|c| c.id.clone()),
        ),
        new_checkpoints: head_cp
            .keys()
            .filter(|id| !base_cp.contains_key(*id))
            .map(|s| (*s).to_owned())
            .collect(),
        removed_checkpoints: base_cp
            .keys()
            .filter(|id| !head_cp.contains_key(*id))
            .map(|s| (*s).to_owned())
            .collect(),
        changed_checkpoints: changed,
        spec_changed: head.spec_hash != base.spec_hash,
        config_changes,
        failed_cases: unique(
            head.cases
                .iter()
                .filter(|c| c.status != CaseStatus::Ok)
                .map(|c| c.id.clone()),
        ),
        ..SuitePairing::default()
    };
    let mut paired = Paired {
        cases,
        base: base_values,
        head: head_values,
        base_trials,
        head_trials,
        baseline_trials: Default::default(),
        metrics,
        pairing,
        judge_gaps: BTreeMap::new(),
    };
    super::judge_coverage::align(&mut paired, head, base);
    paired
}

/// The ids in first-seen order, each once (a case with several trials has
/// one report per trial).
fn unique(ids: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    ids.filter(|id| seen.insert(id.clone())).collect()
}
