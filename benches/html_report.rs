//! Size and render time of the reports at 1,000 cases: the regressed
//! support-bot example (24 cases) replicated to N cases on both sides, then
//! compared with the committed baseline and rendered. Prints medians of
//! several runs; writes the outputs to `bench/out/html/` so they can be opened
//! (and screenshotted by `scripts/render-reports.sh --large`).
//!
//! `cargo bench --bench html_report -- [N] [RUNS]` (defaults 1000 cases, 5 runs),
//! or `bench/html-report.sh`. No timed assertions: it measures.

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark binary"
)]

use std::path::PathBuf;
use std::time::Instant;

use agenteval_gate::baseline::{read_baseline, read_history};
use agenteval_gate::compare::SuiteInput;
use agenteval_gate::compare::{AlphaPlan, CompareOptions, compare};
use agenteval_gate::model::{RunReport, Tier};
use agenteval_gate::output::to_json;
use agenteval_gate::report::compare_views;
use agenteval_gate::report::render_compare_markdown;
use agenteval_gate::report::{render_compare_html, render_run_html};
use agenteval_gate::runner::evaluate_replay;
use agenteval_gate::runner::{EvalSettings, EvidenceOverride, SuiteSettings, TierChoice};
use agenteval_gate::spec::FailOn;
use agenteval_gate::spec::load_checked;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let runs: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(5);
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = repo.join("bench/out/html");
    std::fs::create_dir_all(&out).unwrap();

    let suite = load_checked(&repo.join("suites/support-bot/suite.yaml"))
        .unwrap()
        .suite;
    let settings = EvalSettings {
        suite: SuiteSettings {
            suites_dir: repo.join("suites"),
            baselines_dir: repo.join("baselines"),
            suites: vec![],
        },
        traces: Some(repo.join("suites/support-bot/traces-regressed")),
        evidence: Some(EvidenceOverride::Dir(
            repo.join("suites/support-bot/evidence-regressed"),
        )),
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
    let indices: Vec<usize> = (0..suite.cases.len()).collect();
    let head = replicate(
        &evaluate_replay(&suite, &indices, Tier::Full, &settings).unwrap(),
        n,
    );
    let baseline = read_baseline(&repo.join("baselines/main/support-bot.json"))
        .unwrap()
        .unwrap();
    let base = replicate(&baseline.report, n);
    let history = read_history(&repo.join("baselines/main/support-bot.history.jsonl")).unwrap();
    let input = SuiteInput {
        suite: "support-bot",
        head: &head,
        base: &base,
        history: &history,
        meta: &baseline.baseline,
        gates: &suite.gates,
        fail_on: FailOn::Critical,
        checkpoint_severity: suite
            .checkpoints
            .iter()
            .map(|c| (c.id.clone(), c.severity))
            .collect(),
        use_sigma: true,
    };
    let options = CompareOptions {
        baseline_name: "main".into(),
        resamples: 10_000,
        seed: 42,
        fdr: true,
        fail_on: FailOn::Critical,
        warn_only: false,
        alpha_plan: AlphaPlan::Whole,
    };
    let inputs = [input];
    let mut report = compare(&inputs, &options).unwrap();
    report.views = Some(compare_views(&report.metrics, &inputs));
    let views = report.views.as_ref().unwrap();
    let json = to_json(&report);
    let views_json = to_json(views);
    let head_json = to_json(&head);
    println!(
        "html report bench: {n} cases × {} checkpoints, {} metrics, {} drawn cases, {runs} runs, {} threads",
        head.checkpoint_catalog.len(),
        report.metrics.len(),
        views.suites[0].details.len(),
        rayon::current_num_threads()
    );

    let t_views = measure(runs, || {
        std::hint::black_box(compare_views(&report.metrics, &inputs));
    });
    let mut html = String::new();
    let t_html = measure(runs, || html = render_compare_html(&report).unwrap());
    let mut md = String::new();
    let t_md = measure(runs, || md = render_compare_markdown(&report));
    let mut run_html = String::new();
    let t_run = measure(runs, || run_html = render_run_html(&head).unwrap());
    std::fs::write(out.join("compare.json"), &json).unwrap();
    std::fs::write(out.join("compare.html"), &html).unwrap();
    std::fs::write(out.join("run.html"), &run_html).unwrap();
    std::fs::write(out.join("comment.md"), &md).unwrap();

    let kb = |s: &str| s.len() as f64 / 1024.0;
    println!(
        "compare JSON      {:>8.1} KB  (views block {:.1} KB; the run report it summarises: {:.1} KB)",
        kb(&json),
        kb(&views_json),
        kb(&head_json)
    );
    println!("views built       median {:>8.1} ms", t_views * 1e3);
    println!(
        "compare HTML      median {:>8.1} ms  {:>8.1} KB",
        t_html * 1e3,
        kb(&html)
    );
    println!(
        "run HTML          median {:>8.1} ms  {:>8.1} KB",
        t_run * 1e3,
        kb(&run_html)
    );
    println!(
        "PR comment (md)   median {:>8.1} ms  {:>8} chars (cap 65,536)",
        t_md * 1e3,
        md.chars().count()
    );
    println!("outputs in {}", out.display());
}

/// `report` with its cases repeated until there are `n`, ids suffixed `-k`.
fn replicate(report: &RunReport, n: usize) -> RunReport {
    let mut r = report.clone();
    r.cases = report
        .cases
        .iter()
        .cycle()
        .take(n)
        .enumerate()
        .map(|(i, c)| {
            let mut c = c.clone();
            c.id = format!("{}-{:04}", c.id, i / report.cases.len().max(1));
            c
        })
        .collect();
    r.aggregate.cases = n;
    r
}

/// Median wall time in seconds of `runs` calls (after one warm-up).
fn measure(runs: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut times: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
