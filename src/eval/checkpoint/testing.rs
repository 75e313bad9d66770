//! Event-log builders for the unit tests of this module.

use serde_json::Value;

use super::{Event, EventLog};
use crate::spec::matcher::{Capture, Matcher, ToolGlob};
use crate::spec::model::EventKind;

fn event(id: &str, kind: EventKind, agent: &str) -> Event {
    Event {
        span_id: id.into(),
        name: kind.as_str().into(),
        kind,
        tool: None,
        args: Value::Null,
        args_text: String::new(),
        result: Value::Null,
        result_text: String::new(),
        content: String::new(),
        agent: Some(agent.into()),
        error: false,
        is_final: false,
    }
}

pub(super) fn tool(id: &str, name: &str, args: Value, result: Value) -> Event {
    tool_by(id, name, args, result, "main")
}

pub(super) fn tool_by(id: &str, name: &str, args: Value, result: Value, agent: &str) -> Event {
    let mut e = event(id, EventKind::Tool, agent);
    e.tool = Some(name.into());
    e.name = name.into();
    e.args_text = args.to_string();
    e.args = args;
    e.result_text = match &result {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    e.content = e.result_text.clone();
    e.result = result;
    e
}

pub(super) fn message(id: &str, kind: EventKind, text: &str) -> Event {
    let mut e = event(id, kind, "main");
    e.content = text.into();
    e
}

pub(super) fn log(events: Vec<Event>) -> EventLog {
    EventLog { events }
}

pub(super) fn on_tool(name: &str) -> Matcher {
    Matcher {
        tools: vec![ToolGlob::new(name).unwrap()],
        ..Matcher::default()
    }
}

pub(super) fn of_kind(kind: EventKind) -> Matcher {
    Matcher {
        kind: Some(kind),
        ..Matcher::default()
    }
}

pub(super) fn capturing(mut m: Matcher, name: &str, pointer: &str) -> Matcher {
    m.captures.push(Capture::parse(name, pointer).unwrap());
    m
}
