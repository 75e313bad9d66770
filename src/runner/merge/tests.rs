//! Merge checks on a small replay suite with no recorded traces (every case
//! is `trace_missing`, which is enough to check coverage and order).

use std::path::Path;

use super::*;
use crate::output::to_json;
use crate::runner::evaluate::evaluate_replay;
use crate::runner::settings::{EvalSettings, SuiteSettings, TierChoice};

fn suite(dir: &Path, cases: usize) -> Suite {
    let mut yaml = String::from(
        "suite: m\nspec_version: \"1.0.0\"\ntraces: traces/\ncheckpoints:\n  - id: P1\n    tier: 2\n    instruction: Never call x\n    severity: high\n    evidence_sources: [trace]\n    sequence: {never: {tool: \"zz_*\"}}\ncases:\n",
    );
    for i in 1..=cases {
        yaml.push_str(&format!("  - {{id: c{i}, input: q}}\n"));
    }
    let path = dir.join("suite.yaml");
    std::fs::write(&path, yaml).unwrap();
    crate::spec::discover::load_checked(&path).unwrap().suite
}

fn settings(dir: &Path, shard: Option<Shard>) -> EvalSettings {
    EvalSettings {
        suite: SuiteSettings {
            suites_dir: dir.to_path_buf(),
            baselines_dir: dir.join("baselines"),
            suites: vec![],
        },
        traces: None,
        evidence: None,
        tier: TierChoice::Full,
        judge_run: crate::judged::tier::JudgeRun::default(),
        seed: 42,
        deterministic: true,
        shard,
        tags: std::collections::BTreeMap::default(),
        allow_empty: true,
        jobs: 1,
        jobs_cap: None,
        trials: None,
    }
}

/// The report of shard `index`/`count` (or of the whole suite).
fn report(suite: &Suite, dir: &Path, shard: Option<Shard>) -> RunReport {
    let all: Vec<usize> = (0..suite.cases.len()).collect();
    let indices = in_shard(&suite.cases, all, shard);
    evaluate_replay(suite, &indices, Tier::Full, &settings(dir, shard)).unwrap()
}

fn shard(suite: &Suite, dir: &Path, index: u32, count: u32) -> ShardReport {
    ShardReport {
        path: format!("shard-{index}.json").into(),
        report: report(suite, dir, Some(Shard { index, count })),
    }
}

#[test]
fn shards_merge_back_into_suite_order() {
    let dir = tempfile::tempdir().unwrap();
    let s = suite(dir.path(), 12);
    let parts: Vec<ShardReport> = (1..=3).rev().map(|i| shard(&s, dir.path(), i, 3)).collect();
    assert!(parts.iter().all(|p| !p.report.cases.is_empty()));
    let merged = merge_shards(&s, parts).unwrap();
    assert_eq!(to_json(&merged), to_json(&report(&s, dir.path(), None)));
}

#[test]
fn a_shard_without_cases_may_be_left_out_but_no_other() {
    let dir = tempfile::tempdir().unwrap();
    let s = suite(dir.path(), 1);
    // One case in three shards: two of them are empty and write no report.
    let home = crate::runner::select::shard_of("c1", 3);
    let only = shard(&s, dir.path(), home, 3);
    let merged = merge_shards(&s, vec![only.clone()]).unwrap();
    assert_eq!(to_json(&merged), to_json(&report(&s, dir.path(), None)));

    let s = suite(dir.path(), 12);
    let parts = vec![shard(&s, dir.path(), 1, 3), shard(&s, dir.path(), 3, 3)];
    let err = merge_shards(&s, parts).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("shard 2/3 of `m` is missing: the suite puts "),
        "{err}"
    );
}

#[test]
fn an_edited_shard_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let s = suite(dir.path(), 12);
    let mut parts: Vec<ShardReport> = (1..=2).map(|i| shard(&s, dir.path(), i, 2)).collect();
    let dropped = parts[0].report.cases.remove(0).id;
    let err = merge_shards(&s, parts.clone()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "`shard-1.json` (shard 1/2) does not hold the cases the suite puts in that shard: 1 case missing (`{dropped}`)"
        )
    );
    // A case moved into the wrong shard.
    let moved = parts[1].report.cases[0].clone();
    parts[0].report.cases.push(moved.clone());
    parts[1].report.cases.remove(0);
    let err = merge_shards(&s, parts).unwrap_err();
    assert!(err.to_string().contains("1 case missing"), "{err}");
}

#[test]
fn a_changed_suite_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let s = suite(dir.path(), 4);
    let parts: Vec<ShardReport> = (1..=2).map(|i| shard(&s, dir.path(), i, 2)).collect();
    let mut changed = s.clone();
    changed.spec_hash = "0000".into();
    let err = merge_shards(&changed, parts).unwrap_err();
    assert!(matches!(err, MergeError::SpecChanged { .. }), "{err}");
    assert_eq!(err.exit_code(), ExitCode::DataError);
}

/// Each case of `r` twice, trials 0 and 1 (`second` sets the second entry's trial number).
fn two_trials(r: &mut RunReport, second: u32) {
    r.cases = r
        .cases
        .iter()
        .flat_map(|c| {
            let mut again = c.clone();
            again.trial = second;
            [c.clone(), again]
        })
        .collect();
}

#[test]
fn every_trial_of_a_case_is_merged_and_misnumbered_trials_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let s = suite(dir.path(), 12);
    let mut parts: Vec<ShardReport> = (1..=3).map(|i| shard(&s, dir.path(), i, 3)).collect();
    for p in &mut parts {
        two_trials(&mut p.report, 1);
    }
    let merged = merge_shards(&s, parts.clone()).unwrap();
    assert_eq!(merged.cases.len(), 24, "both trials of the 12 cases");
    assert_eq!(merged.case_count(), 12);
    let order: Vec<(String, u32)> = merged
        .cases
        .iter()
        .map(|c| (c.id.clone(), c.trial))
        .collect();
    let expected: Vec<(String, u32)> = (1..=12)
        .flat_map(|i| [(format!("c{i}"), 0), (format!("c{i}"), 1)])
        .collect();
    assert_eq!(order, expected, "suite order, each case's trials in a row");

    let mut parts: Vec<ShardReport> = (1..=3).map(|i| shard(&s, dir.path(), i, 3)).collect();
    two_trials(&mut parts[1].report, 0);
    let err = merge_shards(&s, parts).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("a case's trials are not numbered 0, 1, … in a row"),
        "{err}"
    );
}
