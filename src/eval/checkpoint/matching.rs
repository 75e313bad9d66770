//! Whether an event matches a matcher, and the values it captures. A
//! capture name already bound by another event of the same search must see
//! an equal value (numbers compare by value).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::spec::json::{json_eq, json_subset};
use crate::spec::matcher::{Capture, CaptureSource, Matcher};
use crate::spec::model::{EventKind, EventStatus};

use super::Event;

/// Capture name → value, for one candidate set of events.
pub(crate) type Bindings = BTreeMap<String, Value>;

/// `args_contains`/`result_contains`: an object is a recursive subset, a
/// string a substring of the compact JSON (or text).
fn contains(pattern: &Value, value: &Value, text: &str) -> bool {
    match pattern {
        Value::String(s) => text.contains(s.as_str()),
        other => json_subset(other, value),
    }
}

impl Event {
    /// Whether every field set in `m` matches this event and every capture
    /// finds a value (captures are not compared with anything here).
    pub(crate) fn matches(&self, m: &Matcher) -> bool {
        self.fields_match(m) && m.captures.iter().all(|c| self.captured(c).is_some())
    }

    /// `bindings` extended with this event's captures, when the event
    /// matches and each capture equals any value already bound to its name.
    pub(crate) fn bind(&self, m: &Matcher, bindings: &Bindings) -> Option<Bindings> {
        if !self.fields_match(m) {
            return None;
        }
        let mut out = bindings.clone();
        for c in &m.captures {
            let value = self.captured(c)?;
            match out.get(&c.name) {
                Some(bound) if !json_eq(bound, &value) => return None,
                Some(_) => {}
                None => {
                    out.insert(c.name.clone(), value);
                }
            }
        }
        Some(out)
    }

    /// The value a capture reads; `None` when the event has none there.
    pub(crate) fn captured(&self, c: &Capture) -> Option<Value> {
        let value = match c.source {
            CaptureSource::Args => self.args.pointer(&c.pointer)?,
            CaptureSource::Result => self.result.pointer(&c.pointer)?,
            CaptureSource::Content => {
                let text = self.content();
                return (!text.is_empty()).then(|| Value::String(text.to_owned()));
            }
        };
        (!value.is_null()).then(|| value.clone())
    }

    fn fields_match(&self, m: &Matcher) -> bool {
        if !m.tools.is_empty() {
            let Some(tool) = &self.tool else { return false };
            if self.kind != EventKind::Tool || !m.tools.iter().any(|g| g.matches(tool)) {
                return false;
            }
        }
        if m.kind.is_some_and(|k| k != self.kind) {
            return false;
        }
        if let Some(agent) = &m.agent
            && self.agent.as_deref() != Some(agent.as_str())
        {
            return false;
        }
        match m.status {
            Some(EventStatus::Error) if !self.error => return false,
            Some(EventStatus::Ok) if self.error => return false,
            _ => {}
        }
        if m.is_final.is_some_and(|f| f != self.is_final) {
            return false;
        }
        if let Some(p) = &m.args_contains
            && !contains(p, &self.args, self.args_text())
        {
            return false;
        }
        if let Some(re) = &m.args_match
            && !re.is_match(self.args_text())
        {
            return false;
        }
        if let Some(p) = &m.result_contains
            && !contains(p, &self.result, self.result_text())
        {
            return false;
        }
        if let Some(re) = &m.result_match
            && !re.is_match(self.result_text())
        {
            return false;
        }
        if let Some(s) = &m.content_contains
            && !self.content().contains(s.as_str())
        {
            return false;
        }
        if let Some(re) = &m.content_matches
            && !re.is_match(self.content())
        {
            return false;
        }
        true
    }
}
