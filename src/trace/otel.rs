//! Pieces shared by the `OTel`-shaped adapters (OTLP, SDK dumps, nested
//! `OpenInference` exports, bare attribute maps): status codes in their
//! spellings, span events, and running the attribute mappers in order.

use serde_json::{Map, Value};

use crate::model::ShortText;
use crate::trace::json::{Attrs, decode_embedded, text_of};
use crate::trace::model::{Span, StatusCode};
use crate::trace::{genai, openinference};

/// A span event, normalised.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Event {
    pub(crate) name: String,
    pub(crate) time: Option<u64>,
    pub(crate) attributes: Attrs,
}

/// A status code written as `0|1|2`, `"ok"`, `"OK"`, `"STATUS_CODE_ERROR"`,
/// `"StatusCode.ERROR"`, `"Error"`…
pub(crate) fn status_code(value: &Value) -> StatusCode {
    match value {
        Value::Number(n) => match n.as_u64() {
            Some(1) => StatusCode::Ok,
            Some(2) => StatusCode::Error,
            _ => StatusCode::Unset,
        },
        Value::String(s) => status_code_text(s),
        _ => StatusCode::Unset,
    }
}

pub(crate) fn status_code_text(s: &str) -> StatusCode {
    let lower = s.trim().to_ascii_lowercase();
    let word = lower
        .strip_prefix("status_code_")
        .or_else(|| lower.strip_prefix("statuscode."))
        .unwrap_or(&lower);
    match word {
        "ok" | "success" | "succeeded" | "1" => StatusCode::Ok,
        "error" | "failed" | "failure" | "2" => StatusCode::Error,
        _ => StatusCode::Unset,
    }
}

/// A span kind written as `2`, `"SPAN_KIND_SERVER"`, `"SpanKind.INTERNAL"`
/// or `"internal"`, as a lower-case word for the `span.kind` attribute.
pub(crate) fn span_kind_word(value: &Value) -> Option<String> {
    let word = match value {
        Value::Number(n) => match n.as_u64()? {
            1 => "internal",
            2 => "server",
            3 => "client",
            4 => "producer",
            5 => "consumer",
            _ => return None,
        }
        .to_owned(),
        Value::String(s) => {
            let lower = s.trim().to_ascii_lowercase();
            let word = lower
                .strip_prefix("span_kind_")
                .or_else(|| lower.strip_prefix("spankind."))
                .unwrap_or(&lower);
            if word.is_empty() || word == "unspecified" {
                return None;
            }
            word.to_owned()
        }
        _ => return None,
    };
    Some(word)
}

/// Fold events into the span: `GenAI` content events feed the mapper, an
/// `exception` event explains an error status, and every event other than
/// the content ones is kept under the `events` attribute.
pub(crate) fn absorb_events(span: &mut Span, attrs: &mut Attrs, events: Vec<Event>) {
    let mut kept = Vec::new();
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    for event in events {
        if event.name == "gen_ai.client.inference.operation.details" {
            for key in [
                "gen_ai.input.messages",
                "gen_ai.output.messages",
                "gen_ai.system_instructions",
            ] {
                if let Some(value) = event.attributes.get(key)
                    && !attrs.contains_key(key)
                {
                    attrs.insert(key.to_owned(), value.clone());
                }
            }
            continue;
        }
        if let Some((output, message)) = message_event(&event) {
            if output {
                outputs.push(message);
            } else {
                inputs.push(message);
            }
            continue;
        }
        let content_key = match event.name.as_str() {
            "gen_ai.content.prompt" => Some("gen_ai.prompt"),
            "gen_ai.content.completion" => Some("gen_ai.completion"),
            _ => None,
        };
        if let Some(key) = content_key
            && let Some(value) = event.attributes.get(key)
            && !attrs.contains_key(key)
        {
            attrs.insert(key.to_owned(), value.clone());
            continue;
        }
        if event.name == "exception" && span.status.message.is_none() {
            let kind = event.attributes.get("exception.type").map(text_of);
            let message = event.attributes.get("exception.message").map(text_of);
            span.status.message = match (kind, message) {
                (Some(k), Some(m)) => Some(format!("{k}: {m}").into_boxed_str()),
                (k, m) => k.or(m).map(String::into_boxed_str),
            };
            if span.status.code == StatusCode::Unset {
                span.status.code = StatusCode::Error;
            }
        }
        let mut object = Map::new();
        object.insert("name".to_owned(), Value::String(event.name));
        if let Some(time) = event.time {
            object.insert("time_unix_nano".to_owned(), Value::from(time));
        }
        if !event.attributes.is_empty() {
            object.insert(
                "attributes".to_owned(),
                Value::Object(event.attributes.into_iter().collect()),
            );
        }
        kept.push(Value::Object(object));
    }
    if !kept.is_empty() {
        attrs.insert("events".to_owned(), Value::Array(kept));
    }
    let has_input = ["gen_ai.input.messages", "gen_ai.prompt"]
        .iter()
        .any(|k| attrs.contains_key(*k));
    if !inputs.is_empty() && !has_input {
        attrs.insert("gen_ai.input.messages".to_owned(), Value::Array(inputs));
    }
    let has_output = ["gen_ai.output.messages", "gen_ai.completion"]
        .iter()
        .any(|k| attrs.contains_key(*k));
    if !outputs.is_empty() && !has_output {
        attrs.insert("gen_ai.output.messages".to_owned(), Value::Array(outputs));
    }
}

/// A per-message event of the `GenAI` conventions
/// (`gen_ai.{system,user,assistant,tool}.message`, `gen_ai.choice`) as an
/// `OpenAI`-style message object; `true` for a model output (a choice). The
/// event body's fields are read from the attributes (`content`, `role`,
/// `tool_calls`, `id`, `message`), or from a JSON `body` /
/// `gen_ai.event.content` attribute when the exporter packed them there.
fn message_event(event: &Event) -> Option<(bool, Value)> {
    let (role, output) = match event.name.as_str() {
        "gen_ai.system.message" => ("system", false),
        "gen_ai.user.message" => ("user", false),
        "gen_ai.assistant.message" => ("assistant", false),
        "gen_ai.tool.message" => ("tool", false),
        "gen_ai.choice" => ("assistant", true),
        _ => return None,
    };
    let mut body = Map::new();
    for key in ["body", "gen_ai.event.content"] {
        if let Some(Value::Object(packed)) = event.attributes.get(key).cloned().map(decode_embedded)
        {
            body.extend(packed);
        }
    }
    for key in ["content", "role", "tool_calls", "id", "message"] {
        if let Some(value) = event.attributes.get(key) {
            body.insert(key.to_owned(), value.clone());
        }
    }
    // A choice nests the message.
    if let Some(Value::Object(message)) = body.remove("message").map(decode_embedded) {
        body.extend(message);
    }
    if let Some(id) = body.remove("id").filter(|_| role == "tool") {
        body.insert("tool_call_id".to_owned(), id);
    }
    body.entry("role")
        .or_insert_with(|| Value::String(role.to_owned()));
    Some((output, Value::Object(body)))
}

/// Run the attribute mappers (`OpenInference` first when its keys are
/// present, then `GenAI`), then keep what is left as span attributes.
pub(crate) fn apply_attributes(span: &mut Span, mut attrs: Attrs) {
    if openinference::applies(&attrs) {
        openinference::apply(span, &mut attrs);
    }
    genai::apply(span, &mut attrs);
    genai::derive_messages(span);
    span.attributes.extend(
        attrs
            .into_iter()
            .map(|(k, v)| (ShortText::from(k), v.into())),
    );
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::trace::model::SpanKind;

    #[test]
    fn status_codes_in_every_spelling() {
        assert_eq!(status_code(&json!(2)), StatusCode::Error);
        assert_eq!(status_code(&json!("STATUS_CODE_OK")), StatusCode::Ok);
        assert_eq!(status_code(&json!("StatusCode.ERROR")), StatusCode::Error);
        assert_eq!(status_code(&json!("unset")), StatusCode::Unset);
        assert_eq!(span_kind_word(&json!(3)).as_deref(), Some("client"));
        assert_eq!(
            span_kind_word(&json!("SpanKind.INTERNAL")).as_deref(),
            Some("internal")
        );
        assert_eq!(span_kind_word(&json!("SPAN_KIND_UNSPECIFIED")), None);
    }

    #[test]
    fn exception_events_explain_errors_and_content_events_feed_the_mapper() {
        let mut span = Span::new("s", "chat", SpanKind::Other, 0);
        let mut attrs = Attrs::new();
        let events = vec![
            Event {
                name: "gen_ai.content.prompt".into(),
                time: None,
                attributes: [("gen_ai.prompt".to_owned(), json!("hello"))]
                    .into_iter()
                    .collect(),
            },
            Event {
                name: "exception".into(),
                time: Some(5),
                attributes: [
                    ("exception.type".to_owned(), json!("ValueError")),
                    ("exception.message".to_owned(), json!("bad")),
                ]
                .into_iter()
                .collect(),
            },
        ];
        absorb_events(&mut span, &mut attrs, events);
        assert_eq!(span.status.code, StatusCode::Error);
        assert_eq!(span.status.message.as_deref(), Some("ValueError: bad"));
        assert_eq!(attrs.get("gen_ai.prompt"), Some(&json!("hello")));
        assert_eq!(attrs["events"][0]["name"], json!("exception"));
        apply_attributes(&mut span, attrs);
        assert_eq!(span.kind, SpanKind::Llm);
        assert_eq!(span.input_messages[0].content, "hello");
    }

    /// The per-message events of the `GenAI` conventions (deprecated in favour
    /// of `gen_ai.input.messages`, still emitted by many instrumentations).
    #[test]
    fn genai_message_events_become_input_and_output_messages() {
        let ev = |name: &str, attrs: &[(&str, serde_json::Value)]| Event {
            name: name.into(),
            time: None,
            attributes: attrs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        };
        let mut span = Span::new("s", "chat gpt-4o", SpanKind::Other, 0);
        let mut attrs = Attrs::new();
        attrs.insert("gen_ai.operation.name".into(), json!("chat"));
        let events = vec![
            ev("gen_ai.system.message", &[("content", json!("be brief"))]),
            ev(
                "gen_ai.user.message",
                &[("content", json!("Cancel R1, yes."))],
            ),
            ev(
                "gen_ai.tool.message",
                &[("body", json!("{\"content\": \"ok\", \"id\": \"c1\"}"))],
            ),
            ev(
                "gen_ai.choice",
                &[
                    ("message", json!({"role": "assistant", "content": "Done."})),
                    ("index", json!(0)),
                ],
            ),
            ev("exception", &[("exception.message", json!("x"))]),
        ];
        absorb_events(&mut span, &mut attrs, events);
        assert_eq!(
            attrs["events"].as_array().map(Vec::len),
            Some(1),
            "only the exception is kept as an event"
        );
        apply_attributes(&mut span, attrs);
        let roles: Vec<(&str, &str)> = span
            .input_messages
            .iter()
            .map(|m| (m.role.as_str(), m.content.as_str()))
            .collect();
        assert_eq!(
            roles,
            [
                ("system", "be brief"),
                ("user", "Cancel R1, yes."),
                ("tool", "ok")
            ]
        );
        assert_eq!(span.input_messages[2].tool_call_id.as_deref(), Some("c1"));
        assert_eq!(span.output_messages[0].content, "Done.");
    }
}
