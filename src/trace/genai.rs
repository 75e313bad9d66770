//! The shared `OTel` `GenAI` attribute mapper, used by the OTLP, `OTel` SDK and
//! bare attribute-map adapters.
//!
//! Reads `gen_ai.operation.name` (spec values and dialects such as
//! any-agent's `call_llm`), `gen_ai.{input,output}.messages` and the
//! deprecated `gen_ai.prompt`/`gen_ai.completion` (JSON strings or flattened
//! `gen_ai.prompt.<i>.…`), any-agent's `gen_ai.output`/`gen_ai.tool.args`,
//! the spec's `gen_ai.tool.call.{arguments,result,id}`, usage tokens and
//! costs, agent and model names. Attributes it turns into span fields are
//! removed from the map; the rest stay as span attributes.

use serde_json::Value;

use crate::model::ShortText;
use crate::trace::json::{
    Attrs, decode_declared_json, decode_embedded, lenient_f64, lenient_u64, take_unflattened,
    text_of,
};
use crate::trace::messages::{
    Normalized, any_agent_llm_output, messages_from_value, system_instructions,
};
use crate::trace::model::{Message, Span, SpanKind, Tokens, ToolExecution};
use thin_vec::thin_vec;

/// Operation words recognised at the start of a span name.
const NAME_OPERATIONS: [&str; 8] = [
    "chat",
    "text_completion",
    "generate_content",
    "call_llm",
    "execute_tool",
    "invoke_agent",
    "create_agent",
    "embeddings",
];

/// Span kind for a `gen_ai.operation.name` value (lower-case).
pub(crate) fn kind_for_operation(op: &str) -> Option<SpanKind> {
    Some(match op {
        "chat" | "text_completion" | "completion" | "generate_content" | "call_llm" | "llm"
        | "plan" | "generate" | "responses" => SpanKind::Llm,
        "execute_tool" | "call_tool" | "tool" | "tool_call" | "agent_handoff" => SpanKind::Tool,
        "invoke_agent" | "create_agent" | "agent" => SpanKind::Agent,
        "retrieval" | "retrieve" => SpanKind::Retriever,
        "workflow" | "chain" => SpanKind::Chain,
        "embeddings" | "embedding" => SpanKind::Other,
        _ => return None,
    })
}

/// Apply `GenAI` attributes to `span`, consuming the ones it maps.
pub(crate) fn apply(span: &mut Span, attrs: &mut Attrs) {
    let op = attrs
        .get("gen_ai.operation.name")
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase);
    if span.kind == SpanKind::Other {
        span.kind = op
            .as_deref()
            .and_then(kind_for_operation)
            .or_else(|| {
                // Span names follow `{operation} {target}`; only the spec's
                // operation words (and `call_llm`) count, not generic ones.
                span.name
                    .split_whitespace()
                    .next()
                    .filter(|w| NAME_OPERATIONS.contains(w))
                    .and_then(kind_for_operation)
            })
            .or_else(|| kind_from_keys(attrs))
            .unwrap_or(SpanKind::Other);
    }
    if !attrs.contains_key("gen_ai.provider.name")
        && let Some(system) = attrs.remove("gen_ai.system")
    {
        attrs.insert("gen_ai.provider.name".to_owned(), system);
    }
    take_model(span, attrs);
    if let Some(agent) = take_text(attrs, "gen_ai.agent.name") {
        span.agent.get_or_insert(agent.into());
    }
    if span.kind == SpanKind::Agent && span.agent.is_none() {
        span.agent =
            name_suffix(&span.name, &["invoke_agent", "create_agent"]).map(ShortText::from);
    }
    take_usage(span, attrs);
    take_messages(span, attrs);
    let output_is_json = attrs.get("gen_ai.output.type").and_then(Value::as_str) == Some("json");
    if span.kind == SpanKind::Tool {
        take_tool(span, attrs, output_is_json);
    } else {
        if span.kind == SpanKind::Llm
            && span.output_messages.is_empty()
            && let Some(output) = attrs.remove("gen_ai.output")
        {
            span.output_messages = thin_vec![any_agent_llm_output(&output)];
        }
        if let Some(output) = attrs.remove("gen_ai.output") {
            span.output
                .get_or_insert_with(|| Box::new(decode_output(output, output_is_json)));
        }
        if let Some(input) = attrs.remove("input") {
            span.input
                .get_or_insert_with(|| Box::new(decode_embedded(input)));
        }
        if let Some(output) = attrs.remove("output") {
            span.output
                .get_or_insert_with(|| Box::new(decode_embedded(output)));
        }
    }
}

/// When an LLM span has generic input/output but no message lists (e.g.
/// `OpenInference` `input.value` holding the request), read messages from
/// them.
pub(crate) fn derive_messages(span: &mut Span) {
    if span.kind != SpanKind::Llm {
        return;
    }
    if span.input_messages.is_empty()
        && let Some(n) = span
            .input
            .as_ref()
            .and_then(|v| messages_from_value(v, "user"))
            .filter(|n| n.lossless)
    {
        span.input_messages = n.messages.into();
    }
    if span.output_messages.is_empty()
        && let Some(n) = span
            .output
            .as_ref()
            .and_then(|v| messages_from_value(v, "assistant"))
            .filter(|n| n.lossless)
    {
        span.output_messages = n.messages.into();
    }
}

fn kind_from_keys(attrs: &Attrs) -> Option<SpanKind> {
    let has = |k: &str| attrs.contains_key(k);
    if has("gen_ai.tool.name") || has("gen_ai.tool.call.id") {
        return Some(SpanKind::Tool);
    }
    let llm_keys = [
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.prompt",
        "gen_ai.completion",
    ];
    if llm_keys.iter().any(|k| has(k))
        || attrs
            .keys()
            .any(|k| k.starts_with("gen_ai.usage.") || k.starts_with("gen_ai.prompt."))
    {
        return Some(SpanKind::Llm);
    }
    has("gen_ai.agent.name").then_some(SpanKind::Agent)
}

fn take_text(attrs: &mut Attrs, key: &str) -> Option<String> {
    match attrs.remove(key)? {
        Value::Null => None,
        v => Some(text_of(&v)),
    }
}

/// The word after an operation prefix in a span name: `invoke_agent Foo` → `Foo`.
fn name_suffix(name: &str, prefixes: &[&str]) -> Option<String> {
    let (head, rest) = name.split_once(' ')?;
    let rest = rest.trim();
    (prefixes.contains(&head) && !rest.is_empty()).then(|| rest.to_owned())
}

fn take_model(span: &mut Span, attrs: &mut Attrs) {
    let response = take_text(attrs, "gen_ai.response.model");
    let request = attrs.get("gen_ai.request.model").map(text_of);
    if response.is_none() || request == response {
        attrs.remove("gen_ai.request.model");
    }
    if span.model().is_none() {
        span.set_model(response.or(request).map(ShortText::from));
    }
}

fn take_usage(span: &mut Span, attrs: &mut Attrs) {
    let input = ["gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"]
        .iter()
        .find_map(|k| attrs.remove(*k).and_then(|v| lenient_u64(&v)));
    let output = [
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.completion_tokens",
    ]
    .iter()
    .find_map(|k| attrs.remove(*k).and_then(|v| lenient_u64(&v)));
    if (input.is_some() || output.is_some()) && span.tokens().is_none() {
        span.set_tokens(Some(Tokens {
            input: input.unwrap_or(0),
            output: output.unwrap_or(0),
        }));
    }
    // Costs in USD, per call: any-agent's `gen_ai.usage.{input,output}_cost`,
    // a total `gen_ai.usage.cost`, and pydantic-ai's (and Logfire's)
    // `operation.cost` (pydantic-ai-slim 2.68.0 `_instrumentation.py`,
    // priced with genai-prices). docs/traces.md lists them all.
    let parts: Vec<f64> = ["gen_ai.usage.input_cost", "gen_ai.usage.output_cost"]
        .iter()
        .filter_map(|k| attrs.remove(*k).and_then(|v| lenient_f64(&v)))
        .collect();
    let usage_cost = attrs
        .remove("gen_ai.usage.cost")
        .and_then(|v| lenient_f64(&v));
    let operation_cost = attrs.remove("operation.cost").and_then(|v| lenient_f64(&v));
    let total = usage_cost.or(operation_cost);
    let cost = total.or_else(|| (!parts.is_empty()).then(|| parts.iter().sum()));
    if span.cost().is_none() {
        span.set_cost(cost);
    }
}

/// Read a message attribute; keep the raw value when it was not fully
/// understood.
fn take_message_attr(attrs: &mut Attrs, key: &str, default_role: &str) -> Option<Normalized> {
    let value = attrs.get(key)?;
    let normalized = messages_from_value(value, default_role)?;
    if normalized.lossless {
        attrs.remove(key);
    }
    Some(normalized)
}

fn take_messages(span: &mut Span, attrs: &mut Attrs) {
    if span.input_messages.is_empty() {
        let system = attrs
            .get("gen_ai.system_instructions")
            .and_then(system_instructions);
        if system.is_some() {
            attrs.remove("gen_ai.system_instructions");
        }
        let mut input = take_message_attr(attrs, "gen_ai.input.messages", "user")
            .or_else(|| take_message_attr(attrs, "gen_ai.prompt", "user"))
            .map(|n| n.messages)
            .or_else(|| flattened(attrs, "gen_ai.prompt", "user"))
            .unwrap_or_default();
        if let Some(system) = system {
            input.insert(0, system);
        }
        span.input_messages = input.into();
    }
    if span.output_messages.is_empty() {
        span.output_messages = take_message_attr(attrs, "gen_ai.output.messages", "assistant")
            .or_else(|| take_message_attr(attrs, "gen_ai.completion", "assistant"))
            .map(|n| n.messages)
            .or_else(|| flattened(attrs, "gen_ai.completion", "assistant"))
            .unwrap_or_default()
            .into();
    }
}

/// Flattened `prefix.<i>.{role,content,tool_calls.<k>.…}` messages.
fn flattened(attrs: &mut Attrs, prefix: &str, default_role: &str) -> Option<Vec<Message>> {
    let value = take_unflattened(attrs, prefix)?;
    messages_from_value(&value, default_role).map(|n| n.messages)
}

fn take_tool(span: &mut Span, attrs: &mut Attrs, output_is_json: bool) {
    // opentelemetry-instrumentation-openai-agents-v2's `agent_handoff` span
    // (`gen_ai.handoff.to_agent`) is named as openinference's handoff span is,
    // so that [`super::handoffs`] links it to the model's `transfer_to_<agent>`
    // request; the agent names stay attributes.
    let handoff = attrs
        .get("gen_ai.handoff.to_agent")
        .and_then(Value::as_str)
        .filter(|t| !t.trim().is_empty())
        .map(super::handoffs::handoff_span_name);
    let name = take_text(attrs, "gen_ai.tool.name")
        .or(handoff)
        .or_else(|| name_suffix(&span.name, &["execute_tool", "call_tool"]))
        .map_or_else(|| span.name.clone(), ShortText::from);
    let tool = span.tool.get_or_insert_with(|| {
        Box::new(ToolExecution {
            arguments_text: None,
            result_text: None,
            name: name.clone(),
            call_id: None,
            arguments: None,
            result: None,
        })
    });
    if tool.call_id.is_none() {
        tool.call_id = take_text(attrs, "gen_ai.tool.call.id").map(ShortText::from);
    }
    if tool.arguments.is_none() {
        tool.arguments = ["gen_ai.tool.call.arguments", "gen_ai.tool.args", "input"]
            .iter()
            .find_map(|k| attrs.remove(*k))
            .map(|v| decode_embedded(v).into());
    }
    if tool.result.is_none() {
        tool.result = attrs
            .remove("gen_ai.tool.call.result")
            .map(|v| decode_embedded(v).into())
            .or_else(|| {
                attrs
                    .remove("gen_ai.output")
                    .map(|v| decode_output(v, output_is_json).into())
            })
            .or_else(|| attrs.remove("output").map(|v| decode_embedded(v).into()));
    }
}

fn decode_output(value: Value, declared_json: bool) -> Value {
    if declared_json {
        decode_declared_json(value)
    } else {
        decode_embedded(value)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::trace::json::flatten_attrs;

    fn mapped(name: &str, attrs: Value) -> (Span, Attrs) {
        let mut span = Span::new("s", name, SpanKind::Other, 0);
        let Value::Object(map) = attrs else {
            panic!("object expected")
        };
        let mut attrs = flatten_attrs(map);
        apply(&mut span, &mut attrs);
        derive_messages(&mut span);
        (span, attrs)
    }

    #[test]
    fn pydantic_ai_operation_cost_is_the_call_cost() {
        // pydantic-ai-slim 2.68.0 on a `chat` span (see
        // tests/fixtures/traces/pydantic-ai/SOURCE.md).
        let (span, attrs) = mapped(
            "chat gpt-4o-mini",
            json!({"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.usage.input_tokens": 61, "gen_ai.usage.output_tokens": 17,
                "operation.cost": 1.935e-05}),
        );
        assert_eq!(span.cost(), Some(1.935e-05));
        assert!(!attrs.contains_key("operation.cost"));
        let (span, _) = mapped(
            "chat m",
            json!({"gen_ai.operation.name": "chat", "operation.cost": "NaN"}),
        );
        assert_eq!(span.cost(), None);
    }

    #[test]
    fn any_agent_llm_span_with_string_numbers() {
        let (span, attrs) = mapped(
            "call_llm mistral",
            json!({"gen_ai.operation.name": "call_llm", "gen_ai.request.model": "mistral/small",
                "gen_ai.output": "[{\"tool.name\": \"get_current_time\", \"tool.args\": {\"timezone\": \"UTC\"}}]",
                "gen_ai.output.type": "json", "gen_ai.usage.input_tokens": "395", "gen_ai.usage.output_tokens": 16,
                "gen_ai.usage.input_cost": "3.95e-05", "gen_ai.usage.output_cost": 4.8e-06}),
        );
        assert_eq!(span.kind, SpanKind::Llm);
        assert_eq!(span.model(), Some("mistral/small"));
        assert_eq!(
            span.tokens(),
            Some(Tokens {
                input: 395,
                output: 16
            })
        );
        assert!((span.cost().unwrap() - 4.43e-05).abs() < 1e-12);
        let call = span.requested_tool_calls().next().unwrap();
        assert_eq!(
            (call.name.as_str(), &call.arguments),
            (
                "get_current_time",
                &crate::trace::SharedValue::new(json!({"timezone": "UTC"}))
            )
        );
        assert_eq!(
            attrs.keys().collect::<Vec<_>>(),
            ["gen_ai.operation.name", "gen_ai.output.type"]
        );
    }

    #[test]
    fn tool_spans_take_spec_or_dialect_arguments_and_results() {
        let (span, _) = mapped(
            "execute_tool write_file",
            json!({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "write_file",
                "gen_ai.tool.args": "{\"text\": \"2025\"}", "gen_ai.output": "null", "gen_ai.output.type": "json",
                "gen_ai.tool.call.id": "wz"}),
        );
        let tool = span.tool.unwrap();
        assert_eq!(tool.arguments, Some(json!({"text": "2025"}).into()));
        assert_eq!(tool.result, Some(Value::Null.into()));
        assert_eq!(tool.call_id.as_deref(), Some("wz"));
        let (span, _) = mapped(
            "execute_tool",
            json!({"gen_ai.tool.name": "f", "gen_ai.tool.call.arguments": {"a": 1}, "gen_ai.tool.call.result": "ok"}),
        );
        assert_eq!(span.kind, SpanKind::Tool);
        assert_eq!(span.tool.unwrap().result, Some(json!("ok").into()));
    }

    #[test]
    fn flattened_deprecated_prompt_and_completion() {
        let (span, attrs) = mapped(
            "openai.chat",
            json!({"gen_ai.system": "openai", "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "hi",
                "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.tool_calls.0.name": "f",
                "gen_ai.completion.0.tool_calls.0.arguments": "{\"q\": 1}", "gen_ai.completion.0.tool_calls.0.id": "c"}),
        );
        assert_eq!(span.kind, SpanKind::Llm);
        assert_eq!(span.input_messages[0].content, "hi");
        assert_eq!(
            span.output_messages[0].tool_calls[0].arguments,
            crate::trace::SharedValue::new(json!({"q": 1}))
        );
        assert_eq!(attrs.get("gen_ai.provider.name"), Some(&json!("openai")));
        assert!(!attrs.contains_key("gen_ai.system"));
    }

    #[test]
    fn agent_name_comes_from_attribute_or_span_name() {
        let (span, _) = mapped(
            "invoke_agent Planner",
            json!({"gen_ai.operation.name": "invoke_agent"}),
        );
        assert_eq!(
            (span.kind, span.agent.as_deref()),
            (SpanKind::Agent, Some("Planner"))
        );
    }
}
