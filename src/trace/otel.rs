//! Pieces shared by the `OTel`-shaped adapters (OTLP, SDK dumps, nested
//! `OpenInference` exports, bare attribute maps): status codes in their
//! spellings, span events, and running the attribute mappers in order.

use serde_json::{Map, Value};

use crate::trace::json::{Attrs, text_of};
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
    for event in events {
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
                (Some(k), Some(m)) => Some(format!("{k}: {m}")),
                (k, m) => k.or(m),
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
}

/// Run the attribute mappers (`OpenInference` first when its keys are
/// present, then `GenAI`), then keep what is left as span attributes.
pub(crate) fn apply_attributes(span: &mut Span, mut attrs: Attrs) {
    if openinference::applies(&attrs) {
        openinference::apply(span, &mut attrs);
    }
    genai::apply(span, &mut attrs);
    genai::derive_messages(span);
    span.attributes.extend(attrs);
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
}
