//! The judge engine with its real HTTP clients against wiremock on
//! 127.0.0.1: success, rate limits, server errors, timeouts, malformed
//! bodies, refusals, unparsable answers, fallback, budgets and servers that
//! reject structured output. Waits go through a recording sleeper.

#![expect(clippy::unwrap_used, reason = "tests panic on setup failures")]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agenteval_gate::judged::{AnswerFormat, JudgedState, Outcome, Parsed, Request};
use agenteval_gate::llm::AnthropicJudge;
use agenteval_gate::llm::Budget;
use agenteval_gate::llm::Cache;
use agenteval_gate::llm::CallError;
use agenteval_gate::llm::OpenAiJudge;
use agenteval_gate::llm::Prompt;
use agenteval_gate::llm::{Engine, RunStats};
use agenteval_gate::llm::{Judge, Params};
use agenteval_gate::llm::{JudgeMode, ProviderSettings, Secret};
use agenteval_gate::llm::{RetryPolicy, Sleeper};
use agenteval_gate::spec::{AuthHeader, JudgePrice, ProviderName, StructuredOutput};
use wiremock::matchers::{body_string_contains, header, method, path};
use wiremock::{Mock, MockServer, Request as WireRequest, ResponseTemplate};

use super::support::{chat, messages};

const PASS: &str = r#"{"verdict": "PASS", "criterion": null, "notes": "ok", "cited_spans": []}"#;
const FAIL: &str =
    r#"{"verdict": "FAIL", "criterion": null, "notes": "missing", "cited_spans": []}"#;

fn settings(provider: ProviderName, base: &str, price: Option<JudgePrice>) -> ProviderSettings {
    ProviderSettings {
        provider,
        model: "m".into(),
        base_url: base.to_owned(),
        api_key: Some(Secret::new("sk-test".into())),
        api_key_env: "TEST_KEY".into(),
        auth: AuthHeader::Bearer,
        api_version: None,
        structured: StructuredOutput::Auto,
        price,
    }
}

fn openai(server: &MockServer, timeout: Duration) -> Arc<dyn Judge> {
    Arc::new(
        OpenAiJudge::new(
            &settings(ProviderName::Openai, &format!("{}/v1", server.uri()), None),
            timeout,
        )
        .unwrap(),
    )
}

fn anthropic(server: &MockServer) -> Arc<dyn Judge> {
    Arc::new(
        AnthropicJudge::new(
            &settings(ProviderName::Anthropic, &server.uri(), None),
            Duration::from_secs(5),
        )
        .unwrap(),
    )
}

/// A sleeper that records the waits and returns at once.
fn recorder() -> (Sleeper, Arc<Mutex<Vec<Duration>>>) {
    let waits = Arc::new(Mutex::new(Vec::new()));
    let w = Arc::clone(&waits);
    (
        Sleeper::new(move |d| {
            w.lock().unwrap().push(d);
            Box::pin(async {})
        }),
        waits,
    )
}

struct Rig {
    engine: Engine,
    waits: Arc<Mutex<Vec<Duration>>>,
    cache_dir: tempfile::TempDir,
}

fn rig(chain: Vec<Arc<dyn Judge>>, retries: u32, budget: Budget) -> Rig {
    let cache_dir = tempfile::tempdir().unwrap();
    let (sleeper, waits) = recorder();
    let engine = Engine::new(
        chain,
        JudgeMode::Live(ProviderName::Openai),
        Cache::new(cache_dir.path(), true),
        RetryPolicy::new(retries).with_sleeper(sleeper),
        4,
        Arc::new(budget),
        Params::default(),
    );
    Rig {
        engine,
        waits,
        cache_dir,
    }
}

fn question(n: usize) -> Request {
    Request {
        prompt: Prompt {
            system: "You check one checkpoint.".into(),
            user: format!("question {n}"),
        },
        format: AnswerFormat::Checkpoint { criteria: 1 },
        repeat: 0,
    }
}

fn state(o: &Outcome) -> Option<JudgedState> {
    match o {
        Outcome::Answered(a) => match a.parsed {
            Parsed::Checkpoint { state, .. } => Some(state),
            _ => None,
        },
        _ => None,
    }
}

async fn run(rig: &Rig, n: usize) -> (Vec<Outcome>, RunStats) {
    rig.engine
        .run(&(0..n).map(question).collect::<Vec<_>>())
        .await
}

#[tokio::test]
async fn openai_and_anthropic_answer_with_their_own_auth_and_are_cached() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer sk-test"))
        .and(body_string_contains("\"temperature\":0.0"))
        .and(body_string_contains("\"json_schema\""))
        .respond_with(ResponseTemplate::new(200).set_body_json(chat(FAIL)))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(header("x-api-key", "sk-test"))
        .and(header("anthropic-version", "2023-06-01"))
        .respond_with(ResponseTemplate::new(200).set_body_json(messages(PASS)))
        .expect(1)
        .mount(&server)
        .await;
    for (judge, want) in [
        (openai(&server, Duration::from_secs(5)), JudgedState::Fail),
        (anthropic(&server), JudgedState::Pass),
    ] {
        let r = rig(vec![judge], 0, Budget::default());
        let (out, stats) = run(&r, 1).await;
        assert_eq!(state(&out[0]), Some(want));
        assert_eq!(
            (stats.calls, stats.answered, stats.input_tokens),
            (1, 1, 100)
        );
        // The same question again is a cache hit: no request.
        let (again, stats) = run(&r, 1).await;
        assert_eq!(
            again,
            vec![match &out[0] {
                Outcome::Answered(a) => Outcome::Answered(agenteval_gate::llm::Answer {
                    cached: true,
                    ..a.clone()
                }),
                other => other.clone(),
            }]
        );
        assert_eq!((stats.calls, stats.cache_hits), (0, 1));
        drop(r.cache_dir);
    }
}

#[tokio::test]
async fn a_429_is_retried_after_its_retry_after() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "7"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(chat(PASS)))
        .mount(&server)
        .await;
    let r = rig(
        vec![openai(&server, Duration::from_secs(5))],
        3,
        Budget::default(),
    );
    let (out, stats) = run(&r, 1).await;
    assert_eq!(state(&out[0]), Some(JudgedState::Pass));
    assert_eq!((stats.calls, stats.retries), (2, 1));
    let waits = r.waits.lock().unwrap().clone();
    assert_eq!(waits.len(), 1);
    assert!(
        waits[0] >= Duration::from_secs(7) && waits[0] <= Duration::from_millis(7_700),
        "waited {:?}, not the 7 s asked for (plus ≤ 10% jitter)",
        waits[0]
    );
}

#[tokio::test]
async fn a_500_then_success_is_answered_after_a_backoff() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_body_string("upstream failed"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(chat(FAIL)))
        .mount(&server)
        .await;
    let r = rig(
        vec![openai(&server, Duration::from_secs(5))],
        3,
        Budget::default(),
    );
    let (out, stats) = run(&r, 1).await;
    assert_eq!(
        state(&out[0]),
        Some(JudgedState::Fail),
        "a retried FAIL is still FAIL"
    );
    assert_eq!((stats.calls, stats.retries, stats.errors), (2, 1, 0));
    let waits = r.waits.lock().unwrap().clone();
    assert!(
        waits[0] >= Duration::from_millis(250) && waits[0] <= Duration::from_millis(500),
        "{waits:?}"
    );
}

#[tokio::test]
async fn timeouts_malformed_bodies_refusals_and_bad_answers_are_failures() {
    let cases: Vec<(ResponseTemplate, &str, u64)> = vec![
        (ResponseTemplate::new(200).set_body_json(chat(PASS)).set_delay(Duration::from_secs(3)), "timeout", 2),
        (ResponseTemplate::new(200).set_body_string("{\"choices\": [{\"mess"), "malformed response", 1),
        (
            ResponseTemplate::new(200).set_body_json(serde_json::json!({
                "choices": [{"message": {"role": "assistant", "content": null, "refusal": "I can't evaluate this."}, "finish_reason": "stop"}]
            })),
            "refusal",
            1,
        ),
        // An answer that does not parse is asked once more, then fails.
        (ResponseTemplate::new(200).set_body_json(chat("PASS")), "invalid answer", 2),
        (ResponseTemplate::new(200).set_body_json(chat(r#"{"verdict": "PASS", "notes": "x", "confidence": 0.9}"#)), "invalid answer", 2),
        (ResponseTemplate::new(503).insert_header("retry-after", "1"), "server error", 2),
    ];
    for (response, class, calls) in cases {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(response)
            .mount(&server)
            .await;
        let r = rig(
            vec![openai(&server, Duration::from_millis(300))],
            1,
            Budget::default(),
        );
        let (out, stats) = run(&r, 1).await;
        let Outcome::Failed(e) = &out[0] else {
            panic!("{class}: expected a failure, got {:?}", out[0]);
        };
        assert_eq!(e.class(), class, "{e}");
        assert_eq!(
            (stats.calls, stats.errors, stats.answered),
            (calls, 1, 0),
            "{class}"
        );
        assert_eq!(stats.error_classes.get(class), Some(&1));
        // Failures are never cached.
        let files = walk(r.cache_dir.path());
        assert!(files.is_empty(), "{class}: cached {files:?}");
    }
}

#[tokio::test]
async fn the_fallback_answers_when_the_primary_cannot_and_keeps_its_verdict() {
    let primary = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .expect(2)
        .mount(&primary)
        .await;
    let fallback = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(ResponseTemplate::new(200).set_body_json(messages(FAIL)))
        .expect(1)
        .mount(&fallback)
        .await;
    let r = rig(
        vec![
            openai(&primary, Duration::from_secs(5)),
            anthropic(&fallback),
        ],
        1,
        Budget::default(),
    );
    let (out, stats) = run(&r, 1).await;
    let Outcome::Answered(a) = &out[0] else {
        panic!("{:?}", out[0]);
    };
    assert_eq!(a.by.to_string(), "anthropic/m");
    assert_eq!(state(&out[0]), Some(JudgedState::Fail));
    assert_eq!((stats.calls, stats.fallbacks, stats.errors), (3, 1, 0));
}

#[tokio::test]
async fn the_budget_stops_calls_in_question_order() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(chat(PASS)))
        .expect(3)
        .mount(&server)
        .await;
    // Each question is estimated at ceil(40 bytes / 4) = 10 input tokens and a checkpoint
    // verdict's 250 output tokens (not `max_tokens`, issue 21): $2.50 at $1 per 100 output
    // tokens. Each answer uses 10 output tokens ($0.10), and an estimate that does not fit
    // waits for the earlier calls to be settled at that: $2.75 allows question 2 once
    // question 1 is settled ($0.10 + $2.50), question 3 once 2 is ($2.70), and not 4
    // ($0.30 + $2.50 = $2.80).
    let price = JudgePrice {
        input_per_mtok: 0.0,
        output_per_mtok: 10_000.0,
    };
    let judge: Arc<dyn Judge> = Arc::new(
        OpenAiJudge::new(
            &settings(
                ProviderName::Openai,
                &format!("{}/v1", server.uri()),
                Some(price),
            ),
            Duration::from_secs(5),
        )
        .unwrap(),
    );
    let r = rig(vec![judge], 0, Budget::new(Some(2.75), None));
    let (out, stats) = run(&r, 6).await;
    let kinds: Vec<&str> = out
        .iter()
        .map(|o| match o {
            Outcome::Answered(_) => "answered",
            Outcome::BudgetExhausted => "budget",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "answered", "answered", "answered", "budget", "budget", "budget"
        ]
    );
    assert_eq!((stats.budget_exhausted, stats.calls), (3, 3));
    // Actual cost: 10 output tokens × $0.01 per call.
    assert!((stats.cost_usd - 0.3).abs() < 1e-9, "{}", stats.cost_usd);
}

#[tokio::test]
async fn a_server_without_structured_output_is_asked_again_without_it() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(body_string_contains("response_format"))
        .respond_with(ResponseTemplate::new(400).set_body_json(serde_json::json!({
            "error": {"message": "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."}
        })))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(|req: &WireRequest| {
            assert!(!String::from_utf8_lossy(&req.body).contains("response_format"));
            ResponseTemplate::new(200).set_body_json(chat(PASS))
        })
        .expect(3)
        .mount(&server)
        .await;
    let r = rig(
        vec![openai(&server, Duration::from_secs(5))],
        0,
        Budget::default(),
    );
    // The first question learns it (two requests); the next two go plain.
    let (out, _) = r.engine.run(&[question(0)]).await;
    assert_eq!(state(&out[0]), Some(JudgedState::Pass));
    let (out, _) = r.engine.run(&[question(1), question(2)]).await;
    assert!(out.iter().all(|o| state(o) == Some(JudgedState::Pass)));
}

#[tokio::test]
async fn an_unreachable_judge_is_unavailable() {
    // A port nothing listens on.
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let judge: Arc<dyn Judge> = Arc::new(
        OpenAiJudge::new(
            &settings(ProviderName::Openai, &format!("http://{addr}/v1"), None),
            Duration::from_secs(2),
        )
        .unwrap(),
    );
    let r = rig(vec![judge], 2, Budget::default());
    let (out, stats) = run(&r, 2).await;
    assert!(
        out.iter()
            .all(|o| matches!(o, Outcome::Failed(CallError::Connect(_)))),
        "{out:?}"
    );
    assert_eq!((stats.calls, stats.retries), (6, 4));
    assert!(stats.judge_unavailable());
    assert!(
        stats
            .first_error
            .unwrap()
            .starts_with("question 1: connection failed")
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.path().is_dir() {
                out.extend(walk(&e.path()));
            } else {
                out.push(e.path());
            }
        }
    }
    out
}
