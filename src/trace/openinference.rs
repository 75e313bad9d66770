//! The `OpenInference` attribute mapper: `openinference.span.kind` (LLM, TOOL,
//! AGENT, CHAIN, RETRIEVER, …), flattened `llm.input_messages.<i>.message.…`
//! and `llm.output_messages…` including `tool_calls`, `tool.name`,
//! `input.value`/`output.value` with their mime types, `llm.token_count.*`,
//! `llm.model_name`, `agent.name`.
//!
//! `tool.parameters` is the tool's parameter *schema* and stays an
//! attribute; a call's arguments come from `tool_call.function.arguments`
//! or `input.value`. The nested export shape (`child_spans`, ISO times) is
//! read by `openinference_nested`, which calls this mapper per span.

use serde_json::Value;

use crate::model::ShortText;
use crate::trace::json::{
    Attrs, decode_declared_json, decode_embedded, lenient_f64, lenient_u64, take_unflattened,
    text_of,
};
use crate::trace::messages::messages_from_value;
use crate::trace::model::{Span, SpanKind, Status, StatusCode, Tokens, ToolExecution};

/// Whether the attributes use `OpenInference` conventions.
pub(crate) fn applies(attrs: &Attrs) -> bool {
    attrs.contains_key("openinference.span.kind")
        || attrs.keys().any(|k| {
            k.starts_with("llm.")
                || k.starts_with("tool.")
                || k.starts_with("tool_call.")
                || k == "input.value"
                || k == "output.value"
        })
}

/// Span kind for an `openinference.span.kind` value.
pub(crate) fn kind_for(value: &str) -> SpanKind {
    match value.trim().to_ascii_uppercase().as_str() {
        "LLM" => SpanKind::Llm,
        "TOOL" => SpanKind::Tool,
        "AGENT" => SpanKind::Agent,
        "CHAIN" => SpanKind::Chain,
        "RETRIEVER" => SpanKind::Retriever,
        _ => SpanKind::Other,
    }
}

/// Apply `OpenInference` attributes to `span`, consuming the ones it maps.
pub(crate) fn apply(span: &mut Span, attrs: &mut Attrs) {
    if span.kind == SpanKind::Other
        && let Some(kind) = attrs.get("openinference.span.kind").and_then(Value::as_str)
    {
        span.kind = kind_for(kind);
    }
    if span.kind == SpanKind::Other
        && attrs.contains_key("tool.name")
        && !attrs.contains_key("llm.model_name")
    {
        span.kind = SpanKind::Tool;
    }
    if let Some(model) = attrs.remove("llm.model_name")
        && span.model().is_none()
    {
        span.set_model(Some(text_of(&model).into()));
    }
    if let Some(agent) = attrs.remove("agent.name") {
        span.agent.get_or_insert(text_of(&agent).into());
    }
    // An AGENT span without `agent.name` (LangGraph's nodes through
    // openinference-instrumentation-langchain 0.1.80) is named by its span
    // name, the node's name (issue 22 item 4).
    if span.kind == SpanKind::Agent && span.agent.is_none() && !span.name.trim().is_empty() {
        span.agent = Some(span.name.clone());
    }
    take_usage(span, attrs);
    for (prefix, role, target) in [
        ("llm.input_messages", "user", &mut span.input_messages),
        (
            "llm.output_messages",
            "assistant",
            &mut span.output_messages,
        ),
    ] {
        if target.is_empty()
            && let Some(value) = take_unflattened(attrs, prefix)
            && let Some(n) = messages_from_value(&value, role)
        {
            *target = n.messages.into();
        }
    }
    let input = take_io(attrs, "input");
    let output = take_io(attrs, "output");
    if span.kind == SpanKind::Tool {
        let name = attrs
            .remove("tool.name")
            .or_else(|| attrs.remove("tool_call.function.name"))
            .map_or_else(|| span.name.clone(), |v| text_of(&v).into());
        let mut call_id = attrs
            .remove("tool_call.id")
            .or_else(|| attrs.remove("tool.id"))
            .map(|v| ShortText::from(text_of(&v)));
        let arguments = attrs
            .remove("tool_call.function.arguments")
            .map(decode_embedded)
            .or(input)
            .map(unwrap_call_envelope);
        let result = output.map(|output| match ToolMessage::unwrap(output) {
            Ok(message) => {
                call_id = call_id.take().or(message.call_id);
                if message.failed && span.status.code != StatusCode::Error {
                    span.status = Status::error(text_of(&message.content));
                }
                message.content
            }
            Err(output) => output,
        });
        span.tool.get_or_insert(Box::new(ToolExecution {
            arguments_text: None,
            result_text: None,
            name,
            call_id,
            arguments: arguments.map(Into::into),
            result: result.map(Into::into),
        }));
    } else {
        if let Some(input) = input {
            span.input.get_or_insert_with(|| Box::new(input));
        }
        if let Some(output) = output {
            span.output.get_or_insert_with(|| Box::new(output));
        }
    }
}

fn take_usage(span: &mut Span, attrs: &mut Attrs) {
    let prompt = attrs
        .remove("llm.token_count.prompt")
        .and_then(|v| lenient_u64(&v));
    let completion = attrs
        .remove("llm.token_count.completion")
        .and_then(|v| lenient_u64(&v));
    if (prompt.is_some() || completion.is_some()) && span.tokens().is_none() {
        span.set_tokens(Some(Tokens {
            input: prompt.unwrap_or(0),
            output: completion.unwrap_or(0),
        }));
    }
    let cost = attrs
        .remove("llm.cost().total")
        .and_then(|v| lenient_f64(&v))
        .or_else(|| {
            let parts: Vec<f64> = ["llm.cost().prompt", "llm.cost().completion"]
                .iter()
                .filter_map(|k| attrs.remove(*k).and_then(|v| lenient_f64(&v)))
                .collect();
            (!parts.is_empty()).then(|| parts.iter().sum())
        });
    if span.cost().is_none() {
        span.set_cost(cost);
    }
}

/// `input.value`/`output.value`, decoded according to their mime type.
fn take_io(attrs: &mut Attrs, which: &str) -> Option<Value> {
    let value = attrs.remove(&format!("{which}.value"))?;
    let mime = attrs
        .get(&format!("{which}.mime_type"))
        .and_then(Value::as_str)
        .unwrap_or("");
    Some(match mime {
        "application/json" => decode_declared_json(value),
        "text/plain" => value,
        _ => decode_embedded(value),
    })
}

/// A `LangChain` `ToolMessage` as the `OpenInference` `LangChain` instrumentation
/// writes a tool run's `output.value`: `{"type": "tool", "data": {"content":
/// "<text or JSON>", "tool_call_id": "call_1", "status": "success", …}}`
/// (`messages_to_dict` form), or the `dumpd` form `{"lc": 1, "type":
/// "constructor", "id": [..., "ToolMessage"], "kwargs": {…}}`.
struct ToolMessage {
    /// `content`, decoded when it holds a JSON object or array.
    content: Value,
    call_id: Option<ShortText>,
    /// `status: "error"`: the tool raised and `LangGraph`'s `ToolNode` turned
    /// the exception into the message.
    failed: bool,
}

impl ToolMessage {
    /// The message inside `value`, or `value` unchanged when it is none.
    fn unwrap(value: Value) -> Result<Self, Value> {
        let Value::Object(mut outer) = value else {
            return Err(value);
        };
        let fields = match (
            outer.get("type").and_then(Value::as_str),
            outer.get("id").and_then(Value::as_array),
        ) {
            (Some("tool"), _) => "data",
            (Some("constructor"), Some(path))
                if path.last().and_then(Value::as_str) == Some("ToolMessage") =>
            {
                "kwargs"
            }
            _ => return Err(Value::Object(outer)),
        };
        let is_message = outer
            .get(fields)
            .and_then(Value::as_object)
            .is_some_and(|m| m.contains_key("content") && m.contains_key("tool_call_id"));
        if !is_message {
            return Err(Value::Object(outer));
        }
        let Some(Value::Object(mut data)) = outer.remove(fields) else {
            return Err(Value::Object(outer));
        };
        let content = data.remove("content").map_or(Value::Null, decode_embedded);
        let call_id = data
            .remove("tool_call_id")
            .filter(|v| !v.is_null())
            .map(|v| ShortText::from(text_of(&v)));
        let failed = data.get("status").and_then(Value::as_str) == Some("error");
        Ok(Self {
            content,
            call_id,
            failed,
        })
    }
}

/// smolagents records tool inputs as an envelope with the keys `args`,
/// `kwargs` and `sanitize_inputs_outputs`; the call's arguments are the kwargs (or
/// the positional args when there are no kwargs).
fn unwrap_call_envelope(value: Value) -> Value {
    let Value::Object(map) = &value else {
        return value;
    };
    let envelope_only = map
        .keys()
        .all(|k| matches!(k.as_str(), "args" | "kwargs" | "sanitize_inputs_outputs"));
    if !envelope_only || !map.contains_key("kwargs") && !map.contains_key("args") {
        return value;
    }
    let args_empty = map
        .get("args")
        .is_none_or(|a| a.as_array().is_some_and(Vec::is_empty));
    let kwargs_empty = map
        .get("kwargs")
        .is_none_or(|k| k.as_object().is_some_and(serde_json::Map::is_empty));
    match (args_empty, kwargs_empty) {
        (true, _) => map.get("kwargs").cloned().unwrap_or(Value::Null),
        (false, true) => map.get("args").cloned().unwrap_or(Value::Null),
        (false, false) => value,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::trace::json::flatten_attrs;

    fn mapped(attrs: Value) -> (Span, Attrs) {
        let mut span = Span::new("s", "span", SpanKind::Other, 0);
        let Value::Object(map) = attrs else {
            panic!("object expected")
        };
        let mut attrs = flatten_attrs(map);
        apply(&mut span, &mut attrs);
        (span, attrs)
    }

    #[test]
    fn flattened_messages_with_tool_calls() {
        let (span, attrs) = mapped(json!({
            "openinference.span.kind": "LLM",
            "llm.model_name": "gpt-4",
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.contents.0.message_content.type": "text",
            "llm.input_messages.0.message.contents.0.message_content.text": "Weather in Paris?",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.tool_calls.0.tool_call.id": "1234",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "get_weather",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": "{\"location\":\"Paris\"}",
            "llm.token_count.prompt": 97, "llm.token_count.completion": "52", "llm.token_count.total": 149
        }));
        assert_eq!(span.kind, SpanKind::Llm);
        assert_eq!(span.model(), Some("gpt-4"));
        assert_eq!(span.input_messages[0].content, "Weather in Paris?");
        let call = &span.output_messages[0].tool_calls[0];
        assert_eq!(
            (call.id.as_deref(), call.name.as_str()),
            (Some("1234"), "get_weather")
        );
        assert_eq!(
            call.arguments,
            crate::trace::SharedValue::new(json!({"location": "Paris"}))
        );
        assert_eq!(
            span.tokens(),
            Some(Tokens {
                input: 97,
                output: 52
            })
        );
        assert_eq!(
            attrs.keys().collect::<Vec<_>>(),
            ["llm.token_count.total", "openinference.span.kind"]
        );
    }

    #[test]
    fn tool_spans_unwrap_langchain_tool_messages() {
        // openinference-instrumentation-langchain: a one-argument tool's
        // input is the bare value; the output is the `ToolMessage`.
        let (span, _) = mapped(json!({
            "openinference.span.kind": "TOOL", "tool.name": "get_weather",
            "input.value": "Paris",
            "output.value": "{\"type\": \"tool\", \"data\": {\"content\": \"{\\\"city\\\": \\\"Paris\\\", \\\"temp_c\\\": 18}\", \"type\": \"tool\", \"name\": \"get_weather\", \"id\": null, \"tool_call_id\": \"call_1_0\", \"artifact\": null, \"status\": \"success\"}}",
            "output.mime_type": "application/json"
        }));
        let tool = span.tool.unwrap();
        assert_eq!(tool.arguments, Some(json!("Paris").into()));
        assert_eq!(tool.call_id.as_deref(), Some("call_1_0"));
        assert_eq!(
            tool.result,
            Some(json!({"city": "Paris", "temp_c": 18}).into())
        );
        assert!(!span.status.code.eq(&StatusCode::Error));

        let (span, _) = mapped(json!({
            "openinference.span.kind": "TOOL", "tool.name": "divide",
            "output.value": json!({"lc": 1, "type": "constructor",
                "id": ["langchain", "schema", "messages", "ToolMessage"],
                "kwargs": {"content": "Error: division by zero", "tool_call_id": "c2", "status": "error"}})
                .to_string()
        }));
        let tool = span.tool.unwrap();
        assert_eq!(tool.result, Some(json!("Error: division by zero").into()));
        assert_eq!(tool.call_id.as_deref(), Some("c2"));
        assert_eq!(span.status, Status::error("Error: division by zero"));

        // Anything else with a `type` key stays as it is.
        let (span, _) = mapped(json!({
            "openinference.span.kind": "TOOL", "tool.name": "t",
            "output.value": "{\"type\": \"tool\", \"data\": {\"content\": \"x\"}}"
        }));
        assert_eq!(
            span.tool.unwrap().result,
            Some(json!({"type": "tool", "data": {"content": "x"}}).into())
        );
    }

    #[test]
    fn tool_spans_unwrap_smolagents_envelopes() {
        let (span, _) = mapped(json!({
            "openinference.span.kind": "TOOL", "tool.name": "web_search",
            "tool.parameters": "{\"query\": {\"type\": \"string\"}}",
            "input.value": "{\"args\": [], \"sanitize_inputs_outputs\": true, \"kwargs\": {\"query\": \"x\"}}",
            "output.value": "no results", "output.mime_type": "text/plain"
        }));
        let tool = span.tool.unwrap();
        assert_eq!(tool.name, "web_search");
        assert_eq!(tool.arguments, Some(json!({"query": "x"}).into()));
        assert_eq!(tool.result, Some(json!("no results").into()));
    }
}
