//! Issue 21 item 4: with a primary that always fails, the fallback's answers
//! are attributed to the fallback everywhere (tier 3, semantic success and
//! every judged step score), are found again by `--judge replay`, and a live
//! rerun answers from the cache without asking the dead primary again.
//! Against scripted servers on 127.0.0.1 that count what they receive.

#![expect(clippy::unwrap_used, reason = "tests panic on setup failures")]

use serde_json::Value;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::support::{JudgeSuite, checkpoint, run, scripted};
use crate::common::outputs;

const FALLBACK: &str = "judge:openai/gpt-fallback";

/// Every `scored_by` of a judged step, and the `evaluated_by` of every tier-3 result.
fn attributions(report: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for case in report["cases"].as_array().unwrap() {
        for st in case["steps"].as_array().unwrap() {
            let by = st["scored_by"].as_str().unwrap();
            if by.contains("judge:") {
                out.push(by.to_owned());
            }
        }
        for cp in case["checkpoints"].as_array().unwrap() {
            if cp["tier"] == 3 {
                out.push(cp["evaluated_by"].as_str().unwrap_or_default().to_owned());
            }
        }
    }
    out
}

async fn received(server: &MockServer) -> usize {
    server.received_requests().await.unwrap_or_default().len()
}

#[tokio::test]
async fn fallback_answers_are_its_own_replay_and_spare_the_dead_primary() {
    let primary = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&primary)
        .await;
    let fallback = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(scripted("PASS"))
        .mount(&fallback)
        .await;
    let s = JudgeSuite::new("{}", &["c1", "c2"]);
    let config = s.config(&format!(
        "{{provider: anthropic, model: claude-primary, base_url: '{}', retries: 0, fallback: [{{provider: openai, model: gpt-fallback, base_url: '{}/v1'}}]}}",
        primary.uri(),
        fallback.uri()
    ));
    let cache = s.path("cache");
    let cache = cache.to_str().unwrap();
    let live = ["--judge", "anthropic", "--judge-cache", cache];

    let (out, first) = run(&s, &config, &live);
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let first = first.unwrap();
    let questions = first["judge"]["questions"].as_u64().unwrap() as usize;
    assert_eq!(first["judge"]["errors"], 0, "{}", first["judge"]);
    assert_eq!(first["judge"]["fallbacks"].as_u64(), Some(questions as u64));
    // The primary was asked each question once (no retries) and failed; the fallback answered.
    assert_eq!(received(&primary).await, questions);
    assert_eq!(received(&fallback).await, questions);
    let by = attributions(&first);
    assert!(by.len() > 4, "{by:?}");
    assert!(
        by.iter()
            .all(|b| b.ends_with(FALLBACK) && !b.contains("claude-primary")),
        "every judged step and tier-3 verdict names the judge that answered: {by:?}"
    );
    assert_eq!(checkpoint(&first, "c1", "T3-01")["evaluated_by"], FALLBACK);

    // A live rerun: every answer from the cache, and no request to either server.
    let (out, second) = run(&s, &config, &live);
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let second = second.unwrap();
    assert_eq!(
        second["judge"]["cache_hits"].as_u64(),
        Some(questions as u64)
    );
    assert_eq!(second["judge"]["calls"], 0, "{}", second["judge"]);
    assert_eq!(
        received(&primary).await,
        questions,
        "the dead primary is not asked again"
    );
    assert_eq!(received(&fallback).await, questions);
    assert_eq!(second["cases"], first["cases"]);

    // Replay of the configured chain finds the fallback's answers.
    let (out, replayed) = run(&s, &config, &["--judge", "replay", "--judge-cache", cache]);
    assert_eq!(out.status.code(), Some(0), "{:?}", outputs(&out));
    let replayed = replayed.unwrap();
    assert_eq!(
        replayed["judge"].get("not_in_cache"),
        None,
        "{}",
        replayed["judge"]
    );
    assert_eq!(
        replayed["judge"]["cache_hits"].as_u64(),
        Some(questions as u64)
    );
    assert_eq!(replayed["cases"], first["cases"]);
    assert_eq!(
        received(&primary).await + received(&fallback).await,
        2 * questions
    );
}
