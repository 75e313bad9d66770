//! Ingestion throughput: N synthetic OTLP/GenAI traces evaluated the way
//! `agenteval-gate run` does (read, detect, parse, checkpoints, steps, report),
//! next to the ceiling of parsing the same bytes with `serde_json` into a
//! `Value` (also in parallel). Prints medians of several runs and the ratio.
//!
//! Then one deep trace: a chain of `CHAIN` spans (20,000; each the child of
//! the previous, alternating model calls and tool runs), parsed, built into
//! its DAG and scored by the rules, as `agenteval-gate trace` does. DAG
//! building used to be quadratic here (29 s); it must stay under a second.
//!
//! `cargo bench --bench ingest -- [N] [RUNS] [CHAIN]` (defaults 2000 traces,
//! 7 runs, 20000 spans), or `bench/ingest.sh`.
//!
//! `cargo bench --bench ingest -- --file=PATH [RUNS]`: only the two in-process
//! parses of one file (a plain `serde_json::Value` parse and
//! `trace::parse_traces`), medians in seconds, for `bench/ingest.sh`'s
//! comparison with Python's `json` on a 100 MB OTLP file.

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark binary"
)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use agenteval_gate::model::Tier;
use agenteval_gate::runner::evaluate_replay;
use agenteval_gate::runner::{EvalSettings, SuiteSettings, TierChoice};
use agenteval_gate::spec::load_checked;

fn main() {
    if let Some(file) = std::env::args().find_map(|a| a.strip_prefix("--file=").map(PathBuf::from))
    {
        let runs = std::env::args()
            .skip(1)
            .find_map(|a| a.parse().ok())
            .unwrap_or(5);
        one_file(&file, runs);
        return;
    }
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(2000);
    let runs: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(7);
    let chain: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("bench/out/ingest");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("traces")).unwrap();
    let bytes = generate(&dir, n);
    let total: usize = bytes.iter().map(Vec::len).sum();
    let mb = total as f64 / 1e6;
    println!(
        "ingest bench: {n} OTLP traces, {mb:.1} MB, {} threads, {runs} runs",
        rayon::current_num_threads()
    );

    let ceiling = measure(runs, || {
        bytes.par_iter().for_each(|b| {
            let v: serde_json::Value = serde_json::from_slice(b).unwrap();
            std::hint::black_box(v);
        });
    });
    let parse = measure(runs, || {
        bytes.par_iter().enumerate().for_each(|(i, b)| {
            let t =
                agenteval_gate::trace::parse_traces(b, Path::new(&format!("c{i}.json"))).unwrap();
            std::hint::black_box(t);
        });
    });
    let suite = load_checked(&dir.join("suite.yaml")).unwrap().suite;
    let settings = EvalSettings {
        suite: SuiteSettings {
            suites_dir: dir.clone(),
            baselines_dir: dir.join("baselines"),
            suites: vec![],
        },
        traces: None,
        evidence: None,
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
    let run = measure(runs, || {
        let report = evaluate_replay(&suite, &indices, Tier::Full, &settings).unwrap();
        assert_eq!(report.aggregate.cases_ok, n);
        std::hint::black_box(report);
    });
    for (name, secs) in [
        ("serde_json::Value parse (ceiling)", ceiling),
        ("trace::parse_traces (ingest only)", parse),
        ("run: read + parse + evaluate", run),
    ] {
        println!(
            "{name:<36} median {:>8.1} ms  {:>7.1} MB/s  {:>8.0} traces/s  ({:.2}× the ceiling's time)",
            secs * 1e3,
            mb / secs,
            n as f64 / secs,
            secs / ceiling
        );
    }
    deep_chain(chain, runs);
}

/// The plain `serde_json::Value` parse and `parse_traces` of one file, one
/// thread each: `value_s <median>` and `parse_traces_s <median>` lines.
fn one_file(path: &Path, runs: usize) {
    let bytes = std::fs::read(path).unwrap();
    let value = measure(runs, || {
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        std::hint::black_box(v);
    });
    let parse = measure(runs, || {
        let t = agenteval_gate::trace::parse_traces(&bytes, path).unwrap();
        std::hint::black_box(t);
    });
    println!("value_s {value:.4}");
    println!("parse_traces_s {parse:.4}");
}

/// Parse + DAG + rules scores of one `n`-span chain; prints the median.
fn deep_chain(n: usize, runs: usize) {
    use agenteval_gate::eval::{
        RulesScorer, StepContext, StepSettings, ToolCatalog, evaluate_steps,
    };
    let bytes = chain_trace(n).into_bytes();
    let catalog = ToolCatalog::new(&[]).unwrap();
    let settings = StepSettings::default();
    let mut nodes = 0;
    let secs = measure(runs.min(5), || {
        let trace = agenteval_gate::trace::parse_trace(&bytes, Path::new("chain.json")).unwrap();
        let ctx = StepContext::new(&catalog, &settings, &RulesScorer);
        let e = evaluate_steps(&trace, &ctx);
        nodes = e.graph.len();
        std::hint::black_box(e);
    });
    println!(
        "deep chain: {n} spans ({:.1} MB) → {nodes} steps: parse + DAG + rules median {:.1} ms",
        bytes.len() as f64 / 1e6,
        secs * 1e3
    );
}

/// An OTLP trace of `n` spans, each the child of the previous one.
fn chain_trace(n: usize) -> String {
    let t0: u64 = 1_760_000_000_000_000_000;
    let mut parent = String::new();
    let spans: Vec<String> = (0..n)
        .map(|i| {
            let id = format!("{:016x}", i + 1);
            let attrs = if i % 2 == 0 {
                r#"[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.request.model","value":{"stringValue":"m"}}]"#.to_owned()
            } else {
                format!(
                    r#"[{{"key":"gen_ai.operation.name","value":{{"stringValue":"execute_tool"}}}},{{"key":"gen_ai.tool.name","value":{{"stringValue":"lookup"}}}},{{"key":"gen_ai.tool.call.id","value":{{"stringValue":"call_{i}"}}}}]"#
                )
            };
            let start = t0 + i as u64 * 1000;
            let span = format!(
                r#"{{"traceId":"{:032x}","spanId":"{id}","parentSpanId":"{parent}","name":"{}","kind":1,"startTimeUnixNano":"{start}","endTimeUnixNano":"{}","attributes":{attrs},"status":{{"code":1}}}}"#,
                1,
                if i % 2 == 0 { "chat m" } else { "execute_tool lookup" },
                start + 500
            );
            parent = id;
            span
        })
        .collect();
    format!(
        r#"{{"resourceSpans":[{{"resource":{{"attributes":[]}},"scopeSpans":[{{"scope":{{"name":"chain"}},"spans":[{}]}}]}}]}}"#,
        spans.join(",")
    )
}

/// Median wall time in seconds of `runs` calls (after one warm-up).
fn measure(runs: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Write `n` traces and a suite; return the trace bytes.
fn generate(dir: &Path, n: usize) -> Vec<Vec<u8>> {
    let mut suite = String::from(
        "suite: ingest-bench\nspec_version: \"1\"\ntraces: traces/\ntools:\n  - name: lookup_account\n    schema: {type: object, required: [account_id], properties: {account_id: {type: string}}}\n  - name: get_invoices\n    schema: {type: object, properties: {account_id: {type: string}, limit: {type: integer}}}\ncheckpoints:\n  - {id: P2-01, tier: 2, instruction: lookup first, severity: high, evidence_sources: [trace], sequence: {before: {tool: lookup_account}, then: {kind: llm, final: true}}}\n  - {id: P2-02, tier: 2, instruction: at most 3 invoice calls, severity: low, evidence_sources: [trace], sequence: {count: {of: {tool: get_invoices}, max: 3}}}\ncases:\n",
    );
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let _ = writeln!(suite, "  - {{id: c{i:05}, input: q{i}}}");
        let text = trace(i);
        std::fs::write(dir.join(format!("traces/c{i:05}.json")), &text).unwrap();
        out.push(text.into_bytes());
    }
    std::fs::write(dir.join("suite.yaml"), suite).unwrap();
    out
}

/// One OTLP/JSON trace: an agent root, 6 rounds of chat + 2 tool calls, a final answer.
fn trace(i: usize) -> String {
    let t0: u64 = 1_760_000_000_000_000_000 + (i as u64) * 10_000_000_000;
    let mut spans = Vec::new();
    let root = format!("{:016x}", i * 1000 + 1);
    let attr = |k: &str, v: &str| {
        format!(
            r#"{{"key":"{k}","value":{{"stringValue":{}}}}}"#,
            serde_json::to_string(v).unwrap()
        )
    };
    let int = |k: &str, v: u64| format!(r#"{{"key":"{k}","value":{{"intValue":"{v}"}}}}"#);
    let span = |id: &str,
                parent: &str,
                name: &str,
                start: u64,
                end: u64,
                attrs: Vec<String>,
                status: u8| {
        format!(
            r#"{{"traceId":"{:032x}","spanId":"{id}","parentSpanId":"{parent}","name":"{name}","kind":1,"startTimeUnixNano":"{start}","endTimeUnixNano":"{end}","attributes":[{}],"status":{{"code":{status}}}}}"#,
            i + 1,
            attrs.join(",")
        )
    };
    let mut t = t0;
    let mut history = vec![
        serde_json::json!({"role": "user", "parts": [{"type": "text", "content": format!("What is the balance of account A-{i}? Please also list recent invoices and due dates.")}]}),
    ];
    for round in 0..6u64 {
        let id = format!("{:016x}", i * 1000 + 10 + round as usize * 3);
        let (tool, args) = if round % 2 == 0 {
            (
                "lookup_account",
                serde_json::json!({"account_id": format!("A-{i}")}),
            )
        } else {
            (
                "get_invoices",
                serde_json::json!({"account_id": format!("A-{i}"), "limit": 5}),
            )
        };
        let call_id = format!("call_{i}_{round}");
        let output = serde_json::json!([{"role": "assistant", "parts": [{"type": "text", "content": "Let me check that for you."}, {"type": "tool_call", "id": call_id, "name": tool, "arguments": args}]}]);
        spans.push(span(
            &id,
            &root,
            "chat gpt-4o-mini",
            t,
            t + 400_000_000,
            vec![
                attr("gen_ai.operation.name", "chat"),
                attr("gen_ai.request.model", "gpt-4o-mini"),
                attr("gen_ai.agent.name", "support"),
                attr(
                    "gen_ai.input.messages",
                    &serde_json::to_string(&history).unwrap(),
                ),
                attr("gen_ai.output.messages", &output.to_string()),
                int("gen_ai.usage.input_tokens", 300 + round * 50),
                int("gen_ai.usage.output_tokens", 40),
            ],
            1,
        ));
        t += 410_000_000;
        let tid = format!("{:016x}", i * 1000 + 11 + round as usize * 3);
        let result = serde_json::json!({"account_id": format!("A-{i}"), "balance": 120.5, "invoices": [{"id": "INV-1", "amount": 40.0, "due": "2026-12-01"}, {"id": "INV-2", "amount": 80.5, "due": "2027-01-01"}]});
        spans.push(span(
            &tid,
            &root,
            &format!("execute_tool {tool}"),
            t,
            t + 50_000_000,
            vec![
                attr("gen_ai.operation.name", "execute_tool"),
                attr("gen_ai.tool.name", tool),
                attr("gen_ai.tool.call.id", &call_id),
                attr("gen_ai.tool.call.arguments", &args.to_string()),
                attr("gen_ai.tool.call.result", &result.to_string()),
                attr("gen_ai.agent.name", "support"),
            ],
            1,
        ));
        t += 60_000_000;
        history.push(output[0].clone());
        history.push(serde_json::json!({"role": "tool", "parts": [{"type": "tool_call_response", "id": call_id, "response": result.to_string()}]}));
    }
    let fid = format!("{:016x}", i * 1000 + 999);
    spans.push(span(&fid, &root, "chat gpt-4o-mini", t, t + 500_000_000, vec![
        attr("gen_ai.operation.name", "chat"), attr("gen_ai.request.model", "gpt-4o-mini"), attr("gen_ai.agent.name", "support"),
        attr("gen_ai.output.messages", &serde_json::json!([{"role": "assistant", "parts": [{"type": "text", "content": "Your balance is $120.50; INV-1 is due 2026-12-01."}]}]).to_string()),
        int("gen_ai.usage.input_tokens", 900), int("gen_ai.usage.output_tokens", 30),
    ], 1));
    spans.push(span(
        &root,
        "",
        "invoke_agent support",
        t0 - 1_000_000,
        t + 510_000_000,
        vec![
            attr("gen_ai.operation.name", "invoke_agent"),
            attr("gen_ai.agent.name", "support"),
        ],
        1,
    ));
    format!(
        r#"{{"resourceSpans":[{{"resource":{{"attributes":[{}]}},"scopeSpans":[{{"scope":{{"name":"bench"}},"spans":[{}]}}]}}]}}"#,
        attr("service.name", "support-bot"),
        spans.join(",")
    )
}
