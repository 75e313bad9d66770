//! Issue 21 through the binary against the scripted stand-in judge (rule-based, not a
//! model): a judge budget on support-bot, and the README's judge numbers against a fresh
//! run. The stand-in's answers are mechanics, never judgements.

#![expect(clippy::unwrap_used, reason = "tests panic on setup failures")]

use serde_json::Value;

use super::stand_in::StandIn;
use crate::common::{bin, outputs, repo};

/// `run` of support-bot's recordings against the stand-in judge, priced as gpt-4o-mini,
/// with a `cap` USD budget and `concurrency` calls at a time; the report (fresh cache).
fn budgeted_run(stand_in: &StandIn, cap: &str, concurrency: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("agenteval.yaml");
    std::fs::write(
        &config,
        "judge: {provider: openai, model: gpt-4o-mini, price: {input_per_mtok: 0.15, output_per_mtok: 0.60}}\n",
    )
    .unwrap();
    let out_file = dir.path().join("r.json");
    let out = super::support::judge_bin(&config)
        .current_dir(repo())
        .args([
            "run",
            "--suite",
            "support-bot",
            "--deterministic",
            "--traces",
            "suites/support-bot/traces",
            "--evidence",
            "suites/support-bot/evidence",
            "--judge",
            "openai",
            "--judge-model",
            "gpt-4o-mini",
            "--judge-base-url",
            &stand_in.url,
            "--judge-max-cost",
            cap,
            "--judge-concurrency",
            concurrency,
            "--judge-cache",
        ])
        .arg(dir.path().join("cache"))
        .arg("--out")
        .arg(&out_file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap()
}

/// Issue 21 item 6: a $0.10 budget, above what a full support-bot run costs at
/// gpt-4o-mini prices, asks every question. Each call is charged an estimate, settled at
/// what the answer used before a question that does not fit is refused, so a smaller cap
/// stops at the same question whatever the concurrency and is never overspent.
#[test]
fn a_budget_asks_every_question_whose_estimate_fits_once_earlier_calls_are_settled() {
    let stand_in = StandIn::start();
    let full = budgeted_run(&stand_in, "0.10", "8");
    let j = &full["judge"];
    assert!(j["questions"].as_u64().unwrap() > 300, "{j}");
    assert_eq!(j["calls"], j["questions"], "{j}");
    assert_eq!(j.get("budget_exhausted"), None, "{j}");
    assert!(j["cost_usd"].as_f64().unwrap() <= 0.10, "{j}");
    let text = readme();
    let all = format!(
        "`--judge-max-cost 0.10` asks all {} questions",
        j["questions"]
    );
    assert!(text.contains(&all), "README lacks {all:?}");

    let one = budgeted_run(&stand_in, "0.03", "1");
    let eight = budgeted_run(&stand_in, "0.03", "8");
    let j = &one["judge"];
    let (calls, stopped) = (
        j["calls"].as_u64().unwrap(),
        j["budget_exhausted"].as_u64().unwrap(),
    );
    assert!(calls > 0 && stopped > 0, "{j}");
    assert_eq!(calls + stopped, j["questions"].as_u64().unwrap(), "{j}");
    assert!(j["cost_usd"].as_f64().unwrap() <= 0.03, "{j}");
    let some = format!("`0.03` asks {calls} of them");
    assert!(text.contains(&some), "README lacks {some:?}");
    // The stop never depends on which call finished first.
    assert_eq!(one["judge"], eight["judge"]);
    assert_eq!(one["cases"], eight["cases"]);
}

/// The README with every run of whitespace made one space (its prose wraps anywhere).
fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A replay `run` of support-bot's recordings from the committed cache; the report.
fn replay_run(gpa: bool) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("r.json");
    let mut cmd = bin();
    cmd.current_dir(repo()).args([
        "run",
        "--suite",
        "support-bot",
        "--deterministic",
        "--judge",
        "replay",
        "--traces",
        "suites/support-bot/traces",
        "--evidence",
        "suites/support-bot/evidence",
    ]);
    if gpa {
        cmd.args(["--trace-judges", "gpa"]);
    }
    let out = cmd.arg("--out").arg(&out_file).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap()
}

/// Issue 21: the README's judge section states what a fresh run gives (the budget's
/// numbers are checked in the budget test above).
#[test]
fn the_readme_judge_numbers_match_a_fresh_run() {
    let text = readme();
    let has = |s: &str| assert!(text.contains(s), "README lacks {s:?}");
    let mut files = 0;
    let mut stack = vec![repo().join("suites/support-bot/judge-cache")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files += 1;
            }
        }
    }
    has(&format!("stored the {files} answers in"));

    let plain = replay_run(false);
    let questions = plain["judge"]["questions"].as_u64().unwrap();
    let tier3 = plain["cases"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["checkpoints"].as_array().unwrap())
        .filter(|c| c["tier"] == 3 && c["evaluated_by"].as_str().unwrap().starts_with("judge:"))
        .count();
    has(&format!(
        "A judged support-bot run asks {questions} questions ({tier3} of them tier-3 checkpoints"
    ));

    let gpa = replay_run(true);
    let cases = gpa["cases"].as_array().unwrap();
    let with_gpa = gpa["judge"]["questions"].as_u64().unwrap();
    assert_eq!(gpa["judge"]["errors"], 0);
    has(&format!(
        "answers {with_gpa} questions from the cache ({questions} plus one GPA question for each of the {} cases), 0 errors",
        cases.len()
    ));
    for (dimension, words) in [
        ("goal_fulfillment", "goal fulfillment"),
        ("logical_consistency", "logical consistency"),
        ("execution_efficiency", "execution efficiency"),
        ("plan_quality", "plan quality"),
        ("plan_adherence", "plan adherence"),
        ("tool_selection", "tool selection"),
        ("tool_calling", "tool calling"),
    ] {
        let scores: Vec<f64> = cases
            .iter()
            .flat_map(|c| c["trace_judges"].as_array().unwrap())
            .filter(|d| d["dimension"] == dimension)
            .map(|d| d["score"].as_f64().unwrap())
            .collect();
        let mean = scores.iter().sum::<f64>() / scores.len() as f64;
        has(&format!("{words} {mean:.3}"));
    }
}
