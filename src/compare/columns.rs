//! The per-case values of a comparison, stored metric by metric: each run's cases are
//! numbered once, and one metric's trials over every case sit in one vector with case
//! offsets. Reading a metric over all cases (the tests, the means, the flakiness) is then a
//! walk over a slice instead of a lookup by case id and metric name per case.

use std::collections::HashMap;

use crate::model::metric::{MetricName, trial_mean, visit_case_metrics};
use crate::model::run::CaseReport;

/// One metric's trials over a list of cases: case `c`'s are `values[starts[c]..starts[c + 1]]`,
/// in trial order, and there are none where the metric is not defined.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Column {
    starts: Vec<usize>,
    values: Vec<f64>,
}

impl Column {
    /// A column with no case yet (filled by [`Column::extend`], closed by [`Column::finish`]).
    pub(crate) fn empty() -> Self {
        Self {
            starts: vec![0],
            values: Vec::new(),
        }
    }

    /// The column of `cases` cases whose trials are `trials(c)`.
    pub(crate) fn from_fn<'a>(cases: usize, mut trials: impl FnMut(usize) -> &'a [f64]) -> Self {
        let mut column = Self::empty();
        column.starts.reserve(cases);
        for c in 0..cases {
            column.values.extend_from_slice(trials(c));
            column.starts.push(column.values.len());
        }
        column
    }

    /// Case `case`'s trials (empty where the metric is not defined).
    pub(crate) fn trials(&self, case: usize) -> &[f64] {
        &self.values[self.starts[case]..self.starts[case + 1]]
    }

    /// Case `case`'s value: the mean of its trials ([`trial_mean`]); `None` where the metric is
    /// not defined.
    pub(crate) fn mean(&self, case: usize) -> Option<f64> {
        let trials = self.trials(case);
        (!trials.is_empty()).then(|| trial_mean(trials))
    }

    /// Appends trials of case `case`; cases come in ascending order.
    pub(crate) fn extend(&mut self, case: usize, values: &[f64]) {
        self.open(case);
        self.values.extend_from_slice(values);
    }

    /// Appends a trial of case `case`; cases come in ascending order.
    fn push(&mut self, case: usize, value: f64) {
        self.open(case);
        self.values.push(value);
    }

    /// Replaces the last trial appended.
    fn replace_last(&mut self, value: f64) {
        if let Some(last) = self.values.last_mut() {
            *last = value;
        }
    }

    /// Replaces case `case`'s trials by `trials` (none: the metric is no longer defined
    /// there); true when it had some.
    fn replace(&mut self, case: usize, trials: &[f64]) -> bool {
        let (start, end) = (self.starts[case], self.starts[case + 1]);
        self.values.splice(start..end, trials.iter().copied());
        let (old, new) = (end - start, trials.len());
        for s in &mut self.starts[case + 1..] {
            *s = *s + new - old;
        }
        old > 0
    }

    /// Closes the cases before `case`.
    fn open(&mut self, case: usize) {
        while self.starts.len() <= case {
            self.starts.push(self.values.len());
        }
    }

    /// Closes the column at `cases` cases.
    pub(crate) fn finish(&mut self, cases: usize) {
        while self.starts.len() <= cases {
            self.starts.push(self.values.len());
        }
    }
}

/// Named columns over one list of cases, names ascending (the order of a `BTreeMap` keyed by
/// them) and each once.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Columns {
    names: Vec<String>,
    columns: Vec<Column>,
}

impl Columns {
    /// From columns with distinct names, in any order.
    pub(crate) fn from_named(mut named: Vec<(String, Column)>) -> Self {
        named.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let (names, columns) = named.into_iter().unzip();
        Self { names, columns }
    }

    /// The index of `name`'s column.
    pub(crate) fn index(&self, name: &str) -> Option<usize> {
        self.names.binary_search_by(|n| n.as_str().cmp(name)).ok()
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Column> {
        self.index(name).map(|i| &self.columns[i])
    }

    /// How many columns there are.
    pub(crate) fn len(&self) -> usize {
        self.columns.len()
    }

    pub(crate) fn column(&self, index: usize) -> &Column {
        &self.columns[index]
    }

    /// Replaces case `case`'s trials of `name` by `trials` ([`Column::replace`]), adding the
    /// column (over `cases` cases) when there is none; true when the case had trials of it.
    pub(crate) fn replace(
        &mut self,
        name: &str,
        case: usize,
        cases: usize,
        trials: &[f64],
    ) -> bool {
        match self.names.binary_search_by(|n| n.as_str().cmp(name)) {
            Ok(i) => self.columns[i].replace(case, trials),
            Err(_) if trials.is_empty() => false,
            Err(i) => {
                let column = Column::from_fn(cases, |c| if c == case { trials } else { &[] });
                self.names.insert(i, name.to_owned());
                self.columns.insert(i, column);
                false
            }
        }
    }

    /// `(name, column)`, names ascending.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &Column)> {
        self.names.iter().map(String::as_str).zip(&self.columns)
    }
}

/// A run's cases, each once in first-seen order, and the trials of every metric of every case
/// ([`crate::model::metric::case_metrics`] of each trial, trials in trial order): the columnar form of
/// [`crate::model::metric::case_trial_values`].
#[derive(Debug, Clone, Default)]
pub(crate) struct RunColumns {
    pub ids: Vec<String>,
    pub columns: Columns,
}

impl RunColumns {
    pub(crate) fn of(cases: &[CaseReport]) -> Self {
        let mut order: Vec<&str> = Vec::new();
        let mut by_case: HashMap<&str, Vec<&CaseReport>> = HashMap::new();
        for c in cases {
            let trials = by_case.entry(c.id.as_str()).or_default();
            if trials.is_empty() {
                order.push(c.id.as_str());
            }
            trials.push(c);
        }
        let mut builder = Builder::default();
        for (i, id) in order.iter().enumerate() {
            let mut trials = by_case.remove(id).unwrap_or_default();
            trials.sort_by_key(|c| c.trial);
            for trial in trials {
                builder.trial += 1;
                visit_case_metrics(trial, |name, value| builder.add(i, name, value));
            }
        }
        let named = builder
            .named
            .into_iter()
            .map(|(name, mut column)| {
                column.finish(order.len());
                (name, column)
            })
            .collect();
        Self {
            ids: order.into_iter().map(str::to_owned).collect(),
            columns: Columns::from_named(named),
        }
    }
}

/// The columns of [`RunColumns::of`] in the making: metric name → column, checkpoints also by
/// their id (so that their names are not formatted per trial).
#[derive(Default)]
struct Builder<'a> {
    slots: HashMap<String, usize>,
    by_checkpoint: HashMap<&'a str, usize>,
    named: Vec<(String, Column)>,
    /// The trial being read (counting from 1) and, per column, the last trial it got a value of.
    trial: usize,
    last_trial: Vec<usize>,
}

impl<'a> Builder<'a> {
    /// Adds `value` of metric `name` to case `case`'s trial; a name given twice in a trial keeps
    /// its last value ([`crate::model::metric::case_metrics`]).
    fn add(&mut self, case: usize, name: MetricName<'a>, value: f64) {
        let slot = match name {
            MetricName::Checkpoint(id) => {
                if let Some(&slot) = self.by_checkpoint.get(id) {
                    slot
                } else {
                    let slot = self.slot(name.into_string());
                    self.by_checkpoint.insert(id, slot);
                    slot
                }
            }
            MetricName::Plain(ref plain) => match self.slots.get(plain.as_ref()) {
                Some(&slot) => slot,
                None => self.slot(name.into_string()),
            },
        };
        let column = &mut self.named[slot].1;
        if self.last_trial[slot] == self.trial {
            column.replace_last(value);
        } else {
            self.last_trial[slot] = self.trial;
            column.push(case, value);
        }
    }

    fn slot(&mut self, name: String) -> usize {
        *self.slots.entry(name).or_insert_with_key(|name| {
            self.named.push((name.clone(), Column::empty()));
            self.last_trial.push(0);
            self.named.len() - 1
        })
    }
}
