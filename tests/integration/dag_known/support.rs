//! Small builders for hand-made traces and suites.

use std::collections::BTreeMap;

use agenteval_gate::dag::{Dag, Node};
use agenteval_gate::spec::{StepType, ToolSpec, WorkflowSpec};
use agenteval_gate::trace::{
    Message, Span, SpanKind, Status, ToolCall, ToolExecution, Trace, TraceFormat,
};
use serde_json::Value;

/// A trace under construction; spans get ids `m0, m1, …` and `seq` in call order.
pub(super) struct TraceBuilder {
    format: TraceFormat,
    spans: Vec<Span>,
}

impl TraceBuilder {
    pub(super) fn new(format: TraceFormat) -> Self {
        Self {
            format,
            spans: Vec::new(),
        }
    }

    pub(super) fn chat() -> Self {
        Self::new(TraceFormat::ChatMessages)
    }

    fn push(&mut self, kind: SpanKind, name: &str) -> &mut Span {
        let seq = self.spans.len();
        self.spans
            .push(Span::new(format!("m{seq}"), name, kind, seq));
        self.spans.last_mut().unwrap()
    }

    pub(super) fn user(&mut self, text: &str) -> &mut Span {
        let s = self.push(SpanKind::User, "user");
        s.input = Some(Box::new(Value::String(text.into())));
        s
    }

    /// A model call answering `text` and requesting `calls` = `(call id, tool, args)`.
    pub(super) fn llm(&mut self, text: &str, calls: &[(&str, &str, Value)]) -> &mut Span {
        let s = self.push(SpanKind::Llm, "assistant");
        s.output_messages.push(Message {
            role: "assistant".into(),
            content: text.into(),
            tool_calls: calls
                .iter()
                .map(|(id, name, args)| ToolCall {
                    arguments_text: None,
                    id: (!id.is_empty()).then(|| (*id).into()),
                    name: (*name).into(),
                    arguments: args.clone().into(),
                })
                .collect(),
            ..Message::default()
        });
        s
    }

    /// A tool execution; `call_id` empty = none recorded.
    pub(super) fn tool(
        &mut self,
        call_id: &str,
        name: &str,
        args: Option<Value>,
        result: Value,
    ) -> &mut Span {
        let s = self.push(SpanKind::Tool, name);
        s.tool = Some(Box::new(ToolExecution {
            arguments_text: None,
            result_text: None,
            name: name.into(),
            call_id: (!call_id.is_empty()).then(|| call_id.into()),
            arguments: args.map(Into::into),
            result: Some(result.into()),
        }));
        s
    }

    pub(super) fn tool_error(
        &mut self,
        call_id: &str,
        name: &str,
        args: Option<Value>,
        message: &str,
    ) -> &mut Span {
        let s = self.tool(call_id, name, args, Value::Null);
        s.tool.as_mut().unwrap().result = None;
        s.status = Status::error(message);
        s
    }

    pub(super) fn span(&mut self, kind: SpanKind, name: &str) -> &mut Span {
        self.push(kind, name)
    }

    pub(super) fn build(self) -> Trace {
        Trace {
            id: "t".into(),
            format: self.format,
            spans: self.spans,
            final_output: None,
            metadata: BTreeMap::new(),
            warnings: Vec::new(),
        }
        .finish()
    }
}

/// `(type, name)` of every node, in id order.
pub(super) fn shape(dag: &Dag) -> Vec<(StepType, String)> {
    dag.nodes
        .iter()
        .map(|n| (n.step_type, n.name.to_string()))
        .collect()
}

/// Edges as `"s1>s2"` strings.
pub(super) fn edges(dag: &Dag) -> Vec<String> {
    dag.edge_ids()
        .into_iter()
        .map(|[a, b]| format!("{a}>{b}"))
        .collect()
}

pub(super) fn tools(yaml: &str) -> Vec<ToolSpec> {
    serde_saphyr::from_str(yaml).unwrap()
}

pub(super) fn workflow(yaml: &str) -> WorkflowSpec {
    serde_saphyr::from_str(yaml).unwrap()
}

/// Nodes of one type named after their index, for hand-built DAGs.
pub(super) fn nodes(types: &[StepType]) -> Vec<Node> {
    types
        .iter()
        .enumerate()
        .map(|(i, t)| Node::new(*t, format!("n{i}")))
        .collect()
}
