//! GPA trace judges (issue 14 item 1) through the binary against a loopback
//! judge that answers like a judge would (scripted test answers, not a
//! model): parsing, citation checks, judge errors that never pass, replay
//! misses, one question per case, and `gpa:<dimension>` compared like any
//! other metric with the cited spans of the cases that got worse.

#![expect(clippy::unwrap_used, reason = "tests panic on setup failures")]

use serde_json::{Map, Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use super::support::{JudgeSuite, answer_for, chat, judge_bin, live, run, strs, system_of};
use crate::common::outputs;

const DIMENSIONS: [&str; 7] = [
    "goal_fulfillment",
    "logical_consistency",
    "execution_efficiency",
    "plan_quality",
    "plan_adherence",
    "tool_selection",
    "tool_calling",
];

/// The user prompt of an OpenAI-style request.
fn user_of(req: &Request) -> String {
    let body: Value = serde_json::from_slice(&req.body).unwrap();
    body.pointer("/messages/1/content")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The first `[span ID]` of the trace excerpt in a prompt.
fn first_span(user: &str) -> String {
    let at = user.find("[span ").unwrap() + "[span ".len();
    let end = user[at..].find(']').unwrap();
    user[at..at + end].to_owned()
}

/// A GPA answer: every dimension `score` citing the first span, except
/// `tool_calling`, which scores `tool_calling` and also cites a span that
/// does not exist.
fn gpa_answer(user: &str, score: &Value, tool_calling: &Value) -> String {
    let span = first_span(user);
    let mut m = Map::new();
    for d in DIMENSIONS {
        m.insert(
            d.to_owned(),
            json!({"score": score, "rationale": format!("scripted test answer for {d}"), "cited_spans": [span]}),
        );
    }
    m.insert(
        "tool_calling".into(),
        json!({"score": tool_calling, "rationale": "scripted test answer: the lookup call had a bad argument", "cited_spans": [span, "no-such-span"]}),
    );
    Value::Object(m).to_string()
}

fn responder(
    score: Value,
    tool_calling: Value,
) -> impl Fn(&Request) -> ResponseTemplate + Send + Sync {
    move |req: &Request| {
        let system = system_of(req);
        let text = if system.contains("Agent GPA") {
            gpa_answer(&user_of(req), &score, &tool_calling)
        } else if system.contains("recurring issue") {
            r#"{"name": "Bad lookup argument", "summary": "Scripted test answer: the lookup is called with a wrong argument."}"#.to_owned()
        } else {
            answer_for(&system, "PASS")
        };
        ResponseTemplate::new(200).set_body_json(chat(&text))
    }
}

fn dims(report: &Value, case: usize) -> Vec<Value> {
    report["cases"][case]["trace_judges"]
        .as_array()
        .unwrap()
        .clone()
}

fn dim<'a>(dims: &'a [Value], name: &str) -> &'a Value {
    dims.iter().find(|d| d["dimension"] == name).unwrap()
}

#[tokio::test]
async fn gpa_scores_and_citations_are_parsed_validated_and_become_metrics() {
    // Asked for by the suite (`judge.trace_judges`), one question per case.
    let s = JudgeSuite::new("{steps: false, trace_judges: [gpa]}", &["c1", "c2", "c3"]);
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(responder(json!(3), json!(1)))
        .mount(&server)
        .await;
    let config = s.config("{}");
    let (out, report) = run(&s, &config, &strs(&live(&server, &s.path("cache"))));
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let report = report.unwrap();
    let requests = server.received_requests().await.unwrap();
    let gpa_calls = requests
        .iter()
        .filter(|r| system_of(r).contains("Agent GPA"))
        .count();
    assert_eq!(gpa_calls, 3, "one GPA question per case");
    assert_eq!(report["judge"]["per_case"]["gpa"], 1);

    let d = dims(&report, 0);
    assert_eq!(d.len(), 7);
    let gf = dim(&d, "goal_fulfillment");
    assert_eq!(gf["score"], 3.0);
    assert_eq!(gf["max"], 3.0);
    assert_eq!(gf["evaluated_by"], "judge:openai/m");
    assert!(gf.get("invalid_citations").is_none(), "{gf}");
    let tc = dim(&d, "tool_calling");
    assert_eq!(tc["score"], 1.0);
    assert_eq!(tc["invalid_citations"], json!(["no-such-span"]));
    assert_eq!(report["judge"]["invalid_citations"], 3, "one per case");
    let warnings = report["cases"][0]["warnings"].to_string();
    assert!(warnings.contains("no-such-span"), "{warnings}");

    let metrics = &report["aggregate"]["metrics"];
    assert_eq!(metrics["gpa:goal_fulfillment"], 3.0);
    assert_eq!(metrics["gpa:tool_calling"], 1.0);
    // A score of 1 of 3 is a recurring issue on its dimension, citing its spans.
    let groups = report["aggregate"]["insights"]["groups"]
        .as_array()
        .unwrap();
    let g = groups
        .iter()
        .find(|g| g["node"]["name"] == "gpa:tool_calling")
        .unwrap();
    assert_eq!(g["cases"], 3);
    assert_eq!(g["source"], "trace_judge");
    assert!(
        g["examples"][0]["spans"]
            .to_string()
            .contains("no-such-span"),
        "{g}"
    );
}

#[tokio::test]
async fn a_score_outside_0_to_3_or_a_malformed_answer_is_a_judge_error_never_a_pass() {
    let s = JudgeSuite::new("{steps: false}", &["c1", "c2"]);
    for bad in [json!(4), json!(2.5), json!("3")] {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(responder(json!(3), bad.clone()))
            .mount(&server)
            .await;
        let config = s.config("{retries: 0}");
        let mut args = live(&server, &s.path(&format!("cache-{bad}")));
        args.extend(["--trace-judges".into(), "gpa".into()]);
        let (out, report) = run(&s, &config, &strs(&args));
        let report = report.unwrap_or_else(|| panic!("{:?}", outputs(&out)));
        for d in dims(&report, 0) {
            assert!(d["score"].is_null(), "{bad}: {d}");
            let why = d["na_reason"].as_str().unwrap();
            assert!(why.starts_with("judge_error"), "{bad}: {why}");
        }
        assert!(report["judge"]["errors"].as_u64().unwrap() >= 2, "{bad}");
        let metrics = report["aggregate"]["metrics"].as_object().unwrap();
        assert!(
            !metrics.keys().any(|k| k.starts_with("gpa:")),
            "{bad}: an unanswered dimension has no value"
        );
    }
}

#[tokio::test]
async fn a_replay_miss_or_no_judge_leaves_every_dimension_na_with_its_reason() {
    let s = JudgeSuite::new("{steps: false, replay: {model: m}}", &["c1"]);
    let config = s.config("{}");
    let empty = s.path("empty-cache");
    std::fs::create_dir_all(&empty).unwrap();
    let (out, report) = run(
        &s,
        &config,
        &[
            "--judge",
            "replay",
            "--judge-cache",
            empty.to_str().unwrap(),
            "--trace-judges",
            "gpa",
        ],
    );
    let report = report.unwrap_or_else(|| panic!("{:?}", outputs(&out)));
    for d in dims(&report, 0) {
        assert!(d["score"].is_null());
        assert_eq!(d["na_reason"], "not in judge cache");
    }
    let (out, report) = run(&s, &config, &["--trace-judges", "gpa"]);
    let report = report.unwrap_or_else(|| panic!("{:?}", outputs(&out)));
    let d = dims(&report, 0);
    assert_eq!(d.len(), 7);
    for d in d {
        assert_eq!(d["na_reason"], "no judge configured");
        assert_eq!(d["evaluated_by"], "none");
    }
}

#[tokio::test]
async fn a_gpa_dimension_that_drops_is_a_regression_localised_by_its_cited_spans() {
    let cases = ["c1", "c2", "c3", "c4", "c5", "c6"];
    let s = JudgeSuite::new("{steps: false, trace_judges: [gpa]}", &cases);
    let config = s.config("{}");
    let baselines = s.path("baselines");
    let good = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(responder(json!(3), json!(3)))
        .mount(&good)
        .await;
    let mut args: Vec<String> = vec!["baseline".into(), "update".into(), "--suites-dir".into()];
    args.push(s.dir.path().to_str().unwrap().into());
    args.extend(["--baselines-dir".into(), baselines.to_str().unwrap().into()]);
    args.push("--deterministic".into());
    args.extend(live(&good, &s.path("cache-base")));
    let out = judge_bin(&config).args(&args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));

    let worse = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(responder(json!(3), json!(0)))
        .mount(&worse)
        .await;
    let mut args: Vec<String> = vec!["compare".into(), "--suites-dir".into()];
    args.push(s.dir.path().to_str().unwrap().into());
    args.extend(["--baselines-dir".into(), baselines.to_str().unwrap().into()]);
    args.extend([
        "--tier".into(),
        "full".into(),
        "--format".into(),
        "json".into(),
    ]);
    args.extend(["--deterministic".into()]);
    args.extend(live(&worse, &s.path("cache-head")));
    let out = judge_bin(&config).args(&args).output().unwrap();
    let (stdout, stderr) = outputs(&out);
    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stderr}"));
    let metric = report["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "gpa:tool_calling")
        .unwrap();
    assert_eq!(metric["n"], 6);
    assert_eq!(metric["delta"], -3.0);
    assert_eq!(metric["test"], "exact_sign_flip");
    assert_eq!(metric["status"], "regression", "{metric}");
    let flipped = &metric["localization"]["flipped_cases"][0];
    assert_eq!(flipped["base"], 3.0);
    assert_eq!(flipped["head"], 0.0);
    assert!(flipped["note"].as_str().unwrap().contains("bad argument"));
    assert!(
        flipped["cited_spans"].to_string().contains("no-such-span"),
        "{flipped}"
    );
    // Unchanged dimensions stay out of the family.
    let gf = report["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "gpa:goal_fulfillment")
        .unwrap();
    assert_eq!(gf["status"], "unchanged");
    // …and the dimension's issue is new since the baseline.
    let new = report["insights"][0]["new"].to_string();
    assert!(new.contains("gpa:tool_calling"), "{new}");
}

#[tokio::test]
async fn the_judge_names_recurring_issues_only_when_asked() {
    let s = JudgeSuite::new("{steps: false, trace_judges: [gpa]}", &["c1", "c2"]);
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(responder(json!(3), json!(1)))
        .mount(&server)
        .await;
    let config = s.config("{}");
    let (out, report) = run(&s, &config, &strs(&live(&server, &s.path("cache"))));
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let asked = |server_requests: &[Request]| {
        server_requests
            .iter()
            .filter(|r| system_of(r).contains("recurring issue"))
            .count()
    };
    assert_eq!(
        asked(&server.received_requests().await.unwrap()),
        0,
        "off by default"
    );
    let groups = report.unwrap()["aggregate"]["insights"]["groups"].clone();
    assert!(
        groups
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g.get("summary").is_none())
    );

    let mut args = live(&server, &s.path("cache"));
    args.push("--insight-summaries".into());
    let (out, report) = run(&s, &config, &strs(&args));
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let report = report.unwrap();
    let groups = report["aggregate"]["insights"]["groups"]
        .as_array()
        .unwrap();
    assert_eq!(
        asked(&server.received_requests().await.unwrap()),
        groups.len().min(20),
        "one question per group"
    );
    let g = groups
        .iter()
        .find(|g| g["node"]["name"] == "gpa:tool_calling")
        .unwrap();
    assert_eq!(g["summary"]["name"], "Bad lookup argument");
    assert_eq!(g["summary"]["by"], "judge:openai/m");
    // The group is the same with or without a name.
    assert_eq!(g["cases"], 2);
    assert!(g["id"].as_str().unwrap().starts_with("I-"));
}

#[tokio::test]
async fn calibrate_pairs_gpa_labels_with_the_judges_dimension_scores() {
    // The suite does not ask for GPA: GPA labels make `calibrate` ask it of the labelled
    // cases. The judge scores every dimension 3 and `tool_calling` 1.
    let s = JudgeSuite::new("{steps: false}", &["c1", "c2", "c3"]);
    let config = s.config("{}");
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(responder(json!(3), json!(1)))
        .mount(&server)
        .await;
    let golden = s.path("golden.yaml");
    std::fs::write(
        &golden,
        "source: scripted test labels\nlabels:\n  - {case: c1, gpa: goal_fulfillment, label: 3}\n  - {case: c2, gpa: goal_fulfillment, label: 3}\n  - {case: c3, gpa: tool_calling, label: 1}\n  - {case: c1, gpa: tool_calling, label: 2}\n  - {case: c2, checkpoint: T3-01, label: PASS}\n",
    )
    .unwrap();
    let out = judge_bin(&config)
        .args(["calibrate", "--suites-dir"])
        .arg(s.dir.path())
        .args([
            "--suite",
            super::support::SUITE,
            "--format",
            "json",
            "--golden",
        ])
        .arg(&golden)
        .args(strs(&live(&server, &s.path("cache"))))
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let r: Value = serde_json::from_str(&stdout).unwrap();
    let gpa = &r["gpa"];
    assert_eq!(gpa["scale"], "GPA scores (0–3)", "{r}");
    assert_eq!(gpa["stats"]["n"], 4, "{gpa}");
    assert_eq!(gpa["stats"]["agreement"], 0.75, "{gpa}");
    assert_eq!(gpa["by_item"]["goal_fulfillment"], json!([2, 2]));
    assert_eq!(gpa["by_item"]["tool_calling"], json!([2, 1]));
    assert_eq!(r["checkpoints"]["stats"]["n"], 1);
    assert!(r["unpaired"].as_array().unwrap().is_empty(), "{r}");
    // One GPA question per labelled case, whatever the suite's `trace_judges`.
    let gpa_questions = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|q| system_of(q).contains("Agent GPA"))
        .count();
    assert_eq!(gpa_questions, 3);
}
