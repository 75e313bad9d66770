//! Issue 21 item 5 through the binary: an Ollama-like server on 127.0.0.1 that answers a
//! line of prose around its JSON, and one whose first answer to each question is not in the
//! format (asked once more, with the parse error). The answers are scripted (no model is
//! reachable here): these tests check parsing and re-asking, never a judgement.

#![expect(clippy::unwrap_used, reason = "tests panic on setup failures")]

use std::sync::{Arc, Mutex};

use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use super::support::{JudgeSuite, answer_for, chat, live, run, strs, system_of};
use crate::common::outputs;

/// The last user message of an OpenAI-style request.
fn user_of(req: &Request) -> String {
    let body: serde_json::Value = serde_json::from_slice(&req.body).unwrap();
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn answers_with_a_prose_preface_parse() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(|req: &Request| {
            let answer = answer_for(&system_of(req), "PASS");
            let text = if answer.starts_with('{') {
                format!("Here is my evaluation of the checkpoint.\n{answer}")
            } else {
                // Score answers: the score first, the reason after it.
                "Score: 4\nReason: the step did what the plan asked.".to_owned()
            };
            ResponseTemplate::new(200).set_body_json(chat(&text))
        })
        .mount(&server)
        .await;
    let s = JudgeSuite::new("{}", &["c1", "c2"]);
    let config = s.config("{}");
    let (out, report) = run(&s, &config, &strs(&live(&server, &s.path("cache"))));
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let j = &report.unwrap()["judge"];
    assert_eq!(j["errors"], 0, "{j}");
    assert!(j.get("reasked").is_none(), "nothing to re-ask: {j}");
    let questions = j["questions"].as_u64().unwrap();
    assert!(questions > 0);
    assert_eq!(
        j["calls"].as_u64(),
        Some(questions),
        "one call per question"
    );
}

#[tokio::test]
async fn an_answer_in_the_wrong_format_is_asked_once_more_with_the_reason() {
    let server = MockServer::start().await;
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = Arc::clone(&seen);
    Mock::given(method("POST"))
        .respond_with(move |req: &Request| {
            let user = user_of(req);
            log.lock().unwrap().push(user.clone());
            let text = if user.contains("Your previous answer to this could not be used") {
                answer_for(&system_of(req), "PASS")
            } else {
                "I think it is fine, PASS.".to_owned()
            };
            ResponseTemplate::new(200).set_body_json(chat(&text))
        })
        .mount(&server)
        .await;
    let s = JudgeSuite::new("{}", &["c1", "c2"]);
    let config = s.config("{}");
    let cache = s.path("cache");
    let (out, report) = run(&s, &config, &strs(&live(&server, &cache)));
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let j = &report.unwrap()["judge"];
    let questions = j["questions"].as_u64().unwrap();
    assert_eq!(j["errors"], 0, "{j}");
    assert_eq!(j["reasked"].as_u64(), Some(questions), "{j}");
    assert_eq!(j["calls"].as_u64(), Some(2 * questions), "{j}");
    let sent = seen.lock().unwrap().clone();
    let again: Vec<&String> = sent
        .iter()
        .filter(|u| u.contains("Your previous answer to this could not be used"))
        .collect();
    assert_eq!(again.len() as u64, questions);
    assert!(
        again.iter().all(|u| !u.contains("I think it is fine")),
        "the previous answer is not sent back"
    );

    // The answers given on the second try were cached under the question: a replay of the
    // same run answers every question without a call.
    let (out, report) = run(
        &s,
        &config,
        &[
            "--judge",
            "replay",
            "--judge-model",
            "m",
            "--judge-base-url",
            &format!("{}/v1", server.uri()),
            "--judge-cache",
            cache.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let j = &report.unwrap()["judge"];
    assert_eq!(j["errors"], 0, "{j}");
    assert_eq!(j["cache_hits"].as_u64(), Some(questions), "{j}");
}

#[tokio::test]
async fn a_second_bad_answer_stays_a_judge_error() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(|_: &Request| ResponseTemplate::new(200).set_body_json(chat("PASS")))
        .mount(&server)
        .await;
    let s = JudgeSuite::new("{}", &["c1", "c2"]);
    let config = s.config("{}");
    let (out, report) = run(&s, &config, &strs(&live(&server, &s.path("cache"))));
    let (_, stderr) = outputs(&out);
    let j = &report.unwrap()["judge"];
    let questions = j["questions"].as_u64().unwrap();
    assert_eq!(j["errors"].as_u64(), Some(questions), "{j}\n{stderr}");
    assert_eq!(j["reasked"].as_u64(), Some(questions), "{j}");
    assert_eq!(j["calls"].as_u64(), Some(2 * questions), "{j}");
    assert_eq!(
        j["error_classes"]["invalid answer"].as_u64(),
        Some(questions)
    );
}
