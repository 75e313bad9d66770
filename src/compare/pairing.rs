//! Pairing a head run with its baseline by case id, and the per-metric
//! values of the paired cases.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::compare::columns::{Column, Columns, RunColumns};
use crate::compare::trials::BaselineTrials;
use crate::model::compare::SuitePairing;
use crate::model::run::{CaseStatus, RunReport};

/// Per-case metric values of both runs, restricted to paired cases.
#[derive(Debug, Clone, Default)]
pub(crate) struct Paired {
    /// Paired case ids in head order; paired case `c` is the `c`-th.
    pub cases: Vec<String>,
    /// Every metric name defined in a paired case of either run, minus excluded checkpoints,
    /// ascending.
    pub metrics: Vec<String>,
    /// Each run's cases and the trials of every metric (every case of the run).
    base_run: RunColumns,
    head_run: RunColumns,
    /// Paired case `c` is case `base_of[c]` of the baseline run and `head_of[c]` of the head.
    base_of: Vec<usize>,
    head_of: Vec<usize>,
    /// Per metric of [`Paired::metrics`]: its column in the baseline run and in the head.
    metric_columns: Vec<(Option<usize>, Option<usize>)>,
    /// The baseline run's columns as recorded, kept when [`Paired::replace_trials`] edits
    /// `base_run` (the 2σ leg reads the run as recorded).
    base_recorded: Option<Columns>,
    /// Changed checkpoints' metrics, left out of the comparison.
    excluded: BTreeSet<String>,
    /// `(metric, paired case)` whose baseline trials judge coverage edited
    /// ([`Paired::replace_trials`]): compared on the run's own trials only, since a history
    /// line's were not put on the head's footing.
    aligned: BTreeSet<(String, usize)>,
    /// Every baseline trial of every paired case and metric and the history lines pooled
    /// ([`super::trials::pooled_trials`]); set by the engine.
    pub baseline: BaselineTrials,
    pub pairing: SuitePairing,
    /// Judge-fed metrics whose paired cases judge coverage narrowed
    /// ([`super::judge_coverage::align`]).
    pub judge_gaps: BTreeMap<String, super::judge_coverage::JudgeGap>,
}

impl Paired {
    /// The index of `metric` in [`Paired::metrics`].
    pub(crate) fn metric_index(&self, metric: &str) -> Option<usize> {
        self.metrics
            .binary_search_by(|m| m.as_str().cmp(metric))
            .ok()
    }

    /// The index of case `id` in [`Paired::cases`].
    pub(crate) fn case_index(&self, id: &str) -> Option<usize> {
        self.cases.iter().position(|c| c == id)
    }

    fn head_column(&self, metric: usize) -> Option<&Column> {
        let (_, head) = self.metric_columns[metric];
        head.map(|i| self.head_run.columns.column(i))
    }

    /// The head's trials of paired case `case` on metric `metric` (an index into
    /// [`Paired::metrics`]); empty where the metric is not defined.
    pub(crate) fn head_trials(&self, metric: usize, case: usize) -> &[f64] {
        self.head_column(metric)
            .map_or(&[], |c| c.trials(self.head_of[case]))
    }

    /// Replaces paired case `case`'s trials of `metric` on one side (`base` or the head) by
    /// `trials` (none: the metric is no longer defined there); true when it had some. Only
    /// judge coverage edits the values ([`super::judge_coverage::align`]).
    pub(crate) fn replace_trials(
        &mut self,
        base: bool,
        metric: &str,
        case: usize,
        trials: &[f64],
    ) -> bool {
        let (run, row) = if base {
            if self.base_recorded.is_none() {
                self.base_recorded = Some(self.base_run.columns.clone());
            }
            self.aligned.insert((metric.to_owned(), case));
            (&mut self.base_run, self.base_of[case])
        } else {
            (&mut self.head_run, self.head_of[case])
        };
        let (rows, before) = (run.ids.len(), run.columns.len());
        let had = run.columns.replace(metric, row, rows, trials);
        // A column added shifts the indices after it.
        if run.columns.len() != before {
            self.metric_columns = metric_columns(&self.metrics, &self.base_run, &self.head_run);
        }
        had
    }

    /// `(case, base, head)` for every paired case where `metric` has head trials and baseline
    /// trials, each value the case's mean over its trials. The baseline's are every trial the
    /// comparison uses ([`Paired::baseline`]: the pooled history's, else the baseline run's
    /// own), so the cases counted, the means and the cases that got worse are those the test
    /// sees.
    pub(crate) fn values(&self, metric: &str) -> Vec<(&str, f64, f64)> {
        let Some(i) = self.metric_index(metric) else {
            return Vec::new();
        };
        let (Some(base), Some(head)) = (self.baseline.columns.get(metric), self.head_column(i))
        else {
            return Vec::new();
        };
        self.cases
            .iter()
            .enumerate()
            .filter_map(|(c, id)| {
                let b = base.mean(c)?;
                let h = head.mean(self.head_of[c])?;
                Some((id.as_str(), b, h))
            })
            .collect()
    }

    /// Puts back the run's own trials (as judge coverage left them) where it edited the
    /// baseline's: pooled history there would compare judged answers with unjudged ones.
    pub(crate) fn keep_aligned_own(&self, baseline: &mut BaselineTrials) {
        for (metric, case) in &self.aligned {
            let own = self
                .base_run
                .columns
                .get(metric)
                .map_or(&[][..], |c| c.trials(self.base_of[*case]));
            baseline
                .columns
                .replace(metric, *case, self.cases.len(), own);
        }
    }

    /// The baseline run's value of `metric` in every case of the run where it is defined
    /// (paired or not, excluded or not), in the run's case order.
    pub(crate) fn base_run_values(&self, metric: &str) -> Vec<f64> {
        self.base_recorded
            .as_ref()
            .unwrap_or(&self.base_run.columns)
            .get(metric)
            .map_or_else(Vec::new, |c| {
                (0..self.base_run.ids.len())
                    .filter_map(|i| c.mean(i))
                    .collect()
            })
    }

    /// The baseline run's own trials of every paired case, every metric but the excluded ones.
    pub(crate) fn own_baseline(&self) -> Columns {
        let named = self
            .base_run
            .columns
            .iter()
            .filter(|(name, _)| !self.excluded.contains(*name))
            .map(|(name, column)| {
                let own = Column::from_fn(self.cases.len(), |c| column.trials(self.base_of[c]));
                (name.to_owned(), own)
            })
            .collect();
        Columns::from_named(named)
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

    let (base_run, head_run) = rayon::join(
        || RunColumns::of(&base.cases),
        || RunColumns::of(&head.cases),
    );
    let position = |run: &RunColumns| -> Vec<usize> {
        let index: HashMap<&str, usize> = run
            .ids
            .iter()
            .enumerate()
            .map(|(i, id)| (id.as_str(), i))
            .collect();
        cases.iter().map(|id| index[id.as_str()]).collect()
    };
    let (base_of, head_of) = (position(&base_run), position(&head_run));
    // A metric is compared when some paired case defines it in either run.
    let mut names: BTreeSet<&str> = BTreeSet::new();
    for (run, of) in [(&base_run, &base_of), (&head_run, &head_of)] {
        for (name, column) in run.columns.iter() {
            if !excluded.contains(name) && of.iter().any(|&i| !column.trials(i).is_empty()) {
                names.insert(name);
            }
        }
    }
    let metrics: Vec<String> = names.into_iter().map(str::to_owned).collect();
    let metric_columns = metric_columns(&metrics, &base_run, &head_run);

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
        metrics,
        base_run,
        head_run,
        base_of,
        head_of,
        metric_columns,
        base_recorded: None,
        excluded,
        aligned: BTreeSet::new(),
        baseline: BaselineTrials::default(),
        pairing,
        judge_gaps: BTreeMap::new(),
    };
    super::judge_coverage::align(&mut paired, head, base);
    paired
}

/// Per metric: its column in the baseline run and in the head.
fn metric_columns(
    metrics: &[String],
    base: &RunColumns,
    head: &RunColumns,
) -> Vec<(Option<usize>, Option<usize>)> {
    metrics
        .iter()
        .map(|m| (base.columns.index(m), head.columns.index(m)))
        .collect()
}

/// The ids in first-seen order, each once (a case with several trials has
/// one report per trial).
fn unique(ids: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    ids.filter(|id| seen.insert(id.clone())).collect()
}
