//! Compare with trials (issue 20): 1,000 cases × 5 trials × 30 metrics (24 checkpoints, 0/1,
//! and 6 scores, continuous) against a baseline of 5 trials per case with 8 history points
//! that also hold 5 trials per case (45 baseline trials per case), next to today's one-trial
//! compare of the same cases (trial 0 of the head against trial 0 of the baseline, no
//! per-case history). Times the whole `compare` (pairing, both tests, CIs, 2σ, decisions),
//! not the parsing of the files.
//!
//! ```text
//! cargo bench --bench trials                # 7 runs of each, median and ratio
//! cargo bench --bench trials -- --runs 11
//! cargo bench --bench trials -- --only trials   # only the trials compare (for `perf record`)
//! cargo bench --bench trials -- --dump DIR      # also write both reports (trials.json, one.json)
//! ```
//!
//! The data are synthetic and seeded: per case and checkpoint a pass rate from a mixture that
//! puts most cases at 0 or 1 and a third in between (as on tau-bench), per case and score a
//! level and a within-case noise; the head equals the baseline in distribution.
#![expect(
    clippy::print_stdout,
    clippy::expect_used,
    reason = "a bench harness reports on stdout and stops on impossible setup failures"
)]

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use agenteval_gate::baseline::{BaselineFile, HistoryLine, parse_baseline, parse_history};
use agenteval_gate::compare::{AlphaPlan, CompareOptions, SuiteInput, compare};
use agenteval_gate::model::RunReport;
use agenteval_gate::spec::{FailOn, GatesSpec};
use agenteval_gate::stats::MetricRng;
use serde_json::{Value, json};

const TEMPLATE: &str = include_str!("../baselines/main/support-bot.json");
const CASES: usize = 1_000;
const TRIALS: usize = 5;
const HISTORY: usize = 8;
const CHECKPOINTS: usize = 24;
const SCORES: [&str; 6] = [
    "compliance_percent",
    "spec_health_percent",
    "workflow_quality",
    "task_success",
    "cost_usd",
    "latency_ms",
];
const SEED: u64 = 2026;

fn uniform(rng: &mut MetricRng) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 0.5) / (1_u64 << 53) as f64
}

/// Per case: a pass rate per checkpoint and a (level, noise) per score.
struct Truth {
    rates: Vec<Vec<f64>>,
    levels: Vec<Vec<(f64, f64)>>,
}

fn truth(rng: &mut MetricRng) -> Truth {
    let rates = (0..CASES)
        .map(|_| {
            (0..CHECKPOINTS)
                .map(|_| match uniform(rng) {
                    u if u < 0.55 => 1.0,
                    u if u < 0.67 => 0.0,
                    _ => 0.1 + 0.8 * uniform(rng),
                })
                .collect()
        })
        .collect();
    let levels = (0..CASES)
        .map(|_| {
            (0..SCORES.len())
                .map(|_| (1.0 + 4.0 * uniform(rng), 0.05 + 0.5 * uniform(rng)))
                .collect()
        })
        .collect();
    Truth { rates, levels }
}

/// One trial of every case, as run-report cases built on a template case.
fn trial_cases(template: &Value, truth: &Truth, trial: usize, rng: &mut MetricRng) -> Vec<Value> {
    (0..CASES)
        .map(|i| {
            let mut case = template.clone();
            case["id"] = json!(format!("c{i:04}"));
            if trial > 0 {
                case["trial"] = json!(trial);
            }
            let checkpoints: Vec<Value> = (0..CHECKPOINTS)
                .map(|c| {
                    let pass = uniform(rng) < truth.rates[i][c];
                    json!({
                        "id": format!("C{c:02}"), "position_index": c + 1, "tier": 2,
                        "severity": "high", "result": if pass { "PASS" } else { "FAIL" },
                        "earned_weight": if pass { 1.0 } else { 0.0 },
                        "notes": "", "evaluated_by": "tier2"
                    })
                })
                .collect();
            case["checkpoints"] = Value::Array(checkpoints);
            case["steps"] = json!([]);
            let mut scores = serde_json::Map::new();
            for (s, name) in SCORES.iter().enumerate() {
                let (level, noise) = truth.levels[i][s];
                let v = level + noise * (uniform(rng) + uniform(rng) + uniform(rng) - 1.5);
                scores.insert((*name).to_owned(), json!(v));
            }
            case["scores"] = Value::Object(scores);
            case
        })
        .collect()
}

fn report(template: &Value, cases: Vec<Value>) -> RunReport {
    let mut r = template.clone();
    r["cases"] = Value::Array(cases);
    serde_json::from_value(r).expect("a run report")
}

struct Setup {
    head: RunReport,
    head_one: RunReport,
    baseline: BaselineFile,
    baseline_one: BaselineFile,
    history: Vec<HistoryLine>,
}

fn setup() -> Setup {
    let file: Value = serde_json::from_str(TEMPLATE).expect("template");
    let template_case = file["report"]["cases"][0].clone();
    let mut rng = MetricRng::new(SEED, "bench-trials");
    let truth = truth(&mut rng);
    let mut trials = |n: usize| -> Vec<Vec<Value>> {
        (0..n)
            .map(|t| trial_cases(&template_case, &truth, t, &mut rng))
            .collect()
    };
    let head_trials = trials(TRIALS);
    let base_trials = trials(TRIALS);
    let head = report(&file["report"], head_trials.concat());
    let head_one = report(&file["report"], head_trials[0].clone());
    let mut baseline_json = file.clone();
    baseline_json["report"] =
        serde_json::to_value(report(&file["report"], base_trials.concat())).expect("report json");
    let mut baseline_one_json = file.clone();
    baseline_one_json["report"] =
        serde_json::to_value(report(&file["report"], base_trials[0].clone())).expect("json");
    let path = Path::new("bench.json");
    let baseline = parse_baseline(path, baseline_json.to_string()).expect("baseline");
    let baseline_one = parse_baseline(path, baseline_one_json.to_string()).expect("baseline");
    // History: 8 earlier updates of the same setup, 5 trials per case each.
    let mut lines = String::new();
    for _ in 0..HISTORY {
        let mut case_values: BTreeMap<String, BTreeMap<String, Vec<f64>>> = BTreeMap::new();
        for t in trials(TRIALS) {
            for case in t {
                let slot = case_values
                    .entry(case["id"].as_str().expect("id").to_owned())
                    .or_default();
                for cp in case["checkpoints"].as_array().expect("checkpoints") {
                    slot.entry(format!("checkpoint:{}", cp["id"].as_str().expect("id")))
                        .or_default()
                        .push(cp["earned_weight"].as_f64().expect("weight"));
                }
                for (name, v) in case["scores"].as_object().expect("scores") {
                    slot.entry(name.clone())
                        .or_default()
                        .push(v.as_f64().expect("score"));
                }
            }
        }
        let mut line = json!({
            "spec_hash": baseline.baseline.spec_hash,
            "cases": CASES,
            "config_tags": baseline.baseline.config_tags,
            "metrics": {},
            "case_values": case_values,
        });
        let metrics: BTreeMap<String, f64> = BTreeMap::new();
        line["metrics"] = json!(metrics);
        lines.push_str(&line.to_string());
        lines.push('\n');
    }
    let history = parse_history(Path::new("bench.history.jsonl"), &lines).expect("history");
    Setup {
        head,
        head_one,
        baseline,
        baseline_one,
        history,
    }
}

fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let s = setup();
    let gates: GatesSpec = GatesSpec::default();
    let options = CompareOptions {
        baseline_name: "main".into(),
        resamples: 10_000,
        seed: 42,
        fdr: true,
        fail_on: FailOn::Critical,
        warn_only: false,
        alpha_plan: AlphaPlan::Whole,
    };
    let s: &'static Setup = Box::leak(Box::new(s));
    let input = |head: &'static RunReport,
                 base: &'static BaselineFile,
                 history: &'static [HistoryLine]| SuiteInput {
        suite: "support-bot",
        head,
        base: &base.report,
        history,
        meta: &base.baseline,
        gates: &gates,
        fail_on: FailOn::Critical,
        checkpoint_severity: BTreeMap::new(),
        use_sigma: true,
    };
    let trials = [input(&s.head, &s.baseline, &s.history)];
    let one = [input(&s.head_one, &s.baseline_one, &[])];
    let report = compare(&trials, &options).expect("compare");
    if let Some(dir) = args
        .iter()
        .position(|a| a == "--dump")
        .and_then(|i| args.get(i + 1))
    {
        let one_report = compare(&one, &options).expect("compare");
        for (name, r) in [("trials.json", &report), ("one.json", &one_report)] {
            let json = serde_json::to_string_pretty(r).expect("report json");
            std::fs::write(Path::new(dir).join(name), json).expect("write the report");
        }
    }
    let stratified = report.metrics.iter().filter(|m| m.trials.is_some()).count();
    println!(
        "{CASES} cases × {TRIALS} head trials × {} metrics; baseline {TRIALS} trials + {HISTORY} \
         history points × {TRIALS} trials; {stratified} metrics took the stratified test; \
         {} threads",
        report.metrics.len(),
        rayon::current_num_threads()
    );
    if let Some(which) = only {
        let chosen = if which == "one" { &one } else { &trials };
        let t = time(runs, || {
            compare(chosen, &options).expect("compare");
        });
        println!("median of {runs}: {which} {:.3} s", t.as_secs_f64());
        return;
    }
    let t_trials = time(runs, || {
        compare(&trials, &options).expect("compare");
    });
    let t_one = time(runs, || {
        compare(&one, &options).expect("compare");
    });
    println!(
        "median of {runs}: trials {:.3} s, one trial {:.3} s, ratio {:.1}×",
        t_trials.as_secs_f64(),
        t_one.as_secs_f64(),
        t_trials.as_secs_f64() / t_one.as_secs_f64()
    );
    // The share that does not grow with the resamples (pairing, per-case maps, 2σ, decisions).
    let few = CompareOptions {
        resamples: 1_000,
        ..options.clone()
    };
    let t_few = time(runs, || {
        compare(&trials, &few).expect("compare");
    });
    println!(
        "median of {runs}: trials with 1,000 resamples {:.3} s (the rest grows with B)",
        t_few.as_secs_f64()
    );
    println!("MEDIAN_SECONDS {:.4}", t_trials.as_secs_f64());
}
