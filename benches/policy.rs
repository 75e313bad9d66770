//! Tier-2 policy evaluation of tau-bench airline episodes, with and without
//! the issue-24 checkpoints (`where` expressions, combinators, ordered
//! steps, per-turn fields).
//!
//! One suite directory (default `suites/airline-tau`, 19 episodes; pass the
//! 200-episode suite written by `scripts/tau-bench-airline.py`), three
//! variants of its checkpoints, each run the way `agenteval-gate run` does
//! (read, parse, checkpoints, steps, report):
//!
//! - `no tier 2`: tier 1 and 3 only (the cost of everything else);
//! - `A2-01..A2-14`: the tier-2 checkpoints without expressions (the suite
//!   before issue 24);
//! - `all tier 2`: A2-01..A2-25.
//!
//! Prints the median of each, the tier-2 share (variant − `no tier 2`) and
//! the ratios.
//!
//! `cargo bench --bench policy -- [SUITE_DIR] [RUNS]`, or `bench/policy.sh`.

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark binary"
)]

use std::path::PathBuf;
use std::time::Instant;

use agenteval_gate::model::Tier;
use agenteval_gate::runner::evaluate_replay;
use agenteval_gate::runner::{EvalSettings, SuiteSettings, TierChoice};
use agenteval_gate::spec::load_checked;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let dir = args.first().map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("suites/airline-tau"),
        PathBuf::from,
    );
    let runs: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(9);
    let full = load_checked(&dir.join("suite.yaml")).unwrap().suite;
    let settings = EvalSettings {
        suite: SuiteSettings {
            suites_dir: dir.parent().unwrap().to_path_buf(),
            baselines_dir: dir.join("baselines"),
            suites: vec![],
        },
        traces: None,
        evidence: None,
        tier: TierChoice::Full,
        judge_run: agenteval_gate::judged::JudgeRun::default(),
        seed: 42,
        deterministic: true,
        shard: None,
        tags: std::collections::BTreeMap::default(),
        allow_empty: false,
        jobs: rayon::current_num_threads(),
        jobs_cap: None,
        trials: None,
    };
    let indices: Vec<usize> = (0..full.cases.len()).collect();
    println!(
        "policy bench: {} ({} episodes), {} threads, {runs} runs",
        dir.display(),
        full.cases.len(),
        rayon::current_num_threads()
    );
    if std::env::var_os("POLICY_EACH").is_some() {
        // Each tier-2 checkpoint alone on top of `no tier 2`, the base
        // measured again after every checkpoint (the median of those medians
        // is subtracted), so a checkpoint's own cost is read side by side.
        let variant = |keep: &dyn Fn(&str, u8) -> bool| {
            let mut suite = full.clone();
            suite.checkpoints.retain(|c| keep(&c.id, c.tier));
            measure(runs, || {
                let report = evaluate_replay(&suite, &indices, Tier::Full, &settings).unwrap();
                std::hint::black_box(report);
            })
        };
        let ids: Vec<String> = full
            .checkpoints
            .iter()
            .filter(|c| c.tier == 2)
            .map(|c| c.id.clone())
            .collect();
        let mut bases = vec![variant(&|_, tier| tier != 2)];
        let mut own = Vec::new();
        for id in &ids {
            own.push(variant(&|c, tier| tier != 2 || c == id));
            bases.push(variant(&|_, tier| tier != 2));
        }
        bases.sort_by(f64::total_cmp);
        let base = bases[bases.len() / 2];
        println!(
            "no tier 2: median {:.2} ms (median of {} medians)",
            base * 1e3,
            bases.len()
        );
        let (mut old, mut new) = (0.0, 0.0);
        for (id, t) in ids.iter().zip(&own) {
            let extra = t - base;
            println!("{id}  {:>7.2} ms", extra * 1e3);
            if id.as_str() <= "A2-14" {
                old += extra;
            } else {
                new += extra;
            }
        }
        println!(
            "sum A2-01..A2-14 {:.2} ms, A2-15.. {:.2} ms; all / A2-01..A2-14 {:.2}×",
            old * 1e3,
            new * 1e3,
            (old + new) / old
        );
        return;
    }
    // `POLICY_CHECKPOINTS=A2-15,A2-16`: one variant, with only these tier-2
    // checkpoints (for callgrind, one checkpoint's own instructions).
    if let Ok(ids) = std::env::var("POLICY_CHECKPOINTS") {
        let ids: Vec<&str> = ids.split(',').collect();
        let mut suite = full.clone();
        suite
            .checkpoints
            .retain(|c| c.tier != 2 || ids.contains(&c.id.as_str()));
        let secs = measure(runs, || {
            let report = evaluate_replay(&suite, &indices, Tier::Full, &settings).unwrap();
            std::hint::black_box(report);
        });
        println!("tier-2 checkpoints {ids:?}: median {:.1} ms", secs * 1e3);
        return;
    }
    // `POLICY_VARIANT=0|1|2`: only that variant (for callgrind).
    let only: Option<usize> = std::env::var("POLICY_VARIANT")
        .ok()
        .and_then(|v| v.parse().ok());
    let mut times = Vec::new();
    for (name, keep) in [
        (
            "no tier 2",
            (|_: &str, tier: u8| tier != 2) as fn(&str, u8) -> bool,
        ),
        ("A2-01..A2-14 (no expressions)", |id, tier| {
            tier != 2 || id <= "A2-14"
        }),
        ("all tier 2 (A2-01..A2-25)", |_, _| true),
    ]
    .into_iter()
    .enumerate()
    .filter(|(i, _)| only.is_none_or(|o| o == *i))
    .map(|(_, v)| v)
    {
        let mut suite = full.clone();
        suite.checkpoints.retain(|c| keep(&c.id, c.tier));
        let n2 = suite.checkpoints.iter().filter(|c| c.tier == 2).count();
        let secs = measure(runs, || {
            let report = evaluate_replay(&suite, &indices, Tier::Full, &settings).unwrap();
            assert_eq!(report.aggregate.cases_ok, indices.len());
            std::hint::black_box(report);
        });
        println!(
            "{name:<32} {n2:>2} tier-2 checkpoints  median {:>8.1} ms",
            secs * 1e3
        );
        times.push(secs);
    }
    let [base, today, all] = times[..] else {
        return;
    };
    println!(
        "tier-2 share: A2-01..A2-14 {:.1} ms, all {:.1} ms ({:.2}×); whole run {:.2}×",
        (today - base) * 1e3,
        (all - base) * 1e3,
        (all - base) / (today - base),
        all / today
    );
}

/// Median wall time of `runs` calls after one warm-up.
fn measure(runs: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
