//! Bare span-attribute maps (`OpenInference` ↔ `OTel` `GenAI` converter
//! fixtures): one-span traces. The `OpenInference` and `GenAI` encodings of the
//! same LLM call must normalise to the same messages, calls and tokens.

use agenteval_gate::trace::{Message, SpanKind, Tokens, Trace, TraceFormat};
use serde_json::json;

use super::load_one;

fn single(file: &str) -> Trace {
    let trace = load_one(&format!("openinference/{file}"));
    assert_eq!(trace.format, TraceFormat::AttributeMap, "{file}");
    assert_eq!(trace.id, file.trim_end_matches(".json"));
    assert_eq!(trace.spans.len(), 1, "{file}");
    assert!(trace.warnings.is_empty(), "{file}: {:?}", trace.warnings);
    trace
}

/// The conversation all four LLM fixtures describe.
fn assert_weather_conversation(input: &[Message], file: &str) {
    assert_eq!(input.len(), 3, "{file}: {input:?}");
    assert_eq!(
        (input[0].role.as_str(), input[0].content.as_str()),
        ("user", "Weather in Paris?"),
        "{file}"
    );
    assert_eq!(input[1].role, "assistant", "{file}");
    assert_eq!(
        input[1].content, "Absolutely! Let me check the weather for you.",
        "{file}"
    );
    let call = &input[1].tool_calls[0];
    assert_eq!(
        (call.id.as_deref(), call.name.as_str()),
        (Some("1234"), "get_weather"),
        "{file}"
    );
    assert_eq!(call.arguments, json!({"location": "Paris"}), "{file}");
    assert_eq!(
        (input[2].role.as_str(), input[2].content.as_str()),
        ("tool", "rainy, 57°F"),
        "{file}"
    );
    assert_eq!(input[2].tool_call_id.as_deref(), Some("1234"), "{file}");
}

const ANSWER: &str = "The weather in Paris is currently rainy with a temperature of 57°F.";

#[test]
fn openinference_and_genai_encodings_of_one_call_agree() {
    let files = [
        "openinference_client_span_tool_calls.json",
        "otel_genai_client_span_tool_calls.json",
        "openinference_client_span_input_output_only.json",
        "otel_genai_deprecated_client_span_tool_calls.json",
    ];
    for file in files {
        let trace = single(file);
        let span = &trace.spans[0];
        assert_eq!(span.kind, SpanKind::Llm, "{file}");
        assert_eq!(
            span.tokens(),
            Some(Tokens {
                input: 97,
                output: 52
            }),
            "{file}"
        );
        assert_weather_conversation(&span.input_messages, file);
        assert_eq!(span.output_messages.len(), 1, "{file}");
        assert_eq!(span.output_messages[0].role, "assistant", "{file}");
        assert_eq!(span.output_messages[0].content, ANSWER, "{file}");
        assert_eq!(span.output_text().as_deref(), Some(ANSWER), "{file}");
        assert_eq!(trace.final_answer().as_deref(), Some(ANSWER), "{file}");
    }
}

#[test]
fn models_providers_and_leftover_attributes() {
    let oi = single("openinference_client_span_tool_calls.json");
    let oi = &oi.spans[0];
    assert_eq!(oi.model(), Some("gpt-4-0613"));
    assert_eq!(oi.attributes["openinference.span.kind"], json!("LLM"));
    assert_eq!(oi.attributes["llm.token_count.total"], json!(149));
    assert_eq!(oi.attributes["llm.provider"], json!("openai"));
    // The request body in `input.value` is decoded, not re-read as messages.
    assert_eq!(
        oi.input.as_ref().and_then(|i| i.get("temperature")),
        Some(&json!(0.5))
    );
    assert!(
        !oi.attributes
            .contains_key("llm.input_messages.0.message.role")
    );

    let genai = single("otel_genai_client_span_tool_calls.json");
    let genai = &genai.spans[0];
    // The response model wins; the differing request model stays an attribute.
    assert_eq!(genai.model(), Some("gpt-4-0613"));
    assert_eq!(genai.attributes["gen_ai.request.model"], json!("gpt-4"));
    assert_eq!(
        genai.attributes["gen_ai.response.finish_reasons"],
        json!(["stop"])
    );
    assert_eq!(genai.attributes["gen_ai.operation.name"], json!("chat"));
    assert_eq!(
        genai.output.as_ref().and_then(|o| o.get("finish_reason")),
        Some(&json!("stop"))
    );
    assert!(!genai.attributes.contains_key("gen_ai.input.messages"));

    let deprecated = single("otel_genai_deprecated_client_span_tool_calls.json");
    assert!(!deprecated.spans[0].attributes.contains_key("gen_ai.prompt"));
    assert!(
        !deprecated.spans[0]
            .attributes
            .contains_key("gen_ai.completion")
    );
}

#[test]
fn a_tool_execution_map_becomes_a_tool_span() {
    let trace = single("otel_genai_tool_execution_span.json");
    let span = &trace.spans[0];
    assert_eq!(span.kind, SpanKind::Tool);
    let tool = span.tool.as_ref().unwrap();
    assert_eq!(tool.name, "get_weather");
    assert_eq!(tool.call_id.as_deref(), Some("1234"));
    assert_eq!(tool.arguments, Some(json!({"city": "New York"}).into()));
    assert_eq!(
        tool.result
            .as_ref()
            .and_then(|r| r.value().get("status").cloned()),
        Some(json!("success"))
    );
    assert_eq!(span.attributes["gen_ai.tool.type"], json!("function"));
    assert_eq!(
        span.attributes["gen_ai.tool.description"],
        json!("Retrieves the current weather report for a specified city.")
    );
}
