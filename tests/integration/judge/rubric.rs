//! `rubric generate|verify` (issue 14 item 4) through the binary against a
//! loopback judge that answers like a judge would (scripted test answers,
//! not a model): new ids only, severities capped, duplicates dropped, the
//! suite untouched, the draft lint-clean once copied in, judge errors, and
//! verification with calibrate's statistics.

#![expect(clippy::unwrap_used, reason = "tests panic on setup failures")]

use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use super::support::{JudgeSuite, answer_for, chat, judge_bin, system_of};
use crate::common::outputs;

/// A rubric answer: one item repeating the suite's T3-01 instruction, one
/// critical item with a partial criterion, one low item with YAML-hostile text.
fn rubric_answer() -> String {
    json!({"checkpoints": [
        {"instruction": "The answer states the balance from the lookup", "severity": "high",
         "partial_criteria": [], "rationale": "already covered"},
        {"instruction": "The answer names the account id it looked up", "severity": "critical",
         "partial_criteria": [{"condition": "Names an account id that was not looked up", "weight": 0.5}],
         "rationale": "every case asks about one account"},
        {"instruction": "Never promise a refund: say \"a person will review it\" # not: [yes]", "severity": "low",
         "partial_criteria": [], "rationale": "refund policy: {strict}"}
    ]})
    .to_string()
}

fn responder(rubric: &'static str) -> impl Fn(&Request) -> ResponseTemplate + Send + Sync {
    move |req: &Request| {
        let system = system_of(req);
        let text = if system.contains("evaluation designer") {
            if rubric == "good" {
                rubric_answer()
            } else {
                r#"{"checkpoints": [{"instruction": "x", "severity": "urgent", "partial_criteria": [], "rationale": ""}]}"#.to_owned()
            }
        } else {
            answer_for(&system, "PASS")
        };
        ResponseTemplate::new(200).set_body_json(chat(&text))
    }
}

fn judge_args(server: &MockServer, s: &JudgeSuite, cache: &str) -> Vec<String> {
    vec![
        "--suites-dir".into(),
        s.dir.path().to_str().unwrap().into(),
        "--suite".into(),
        "judged".into(),
        "--judge".into(),
        "openai".into(),
        "--judge-model".into(),
        "m".into(),
        "--judge-base-url".into(),
        format!("{}/v1", server.uri()),
        "--judge-cache".into(),
        s.path(cache).to_str().unwrap().into(),
    ]
}

#[tokio::test]
async fn a_draft_has_new_ids_capped_severities_and_lints_clean_once_copied_in() {
    let s = JudgeSuite::new("{steps: false}", &["c1", "c2", "c3"]);
    let config = s.config("{}");
    // A baseline recorded R3-01 (an item since removed from the suite): a draft must not reuse it.
    let out = judge_bin(&config)
        .args([
            "baseline",
            "update",
            "--name",
            "main",
            "--deterministic",
            "--suites-dir",
        ])
        .arg(s.dir.path())
        .arg("--baselines-dir")
        .arg(s.path("baselines"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let base_path = s.path("baselines/main/judged.json");
    let mut base: Value =
        serde_json::from_str(&std::fs::read_to_string(&base_path).unwrap()).unwrap();
    base["report"]["checkpoint_catalog"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "R3-01", "tier": 3, "severity": "low", "instruction": "an item since removed"}));
    std::fs::write(&base_path, base.to_string()).unwrap();
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(responder("good"))
        .mount(&server)
        .await;
    let suite_before = std::fs::read(s.path("judged/suite.yaml")).unwrap();
    let draft = s.path("draft.yaml");
    let mut args = vec!["rubric".to_owned(), "generate".into()];
    args.extend(judge_args(&server, &s, "cache"));
    args.extend([
        "--baselines-dir".into(),
        s.path("baselines").to_str().unwrap().into(),
        "--out".into(),
        draft.to_str().unwrap().into(),
    ]);
    let out = judge_bin(&config).args(&args).output().unwrap();
    let (_, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("drafted 2 checkpoints"), "{stderr}");
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1, "one question per 40 cases");
    let user = String::from_utf8_lossy(&requests[0].body).into_owned();
    assert!(user.contains("case c3"), "the cases reach the judge");

    assert_eq!(
        std::fs::read(s.path("judged/suite.yaml")).unwrap(),
        suite_before,
        "a draft is never applied"
    );
    let text = std::fs::read_to_string(&draft).unwrap();
    assert!(text.starts_with("# DRAFT tier-3 checkpoints"), "{text}");
    assert!(text.contains("NOT applied"));
    assert!(
        text.contains("drafted_by: \"judge:openai/m (openai)\""),
        "{text}"
    );
    let parsed: Value = serde_saphyr::from_str(&text).unwrap();
    let cps = parsed["checkpoints"].as_array().unwrap();
    let ids: Vec<&str> = cps.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        ["R3-02", "R3-03"],
        "new ids past the baseline's; the duplicate dropped"
    );
    assert_eq!(
        cps[0]["severity"], "medium",
        "critical is capped until reviewed"
    );
    assert_eq!(cps[0]["partial_criteria"][0]["weight"], 0.5);
    assert_eq!(
        cps[1]["instruction"],
        "Never promise a refund: say \"a person will review it\" # not: [yes]"
    );

    // Copied into the suite as a reviewer would, the draft lints clean.
    let items = &text[text.find("checkpoints:\n").unwrap() + "checkpoints:\n".len()..];
    let suite_yaml = String::from_utf8(suite_before).unwrap();
    let merged = suite_yaml.replacen("gates:\n", &format!("{items}gates:\n"), 1);
    assert_ne!(merged, suite_yaml);
    std::fs::write(s.path("judged/suite.yaml"), &merged).unwrap();
    let out = judge_bin(&config)
        .args(["lint", "--suites-dir"])
        .arg(s.dir.path())
        .args(["--suite", "judged", "--baselines-dir"])
        .arg(s.path("baselines"))
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
}

#[tokio::test]
async fn an_invalid_draft_answer_is_a_judge_error_and_writes_nothing() {
    let s = JudgeSuite::new("{steps: false}", &["c1"]);
    let config = s.config("{retries: 0}");
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(responder("bad"))
        .mount(&server)
        .await;
    let draft = s.path("draft.yaml");
    let mut args = vec!["rubric".to_owned(), "generate".into()];
    args.extend(judge_args(&server, &s, "cache"));
    args.extend(["--out".into(), draft.to_str().unwrap().into()]);
    let out = judge_bin(&config).args(&args).output().unwrap();
    let (_, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(69), "{stderr}");
    assert!(stderr.contains("urgent"), "{stderr}");
    assert!(!draft.exists());
    // Replay with an empty cache: nothing drafted either.
    let out = judge_bin(&config)
        .args(["rubric", "generate", "--suites-dir"])
        .arg(s.dir.path())
        .args([
            "--suite",
            "judged",
            "--judge",
            "replay",
            "--judge-model",
            "m",
            "--judge-cache",
        ])
        .arg(s.path("empty"))
        .arg("--out")
        .arg(&draft)
        .output()
        .unwrap();
    let (_, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(69), "{stderr}");
    assert!(stderr.contains("not in judge cache"), "{stderr}");
    assert!(!draft.exists());
}

#[tokio::test]
async fn verify_scores_the_draft_against_labels_with_calibrates_statistics() {
    let s = JudgeSuite::new("{steps: false}", &["c1", "c2", "c3", "c4"]);
    let config = s.config("{}");
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(responder("good"))
        .mount(&server)
        .await;
    let draft = s.path("judged/rubric.draft.yaml");
    let mut args = vec!["rubric".to_owned(), "generate".into()];
    args.extend(judge_args(&server, &s, "cache"));
    let out = judge_bin(&config).args(&args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    assert!(
        draft.exists(),
        "the default draft path is next to suite.yaml"
    );
    // Three labels agree with the judge's PASS, one does not.
    let golden = s.path("golden.yaml");
    std::fs::write(
        &golden,
        "source: test labels written for this test\nlabels:\n  - {case: c1, checkpoint: R3-01, label: PASS}\n  - {case: c2, checkpoint: R3-01, label: PASS}\n  - {case: c3, checkpoint: R3-01, label: FAIL}\n  - {case: c4, checkpoint: R3-01, label: PASS}\n",
    )
    .unwrap();
    let mut args = vec!["rubric".to_owned(), "verify".into()];
    args.extend(judge_args(&server, &s, "cache"));
    args.extend([
        "--golden".into(),
        golden.to_str().unwrap().into(),
        "--format".into(),
        "json".into(),
    ]);
    let out = judge_bin(&config).args(&args).output().unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["labels"], 4);
    let cp = &report["checkpoints"];
    assert_eq!(cp["stats"]["n"], 4, "{cp}");
    assert_eq!(cp["stats"]["agreement"], 0.75, "{cp}");
    assert_eq!(cp["stats"]["cohen_kappa"], 0.0, "{cp}");
    assert_eq!(cp["by_item"]["R3-01"], json!([4, 3]), "{cp}");
    // A golden set without the draft's ids is a usage error.
    std::fs::write(
        &golden,
        "source: x\nlabels:\n  - {case: c1, checkpoint: T3-01, label: PASS}\n",
    )
    .unwrap();
    let out = judge_bin(&config).args(&args).output().unwrap();
    assert_eq!(out.status.code(), Some(64), "{:?}", outputs(&out));
}
