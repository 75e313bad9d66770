//! The drift check on the history (`gates.history_pooling: drift_check`): a line of the same
//! spec is pooled per metric when its trials look like the baseline's own, refused when they do
//! not, and the runner and the compare read the same plan.

use std::collections::BTreeMap;

use crate::baseline::model::{CaseValues, HistoryLine};
use crate::compare::columns::RunColumns;
use crate::compare::history_pool::{Pooling, plan};
use crate::compare::trials::{baseline_trials, pooled_trials};
use crate::model::run::{CaseReport, RunReport};
use crate::model::vocab::HistoryPooling;

use super::fixtures::{case, meta, report};

/// 30 cases × 3 trials: cases 0–19 pass two trials of three (which two varies), cases 20–29
/// always fail; cost 0.01 × (case + 1) in every trial.
fn base() -> RunReport {
    let mut cases: Vec<CaseReport> = Vec::new();
    for i in 0..30_u32 {
        for t in 0..3_u32 {
            let pass = i < 20 && (i + t) % 3 != 0;
            let mut c = case(&format!("c{i:02}"), 90.0, pass, cost(i), None);
            c.trial = t;
            cases.push(c);
        }
    }
    report(cases, "Look up first")
}

fn cost(i: u32) -> f64 {
    0.01 * f64::from(i + 1)
}

/// A history line: per case, task success from `pass(case, trial)` over 3 trials and the
/// baseline's costs.
fn line(tags: &[(&str, &str)], spec_hash: &str, pass: impl Fn(u32, u32) -> bool) -> HistoryLine {
    let mut values: CaseValues = BTreeMap::new();
    for i in 0..30_u32 {
        let m = values.entry(format!("c{i:02}")).or_default();
        m.insert(
            "task_success".into(),
            (0..3).map(|t| f64::from(u8::from(pass(i, t)))).collect(),
        );
        m.insert("cost_usd".into(), vec![cost(i); 3]);
    }
    let mut out = super::columns::line(tags, &[]);
    out.spec_hash = spec_hash.into();
    out.case_values = Some(values);
    out
}

fn drift(window: usize) -> Pooling {
    Pooling {
        window,
        mode: HistoryPooling::DriftCheck,
    }
}

/// The same agent (another arrangement of the same outcomes), and an older agent that solved
/// every case (the ten always-failing ones too).
fn history() -> Vec<HistoryLine> {
    vec![
        line(&[], "h", |i, t| i < 20 && (i + t + 1) % 3 != 0),
        line(&[], "h", |_, _| true),
    ]
}

#[test]
fn the_drift_check_pools_a_like_line_and_refuses_a_better_one_per_metric() {
    let (base, history) = (base(), history());
    let plan = plan(&history, &meta(), &base, drift(8));
    assert_eq!(plan.lines.len(), 2);
    assert!(plan.lines[0].pools("task_success"), "the same agent");
    assert!(plan.lines[0].pools("cost_usd"));
    assert!(
        !plan.lines[1].pools("task_success"),
        "ten cases went from 0 of 3 to 3 of 3"
    );
    assert!(plan.lines[1].pools("cost_usd"), "its costs did not move");
    assert_eq!(plan.points("task_success"), 1);
    assert_eq!(plan.points("cost_usd"), 2);
    assert_eq!(plan.refused, BTreeMap::from([("task_success".into(), 1)]));
}

#[test]
fn the_drift_check_refuses_a_worse_line_too() {
    let base = base();
    let history = vec![line(&[], "h", |_, _| false)];
    let plan = plan(&history, &meta(), &base, drift(8));
    assert!(!plan.lines[0].pools("task_success"));
    assert!(plan.lines[0].pools("cost_usd"));
}

#[test]
fn same_tags_pools_nothing_untagged_and_drift_check_skips_other_specs() {
    let (base, history) = (base(), history());
    let same_tags = Pooling {
        window: 8,
        mode: HistoryPooling::SameTags,
    };
    assert!(plan(&history, &meta(), &base, same_tags).lines.is_empty());
    let other = vec![line(&[], "other spec", |i, t| {
        i < 20 && (i + t + 1) % 3 != 0
    })];
    assert!(plan(&other, &meta(), &base, drift(8)).lines.is_empty());
    // The window counts eligible lines: with 1, only the newest (the better agent) is looked at.
    let newest = plan(&history, &meta(), &base, drift(1));
    assert_eq!(newest.lines.len(), 1);
    assert!(!newest.lines[0].pools("task_success"));
}

#[test]
fn a_line_of_the_same_tags_is_pooled_without_a_check() {
    let base = base();
    let mut meta = meta();
    meta.config_tags = [("model".to_owned(), "m".to_owned())].into();
    let history = vec![line(&[("model", "m")], "h", |_, _| true)];
    let plan = plan(&history, &meta, &base, drift(8));
    assert!(plan.lines[0].pools("task_success"));
    assert!(plan.refused.is_empty());
}

#[test]
fn the_runner_and_the_compare_pool_the_same_trials() {
    let (base, history) = (base(), history());
    let run = RunColumns::of(&base.cases);
    let pooled = pooled_trials(
        run.columns.clone(),
        &run.ids,
        &history,
        &meta(),
        &base,
        drift(8),
    );
    let (expected, lines) = baseline_trials(&base, &history, &meta(), drift(8));
    assert_eq!(pooled.history_points, lines);
    assert_eq!(pooled.points("task_success"), (1, 1));
    assert_eq!(pooled.points("cost_usd"), (2, 0));
    let task = pooled.columns.get("task_success").expect("task success");
    for (c, id) in run.ids.iter().enumerate() {
        assert_eq!(
            task.trials(c),
            expected[id]["task_success"].as_slice(),
            "{id}"
        );
    }
    // c20 failed everywhere the check pooled: 3 trials of the like line, none of the better one.
    let c20 = run.ids.iter().position(|id| id == "c20").expect("c20");
    assert_eq!(task.trials(c20), [0.0, 0.0, 0.0]);
    let cost = pooled.columns.get("cost_usd").expect("cost");
    assert_eq!(cost.trials(c20).len(), 6, "two lines of 3 trials");
}
