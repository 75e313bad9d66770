//! Provider profiles (issue 21) through the binary, against scripted servers on 127.0.0.1
//! that behave like the provider in question: an `OpenAI` reasoning model that answers the
//! documented 400 to `max_tokens` and `temperature`, a chat model that rejects
//! `temperature`, a Claude model that deprecated `temperature`. The answers are scripted
//! (no model is reachable here): these tests check what is sent and what is shown, never
//! a judgement.

#![expect(clippy::unwrap_used, reason = "tests panic on setup failures")]

use std::sync::{Arc, Mutex};

use serde_json::Value;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use super::support::{JudgeSuite, answer_for, chat, judge_bin, messages, run, strs, system_of};
use crate::common::outputs;

/// `OpenAI`'s 400 for `max_tokens` on a reasoning model.
const OPENAI_MAX_TOKENS: &str = r#"{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}"#;
/// `OpenAI`'s 400 for a non-default `temperature` on a reasoning model.
const OPENAI_TEMPERATURE: &str = r#"{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}"#;
/// Anthropic's 400 for `temperature` on the models that deprecated it.
const ANTHROPIC_TEMPERATURE: &str = r#"{"type":"error","error":{"type":"invalid_request_error","message":"`temperature` is deprecated for this model."}}"#;

/// Every request body the server saw.
type Seen = Arc<Mutex<Vec<Value>>>;

/// A server that rejects the parameters in `rejects` with `error` (HTTP 400), like the
/// provider does, and otherwise answers like [`answer_for`] in the `OpenAI` or Anthropic
/// shape.
async fn provider(
    rejects: &'static [(&'static str, &'static str)],
    anthropic: bool,
) -> (MockServer, Seen) {
    let server = MockServer::start().await;
    let seen: Seen = Arc::default();
    let log = Arc::clone(&seen);
    Mock::given(method("POST"))
        .respond_with(move |req: &Request| {
            let body: Value = serde_json::from_slice(&req.body).unwrap();
            log.lock().unwrap().push(body.clone());
            if let Some((_, error)) = rejects.iter().find(|(p, _)| body.get(*p).is_some()) {
                return ResponseTemplate::new(400).set_body_string(*error);
            }
            let system = if anthropic {
                body["system"].as_str().unwrap_or_default().to_owned()
            } else {
                system_of(req)
            };
            let text = answer_for(&system, "PASS");
            if anthropic {
                ResponseTemplate::new(200).set_body_json(messages(&text))
            } else {
                ResponseTemplate::new(200).set_body_json(chat(&text))
            }
        })
        .mount(&server)
        .await;
    (server, seen)
}

fn flags(provider: &str, model: &str, server: &MockServer, cache: &std::path::Path) -> Vec<String> {
    let base = if provider == "openai" {
        format!("{}/v1", server.uri())
    } else {
        server.uri()
    };
    vec![
        "--judge".into(),
        provider.into(),
        "--judge-model".into(),
        model.into(),
        "--judge-base-url".into(),
        base,
        "--judge-cache".into(),
        cache.to_str().unwrap().to_owned(),
    ]
}

fn keys(seen: &Seen) -> Vec<Vec<String>> {
    seen.lock()
        .unwrap()
        .iter()
        .map(|b| {
            ["temperature", "max_tokens", "max_completion_tokens"]
                .into_iter()
                .filter(|k| b.get(k).is_some())
                .map(str::to_owned)
                .collect()
        })
        .collect()
}

#[tokio::test]
async fn an_openai_reasoning_model_answers_every_question() {
    let (server, seen) = provider(
        &[
            ("max_tokens", OPENAI_MAX_TOKENS),
            ("temperature", OPENAI_TEMPERATURE),
        ],
        false,
    )
    .await;
    let s = JudgeSuite::new("{}", &["c1", "c2"]);
    let config = s.config("{}");
    let (out, report) = run(
        &s,
        &config,
        &strs(&flags("openai", "o3-mini", &server, &s.path("cache"))),
    );
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let j = &report.unwrap()["judge"];
    assert_eq!(j["errors"], 0, "{j}");
    assert!(j["questions"].as_u64().unwrap() > 0);
    // Known by its profile: one request per question, none rejected.
    assert_eq!(
        Some(seen.lock().unwrap().len() as u64),
        j["questions"].as_u64(),
        "{j}"
    );
    for k in keys(&seen) {
        assert_eq!(k, ["max_completion_tokens"]);
    }
}

#[tokio::test]
async fn a_model_that_rejects_temperature_is_asked_again_and_the_terminal_says_why() {
    // A chat model the profiles do not know, behind an OpenAI-compatible server.
    let (server, seen) = provider(&[("temperature", OPENAI_TEMPERATURE)], false).await;
    let s = JudgeSuite::new("{}", &["c1", "c2"]);
    let config = s.config("{concurrency: 1}");
    let (out, report) = run(
        &s,
        &config,
        &strs(&flags("openai", "m", &server, &s.path("cache"))),
    );
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let j = report.unwrap()["judge"].clone();
    let questions = j["questions"].as_u64().unwrap();
    assert_eq!(j["errors"], 0, "{j}");
    // Once rejected, never sent again in this run: one extra request in all.
    assert_eq!(seen.lock().unwrap().len() as u64, questions + 1, "{j}");
    let sent = keys(&seen);
    assert_eq!(sent[0], ["temperature", "max_tokens"]);
    assert!(sent[1..].iter().all(|k| k == &["max_tokens"]), "{sent:?}");
    let note = j["notes"][0].as_str().unwrap();
    assert!(note.contains("openai/m rejected `temperature`"), "{note}");
    assert!(
        note.contains("does not support 0 with this model"),
        "{note}"
    );
    // The provider's words in the terminal, not only in the JSON.
    assert!(
        stdout.contains("judge: openai/m rejected `temperature` (HTTP 400: Unsupported value: 'temperature' does not support 0 with this model."),
        "{stdout}"
    );
}

#[tokio::test]
async fn a_claude_model_that_deprecated_temperature_gets_none() {
    let (server, seen) = provider(&[("temperature", ANTHROPIC_TEMPERATURE)], true).await;
    let s = JudgeSuite::new("{}", &["c1", "c2"]);
    let config = s.config("{}");
    let out_file = s.path("report.json");
    let args = flags("anthropic", "claude-opus-4-7", &server, &s.path("cache"));
    let out = judge_bin(&config)
        .env("ANTHROPIC_API_KEY", "test-key")
        .args(["run", "--suites-dir"])
        .arg(s.dir.path())
        .args(["--suite", super::support::SUITE, "--deterministic", "--out"])
        .arg(&out_file)
        .args(&args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let report: Value = serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap();
    let j = &report["judge"];
    assert_eq!(j["errors"], 0, "{j}");
    assert_eq!(
        Some(seen.lock().unwrap().len() as u64),
        j["questions"].as_u64(),
        "{j}"
    );
    for k in keys(&seen) {
        assert_eq!(
            k,
            ["max_tokens"],
            "Anthropic requires max_tokens, and no temperature"
        );
    }

    // A Claude model the table does not know that rejects it too: asked again without it,
    // once, and the provider's message is in the terminal.
    let (server, seen) = provider(&[("temperature", ANTHROPIC_TEMPERATURE)], true).await;
    let args = flags("anthropic", "claude-future", &server, &s.path("cache2"));
    let out = judge_bin(&config)
        .env("ANTHROPIC_API_KEY", "test-key")
        .args(["run", "--suites-dir"])
        .arg(s.dir.path())
        .args([
            "--suite",
            super::support::SUITE,
            "--deterministic",
            "--judge-concurrency",
            "1",
        ])
        .args(&args)
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("anthropic/claude-future rejected `temperature` (HTTP 400: `temperature` is deprecated for this model.)"),
        "{stdout}"
    );
    let sent = keys(&seen);
    assert_eq!(
        sent.iter()
            .filter(|k| k.contains(&"temperature".to_owned()))
            .count(),
        1
    );
}

#[tokio::test]
async fn null_in_the_config_leaves_the_parameter_out() {
    let (server, seen) = provider(&[], false).await;
    let s = JudgeSuite::new("{}", &["c1", "c2"]);
    let config = s.config("{temperature: null, max_tokens: null}");
    let (out, _) = run(
        &s,
        &config,
        &strs(&flags("openai", "gpt-4o-mini", &server, &s.path("cache"))),
    );
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let sent = keys(&seen);
    assert!(!sent.is_empty());
    assert!(sent.iter().all(Vec::is_empty), "{sent:?}");
    // Without null the defaults go out.
    let (server, seen) = provider(&[], false).await;
    let config = s.config("{}");
    let (out, _) = run(
        &s,
        &config,
        &strs(&flags("openai", "gpt-4o-mini", &server, &s.path("cache2"))),
    );
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let first = &seen.lock().unwrap()[0];
    assert_eq!(
        (first["temperature"].as_f64(), first["max_tokens"].as_u64()),
        (Some(0.0), Some(1024))
    );
}

#[tokio::test]
async fn a_rejection_naming_no_parameter_is_shown_escaped_in_the_terminal() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_string(
            r#"{"error":{"message":"model \u001b[31mnot\u001b[0m allowed\nfor this key"}}"#,
        ))
        .mount(&server)
        .await;
    let s = JudgeSuite::new("{}", &["c1", "c2"]);
    let config = s.config("{retries: 0}");
    let (out, report) = run(
        &s,
        &config,
        &strs(&flags("openai", "m", &server, &s.path("cache"))),
    );
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let j = &report.unwrap()["judge"];
    assert_eq!(j["errors"], j["questions"], "{j}");
    assert!(
        j["first_error"]
            .as_str()
            .unwrap()
            .contains("request rejected (HTTP 400): model"),
        "{j}"
    );
    let line = stdout
        .lines()
        .find(|l| l.contains("judge: first error:"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        line.contains("request rejected (HTTP 400): model"),
        "{line}"
    );
    assert!(
        !line.contains('\u{1b}'),
        "control characters are escaped: {line:?}"
    );
    assert!(
        !stdout.contains("\nfor this key"),
        "no raw line break: {stdout}"
    );
}

/// A server without structured outputs: Anthropic's 400 for a field it does not know.
const ANTHROPIC_NO_OUTPUT_CONFIG: &str = r#"{"type":"error","error":{"type":"invalid_request_error","message":"output_config: Extra inputs are not permitted"}}"#;

/// `run` of a two-case judged suite against an Anthropic stand-in at `server` with `model`.
fn run_anthropic(
    s: &JudgeSuite,
    config: &std::path::Path,
    model: &str,
    server: &MockServer,
    cache: &str,
) -> Value {
    let out_file = s.path("report.json");
    let out = judge_bin(config)
        .env("ANTHROPIC_API_KEY", "test-key")
        .args(["run", "--suites-dir"])
        .arg(s.dir.path())
        .args([
            "--suite",
            super::support::SUITE,
            "--deterministic",
            "--judge-concurrency",
            "1",
            "--out",
        ])
        .arg(&out_file)
        .args(flags("anthropic", model, server, &s.path(cache)))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap()
}

#[tokio::test]
async fn a_claude_model_with_structured_outputs_is_sent_the_answer_schema() {
    let s = JudgeSuite::new("{}", &["c1", "c2"]);
    let config = s.config("{}");

    // Claude Sonnet 4.5 has structured outputs: every JSON question carries its schema in
    // `output_config.format` (no beta header needed), the score-line questions none.
    let (server, seen) = provider(&[], true).await;
    let report = run_anthropic(&s, &config, "claude-sonnet-4-5", &server, "cache-a");
    assert_eq!(report["judge"]["errors"], 0, "{}", report["judge"]);
    let bodies = seen.lock().unwrap().clone();
    let checkpoint: Vec<&Value> = bodies
        .iter()
        .filter(|b| {
            b["system"]
                .as_str()
                .unwrap_or_default()
                .contains("checkpoint")
        })
        .collect();
    assert_eq!(checkpoint.len(), 2);
    for b in &checkpoint {
        let format = &b["output_config"]["format"];
        assert_eq!(format["type"], "json_schema", "{b}");
        assert_eq!(
            format["schema"]["properties"]["verdict"]["enum"],
            serde_json::json!(["PASS", "PARTIAL", "FAIL"]),
            "{b}"
        );
        assert_eq!(format["schema"]["additionalProperties"], false, "{b}");
    }
    let with_schema = bodies
        .iter()
        .filter(|b| b.get("output_config").is_some())
        .count();
    // Per case: T3-01 and the semantic task are JSON; the 7 step metrics are score lines.
    assert_eq!(with_schema, 4, "{bodies:?}");
    for r in server.received_requests().await.unwrap() {
        assert!(r.headers.get("anthropic-beta").is_none());
    }

    // An older model is not sent one.
    let (server, seen) = provider(&[], true).await;
    run_anthropic(&s, &config, "claude-3-5-haiku-20241022", &server, "cache-b");
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .all(|b| b.get("output_config").is_none())
    );

    // A server that does not take it (a proxy, say) says so once: asked again without, and
    // the rest of the run leaves it out; every question is answered from the text.
    let (server, seen) = provider(&[("output_config", ANTHROPIC_NO_OUTPUT_CONFIG)], true).await;
    let report = run_anthropic(&s, &config, "claude-sonnet-4-5", &server, "cache-c");
    assert_eq!(report["judge"]["errors"], 0, "{}", report["judge"]);
    let bodies = seen.lock().unwrap().clone();
    assert_eq!(
        bodies
            .iter()
            .filter(|b| b.get("output_config").is_some())
            .count(),
        1,
        "{bodies:?}"
    );
    assert_eq!(
        Some(bodies.len() as u64 - 1),
        report["judge"]["questions"].as_u64()
    );

    // `structured_output: off` sends none, whatever the model.
    let off = s.config("{structured_output: off}");
    let (server, seen) = provider(&[], true).await;
    run_anthropic(&s, &off, "claude-sonnet-4-5", &server, "cache-d");
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .all(|b| b.get("output_config").is_none())
    );
}

/// Issue 21 item 2: the provider's rejection is in the PR comment (and the compare's
/// terminal), not only in the JSON.
#[tokio::test]
async fn the_providers_rejection_is_in_the_pr_comment() {
    let (server, _seen) = provider(&[("temperature", OPENAI_TEMPERATURE)], false).await;
    let s = JudgeSuite::new("{}", &["c1", "c2"]);
    let config = s.config("{concurrency: 1}");
    let suites = s.dir.path().to_str().unwrap().to_owned();
    let baselines = s.path("baselines");
    let baselines = baselines.to_str().unwrap();
    let judge = flags("openai", "m", &server, &s.path("cache"));
    let mut update = vec!["baseline", "update", "--suites-dir", &suites];
    update.extend(["--baselines-dir", baselines, "--deterministic"]);
    update.extend(strs(&judge));
    let out = judge_bin(&config).args(&update).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    for format in ["markdown", "table"] {
        // A fresh cache: the head asks again, and is rejected again.
        let judge = flags("openai", "m", &server, &s.path(&format!("cache-{format}")));
        let mut compare = vec!["compare", "--suites-dir", &suites];
        compare.extend(["--baselines-dir", baselines, "--tier", "full"]);
        compare.extend(["--format", format]);
        compare.extend(strs(&judge));
        let out = judge_bin(&config).args(&compare).output().unwrap();
        let (stdout, stderr) = outputs(&out);
        assert!(matches!(out.status.code(), Some(0 | 2)), "{stderr}");
        // Markdown escapes its punctuation; the words are the provider's.
        let text = stdout.replace('\\', "");
        assert!(
            text.contains("openai/m rejected `temperature` (HTTP 400: Unsupported value: 'temperature' does not support 0 with this model."),
            "{format}: {stdout}"
        );
    }
}
