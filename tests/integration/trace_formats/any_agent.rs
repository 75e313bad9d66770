//! any-agent's `OTel` SDK dumps: the same task run through seven frameworks.
//! Decimal 64/128-bit ids, root listed last, `call_llm` dialect,
//! `gen_ai.tool.args`/`gen_ai.output`, string and number token counts.

use agenteval_gate::trace::{Span, SpanKind, StatusCode, Tokens, TraceFormat};
use serde_json::{Value, json};

use super::{count, load_one, root, span, tool_names};

struct Run {
    file: &'static str,
    trace_id: &'static str,
    root_id: &'static str,
    spans: usize,
    llm_calls: usize,
    tools: &'static [&'static str],
    input_tokens: u64,
    output_tokens: u64,
    missing_parents: usize,
}

const RUNS: [Run; 7] = [
    Run {
        file: "AGNO_trace.json",
        trace_id: "39712373237291850001929057769826244787",
        root_id: "2795294992452118289",
        spans: 6,
        llm_calls: 3,
        tools: &["get_current_time", "write_file"],
        input_tokens: 1396,
        output_tokens: 74,
        missing_parents: 0,
    },
    Run {
        file: "GOOGLE_trace.json",
        trace_id: "273475590164507581703505203264503192396",
        root_id: "8588495004904668441",
        spans: 7,
        llm_calls: 3,
        tools: &["get_current_time", "write_file", "final_output"],
        input_tokens: 2251,
        output_tokens: 86,
        missing_parents: 6,
    },
    Run {
        file: "LANGCHAIN_trace.json",
        trace_id: "115825058289444712299650141807529952578",
        root_id: "15531323892744358789",
        spans: 7,
        llm_calls: 4,
        tools: &["get_current_time", "write_file"],
        input_tokens: 1262,
        output_tokens: 125,
        missing_parents: 0,
    },
    Run {
        file: "LLAMA_INDEX_trace.json",
        trace_id: "183122279777172322684744876400756953563",
        root_id: "12253070288137891175",
        spans: 9,
        llm_calls: 5,
        tools: &["get_current_time", "write_file", "final_output"],
        input_tokens: 1308,
        output_tokens: 255,
        missing_parents: 0,
    },
    Run {
        file: "OPENAI_trace.json",
        trace_id: "100927429609276267646756448943279827607",
        root_id: "12324293800750531911",
        spans: 6,
        llm_calls: 3,
        tools: &["get_current_time", "write_file"],
        input_tokens: 1020,
        output_tokens: 76,
        missing_parents: 0,
    },
    Run {
        file: "SMOLAGENTS_trace.json",
        trace_id: "193014249579837554382251753808266698816",
        root_id: "2377815918452923285",
        spans: 7,
        llm_calls: 3,
        tools: &["get_current_time", "write_file", "final_answer"],
        input_tokens: 2294,
        output_tokens: 87,
        missing_parents: 0,
    },
    Run {
        file: "TINYAGENT_trace.json",
        trace_id: "200754113673326459792359196831899614724",
        root_id: "10398286333944367643",
        spans: 8,
        llm_calls: 4,
        tools: &["get_current_time", "write_file", "final_answer"],
        input_tokens: 1369,
        output_tokens: 156,
        missing_parents: 0,
    },
];

#[test]
fn seven_frameworks_give_a_flat_tree_under_the_invoke_agent_root() {
    for run in &RUNS {
        let trace = load_one(&format!("otel-genai-any-agent/{}", run.file));
        let file = run.file;
        assert_eq!(trace.format, TraceFormat::OtelSdk, "{file}");
        // 128-bit decimal trace ids and 64-bit span ids keep every digit.
        assert_eq!(trace.id, run.trace_id, "{file}");
        assert_eq!(trace.spans.len(), run.spans, "{file}");
        let root = root(&trace);
        assert_eq!(root.id, run.root_id, "{file}");
        assert_eq!(
            (root.kind, root.name.as_str()),
            (SpanKind::Agent, "invoke_agent [any_agent]"),
            "{file}"
        );
        assert_eq!(root.model(), Some("mistral/mistral-small-latest"), "{file}");
        // Listed last in the file, first in time.
        assert_eq!(trace.spans[0].id, run.root_id, "{file}");
        for child in trace.spans.iter().skip(1) {
            assert_eq!(
                child.parent.as_deref(),
                Some(run.root_id),
                "{file}: {} is not under the root",
                child.id
            );
            assert_eq!(
                child.agent.as_deref(),
                Some("any_agent"),
                "{file}: {}",
                child.id
            );
            assert_eq!(child.status.code, StatusCode::Ok, "{file}");
        }
        assert_eq!(count(&trace, SpanKind::Llm), run.llm_calls, "{file}");
        assert_eq!(tool_names(&trace), run.tools, "{file}");
        let (input, output) = trace
            .spans
            .iter()
            .filter_map(agenteval_gate::trace::Span::tokens)
            .fold((0, 0), |(i, o), t| (i + t.input, o + t.output));
        assert_eq!(
            (input, output),
            (run.input_tokens, run.output_tokens),
            "{file}"
        );
        assert_eq!(
            trace.warnings.len(),
            run.missing_parents,
            "{file}: {:?}",
            trace.warnings
        );
        // Every tool execution has its decoded arguments.
        for tool in trace.tool_spans().filter_map(|s| s.tool.as_ref()) {
            match tool.name.as_str() {
                "get_current_time" => assert_eq!(
                    tool.arguments,
                    Some(json!({"timezone": "America/New_York"}).into()),
                    "{file}"
                ),
                "write_file" => assert_eq!(
                    tool.arguments,
                    Some(json!({"text": "2025"}).into()),
                    "{file}"
                ),
                _ => assert!(
                    tool.arguments
                        .as_ref()
                        .is_some_and(|a| a.value().get("answer").is_some()),
                    "{file}"
                ),
            }
        }
        let final_output = trace.final_output.as_deref().unwrap_or_default();
        assert!(
            final_output.starts_with(r#"{"steps":[{"number":1,"description":""#),
            "{file}: {final_output}"
        );
    }
}

#[test]
fn google_children_name_parents_missing_from_the_file_and_are_reattached() {
    let trace = load_one("otel-genai-any-agent/GOOGLE_trace.json");
    assert_eq!(trace.warnings.len(), 6);
    let llm_warning = trace
        .warnings
        .iter()
        .find(|w| w.starts_with("span `2932848494077650092`"))
        .unwrap();
    assert!(
        llm_warning.contains("names parent `17348474965005769013`"),
        "{llm_warning}"
    );
    assert!(
        llm_warning.contains("attached to root `8588495004904668441`"),
        "{llm_warning}"
    );
    assert!(
        trace
            .warnings
            .iter()
            .all(|w| w.contains("attached to root `8588495004904668441`"))
    );
    assert_eq!(
        span(&trace, "2932848494077650092").parent.as_deref(),
        Some("8588495004904668441")
    );
}

#[test]
fn llm_spans_carry_the_requested_calls_tokens_and_costs() {
    let trace = load_one("otel-genai-any-agent/GOOGLE_trace.json");
    let first = span(&trace, "2932848494077650092");
    assert_eq!(first.kind, SpanKind::Llm);
    assert_eq!(
        first.tokens(),
        Some(Tokens {
            input: 672,
            output: 16
        })
    );
    assert!((first.cost().unwrap() - (0.000_067_2 + 4.8e-6)).abs() < 1e-12);
    assert_eq!(first.input_messages.len(), 2);
    assert_eq!(first.input_messages[0].role, "system");
    assert!(
        first.input_messages[1]
            .content
            .starts_with("Find what year it is in the America/New_York timezone")
    );
    let calls: Vec<_> = first.requested_tool_calls().collect();
    assert_eq!(calls.len(), 1);
    assert_eq!(
        (
            calls[0].name.as_str(),
            calls[0].arguments.value().into_owned()
        ),
        ("get_current_time", json!({"timezone": "America/New_York"}))
    );
    let tool = span(&trace, "14962216559073945637").tool.as_ref().unwrap();
    assert_eq!(tool.call_id.as_deref(), Some("jbUWqgIUr"));
    assert_eq!(
        tool.result
            .as_ref()
            .and_then(|r| r.value().get("timezone").cloned()),
        Some(json!("America/New_York"))
    );
    // The call asking for `final_output` passes a JSON *string* argument:
    // only the outer level is decoded.
    let last_call = trace
        .spans
        .iter()
        .rfind(|s| s.kind == SpanKind::Llm)
        .unwrap();
    let answer = &last_call
        .requested_tool_calls()
        .next()
        .unwrap()
        .arguments
        .value()["answer"]
        .clone();
    assert!(
        answer
            .as_str()
            .is_some_and(|s| s.starts_with(r#"{"steps": [{"number": 1"#)),
        "{answer}"
    );
}

#[test]
fn framework_dialects_of_tool_results_are_decoded_faithfully() {
    let result_of = |file: &str| {
        let trace = load_one(&format!("otel-genai-any-agent/{file}"));
        trace
            .tool_spans()
            .find(|s| s.name.ends_with("write_file"))
            .and_then(|s| s.tool.clone())
            .and_then(|t| t.result.map(|r| r.value().into_owned()))
    };
    // `gen_ai.output.type = json` with the text `null`, `"None"` and `{}`;
    // `text` with `None`.
    assert_eq!(result_of("LANGCHAIN_trace.json"), Some(Value::Null));
    assert_eq!(result_of("LLAMA_INDEX_trace.json"), Some(json!("None")));
    assert_eq!(result_of("OPENAI_trace.json"), Some(json!({})));
    assert_eq!(result_of("TINYAGENT_trace.json"), Some(json!("None")));
    // LlamaIndex logs empty argument objects on the LLM side.
    let llama = load_one("otel-genai-any-agent/LLAMA_INDEX_trace.json");
    let first_call = llama
        .spans
        .iter()
        .find(|s| s.kind == SpanKind::Llm)
        .unwrap()
        .requested_tool_calls()
        .next()
        .unwrap();
    assert_eq!(
        (
            first_call.name.as_str(),
            first_call.arguments.value().into_owned()
        ),
        ("get_current_time", json!({}))
    );
    // LangChain's last-but-one LLM answer is plain text.
    let langchain = load_one("otel-genai-any-agent/LANGCHAIN_trace.json");
    let texts: Vec<String> = langchain
        .spans
        .iter()
        .filter(|s| s.kind == SpanKind::Llm)
        .filter_map(Span::output_text)
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("Here are the steps I have taken:")),
        "{texts:?}"
    );
}
