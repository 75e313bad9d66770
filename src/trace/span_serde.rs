//! A span's JSON (`trace --format json`): the fields in their order,
//! whatever the span keeps behind a pointer ([`Span::model`] and the
//! usage it keeps with it, issue 25). Written through a borrowed mirror,
//! read through an owned one (tests read spans back).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use thin_vec::ThinVec;

use super::model::{Attributes, Message, Span, SpanKind, Status, Tokens, ToolExecution};
use crate::model::ShortText;

#[derive(Serialize)]
struct SpanOut<'a> {
    id: &'a ShortText,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<&'a ShortText>,
    name: &'a ShortText,
    kind: SpanKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<&'a ShortText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<u64>,
    seq: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool: Option<&'a ToolExecution>,
    #[serde(skip_serializing_if = "no_messages")]
    input_messages: &'a ThinVec<Message>,
    #[serde(skip_serializing_if = "no_messages")]
    output_messages: &'a ThinVec<Message>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<&'a Value>,
    status: &'a Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    tokens: Option<Tokens>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost: Option<f64>,
    #[serde(skip_serializing_if = "no_attributes")]
    attributes: &'a Attributes,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes the field by reference"
)]
fn no_messages(messages: &&ThinVec<Message>) -> bool {
    messages.is_empty()
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes the field by reference"
)]
fn no_attributes(attributes: &&Attributes) -> bool {
    attributes.is_empty()
}

impl Serialize for Span {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SpanOut {
            id: &self.id,
            parent: self.parent.as_ref(),
            name: &self.name,
            kind: self.kind,
            agent: self.agent.as_ref(),
            start: self.start,
            end: self.end,
            seq: self.seq,
            model: self.model(),
            tool: self.tool.as_deref(),
            input_messages: &self.input_messages,
            output_messages: &self.output_messages,
            input: self.input.as_deref(),
            output: self.output.as_deref(),
            status: &self.status,
            tokens: self.tokens(),
            cost: self.cost(),
            attributes: &self.attributes,
        }
        .serialize(serializer)
    }
}

#[derive(Deserialize)]
struct SpanIn {
    id: ShortText,
    parent: Option<ShortText>,
    name: ShortText,
    kind: SpanKind,
    agent: Option<ShortText>,
    start: Option<u64>,
    end: Option<u64>,
    seq: u32,
    model: Option<ShortText>,
    tool: Option<Box<ToolExecution>>,
    #[serde(default)]
    input_messages: ThinVec<Message>,
    #[serde(default)]
    output_messages: ThinVec<Message>,
    input: Option<Box<Value>>,
    output: Option<Box<Value>>,
    status: Status,
    tokens: Option<Tokens>,
    cost: Option<f64>,
    #[serde(default)]
    attributes: Attributes,
}

impl<'de> Deserialize<'de> for Span {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = SpanIn::deserialize(deserializer)?;
        let mut span = Span::new(s.id, s.name, s.kind, s.seq as usize);
        span.parent = s.parent;
        span.agent = s.agent;
        span.start = s.start;
        span.end = s.end;
        span.set_model(s.model);
        span.tool = s.tool;
        span.input_messages = s.input_messages;
        span.output_messages = s.output_messages;
        span.input = s.input;
        span.output = s.output;
        span.status = s.status;
        span.set_tokens(s.tokens);
        span.set_cost(s.cost);
        span.attributes = s.attributes;
        Ok(span)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Every field set, and none: the JSON keeps the order and omissions
    /// it had while the model, tokens and cost were fields of the span.
    #[test]
    fn spans_write_the_fields_in_order_and_read_back() {
        let mut full = Span::new("s1", "chat", SpanKind::Llm, 3);
        full.parent = Some("s0".into());
        full.agent = Some("bot".into());
        full.start = Some(10);
        full.end = Some(20);
        full.set_model(Some("gpt".into()));
        full.tool = Some(Box::new(ToolExecution {
            name: "t".into(),
            call_id: None,
            arguments: None,
            result: None,
            arguments_text: None,
            result_text: None,
        }));
        full.input_messages.push(Message::default());
        full.output_messages.push(Message::default());
        full.input = Some(Box::new(json!("in")));
        full.output = Some(Box::new(json!(1)));
        full.status = Status::error("boom");
        full.set_tokens(Some(Tokens {
            input: 1,
            output: 2,
        }));
        full.set_cost(Some(0.5));
        full.attributes.insert("k".into(), json!("v").into());
        let text = serde_json::to_string(&full).unwrap();
        let keys: Vec<String> = serde_json::from_str::<serde_json::Map<String, Value>>(&text)
            .unwrap()
            .keys()
            .cloned()
            .collect();
        // serde_json's map keeps keys sorted unless preserve_order: read
        // the order from the text instead.
        let mut at: Vec<(usize, &str)> = keys
            .iter()
            .map(|k| (text.find(&format!("\"{k}\":")).unwrap(), k.as_str()))
            .collect();
        at.sort_unstable();
        let order: Vec<&str> = at.into_iter().map(|(_, k)| k).collect();
        assert_eq!(
            order,
            [
                "id",
                "parent",
                "name",
                "kind",
                "agent",
                "start",
                "end",
                "seq",
                "model",
                "tool",
                "input_messages",
                "output_messages",
                "input",
                "output",
                "status",
                "tokens",
                "cost",
                "attributes"
            ]
        );
        assert_eq!(serde_json::from_str::<Span>(&text).unwrap(), full);
        let bare = Span::new("s2", "x", SpanKind::Other, 0);
        let text = serde_json::to_string(&bare).unwrap();
        assert_eq!(
            text,
            r#"{"id":"s2","name":"x","kind":"other","seq":0,"status":{"code":"unset"}}"#
        );
        assert_eq!(serde_json::from_str::<Span>(&text).unwrap(), bare);
    }

    /// The usage box exists only while something is in it, so equality
    /// does not depend on how a span got its values.
    #[test]
    fn unsetting_the_usage_drops_its_box() {
        let mut span = Span::new("s", "n", SpanKind::Llm, 0);
        span.set_cost(Some(1.0));
        span.set_model(Some("m".into()));
        assert_eq!(
            (span.model(), span.cost(), span.tokens()),
            (Some("m"), Some(1.0), None)
        );
        span.set_cost(None);
        span.set_model(None);
        assert_eq!(span, Span::new("s", "n", SpanKind::Llm, 0));
    }
}
