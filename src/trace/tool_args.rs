//! Structured arguments for tool executions whose span records only a bare
//! value.
//!
//! The `OpenInference` `LangChain` instrumentation writes a tool run's inputs
//! through `_convert_io`, which turns a one-entry dict with a string value
//! into that string: a `get_weather(city)` call is recorded as
//! `input.value = "Paris"`, no mime type (issue 22). The model's request for
//! the same call (`tool_calls[].id` = the `ToolMessage`'s `tool_call_id`)
//! still holds `{"city": "Paris"}`; that object becomes the execution's
//! arguments when the bare value is one of its values (or the span has
//! none). A bare value that matches nothing is kept, with a warning.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::model::ShortText;
use crate::trace::json::text_of;
use crate::trace::model::{SharedValue, Span};

/// Give every tool execution with bare arguments the arguments of the call
/// the model requested with the same id. `spans` are in time order; when an
/// id was requested more than once, the last request before the execution
/// wins.
pub(crate) fn recover_arguments(spans: &mut [Span], warnings: &mut Vec<String>) {
    let wanted: HashSet<ShortText> = spans
        .iter()
        .filter_map(|s| s.tool.as_ref())
        .filter(|t| is_bare(t.arguments.as_ref()))
        .filter_map(|t| t.call_id.clone())
        .collect();
    if wanted.is_empty() {
        return;
    }
    // Requests by id: (position of the requesting span, arguments). A
    // span's own output comes first; assistant messages replayed in a later
    // call's input are a fallback for spans that record no output.
    let mut requests: HashMap<ShortText, Vec<(usize, SharedValue)>> = HashMap::new();
    for (at, span) in spans.iter().enumerate() {
        let replayed = span
            .input_messages
            .iter()
            .filter(|m| m.role == "assistant")
            .flat_map(|m| m.tool_calls.iter());
        for call in span.requested_tool_calls().chain(replayed) {
            if let Some(id) = call.id.as_ref().filter(|id| wanted.contains(*id))
                && call.arguments.is_object()
            {
                let known = requests.entry(id.clone()).or_default();
                if !known.iter().any(|(_, args)| *args == call.arguments) {
                    known.push((at, call.arguments.clone()));
                }
            }
        }
    }
    for (at, span) in spans.iter_mut().enumerate() {
        let Some(tool) = span.tool.as_mut() else {
            continue;
        };
        if !is_bare(tool.arguments.as_ref()) {
            continue;
        }
        let Some(candidates) = tool.call_id.as_ref().and_then(|id| requests.get(id)) else {
            continue;
        };
        let requested = candidates
            .iter()
            .rev()
            .find(|(from, _)| *from < at)
            .or_else(|| candidates.first())
            .map(|(_, args)| args);
        let Some(requested) = requested else { continue };
        match &tool.arguments {
            Some(bare) if !bare.is_null() && !is_one_of(&bare.value(), &requested.value()) => {
                warnings.push(format!(
                    "tool span `{}` ({}) records its arguments as `{}`, which is none of the values the \
                     model requested for call `{}` ({}); kept the span's value",
                    span.id,
                    tool.name,
                    text_of(&bare.value()),
                    tool.call_id.as_deref().unwrap_or_default(),
                    requested.compact()
                ));
            }
            _ => tool.arguments = Some(requested.clone()),
        }
    }
}

/// Arguments that are no object: missing, `null`, or a scalar.
fn is_bare(arguments: Option<&SharedValue>) -> bool {
    !arguments.is_some_and(|a| a.is_object() || a.is_array())
}

/// `bare` is one of the object's values (as JSON, or as the same text: a
/// number recorded as a string).
fn is_one_of(bare: &Value, requested: &Value) -> bool {
    let Value::Object(map) = requested else {
        return false;
    };
    let text = text_of(bare);
    map.values().any(|v| v == bare || text_of(v) == text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::trace::model::{Message, SpanKind, ToolCall, ToolExecution};

    fn llm(id: &str, seq: usize, call_id: &str, args: Value) -> Span {
        let mut s = Span::new(id, "ChatOpenAI", SpanKind::Llm, seq);
        s.output_messages.push(Message {
            role: "assistant".into(),
            tool_calls: thin_vec::thin_vec![ToolCall {
                arguments_text: None,
                id: Some(call_id.into()),
                name: "get_weather".into(),
                arguments: args.into(),
            }],
            ..Message::default()
        });
        s
    }

    fn tool(id: &str, seq: usize, call_id: Option<&str>, args: Option<Value>) -> Span {
        let mut s = Span::new(id, "get_weather", SpanKind::Tool, seq);
        s.tool = Some(Box::new(ToolExecution {
            arguments_text: None,
            result_text: None,
            name: "get_weather".into(),
            call_id: call_id.map(ShortText::from),
            arguments: args.map(Into::into),
            result: None,
        }));
        s
    }

    fn args(span: &Span) -> Option<Value> {
        span.tool
            .as_ref()
            .and_then(|t| t.arguments.as_ref())
            .map(|a| a.value().into_owned())
    }

    #[test]
    fn a_bare_value_takes_the_requested_arguments_of_the_same_call() {
        let mut spans = vec![
            llm("l1", 0, "call_1", json!({"city": "Paris"})),
            tool("t1", 1, Some("call_1"), Some(json!("Paris"))),
            llm("l2", 2, "call_2", json!({"city": "Oslo", "days": 3})),
            tool("t2", 3, Some("call_2"), Some(json!(3))),
            tool("t3", 4, Some("call_2"), None),
        ];
        let mut warnings = Vec::new();
        recover_arguments(&mut spans, &mut warnings);
        assert_eq!(args(&spans[1]), Some(json!({"city": "Paris"})));
        assert_eq!(args(&spans[3]), Some(json!({"city": "Oslo", "days": 3})));
        assert_eq!(args(&spans[4]), Some(json!({"city": "Oslo", "days": 3})));
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn mismatches_objects_and_unknown_ids_are_left_alone() {
        let mut spans = vec![
            llm("l1", 0, "call_1", json!({"city": "Paris"})),
            tool("t1", 1, Some("call_1"), Some(json!("Rome"))),
            tool("t2", 2, Some("call_1"), Some(json!({"city": "Lyon"}))),
            tool("t3", 3, Some("call_9"), Some(json!("Paris"))),
            tool("t4", 4, None, Some(json!("Paris"))),
        ];
        let mut warnings = Vec::new();
        recover_arguments(&mut spans, &mut warnings);
        assert_eq!(args(&spans[1]), Some(json!("Rome")));
        assert_eq!(args(&spans[2]), Some(json!({"city": "Lyon"})));
        assert_eq!(args(&spans[3]), Some(json!("Paris")));
        assert_eq!(args(&spans[4]), Some(json!("Paris")));
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("`Rome`"), "{warnings:?}");
    }

    #[test]
    fn a_repeated_id_uses_the_latest_request_before_the_execution() {
        let mut spans = vec![
            llm("l1", 0, "call_1", json!({"city": "Paris"})),
            tool("t1", 1, Some("call_1"), Some(json!("Paris"))),
            llm("l2", 2, "call_1", json!({"city": "Oslo"})),
            tool("t2", 3, Some("call_1"), Some(json!("Oslo"))),
        ];
        recover_arguments(&mut spans, &mut Vec::new());
        assert_eq!(args(&spans[1]), Some(json!({"city": "Paris"})));
        assert_eq!(args(&spans[3]), Some(json!({"city": "Oslo"})));
    }
}
