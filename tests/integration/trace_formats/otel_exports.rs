//! OTLP/JSON (the spec's example and a `GenAI` JSONL export), Python SDK
//! `to_json()` spans, and the nested `OpenInference` export.

use agenteval_gate::trace::{SpanKind, StatusCode, Tokens, TraceFormat};
use serde_json::json;

use super::{count, load_one, root, span, tool_names};

#[test]
fn the_otlp_spec_example_keeps_ids_clock_scope_and_resource() {
    let trace = load_one("otel-spec/otlp-example-trace.json");
    assert_eq!(trace.format, TraceFormat::Otlp);
    // Upper-case hex in the file, lower-case in the model.
    assert_eq!(trace.id, "5b8efff798038103d269b633813fc60c");
    assert_eq!(trace.spans.len(), 1);
    let s = &trace.spans[0];
    assert_eq!(
        (s.id.as_str(), s.name.as_str(), s.kind),
        ("eee19b7ec3c1b174", "I'm a server span", SpanKind::Other)
    );
    assert_eq!(
        (s.start, s.end),
        (
            Some(1_544_712_660_000_000_000),
            Some(1_544_712_661_000_000_000)
        )
    );
    assert_eq!(s.duration_ms(), Some(1000.0));
    assert_eq!(s.attributes["my.span.attr"], json!("some value"));
    assert_eq!(s.attributes["span.kind"], json!("server"));
    assert_eq!(s.attributes["otel.scope.name"], json!("my.library"));
    assert_eq!(s.attributes["otel.scope.version"], json!("1.0.0"));
    assert_eq!(
        trace.metadata["resource"],
        json!({"service.name": "my.service"})
    );
    // Its parent `EEE19B7EC3C1B173` is not in the file and there is no root.
    assert_eq!(s.parent, None);
    assert_eq!(trace.warnings.len(), 1);
    assert!(
        trace.warnings[0].contains("names parent `eee19b7ec3c1b173`"),
        "{:?}",
        trace.warnings
    );
}

#[test]
fn otlp_jsonl_batches_merge_into_one_genai_trace() {
    let trace = load_one("synthetic/otlp_genai_batches.jsonl");
    assert_eq!(trace.format, TraceFormat::Otlp);
    assert_eq!(trace.id, "7a1f0c9e5d3b4a2f8e6d1c0b9a8f7e6d");
    assert!(trace.warnings.is_empty(), "{:?}", trace.warnings);
    assert_eq!(trace.spans.len(), 6);
    let root = root(&trace);
    assert_eq!(
        (root.id.as_str(), root.kind),
        ("9f8e7d6c5b4a3921", SpanKind::Agent)
    );
    assert_eq!(root.agent.as_deref(), Some("support-agent"));
    assert!(
        trace
            .spans
            .iter()
            .skip(1)
            .all(|s| s.parent.as_deref() == Some("9f8e7d6c5b4a3921"))
    );
    assert!(
        trace
            .spans
            .iter()
            .all(|s| s.agent.as_deref() == Some("support-agent"))
    );
    assert_eq!(count(&trace, SpanKind::Llm), 3);
    assert_eq!(tool_names(&trace), ["lookup_account", "lookup_account"]);

    let first = span(&trace, "1111aaaa2222bbbb");
    assert_eq!(
        first.tokens(),
        Some(Tokens {
            input: 412,
            output: 23
        })
    );
    assert_eq!(first.model(), Some("gpt-4o-mini-2024-07-18"));
    assert_eq!(
        first.attributes["gen_ai.request.model"],
        json!("gpt-4o-mini")
    );
    assert_eq!(
        first.attributes["gen_ai.response.finish_reasons"],
        json!(["tool_calls"])
    );
    assert_eq!(first.attributes["gen_ai.request.temperature"], json!(0.0));
    assert_eq!(
        first
            .input_messages
            .iter()
            .map(|m| m.role.as_str())
            .collect::<Vec<_>>(),
        ["system", "user"]
    );
    let call = first.requested_tool_calls().next().unwrap();
    assert_eq!(
        (call.id.as_deref(), call.arguments.value().into_owned()),
        (Some("call_1"), json!({"account_id": "A17"}))
    );

    let failed = span(&trace, "2222bbbb3333cccc");
    assert_eq!(failed.status.code, StatusCode::Error);
    assert_eq!(
        failed.status.message.as_deref(),
        Some("account not found: A17")
    );
    assert_eq!(failed.attributes["events"][0]["name"], json!("exception"));
    assert_eq!(
        failed.attributes["events"][0]["attributes"]["exception.type"],
        json!("KeyError")
    );

    let retried = span(&trace, "4444dddd5555eeee");
    let tool = retried.tool.as_ref().unwrap();
    assert_eq!(tool.arguments, Some(json!({"account_id": "A-17"}).into()));
    assert_eq!(
        tool.result,
        Some(json!({"balance": 42.5, "due": "2025-07-01"}).into())
    );
    assert_eq!(retried.status.code, StatusCode::Ok);
    assert_eq!(retried.start, Some(1_750_000_002_350_000_000));
    assert_eq!(retried.attributes["support_bot.cache.hit"], json!(false));
    assert_eq!(retried.attributes["support_bot.cache.ttl_s"], json!(300));
    assert_eq!(
        retried.attributes["support_bot.request_hash"],
        json!("3q2+7w==")
    );
    assert_eq!(
        retried.attributes["otel.scope.name"],
        json!("support_bot.agent")
    );

    let last = span(&trace, "5555eeee6666ffff");
    assert_eq!(last.status.code, StatusCode::Ok);
    assert_eq!(
        last.input_messages[0].tool_call_id.as_deref(),
        Some("call_2")
    );
    assert_eq!(
        last.input_messages[0].content,
        r#"{"balance":42.5,"due":"2025-07-01"}"#
    );
    assert_eq!(
        trace.final_answer().as_deref(),
        Some("Your balance is $42.50, due on 2025-07-01.")
    );
    assert_eq!(
        trace.metadata["resource"],
        json!({"service.name": "support-bot", "deployment.environment": "staging"})
    );
}

#[test]
fn python_sdk_json_lines_with_hex_ids_and_iso_times() {
    let trace = load_one("synthetic/python_sdk_spans.jsonl");
    assert_eq!(trace.format, TraceFormat::OtelSdk);
    assert_eq!(trace.id, "6c80880dbeb609e2ed41e06a6397a0dd");
    let kinds: Vec<(&str, SpanKind)> = trace
        .spans
        .iter()
        .map(|s| (s.id.as_str(), s.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("7eb5df0046c77cd2", SpanKind::Agent),
            ("1f2e3d4c5b6a7988", SpanKind::Retriever),
            ("d9bdedf0df0b7208", SpanKind::Llm)
        ]
    );
    let llm = span(&trace, "d9bdedf0df0b7208");
    assert_eq!(llm.parent.as_deref(), Some("7eb5df0046c77cd2"));
    assert_eq!(llm.start, Some(1_715_204_771_480_777_000));
    assert_eq!(llm.end, Some(1_715_204_795_368_042_000));
    assert_eq!(llm.status.code, StatusCode::Ok);
    assert_eq!(
        llm.tokens(),
        Some(Tokens {
            input: 1203,
            output: 9
        })
    );
    assert_eq!(llm.attributes["span.kind"], json!("internal"));
    assert_eq!(
        span(&trace, "1f2e3d4c5b6a7988").status.code,
        StatusCode::Unset
    );
    assert_eq!(
        span(&trace, "1f2e3d4c5b6a7988").input.as_deref(),
        Some(&json!("refund policy"))
    );
    assert_eq!(
        trace.metadata["resource"],
        json!({"service.name": "rag-app"})
    );
    assert_eq!(
        trace.final_answer().as_deref(),
        Some("Refunds are issued within 14 days.")
    );
}

#[test]
fn nested_openinference_export_follows_the_nesting() {
    let trace = load_one("synthetic/smolagents_nested_openinference.json");
    assert_eq!(trace.format, TraceFormat::OpenInference);
    assert_eq!(trace.id, "0c2f5e1a9b8d4e7f8a6b5c4d3e2f1a0b");
    assert!(trace.warnings.is_empty(), "{:?}", trace.warnings);
    assert_eq!(trace.spans.len(), 10);
    assert_eq!(
        [
            SpanKind::Agent,
            SpanKind::Chain,
            SpanKind::Llm,
            SpanKind::Tool
        ]
        .map(|k| count(&trace, k)),
        [1, 3, 3, 3]
    );
    let root = root(&trace);
    assert_eq!(
        (root.id.as_str(), root.agent.as_deref()),
        ("a1b2c3d4e5f60718", Some("research_agent"))
    );
    // ISO timestamp + ISO duration.
    assert_eq!(root.start, Some(1_742_402_644_611_468_000));
    assert_eq!(root.duration_ms(), Some(9846.512));
    assert_eq!(root.output.as_deref(), Some(&json!("431500")));
    assert_eq!(
        root.input.as_ref().and_then(|i| i.get("reset")),
        Some(&json!(true))
    );
    assert_eq!(trace.metadata["service_name"], json!("smolagents-eval"));
    let steps: Vec<&str> = trace
        .spans
        .iter()
        .filter(|s| s.kind == SpanKind::Chain)
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(steps, ["Step 1", "Step 2", "Step 3"]);
    for s in trace
        .spans
        .iter()
        .filter(|s| matches!(s.kind, SpanKind::Llm | SpanKind::Tool))
    {
        let parent = span(&trace, s.parent.as_deref().unwrap());
        assert_eq!(
            parent.kind,
            SpanKind::Chain,
            "{} should sit under a step",
            s.id
        );
        assert_eq!(s.agent.as_deref(), Some("research_agent"));
    }
    assert_eq!(
        tool_names(&trace),
        ["web_search", "visit_webpage", "final_answer"]
    );
    let search = span(&trace, "d4e5f60718293a4b").tool.as_ref().unwrap();
    // The smolagents `{args, kwargs}` envelope is unwrapped.
    assert_eq!(
        search.arguments,
        Some(json!({"query": "population of Canberra 2024"}).into())
    );
    assert!(
        search
            .result
            .as_ref()
            .and_then(|r| r.as_str())
            .is_some_and(|r| r.contains("431,500"))
    );
    let failed = span(&trace, "0718293a4b5c6d7e");
    assert_eq!(failed.status.code, StatusCode::Error);
    assert!(
        failed
            .status
            .message
            .as_deref()
            .is_some_and(|m| m.starts_with("HTTPError: 403"))
    );
    assert_eq!(
        failed.attributes["events"][0]["attributes"]["exception.type"],
        json!("requests.exceptions.HTTPError")
    );
    let planner = span(&trace, "c3d4e5f60718293a");
    assert_eq!(planner.input_messages.len(), 2);
    assert_eq!(planner.input_messages[0].role, "system");
    let call = planner.requested_tool_calls().next().unwrap();
    assert_eq!(
        (call.id.as_deref(), call.name.as_str()),
        (Some("call_7Qd1"), "web_search")
    );
    // Token counts written as strings.
    assert_eq!(
        span(&trace, "293a4b5c6d7e8f90").tokens(),
        Some(Tokens {
            input: 1811,
            output: 19
        })
    );
    assert_eq!(
        span(&trace, "18293a4b5c6d7e8f").attributes["logs"][0]["body"]["function.name"],
        json!("final_answer")
    );
}
