//! Chat messages in every shape agents log them, normalised to [`Message`]:
//! `OTel` `GenAI` `parts` (`text`, `tool_call`, `tool_call_response` with
//! `response` or `result`), `OpenAI` `{role, content, tool_calls}`, Anthropic
//! content blocks, `OpenInference` `message.contents`/`tool_call` wrappers,
//! completion objects (`{"text": …}`) and any-agent's `gen_ai.output`.

use serde_json::{Map, Value};

use crate::model::ShortText;
use crate::trace::json::{decode_embedded, decode_str, str_field, text_of};
use crate::trace::model::{Message, ToolCall};
use crate::trace::pyrepr;

/// Messages read from one attribute, and whether every part was understood
/// (when not, the caller keeps the raw attribute too).
#[derive(Debug, Default)]
pub(crate) struct Normalized {
    pub(crate) messages: Vec<Message>,
    pub(crate) lossless: bool,
}

/// Read messages from a value: a list, a `{messages: […]}` or `OpenAI`
/// `{choices: […]}` wrapper, a single message, a completion object, a JSON
/// string holding any of these, or plain text (one message with
/// `default_role`). `None` when the value is not message-like.
pub(crate) fn messages_from_value(value: &Value, default_role: &str) -> Option<Normalized> {
    let mut normalized = read_messages(value, default_role)?;
    // Lists grown by `push` keep room for four: most spans keep one to three
    // messages of one call or none, for as long as the trace lives (a fifth
    // of a large OTLP trace's peak, issue 22 item 7).
    normalized.messages.shrink_to_fit();
    for message in &mut normalized.messages {
        message.tool_calls.shrink_to_fit();
    }
    Some(normalized)
}

fn read_messages(value: &Value, default_role: &str) -> Option<Normalized> {
    let mut out = Normalized {
        messages: Vec::new(),
        lossless: true,
    };
    match value {
        Value::String(s) => match decode_str(s.clone()) {
            decoded @ (Value::Array(_) | Value::Object(_)) => {
                return read_messages(&decoded, default_role);
            }
            _ => out.messages.push(text_message(default_role, s.clone())),
        },
        Value::Array(items) => {
            out.messages.reserve_exact(items.len());
            for item in items {
                match item {
                    Value::Object(obj) => {
                        let message = message_from_object(obj, default_role, &mut out.lossless);
                        out.messages.push(message);
                    }
                    Value::String(s) => out.messages.push(text_message(default_role, s.clone())),
                    _ => out.lossless = false,
                }
            }
        }
        Value::Object(obj) => {
            if let Some(inner) = obj.get("messages").filter(|v| v.is_array()) {
                return read_messages(inner, default_role);
            }
            if let Some(Value::Array(choices)) = obj.get("choices") {
                for choice in choices {
                    if let Some(Value::Object(m)) = choice.get("message") {
                        out.messages
                            .push(message_from_object(m, "assistant", &mut out.lossless));
                    }
                }
                return Some(out);
            }
            if is_message_object(obj) {
                out.messages
                    .push(message_from_object(obj, default_role, &mut out.lossless));
            } else if let Some(text) = str_field(obj, "text") {
                out.messages
                    .push(text_message(default_role, text.to_owned()));
            } else {
                return None;
            }
        }
        _ => return None,
    }
    Some(out)
}

fn is_message_object(obj: &Map<String, Value>) -> bool {
    [
        "role",
        "parts",
        "content",
        "contents",
        "tool_calls",
        "message",
    ]
    .iter()
    .any(|k| obj.contains_key(*k))
}

fn text_message(role: &str, content: String) -> Message {
    Message {
        role: role.into(),
        content,
        ..Message::default()
    }
}

/// One message object in any of the supported shapes.
pub(crate) fn message_from_object(
    obj: &Map<String, Value>,
    default_role: &str,
    lossless: &mut bool,
) -> Message {
    if !obj.contains_key("role")
        && let Some(Value::Object(inner)) = obj.get("message")
    {
        return message_from_object(inner, default_role, lossless);
    }
    let mut message = Message {
        role: str_field(obj, "role").unwrap_or(default_role).into(),
        name: str_field(obj, "name").map(ShortText::from),
        tool_call_id: str_field(obj, "tool_call_id")
            .or_else(|| str_field(obj, "tool_use_id"))
            .or_else(|| {
                obj.get("tool_call_ids")
                    .and_then(|v| v.get(0))
                    .and_then(Value::as_str)
            })
            .map(ShortText::from),
        ..Message::default()
    };
    let mut texts: Vec<String> = Vec::new();
    if let Some(Value::Array(parts)) = obj.get("parts") {
        for part in parts {
            read_block(part, &mut message, &mut texts, lossless);
        }
    }
    match obj.get("content") {
        Some(Value::String(s)) => texts.push(s.clone()),
        Some(Value::Array(blocks)) => {
            for block in blocks {
                read_block(block, &mut message, &mut texts, lossless);
            }
        }
        Some(Value::Null) | None => {}
        Some(other) => texts.push(other.to_string()),
    }
    if let Some(Value::Array(contents)) = obj.get("contents") {
        for content in contents {
            let block = content.get("message_content").unwrap_or(content);
            read_block(block, &mut message, &mut texts, lossless);
        }
    }
    if let Some(Value::Array(calls)) = obj.get("tool_calls") {
        for call in calls {
            match tool_call_from_value(call) {
                Some(c) => message.tool_calls.push(c),
                None => *lossless = false,
            }
        }
    }
    if let Some(call) = obj.get("function_call").and_then(tool_call_from_value) {
        message.tool_calls.push(call);
    }
    message.content = texts.join("\n");
    python_repr_message(&message).unwrap_or(message)
}

/// opentelemetry-instrumentation-openai-agents-v2 0.1.0 writes the model's
/// answer as one text part holding the Python `repr` of the SDK's
/// `ChatCompletionMessage` dict; read its content and tool calls. Only an
/// assistant message whose whole text is such a dict (`'role':
/// 'assistant'` and a `'content'` key) is read this way.
fn python_repr_message(message: &Message) -> Option<Message> {
    if message.role != "assistant"
        || !message.tool_calls.is_empty()
        || !message.content.starts_with("{'")
    {
        return None;
    }
    let Value::Object(obj) = pyrepr::parse(&message.content)? else {
        return None;
    };
    if str_field(&obj, "role") != Some("assistant") || !obj.contains_key("content") {
        return None;
    }
    let mut lossless = true;
    let read = message_from_object(&obj, "assistant", &mut lossless);
    lossless.then_some(read)
}

/// One content block or `GenAI` part.
fn read_block(block: &Value, message: &mut Message, texts: &mut Vec<String>, lossless: &mut bool) {
    let obj = match block {
        Value::String(s) => {
            texts.push(s.clone());
            return;
        }
        Value::Object(obj) => obj,
        _ => {
            *lossless = false;
            return;
        }
    };
    match str_field(obj, "type").unwrap_or("text") {
        "text" | "input_text" | "output_text" => {
            match obj.get("content").or_else(|| obj.get("text")) {
                Some(v) => texts.push(text_of(v)),
                None => *lossless = false,
            }
        }
        "tool_call" | "tool_use" | "function_call" => match tool_call_from_value(block) {
            Some(call) => message.tool_calls.push(call),
            None => *lossless = false,
        },
        "tool_call_response" | "tool_result" | "function_call_output" => {
            let response = obj
                .get("response")
                .or_else(|| obj.get("result"))
                .or_else(|| obj.get("content"));
            texts.push(response.map(response_text).unwrap_or_default());
            let id = str_field(obj, "id")
                .or_else(|| str_field(obj, "tool_use_id"))
                .or_else(|| str_field(obj, "call_id"));
            if message.tool_call_id.is_none() {
                message.tool_call_id = id.map(ShortText::from);
            }
        }
        _ => *lossless = false,
    }
}

/// Text of a tool response, which may itself be content blocks.
fn response_text(value: &Value) -> String {
    match value {
        Value::Array(blocks)
            if blocks
                .iter()
                .all(|b| b.get("type").is_some() || b.is_string()) =>
        {
            let mut message = Message::default();
            let mut texts = Vec::new();
            let mut lossless = true;
            for block in blocks {
                read_block(block, &mut message, &mut texts, &mut lossless);
            }
            texts.join("\n")
        }
        other => text_of(other),
    }
}

/// A requested tool call: `OpenAI` `{id, function: {name, arguments}}`,
/// `GenAI` `{id, name, arguments}`, Anthropic `{id, name, input}`,
/// `OpenInference` `{tool_call: {…}}`, any-agent `{"tool.name", "tool.args"}`.
/// Arguments in a JSON string are decoded.
pub(crate) fn tool_call_from_value(value: &Value) -> Option<ToolCall> {
    let obj = value.as_object()?;
    if let Some(inner) = obj.get("tool_call").filter(|v| v.is_object()) {
        return tool_call_from_value(inner);
    }
    let function = obj.get("function").and_then(Value::as_object);
    let name = function
        .and_then(|f| str_field(f, "name"))
        .or_else(|| str_field(obj, "name"))
        .or_else(|| str_field(obj, "tool.name"))?;
    let raw = function
        .and_then(|f| f.get("arguments"))
        .or_else(|| obj.get("arguments"))
        .or_else(|| obj.get("input"))
        .or_else(|| obj.get("args"))
        .or_else(|| obj.get("tool.args"))
        .cloned();
    let recorded = raw.as_ref().and_then(Value::as_str).map(str::to_owned);
    let arguments = raw.map_or(Value::Null, decode_embedded);
    let arguments_text = recorded.filter(|_| !arguments.is_string());
    Some(ToolCall {
        arguments_text,
        id: str_field(obj, "id")
            .or_else(|| str_field(obj, "call_id"))
            .map(ShortText::from),
        name: name.into(),
        arguments: arguments.into(),
    })
}

/// any-agent's `gen_ai.output` on an LLM span: a JSON list of
/// `{"tool.name", "tool.args"}` (the calls the model asked for) or the
/// model's text.
pub(crate) fn any_agent_llm_output(value: &Value) -> Message {
    let mut message = text_message("assistant", String::new());
    let decoded = match value {
        Value::String(s) => decode_str(s.clone()),
        other => other.clone(),
    };
    if let Value::Array(items) = &decoded
        && !items.is_empty()
        && items.iter().all(|i| i.get("tool.name").is_some())
    {
        message.tool_calls = items.iter().filter_map(tool_call_from_value).collect();
        return message;
    }
    message.content = text_of(value);
    message
}

/// `gen_ai.system_instructions`: a list of parts, or text.
pub(crate) fn system_instructions(value: &Value) -> Option<Message> {
    let mut message = text_message("system", String::new());
    let mut texts = Vec::new();
    let mut lossless = true;
    match decode_embedded(value.clone()) {
        Value::Array(parts) => {
            for part in &parts {
                read_block(part, &mut message, &mut texts, &mut lossless);
            }
        }
        Value::String(s) => texts.push(s),
        _ => return None,
    }
    message.content = texts.join("\n");
    Some(message)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn message_lists_keep_no_spare_room() {
        // A Vec grown by push holds four: each list must be exactly its length.
        for value in [
            json!("plain text"),
            json!({"role": "user", "content": "hi"}),
            json!([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}, "t"]),
            json!(
                "[{\"role\": \"assistant\", \"parts\": [{\"type\": \"tool_call\", \"id\": \"c\", \"name\": \"f\", \"arguments\": \"{}\"}]}]"
            ),
            json!({"choices": [{"message": {"role": "assistant", "content": "a"}}]}),
        ] {
            let n = messages_from_value(&value, "user").unwrap();
            assert!(!n.messages.is_empty(), "{value}");
            assert_eq!(n.messages.capacity(), n.messages.len(), "{value}");
            for m in &n.messages {
                assert_eq!(m.tool_calls.capacity(), m.tool_calls.len(), "{value}");
            }
        }
    }

    #[test]
    fn genai_parts_become_messages_with_tool_calls_and_responses() {
        let value = json!(
            "[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"Weather?\"}]},\
            {\"role\":\"assistant\",\"parts\":[{\"type\":\"tool_call\",\"id\":\"1\",\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}]},\
            {\"role\":\"tool\",\"parts\":[{\"type\":\"tool_call_response\",\"id\":\"1\",\"result\":{\"t\":57}}]}]"
        );
        let n = messages_from_value(&value, "user").unwrap();
        assert!(n.lossless);
        assert_eq!(n.messages.len(), 3);
        assert_eq!(n.messages[0].content, "Weather?");
        assert_eq!(n.messages[1].tool_calls[0].name, "get_weather");
        assert_eq!(
            n.messages[1].tool_calls[0].arguments,
            crate::trace::SharedValue::new(json!({"city": "Paris"}))
        );
        assert_eq!(n.messages[2].content, r#"{"t":57}"#);
        assert_eq!(n.messages[2].tool_call_id.as_deref(), Some("1"));
    }

    #[test]
    fn openai_and_completion_shapes() {
        let openai = json!([{"role": "assistant", "content": null,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "calc", "arguments": "{\"x\":1}"}}]}]);
        let n = messages_from_value(&openai, "user").unwrap();
        assert_eq!(n.messages[0].tool_calls[0].id.as_deref(), Some("c1"));
        assert_eq!(
            n.messages[0].tool_calls[0].arguments,
            crate::trace::SharedValue::new(json!({"x": 1}))
        );
        let completion = json!("{\"text\":\"It is rainy.\",\"finish_reason\":\"stop\"}");
        let n = messages_from_value(&completion, "assistant").unwrap();
        assert_eq!(n.messages[0].role, "assistant");
        assert_eq!(n.messages[0].content, "It is rainy.");
        assert!(messages_from_value(&json!(42), "user").is_none());
        assert!(messages_from_value(&json!({"foo": 1}), "user").is_none());
    }

    #[test]
    fn a_python_repr_of_an_assistant_message_is_read_for_its_tool_calls() {
        // As opentelemetry-instrumentation-openai-agents-v2 0.1.0 writes it.
        let repr = "{'content': None, 'refusal': None, 'role': 'assistant', 'tool_calls': \
            [{'id': 'call_2_0', 'function': {'arguments': '{\"city\": \"Paris\"}', \
            'name': 'get_weather'}, 'type': 'function'}]}";
        let value = json!([{"role": "assistant", "parts": [{"type": "text", "content": repr}]}]);
        let n = messages_from_value(&value, "user").unwrap();
        assert!(n.lossless);
        let m = &n.messages[0];
        assert_eq!(m.content, "");
        assert_eq!(m.tool_calls.len(), 1);
        assert_eq!(m.tool_calls[0].id.as_deref(), Some("call_2_0"));
        assert_eq!(
            m.tool_calls[0].arguments,
            crate::trace::SharedValue::new(json!({"city": "Paris"}))
        );
        // Text that only looks like it stays text: another role, another
        // shape, or not a literal.
        for (role, text) in [
            ("user", repr),
            ("assistant", "{'role': 'user', 'content': 'hi'}"),
            ("assistant", "{'answer': 42}"),
            (
                "assistant",
                "{'content': None, 'role': 'assistant'} and more",
            ),
        ] {
            let value = json!([{"role": role, "parts": [{"type": "text", "content": text}]}]);
            let n = messages_from_value(&value, "user").unwrap();
            assert_eq!(n.messages[0].content, text);
            assert!(n.messages[0].tool_calls.is_empty());
        }
    }

    #[test]
    fn unknown_parts_are_reported_as_lossy() {
        let value =
            json!([{"role": "assistant", "parts": [{"type": "reasoning", "content": "hmm"}]}]);
        assert!(!messages_from_value(&value, "user").unwrap().lossless);
    }

    #[test]
    fn any_agent_output_is_tool_calls_or_text() {
        let calls = any_agent_llm_output(&json!(
            "[{\"tool.name\": \"write_file\", \"tool.args\": \"{\\\"text\\\": \\\"2025\\\"}\"}]"
        ));
        assert_eq!(calls.tool_calls.len(), 1);
        assert_eq!(
            calls.tool_calls[0].arguments,
            crate::trace::SharedValue::new(json!({"text": "2025"}))
        );
        assert!(calls.content.is_empty());
        let text = any_agent_llm_output(&json!("Here are the steps"));
        assert_eq!(text.content, "Here are the steps");
        assert!(text.tool_calls.is_empty());
    }
}
