//! Judge pipeline throughput (issue 11): the real engine and OpenAI-compatible
//! HTTP client against a minimal HTTP/1.1 server on 127.0.0.1.
//!
//! 1. overhead: a server that answers at once, fresh questions (cache misses,
//!    one call each): calls per second through key, cache lookup, budget,
//!    HTTP, strict parsing and the cache write;
//! 2. cache hits: the same questions again: answers per second from disk;
//! 3. latency: a server that waits 200 ms per answer: throughput per
//!    concurrency, next to the ideal `concurrency / 0.2 s`.
//!
//! `cargo bench --bench judge -- [N] [RUNS]` (defaults 4000 questions, 5 runs),
//! or `bench/judge.sh`. Prints medians.

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark binary"
)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agenteval_gate::judged::{AnswerFormat, Outcome, Request};
use agenteval_gate::llm::Budget;
use agenteval_gate::llm::Cache;
use agenteval_gate::llm::Engine;
use agenteval_gate::llm::OpenAiJudge;
use agenteval_gate::llm::Prompt;
use agenteval_gate::llm::RetryPolicy;
use agenteval_gate::llm::{Judge, Params};
use agenteval_gate::llm::{JudgeMode, ProviderSettings};
use agenteval_gate::spec::{AuthHeader, ProviderName, StructuredOutput};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const ANSWER: &str =
    r#"{"verdict": "PASS", "criterion": null, "notes": "bench", "cited_spans": []}"#;

/// A keep-alive HTTP/1.1 server answering every POST with one chat
/// completion after `delay`. Runs on its own runtime thread.
fn serve(delay: Duration) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let body = serde_json::json!({
        "choices": [{"message": {"role": "assistant", "content": ANSWER}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 200, "completion_tokens": 20}
    })
    .to_string();
    let response: Arc<[u8]> = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
    .into();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            loop {
                let (mut sock, _) = listener.accept().await.unwrap();
                let response = Arc::clone(&response);
                tokio::spawn(async move {
                    let mut buf = Vec::with_capacity(16 * 1024);
                    let mut chunk = [0u8; 16 * 1024];
                    loop {
                        // Headers, then the body by content-length.
                        let (head_end, len) = loop {
                            if let Some(end) = find(&buf, b"\r\n\r\n") {
                                let head =
                                    String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
                                let len = head
                                    .lines()
                                    .find_map(|l| l.strip_prefix("content-length:"))
                                    .and_then(|v| v.trim().parse::<usize>().ok())
                                    .unwrap_or(0);
                                break (end + 4, len);
                            }
                            match sock.read(&mut chunk).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => buf.extend_from_slice(&chunk[..n]),
                            }
                        };
                        while buf.len() < head_end + len {
                            match sock.read(&mut chunk).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => buf.extend_from_slice(&chunk[..n]),
                            }
                        }
                        buf.drain(..head_end + len);
                        if !delay.is_zero() {
                            tokio::time::sleep(delay).await;
                        }
                        if sock.write_all(&response).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
    });
    format!("http://{addr}/v1")
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn engine(url: &str, cache: &Path, concurrency: usize) -> Engine {
    let settings = ProviderSettings {
        provider: ProviderName::Openai,
        model: "bench".into(),
        base_url: url.to_owned(),
        api_key: None,
        api_key_env: "NONE".into(),
        auth: AuthHeader::Bearer,
        api_version: None,
        structured: StructuredOutput::Auto,
        price: None,
    };
    let judge: Arc<dyn Judge> =
        Arc::new(OpenAiJudge::new(&settings, Duration::from_secs(30)).unwrap());
    Engine::new(
        vec![judge],
        JudgeMode::Live(ProviderName::Openai),
        Cache::new(cache, true),
        RetryPolicy::new(0),
        concurrency,
        Arc::new(Budget::default()),
        Params::default(),
    )
}

/// `n` distinct questions about the size of real ones (≈ 2.5 KB of prompt).
fn questions(n: usize, salt: &str) -> Vec<Request> {
    let filler = "[span 5e1f0c2a9b7d4e31] llm chat gpt-4o-mini (agent support_agent)\n  output: Hi Dana, your balance is $89.00, due on 2025-03-15.\n".repeat(18);
    (0..n)
        .map(|i| Request {
            prompt: Prompt {
                system: "You are an evaluator. You check whether one run of an AI agent met a single requirement.".into(),
                user: format!("Checkpoint P3-{i:05} {salt}\n{filler}"),
            },
            format: AnswerFormat::Checkpoint { criteria: 1 },
            repeat: 0,
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(4000);
    let runs: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(5);
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/out/judge");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    println!(
        "judge bench: {n} questions per run, {runs} runs, {} CPUs",
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
    );

    // 1. Pipeline overhead: fresh questions against an instant server.
    let fast = serve(Duration::ZERO);
    for concurrency in [8, 32] {
        let mut rates = Vec::new();
        for r in 0..runs {
            let cache = out.join(format!("miss-{concurrency}-{r}"));
            let e = engine(&fast, &cache, concurrency);
            let qs = questions(n, &format!("miss {concurrency} {r}"));
            let t = Instant::now();
            let (outcomes, stats) = e.run_blocking(&qs).unwrap();
            let secs = t.elapsed().as_secs_f64();
            assert_eq!(stats.calls as usize, n);
            assert!(
                outcomes
                    .iter()
                    .all(|o| matches!(o, Outcome::Answered(a) if !a.cached))
            );
            rates.push(n as f64 / secs);
        }
        println!(
            "overhead, instant server, concurrency {concurrency:>2}: median {:>8.0} calls/s (runs: {})",
            median(rates.clone()),
            fmt(&rates)
        );
    }

    // 2. Cache hits: the same questions again, answered from disk.
    let cache = out.join("hits");
    let hit_n = n * 5;
    let qs = questions(hit_n, "hits");
    let e = engine(&fast, &cache, 32);
    e.run_blocking(&qs).unwrap();
    let mut rates = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let (outcomes, stats) = e.run_blocking(&qs).unwrap();
        let secs = t.elapsed().as_secs_f64();
        assert_eq!((stats.cache_hits as usize, stats.calls), (hit_n, 0));
        assert_eq!(outcomes.len(), hit_n);
        rates.push(hit_n as f64 / secs);
    }
    println!(
        "cache hits ({hit_n} answers on disk): median {:>8.0} hits/s (runs: {})",
        median(rates.clone()),
        fmt(&rates)
    );

    // 3. A 200 ms server: throughput should be concurrency / 0.2 s.
    let slow = serve(Duration::from_millis(200));
    for concurrency in [4, 16, 64] {
        let count = concurrency * 10;
        let mut rates = Vec::new();
        for r in 0..runs.min(3) {
            let e = engine(
                &slow,
                &out.join(format!("slow-{concurrency}-{r}")),
                concurrency,
            );
            let qs = questions(count, &format!("slow {concurrency} {r}"));
            let t = Instant::now();
            let (_, stats) = e.run_blocking(&qs).unwrap();
            let secs = t.elapsed().as_secs_f64();
            assert_eq!(stats.calls as usize, count);
            rates.push(count as f64 / secs);
        }
        let ideal = concurrency as f64 / 0.2;
        let m = median(rates.clone());
        println!(
            "200 ms server, concurrency {concurrency:>2}: median {m:>7.1} calls/s vs ideal {ideal:>5.0} ({:.0}%) (runs: {})",
            100.0 * m / ideal,
            fmt(&rates)
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

fn fmt(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{x:.0}"))
        .collect::<Vec<_>>()
        .join(", ")
}
