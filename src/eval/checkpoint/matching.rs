//! Whether an event matches a matcher, and the values it captures. A
//! capture name already bound by another event of the same search must see
//! an equal value (numbers compare by value).

use std::collections::BTreeMap;
use std::ops::Deref;
use std::sync::Arc;

use serde_json::Value;

use crate::spec::json::{json_eq, json_subset};
use crate::spec::matcher::{Capture, CaptureSource, Matcher};
use crate::spec::model::{EventKind, EventStatus};

use super::{Event, EventLog};

/// How a `where` that cannot be evaluated counts.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// As no match, recorded.
    Strict,
    /// As this answer (flipped under `not`), not recorded.
    Lenient(bool),
}

impl Mode {
    fn negated(self) -> Self {
        match self {
            Self::Strict => Self::Strict,
            Self::Lenient(p) => Self::Lenient(!p),
        }
    }
}

/// Capture name → value, for one candidate set of events (a search copies
/// the bindings at every step, so a value is never copied: it is borrowed
/// from its event, or shared).
pub(crate) type Bindings<'a> = BTreeMap<String, Captured<'a>>;

/// A captured value: a part of its event's arguments or result, borrowed,
/// or made from the event (its message text), shared.
#[derive(Debug, Clone)]
pub(crate) enum Captured<'a> {
    Event(&'a Value),
    Made(Arc<Value>),
}

impl Deref for Captured<'_> {
    type Target = Value;

    fn deref(&self) -> &Value {
        match self {
            Self::Event(v) => v,
            Self::Made(v) => v,
        }
    }
}

/// `args_contains`/`result_contains`: an object is a recursive subset, a
/// string a substring of the compact JSON (or text).
fn contains<'a>(pattern: &Value, value: &Value, text: impl FnOnce() -> &'a str) -> bool {
    match pattern {
        Value::String(s) => text().contains(s.as_str()),
        other => json_subset(other, value),
    }
}

impl Event<'_> {
    /// Whether this event may match `m` on its own: every field matches and
    /// every capture finds a value; a `where` that cannot be evaluated
    /// counts as a match and is not recorded. For pre-filters and notes;
    /// verdicts use [`Event::bind`].
    pub(crate) fn matches(&self, m: &Matcher, log: &EventLog) -> bool {
        self.bind_in(m, &Bindings::new(), log, Mode::Lenient(true))
            .is_some()
    }

    /// Whether this event passes `m`'s fields and those of its `all_of`
    /// and `any_of` matchers: a necessary condition for matching it (no
    /// `where`, capture or `not` is looked at).
    pub(crate) fn may_match(&self, m: &Matcher) -> bool {
        self.fields_match(m)
            && m.all_of.iter().all(|sub| self.may_match(sub))
            && (m.any_of.is_empty() || m.any_of.iter().any(|sub| self.may_match(sub)))
    }

    /// `bindings` extended with this event's captures, when the event
    /// matches and each capture equals any value already bound to its name.
    /// A `where` that cannot be evaluated does not match, and its error is
    /// recorded on `log` (the checkpoint is then unevaluated).
    pub(crate) fn bind<'a>(
        &'a self,
        m: &Matcher,
        bindings: &Bindings<'a>,
        log: &EventLog,
    ) -> Option<Bindings<'a>> {
        self.bind_in(m, bindings, log, Mode::Strict)
    }

    fn bind_in<'a>(
        &'a self,
        m: &Matcher,
        bindings: &Bindings<'a>,
        log: &EventLog,
        mode: Mode,
    ) -> Option<Bindings<'a>> {
        if !self.fields_match(m) {
            return None;
        }
        let mut out = bindings.clone();
        for c in &m.captures {
            let value = self.captured_ref(c)?;
            match out.get(&c.name) {
                Some(bound) if !json_eq(bound, &value) => return None,
                Some(_) => {}
                None => {
                    out.insert(c.name.clone(), value);
                }
            }
        }
        for sub in &m.all_of {
            out = self.bind_in(sub, &out, log, mode)?;
        }
        if !m.any_of.is_empty() {
            out = m
                .any_of
                .iter()
                .find_map(|sub| self.bind_in(sub, &out, log, mode))?;
        }
        if let Some(not) = &m.not
            && self.bind_in(not, &out, log, mode.negated()).is_some()
        {
            return None;
        }
        if let Some(e) = &m.where_ {
            // A pre-filter has not bound the other matchers' captures: an
            // expression that reads captures could go either way.
            let outcome = match mode {
                Mode::Lenient(polarity) if !e.captures.is_empty() => Ok(polarity),
                _ => self.eval_where(e, &out, log),
            };
            let holds = match outcome {
                Ok(b) => b,
                Err(why) => match mode {
                    Mode::Lenient(polarity) => polarity,
                    Mode::Strict => {
                        let mut slot = log.error.borrow_mut();
                        if slot.is_none() {
                            *slot = Some(format!(
                                "`where: {}` on {}: {why}",
                                crate::output::truncate_chars(&e.source, 80),
                                self.describe()
                            ));
                        }
                        false
                    }
                },
            };
            if !holds {
                return None;
            }
        }
        Some(out)
    }

    /// The value a capture reads, borrowed from the event where it can be
    /// (a search compares far more values than it binds); `None` when the
    /// event has none there.
    fn captured_ref(&self, c: &Capture) -> Option<Captured<'_>> {
        let value = match c.source {
            CaptureSource::Args => c.lookup(self.args_json())?,
            CaptureSource::Result => c.lookup(self.result_json())?,
            CaptureSource::Content => {
                let text = self.content();
                return (!text.is_empty())
                    .then(|| Captured::Made(Arc::new(Value::String(text.to_owned()))));
            }
        };
        (!value.is_null()).then_some(Captured::Event(value))
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
            && self.agent != Some(agent.as_str())
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
            && !contains(p, self.args_json(), || self.args_text())
        {
            return false;
        }
        if let Some(re) = &m.args_match
            && !re.is_match(self.args_text())
            && !self.args_raw().is_some_and(|t| re.is_match(t))
        {
            return false;
        }
        if let Some(p) = &m.result_contains
            && !contains(p, self.result_json(), || self.result_text())
        {
            return false;
        }
        if let Some(re) = &m.result_match
            && !re.is_match(self.result_text())
            && !self.result_raw().is_some_and(|t| re.is_match(t))
        {
            return false;
        }
        if let Some(s) = &m.content_contains
            && !self.content().contains(s.as_str())
        {
            return false;
        }
        if let Some(re) = &m.content_matches
            && !self.content_is_match(re)
        {
            return false;
        }
        if m.turn_tool_calls
            .is_some_and(|r| !r.holds(self.turn_tool_calls))
            || m.turn_replies.is_some_and(|r| !r.holds(self.turn_replies))
        {
            return false;
        }
        true
    }
}
