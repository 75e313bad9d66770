//! The columnar per-case store holds what the per-case maps hold: a run's trials
//! ([`case_trial_values`]) and the pooled baseline trials ([`baseline_trials`]).

use std::collections::BTreeMap;

use crate::baseline::model::{CaseValues, HistoryLine};
use crate::compare::columns::{Columns, RunColumns};
use crate::compare::history_pool::Pooling;
use crate::compare::trials::{baseline_trials, pooled_trials};
use crate::model::metric::case_trial_values;
use crate::model::run::{CaseReport, CheckpointState};
use crate::model::vocab::HistoryPooling;

use super::fixtures::{case, meta, report};

/// Trials out of order and interleaved across cases, a metric missing in some trials, a
/// checkpoint not decided in one trial (so undefined there) and given twice in another, a case
/// with one trial.
fn messy_cases() -> Vec<CaseReport> {
    let mut out = Vec::new();
    for (id, trial, pass) in [
        ("b", 2, true),
        ("a", 1, false),
        ("b", 0, false),
        ("c", 0, true),
        ("a", 0, true),
        ("b", 1, true),
    ] {
        let mut c = case(id, 80.0 + f64::from(trial), pass, 0.01, None);
        c.trial = trial;
        out.push(c);
    }
    out[1].scores.task_success = None;
    out[2].checkpoints[0].result = CheckpointState::NotApplicable;
    out[3].scores.cost_usd = None;
    // Two results for P1 in one trial: the last one stands.
    let mut twice = out[5].checkpoints[0].clone();
    twice.earned_weight = Some(0.25);
    out[5].checkpoints.push(twice);
    out
}

/// Every `(case, metric)` of `columns` over `ids` with trials, as the per-case maps hold them.
fn as_maps(ids: &[String], columns: &Columns) -> CaseValues {
    let mut out: CaseValues = BTreeMap::new();
    for (c, id) in ids.iter().enumerate() {
        for (name, column) in columns.iter() {
            let trials = column.trials(c);
            if !trials.is_empty() {
                out.entry(id.clone())
                    .or_default()
                    .insert(name.to_owned(), trials.to_vec());
            }
        }
    }
    out
}

/// `values` without the cases missing from `ids` and without empty entries.
fn restricted(values: &CaseValues, ids: &[String]) -> CaseValues {
    values
        .iter()
        .filter(|(id, _)| ids.contains(id))
        .map(|(id, metrics)| {
            let metrics: BTreeMap<String, Vec<f64>> = metrics
                .iter()
                .filter(|(_, v)| !v.is_empty())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            (id.clone(), metrics)
        })
        .filter(|(_, metrics)| !metrics.is_empty())
        .collect()
}

#[test]
fn run_columns_hold_each_cases_trials_in_trial_order() {
    let cases = messy_cases();
    let run = RunColumns::of(&cases);
    let expected = case_trial_values(&cases);
    let ids: Vec<&str> = expected.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(run.ids, ids, "first-seen order");
    let expected: CaseValues = expected.into_iter().collect();
    assert_eq!(as_maps(&run.ids, &run.columns), expected);
    let names: Vec<&str> = run.columns.iter().map(|(name, _)| name).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(names, sorted, "names ascending, each once");
    let task = run.columns.get("task_success").expect("task success");
    assert_eq!(task.trials(0), [0.0, 1.0, 1.0], "b: trials 0, 1, 2");
    assert_eq!(task.mean(1), Some(1.0), "a: its one trial with a value");
    let p1 = run.columns.get("checkpoint:P1").expect("P1");
    assert_eq!(
        p1.trials(0),
        [0.25, 1.0],
        "b: trial 0 was N/A, trial 1 gave 0.25 last"
    );
}

/// A history line of per-case values (case → metric → trials).
pub(super) fn line(tags: &[(&str, &str)], values: &[(&str, &str, &[f64])]) -> HistoryLine {
    let mut case_values: CaseValues = BTreeMap::new();
    for (case, metric, trials) in values {
        case_values
            .entry((*case).to_owned())
            .or_default()
            .insert((*metric).to_owned(), trials.to_vec());
    }
    HistoryLine {
        updated_at: None,
        git_sha: None,
        git_ref: None,
        spec_hash: "h".into(),
        cases: 3,
        config_tags: tags
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        metrics: BTreeMap::new(),
        update: None,
        case_values: Some(case_values),
    }
}

#[test]
fn pooled_trials_are_the_baseline_trials_of_each_case() {
    let base = report(messy_cases(), "Look up first");
    let mut meta = meta();
    meta.config_tags = [("model".to_owned(), "m".to_owned())].into();
    let same = [("model", "m")];
    let history = vec![
        // Too old for a window of 3 eligible lines.
        line(&same, &[("a", "task_success", &[9.0])]),
        line(
            &same,
            &[
                ("a", "task_success", &[0.0, 1.0]),
                ("b", "checkpoint:P1", &[]),
                ("d", "task_success", &[1.0]),
            ],
        ),
        // Another setup: never pooled.
        line(&[("model", "other")], &[("a", "cost_usd", &[7.0])]),
        line(
            &same,
            &[
                ("a", "task_success", &[1.0]),
                ("c", "checkpoint:P2", &[0.0, 1.0]),
            ],
        ),
        line(&same, &[("b", "cost_usd", &[0.5])]),
    ];
    let run = RunColumns::of(&base.cases);
    for (window, tags) in [(3, &meta), (1, &meta), (10, &meta)] {
        let pooling = Pooling {
            window,
            mode: HistoryPooling::SameTags,
        };
        let pooled = pooled_trials(
            run.columns.clone(),
            &run.ids,
            &history,
            tags,
            &base,
            pooling,
        );
        let (expected, lines) = baseline_trials(&base, &history, tags, pooling);
        assert_eq!(pooled.history_points, lines, "window {window}");
        assert_eq!(
            as_maps(&run.ids, &pooled.columns),
            restricted(&expected, &run.ids),
            "window {window}"
        );
    }
    // Without config tags nothing is pooled.
    let untagged = super::fixtures::meta();
    let pooling = Pooling {
        window: 3,
        mode: HistoryPooling::SameTags,
    };
    let pooled = pooled_trials(
        run.columns.clone(),
        &run.ids,
        &history,
        &untagged,
        &base,
        pooling,
    );
    assert_eq!(pooled.history_points, 0);
    assert_eq!(pooled.columns, run.columns);
}

/// Replacing one case's trials (what judge coverage does) changes that case only, as the
/// same edit on the per-case maps would.
#[test]
fn replacing_a_cases_trials_edits_that_case_only() {
    let cases = messy_cases();
    let mut run = RunColumns::of(&cases);
    let mut expected: CaseValues = case_trial_values(&cases).into_iter().collect();
    let rows = run.ids.len();
    let a = run.ids.iter().position(|id| id == "a").expect("a");
    let b = run.ids.iter().position(|id| id == "b").expect("b");

    // Longer, shorter, removed, and a column no case had.
    assert!(
        run.columns
            .replace("task_success", b, rows, &[1.0, 1.0, 1.0, 0.0])
    );
    assert!(run.columns.replace("checkpoint:P1", a, rows, &[0.5]));
    assert!(run.columns.replace("cost_usd", a, rows, &[]));
    assert!(
        !run.columns.replace("cost_usd", a, rows, &[]),
        "already gone"
    );
    assert!(!run.columns.replace("zz_new", b, rows, &[7.0]));
    assert!(!run.columns.replace("aa_none", b, rows, &[]));

    let edit = |m: &mut CaseValues, id: &str, name: &str, v: &[f64]| {
        let metrics = m.entry(id.to_owned()).or_default();
        if v.is_empty() {
            metrics.remove(name);
        } else {
            metrics.insert(name.to_owned(), v.to_vec());
        }
    };
    edit(&mut expected, "b", "task_success", &[1.0, 1.0, 1.0, 0.0]);
    edit(&mut expected, "a", "checkpoint:P1", &[0.5]);
    edit(&mut expected, "a", "cost_usd", &[]);
    edit(&mut expected, "b", "zz_new", &[7.0]);
    assert_eq!(
        as_maps(&run.ids, &run.columns),
        restricted(&expected, &run.ids)
    );
    assert_eq!(run.columns.index("aa_none"), None, "no column for nothing");
    let names: Vec<&str> = run.columns.iter().map(|(name, _)| name).collect();
    assert!(names.is_sorted(), "names stay ascending: {names:?}");
}
