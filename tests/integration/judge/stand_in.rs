//! The scripted stand-in judge (`scripts/stand_in_judge.py`, rule-based,
//! not a model) and the support-bot judge cache recorded from it.

#![expect(clippy::unwrap_used, reason = "tests panic on setup failures")]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use super::support::{JudgeSuite, checkpoint, run};
use crate::common::{bin, outputs, repo};

/// The stand-in server on a free port; killed on drop.
pub(super) struct StandIn {
    child: Child,
    pub(super) url: String,
}

impl StandIn {
    pub(super) fn start() -> Self {
        let mut child = Command::new("python3")
            .arg(repo().join("scripts/stand_in_judge.py"))
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap()
            .to_owned();
        Self { child, url }
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_stand_in_answers_like_a_judge_and_says_it_is_not_one() {
    let stand_in = StandIn::start();
    let s = JudgeSuite::new("{}", &["c1", "inject"]);
    let config = s.config("{}");
    let cache = s.path("cache");
    let cache = cache.to_str().unwrap();
    let model = "agenteval-stand-in-rules";
    let (out, live) = run(
        &s,
        &config,
        &[
            "--judge",
            "openai",
            "--judge-model",
            model,
            "--judge-base-url",
            &stand_in.url,
            "--judge-cache",
            cache,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let live = live.unwrap();
    assert_eq!(live["judge"]["errors"], 0, "{}", live["judge"]);
    // The answer's $10 is in the lookup result: PASS, citing the final llm span.
    let cp = checkpoint(&live, "c1", "T3-01");
    assert_eq!(cp["result"], "PASS", "{cp}");
    assert_eq!(
        cp["notes"],
        "stand-in rule, not a model: 1 of the answer's numbers occur in tool results"
    );
    assert_eq!(cp["cited_spans"].as_array().unwrap().len(), 1);
    for case in live["cases"].as_array().unwrap() {
        for st in case["steps"].as_array().unwrap() {
            if st["scored_by"].as_str().unwrap().contains("judge:") {
                assert!(
                    st["notes"]
                        .as_str()
                        .unwrap()
                        .contains("stand-in rule, not a model"),
                    "{st}"
                );
            }
        }
    }
    let url = stand_in.url.clone();
    drop(stand_in);
    let (out, replayed) = run(
        &s,
        &config,
        &[
            "--judge",
            "replay",
            "--judge-model",
            model,
            "--judge-base-url",
            &url,
            "--judge-cache",
            cache,
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(replayed.unwrap()["cases"], live["cases"]);
}

/// The committed cache answers every question the judge asks about
/// support-bot's recordings, the GPA trace judges' included, and every answer
/// says it is the stand-in's rule. When a prompt template or the question set
/// changes, re-record it with `scripts/record-judge-cache.sh`.
#[test]
fn the_committed_support_bot_cache_is_complete_and_labelled() {
    for variant in ["", "-regressed"] {
        let dir = tempfile::tempdir().unwrap();
        let out_file = dir.path().join("r.json");
        let out = bin()
            .current_dir(repo())
            .args([
                "run",
                "--suite",
                "support-bot",
                "--deterministic",
                "--judge",
                "replay",
                "--trace-judges",
                "gpa",
                "--traces",
            ])
            .arg(format!("suites/support-bot/traces{variant}"))
            .arg("--evidence")
            .arg(format!("suites/support-bot/evidence{variant}"))
            .arg("--out")
            .arg(&out_file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
        let r: Value = serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap();
        let j = &r["judge"];
        assert_eq!(j["model"], "openai/agenteval-stand-in-rules");
        assert!(j["questions"].as_u64().unwrap() > 300, "{j}");
        assert_eq!(
            j.get("not_in_cache"),
            None,
            "stale cache: run scripts/record-judge-cache.sh ({j})"
        );
        assert_eq!(j["cache_hits"], j["questions"]);
        assert_eq!(j["per_case"]["gpa"], 1, "{j}");
        let cases = r["cases"].as_array().unwrap();
        let gpa: Vec<&Value> = cases
            .iter()
            .flat_map(|c| c["trace_judges"].as_array().unwrap())
            .collect();
        assert_eq!(gpa.len(), cases.len() * 7, "seven GPA dimensions per case");
        for d in gpa {
            assert_eq!(
                d["evaluated_by"], "judge:openai/agenteval-stand-in-rules",
                "{d}"
            );
            assert!(d["score"].is_number(), "{d}");
            assert!(
                d["rationale"]
                    .as_str()
                    .unwrap()
                    .starts_with("stand-in rule, not a model: "),
                "{d}"
            );
        }
        let tier3: Vec<&Value> = r["cases"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| c["checkpoints"].as_array().unwrap())
            .filter(|c| c["tier"] == 3 && c["result"] != "BLOCKED")
            .collect();
        assert!(!tier3.is_empty());
        for cp in tier3 {
            assert_eq!(cp["evaluated_by"], "judge:openai/agenteval-stand-in-rules");
            assert!(
                cp["notes"]
                    .as_str()
                    .unwrap()
                    .starts_with("stand-in rule, not a model"),
                "{cp}"
            );
        }
    }
}

/// `compare --judge replay` of support-bot against the `stand-in-judge` baseline with
/// `cache` as the judge cache and the `variant` recordings; stdout of `format`.
fn replay_compare(cache: &std::path::Path, variant: &str, format: &str) -> (Option<i32>, String) {
    let out = bin()
        .current_dir(repo())
        .args([
            "compare",
            "--baseline",
            "stand-in-judge",
            "--baseline-ref",
            "worktree",
            "--suite",
            "support-bot",
            "--judge",
            "replay",
            "--format",
            format,
            "--judge-cache",
        ])
        .arg(cache)
        .arg("--traces")
        .arg(format!("suites/support-bot/traces{variant}"))
        .arg("--evidence")
        .arg(format!("suites/support-bot/evidence{variant}"))
        .output()
        .unwrap();
    (out.status.code(), outputs(&out).0)
}

fn status_of<'a>(report: &'a Value, metric: &str) -> &'a str {
    report["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == metric)
        .and_then(|m| m["status"].as_str())
        .unwrap_or("absent")
}

/// Issue 21: an empty or partial replay cache can never turn a regression into a pass or
/// an improvement. Missing judged scores fall back to the rules (which the judge can only
/// lower), so compared with a judged baseline they looked like improvements.
#[test]
fn an_empty_or_partial_replay_cache_never_fails_open() {
    let empty = tempfile::tempdir().unwrap();
    let (code, json) = replay_compare(empty.path(), "-regressed", "json");
    assert_eq!(code, Some(2), "{json}");
    let r: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(r["verdict"], "fail");
    for metric in ["step_type:PLAN", "workflow_quality", "step_type:TOOLSEL"] {
        assert_eq!(status_of(&r, metric), "not_comparable", "{metric}");
    }
    assert!(
        !r["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["status"] == "improvement" && m["name"] != "latency_ms"),
        "no judged metric improves for want of answers"
    );
    // The agent's own regressions are still there.
    assert_eq!(status_of(&r, "checkpoint:P2-02"), "regression");
    assert_eq!(r["judge_error_rate"], 1.0);
    let reasons = r["reasons"].to_string();
    assert!(reasons.contains("not in the judge cache"), "{reasons}");

    // The terminal and the PR comment name the misses.
    let (code, text) = replay_compare(empty.path(), "-regressed", "table");
    assert_eq!(code, Some(2));
    assert!(
        text.contains(
            "got no usable answer (343 not in the judge cache), above `gates.max_judge_error_rate`"
        ),
        "{text}"
    );
    let plan = text
        .lines()
        .find(|l| l.contains("step_type:PLAN "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(plan.contains("not_comparable"), "{plan}");
    let (_, md) = replay_compare(empty.path(), "-regressed", "markdown");
    assert!(md.contains("not in the judge cache"), "{md}");

    // The recordings that pass with the full cache fail with an empty one: no answers is
    // not a pass (the judge-error gate decides, misses count as errors).
    let (code, json) = replay_compare(empty.path(), "", "json");
    assert_eq!(code, Some(2), "{json}");
    let r: Value = serde_json::from_str(&json).unwrap();
    assert_ne!(status_of(&r, "workflow_quality"), "improvement");
    assert_ne!(status_of(&r, "compliance_percent"), "improvement");

    // A cache with every third entry removed: judged metrics are compared only over the
    // cases judged on both sides, and none improves.
    let partial = tempfile::tempdir().unwrap();
    crate::common::copy_dir(
        &repo().join("suites/support-bot/judge-cache"),
        partial.path(),
    );
    let mut files = Vec::new();
    let mut stack = vec![partial.path().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    for f in files.iter().skip(2).step_by(3) {
        std::fs::remove_file(f).unwrap();
    }
    let (code, json) = replay_compare(partial.path(), "", "json");
    assert_eq!(
        code,
        Some(2),
        "a third of the answers missing is above 10%: {json}"
    );
    let r: Value = serde_json::from_str(&json).unwrap();
    for m in r["metrics"].as_array().unwrap() {
        assert!(
            m["status"] != "improvement" || m["name"] == "latency_ms",
            "{}",
            m["name"]
        );
    }
    // The same partial cache on the regressed recordings: still a failure, and the
    // judged metrics the regression moves are not improvements.
    let (code, json) = replay_compare(partial.path(), "-regressed", "json");
    assert_eq!(code, Some(2), "{json}");
    let r: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(r["verdict"], "fail");
    for metric in ["step_type:PLAN", "workflow_quality", "step:plan"] {
        assert_ne!(status_of(&r, metric), "improvement", "{metric}");
    }
    assert_eq!(status_of(&r, "checkpoint:P2-02"), "regression");
}

/// Issue 21 item 7 through the binary: the committed answers with every rationale
/// reworded (the cache keys, which are the questions, unchanged) give the same recurring
/// issues as the `stand-in-judge` baseline: none new, grown or gone. (The property test
/// `insights::tests::issue_ids_do_not_depend_on_the_judge_or_its_wording` covers judge
/// names and random wordings.)
#[test]
fn reworded_rationales_change_no_recurring_issue() {
    let reworded = tempfile::tempdir().unwrap();
    crate::common::copy_dir(
        &repo().join("suites/support-bot/judge-cache"),
        reworded.path(),
    );
    let mut stack = vec![reworded.path().to_path_buf()];
    let mut changed = 0;
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let mut entry: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
            let text = entry["text"].as_str().unwrap().replace(
                "stand-in rule, not a model",
                "as another judge would word it, at more length",
            );
            entry["text"] = Value::String(text);
            std::fs::write(&p, entry.to_string()).unwrap();
            changed += 1;
        }
    }
    assert!(changed > 500, "{changed}");
    let out = bin()
        .current_dir(repo())
        .args([
            "compare",
            "--baseline",
            "stand-in-judge",
            "--baseline-ref",
            "worktree",
            "--suite",
            "support-bot",
            "--judge",
            "replay",
            "--trace-judges",
            "gpa",
            "--format",
            "json",
            "--judge-cache",
        ])
        .arg(reworded.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let r: Value = serde_json::from_str(&outputs(&out).0).unwrap();
    let insights = &r["insights"][0];
    assert_eq!(insights["status"], "compared", "{insights}");
    for key in ["new", "grew", "gone"] {
        assert_eq!(insights[key], Value::Array(vec![]), "{key}: {insights}");
    }
    assert!(!insights["top"].as_array().unwrap().is_empty());
    // The rewording did reach the report: the judge's words are the examples.
    assert!(
        r["insights"]
            .to_string()
            .contains("as another judge would word it"),
        "{}",
        r["insights"]
    );
}
