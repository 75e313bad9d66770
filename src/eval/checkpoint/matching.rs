//! Whether an event matches a matcher, and the values it captures. A
//! capture name already bound by another event of the same search must see
//! an equal value (numbers compare by value).

use std::collections::{BTreeMap, HashMap};
use std::ops::Deref;
use std::sync::Arc;

use serde_json::Value;

use cel::common::types::{CelMap, CelMapKey, CelString};
use cel::common::value::Val;

use crate::spec::expr::{Converted, Expr, Var, project, size_of, to_val};
use crate::spec::json::{json_eq, json_subset};
use crate::spec::matcher::{Capture, CaptureSource, Matcher};
use crate::spec::model::{EventKind, EventStatus};

use super::{Event, EventLog};

/// `captures`' JSON for the cost bound, which finds it in the bindings.
static NULL: Value = Value::Null;

/// A variable converted once per event or case (`args`, `result`,
/// `evidence`, `metadata`): its name, JSON, cache, and the fields-only
/// value when the expression reads only fields of it.
type Shared<'v> = (&'v str, &'v Value, &'v Converted, Option<Box<dyn Val + 'v>>);

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

impl Event {
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

    /// The variables `e` reads, for this event. `args`, `result`,
    /// `evidence` and `metadata`: when the expression reads only some of
    /// their fields (`result.cabin`), just those fields, borrowed, per
    /// evaluation; when it reads one whole, converted once per event (or
    /// case) and shared by every expression. The others are converted per
    /// evaluation, borrowing their text. `captures` holds only the captures
    /// the expression names, unless it reads `captures` whole (its size for
    /// the cost bound is always that of all the bindings); its JSON is never
    /// built (the bound finds a range's length in the bindings).
    fn eval_where(&self, e: &Expr, bindings: &Bindings, log: &EventLog) -> Result<bool, String> {
        let mut owned: Vec<(&str, Value)> = Vec::new();
        for name in &e.vars {
            let v = match name.as_str() {
                "content" => Value::String(self.content().to_owned()),
                "agent" => self.agent.clone().map_or(Value::Null, Value::String),
                "kind" => Value::String(self.kind.as_str().to_owned()),
                "status" => Value::String(if self.error { "error" } else { "ok" }.to_owned()),
                "tool" => self.tool.clone().map_or(Value::Null, Value::String),
                "turn" => Value::from(self.turn),
                "turn_tool_calls" => Value::from(self.turn_tool_calls),
                "turn_replies" => Value::from(self.turn_replies),
                _ => continue,
            };
            owned.push((name.as_str(), v));
        }
        let shown = |k: &String| e.whole_captures || e.captures.contains(k);
        let captures = e.vars.contains("captures").then(|| {
            let size = 1 + bindings.values().map(|v| size_of(v)).sum::<u64>();
            let val: Box<dyn Val + '_> = Box::new(CelMap::from(
                bindings
                    .iter()
                    .filter(|(k, _)| shown(k))
                    .map(|(k, v)| (CelMapKey::String(CelString::from(k.as_str())), to_val(v)))
                    .collect::<HashMap<_, _>>(),
            ));
            (val, size)
        });
        // `args`, `result`, `evidence` and `metadata`: only the fields read,
        // when the expression reads nothing else of them.
        let mut shared: Vec<Shared<'_>> = Vec::new();
        for name in &e.vars {
            let (json, cell): (&Value, &Converted) = match name.as_str() {
                "args" => (&self.args, &self.args_cel),
                "result" => (&self.result, &self.result_cel),
                "evidence" => (&log.evidence, &log.evidence_cel),
                "metadata" => (&log.metadata, &log.metadata_cel),
                _ => continue,
            };
            let projection = e.fields.get(name).and_then(|f| project(json, f));
            shared.push((name.as_str(), json, cell, projection));
        }
        let converted: Vec<Box<dyn Val + '_>> = owned.iter().map(|(_, v)| to_val(v)).collect();
        let mut vars: BTreeMap<&str, Var<'_>> = BTreeMap::new();
        for ((name, v), c) in owned.iter().zip(&converted) {
            vars.insert(name, Var::borrowed(v, c.as_ref()));
        }
        if let Some((val, size)) = &captures {
            vars.insert(
                "captures",
                Var::sized(&NULL, val.as_ref(), *size).with_members(bindings),
            );
        }
        for (name, json, cell, projection) in &shared {
            let var = match projection {
                Some(val) => Var::sized(json, val.as_ref(), cell.size(json)),
                None => cell.var(json),
            };
            vars.insert(name, var);
        }
        e.evaluate_vars(&vars)
    }

    /// The value a capture reads, borrowed from the event where it can be
    /// (a search compares far more values than it binds); `None` when the
    /// event has none there.
    fn captured_ref(&self, c: &Capture) -> Option<Captured<'_>> {
        let value = match c.source {
            CaptureSource::Args => self.args.pointer(&c.pointer)?,
            CaptureSource::Result => self.result.pointer(&c.pointer)?,
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
            && !contains(p, &self.args, || self.args_text())
        {
            return false;
        }
        if let Some(re) = &m.args_match
            && !re.is_match(self.args_text())
            && !self.args_raw.as_deref().is_some_and(|t| re.is_match(t))
        {
            return false;
        }
        if let Some(p) = &m.result_contains
            && !contains(p, &self.result, || self.result_text())
        {
            return false;
        }
        if let Some(re) = &m.result_match
            && !re.is_match(self.result_text())
            && !self.result_raw.as_deref().is_some_and(|t| re.is_match(t))
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
        if m.turn_tool_calls
            .is_some_and(|r| !r.holds(self.turn_tool_calls))
            || m.turn_replies.is_some_and(|r| !r.holds(self.turn_replies))
        {
            return false;
        }
        true
    }
}
