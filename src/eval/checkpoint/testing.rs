//! Event-log builders for the unit tests of this module.

use serde_json::Value;

use super::{Event, EventLog};
use crate::spec::matcher::{Capture, Matcher, ToolGlob};
use crate::spec::model::EventKind;

pub(super) fn tool(
    id: &'static str,
    name: &'static str,
    args: Value,
    result: Value,
) -> Event<'static> {
    tool_by(id, name, args, result, "main")
}

pub(super) fn tool_by(
    id: &'static str,
    name: &'static str,
    args: Value,
    result: Value,
    agent: &'static str,
) -> Event<'static> {
    let mut e = Event::new(id, name, EventKind::Tool, Some(agent));
    e.tool = Some(name);
    e.args = args.into();
    e.result = result.into();
    e
}

pub(super) fn message(id: &'static str, kind: EventKind, text: &str) -> Event<'static> {
    let mut e = Event::new(id, kind.as_str(), kind, Some("main"));
    e.text = Some(text.to_owned().into());
    e
}

pub(super) fn log(mut events: Vec<Event<'static>>) -> EventLog<'static> {
    super::events::number_turns(&mut events);
    EventLog {
        events,
        ..EventLog::default()
    }
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
