//! Evaluating a matcher's `where` on an event: the variables it reads, made
//! as cheaply as they can be, and what a log keeps between evaluations (a
//! search evaluates the same expression on the same event many times, and
//! the same captured value under many events).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use rustc_hash::FxHashMap;
use serde_json::Value;

use cel::common::types::{CelMap, CelMapKey, CelNull, CelString};
use cel::common::value::Val;

use crate::spec::expr::{Converted, Expr, Var, project, size_of, to_val, to_val_owned};

use super::matching::{Bindings, Captured};
use super::{Event, EventLog};

/// `captures`' JSON for the cost bound, which finds it in the bindings.
static NULL: Value = Value::Null;

/// A variable converted once per event or case (`args`, `result`,
/// `evidence`, `metadata`): its name, JSON, cache, and the fields-only
/// value when the expression reads only fields of it.
type Shared<'v> = (&'v str, &'v Value, &'v Converted, Option<Box<dyn Val + 'v>>);

/// What `where` evaluation keeps for the life of an [`EventLog`]. Keys
/// are addresses: of the log's events and of values inside them, which
/// live and stay put as long as the log (a log is built, then only read),
/// and of the suite's expressions, which the log's users borrow for as long
/// as they use it.
#[derive(Default)]
pub(crate) struct WhereMemo {
    /// The answer of an expression that reads no capture, per
    /// (expression, event) (errors are not kept, so that each evaluation
    /// that meets one records it).
    answers: RefCell<FxHashMap<(usize, usize), bool>>,
    /// Captured values of the events as CEL values, by address.
    values: RefCell<FxHashMap<usize, Rc<dyn Val>>>,
    /// [`size_of`] of captured values, by address.
    sizes: RefCell<FxHashMap<usize, u64>>,
}

impl Clone for WhereMemo {
    /// A copy starts empty (its events are elsewhere).
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for WhereMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WhereMemo")
            .field("answers", &self.answers.borrow().len())
            .field("values", &self.values.borrow().len())
            .finish_non_exhaustive()
    }
}

fn address(v: &Value) -> usize {
    std::ptr::from_ref(v) as usize
}

impl WhereMemo {
    /// The size of a bound value (kept for the log's own values).
    fn size(&self, v: &Captured<'_>) -> u64 {
        match v {
            Captured::Event(v) => *self
                .sizes
                .borrow_mut()
                .entry(address(v))
                .or_insert_with(|| size_of(v)),
            Captured::Made(v) => size_of(v),
        }
    }

    /// The CEL value of a bound value (kept for the log's own values).
    fn value(&self, v: &Captured<'_>) -> Rc<dyn Val> {
        match v {
            Captured::Event(v) => Rc::clone(
                self.values
                    .borrow_mut()
                    .entry(address(v))
                    .or_insert_with(|| Rc::from(to_val_owned(v))),
            ),
            Captured::Made(v) => Rc::from(to_val_owned(v)),
        }
    }
}

impl Event<'_> {
    /// `e` on this event with these bindings. An expression that reads no
    /// capture gives the same answer on the same event every time: the
    /// first answer is kept and reused.
    pub(super) fn eval_where(
        &self,
        e: &Expr,
        bindings: &Bindings,
        log: &EventLog,
    ) -> Result<bool, String> {
        if e.vars.contains("captures") {
            return self.eval_where_now(e, bindings, log);
        }
        let key = (
            std::ptr::from_ref(e) as usize,
            std::ptr::from_ref(self) as usize,
        );
        let known = log.memo.answers.borrow().get(&key).copied();
        if let Some(answer) = known {
            return Ok(answer);
        }
        let answer = self.eval_where_now(e, bindings, log)?;
        log.memo.answers.borrow_mut().insert(key, answer);
        Ok(answer)
    }

    /// The variables `e` reads, for this event. `args`, `result`,
    /// `evidence` and `metadata`: when the expression reads only some of
    /// their fields (`result.cabin`), just those fields, borrowed, per
    /// evaluation; when it reads one whole, converted once per event (or
    /// case) and shared by every expression. The others are converted per
    /// evaluation, borrowing their text. A capture read as `captures.NAME`
    /// is the variable of that name, converted once per log (`captures`
    /// itself is then a map of the bound names, for `has()`); an
    /// expression that reads `captures` whole gets all of them, converted.
    /// The size of `captures` for the cost bound is always that of all the
    /// bindings; its JSON is never built (the bound finds a range's length
    /// in the bindings).
    fn eval_where_now(
        &self,
        e: &Expr,
        bindings: &Bindings,
        log: &EventLog,
    ) -> Result<bool, String> {
        let mut owned: Vec<(&str, Value)> = Vec::new();
        for name in &e.vars {
            let v = match name.as_str() {
                "content" => Value::String(self.content().to_owned()),
                "agent" => self
                    .agent
                    .map_or(Value::Null, |a| Value::String(a.to_owned())),
                "kind" => Value::String(self.kind.as_str().to_owned()),
                "status" => Value::String(if self.error { "error" } else { "ok" }.to_owned()),
                "tool" => self
                    .tool
                    .map_or(Value::Null, |t| Value::String(t.to_owned())),
                "turn" => Value::from(self.turn),
                "turn_tool_calls" => Value::from(self.turn_tool_calls),
                "turn_replies" => Value::from(self.turn_replies),
                _ => continue,
            };
            owned.push((name.as_str(), v));
        }
        let mut named: Vec<(String, Rc<dyn Val>)> = Vec::new();
        let captures = e.vars.contains("captures").then(|| {
            let size = 1 + bindings.values().map(|v| log.memo.size(v)).sum::<u64>();
            let map: HashMap<CelMapKey, Box<dyn Val + '_>> = if e.whole_captures {
                bindings
                    .iter()
                    .map(|(k, v)| (CelMapKey::String(CelString::from(k.as_str())), to_val(v)))
                    .collect()
            } else {
                bindings
                    .iter()
                    .filter(|(k, _)| e.captures.contains(*k))
                    .map(|(k, v)| {
                        named.push((format!("captures.{k}"), log.memo.value(v)));
                        let placeholder: Box<dyn Val> = Box::new(CelNull);
                        (CelMapKey::String(CelString::from(k.as_str())), placeholder)
                    })
                    .collect()
            };
            let val: Box<dyn Val + '_> = Box::new(CelMap::from(map));
            (val, size)
        });
        // `args`, `result`, `evidence` and `metadata`: only the fields read,
        // when the expression reads nothing else of them.
        let mut shared: Vec<Shared<'_>> = Vec::new();
        for name in &e.vars {
            let (json, cell): (&Value, &Converted) = match name.as_str() {
                "args" => (self.args_json(), self.args_cel()),
                "result" => (self.result_json(), self.result_cel()),
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
        let qualified: Vec<(&str, &dyn Val)> = named
            .iter()
            .map(|(name, v)| (name.as_str(), v.as_ref()))
            .collect();
        e.evaluate_vars_with(&vars, &qualified)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::super::matching::{Bindings, Captured};
    use super::super::testing::{log, message, tool};
    use crate::spec::expr::compile;
    use crate::spec::matcher::EVENT_VARS;
    use crate::spec::model::EventKind;

    fn expr(source: &str) -> Arc<crate::spec::expr::Expr> {
        Arc::new(compile(source, EVENT_VARS).unwrap())
    }

    /// A kept answer is the answer: an expression without captures gives
    /// the same result the second time; one that reads captures is
    /// evaluated again with the new bindings; an error is never kept, so
    /// every evaluation that meets it reports it.
    #[test]
    fn kept_answers_are_the_answers_and_errors_are_not_kept() {
        let l = log(vec![
            tool("a", "read", json!({}), json!({"n": 3})),
            tool("b", "read", json!({}), json!({"n": "three"})),
        ]);
        let none = Bindings::new();
        let big = expr("int(result.n) > 2");
        let e = &l.events[0];
        assert_eq!(e.eval_where(&big, &none, &l), Ok(true));
        assert_eq!(e.eval_where(&big, &none, &l), Ok(true));
        let small = expr("int(result.n) < 2");
        assert_eq!(e.eval_where(&small, &none, &l), Ok(false));
        for _ in 0..2 {
            assert!(l.events[1].eval_where(&big, &none, &l).is_err());
        }
        let against = expr("int(result.n) > captures.limit");
        let (two, five) = (json!(2), json!(5));
        let with = |v| -> Bindings { [("limit".to_owned(), Captured::Event(v))].into() };
        assert_eq!(e.eval_where(&against, &with(&two), &l), Ok(true));
        assert_eq!(e.eval_where(&against, &with(&five), &l), Ok(false));
        assert_eq!(e.eval_where(&against, &with(&two), &l), Ok(true));
    }

    /// A captured value read as `captures.NAME` is that value; `has()`
    /// sees the bound names and only them; an unbound name is an error.
    #[test]
    fn captures_read_by_name_are_the_bound_values() {
        let l = log(vec![tool(
            "a",
            "book",
            json!({"ids": ["x", "y"]}),
            json!(null),
        )]);
        let e = &l.events[0];
        let wallet = json!({"x": {"amount": 10}, "z": {"amount": 1}});
        let bound: Bindings = [("wallet".to_owned(), Captured::Event(&wallet))].into();
        for (source, want) in [
            ("args.ids.all(i, i in captures.wallet)", Some(false)),
            ("args.ids.exists(i, i in captures.wallet)", Some(true)),
            ("captures.wallet['x'].amount == 10", Some(true)),
            ("has(captures.wallet)", Some(true)),
            ("has(captures.other)", Some(false)),
            ("captures.other == 1", None),
        ] {
            let got = e.eval_where(&expr(source), &bound, &l).ok();
            assert_eq!(got, want, "{source}");
        }
    }

    /// `content_matches` answers kept per pattern: two patterns on one
    /// message keep their own answers, in any order.
    #[test]
    fn content_answers_are_kept_per_pattern() {
        let l = log(vec![message("m", EventKind::User, "yes, go ahead")]);
        let e = &l.events[0];
        let yes = regex::Regex::new(r"\byes\b").unwrap();
        let no = regex::Regex::new(r"\bno\b").unwrap();
        let same_as_yes = regex::Regex::new(r"\byes\b").unwrap();
        for _ in 0..2 {
            assert!(e.content_is_match(&yes));
            assert!(!e.content_is_match(&no));
            assert!(e.content_is_match(&same_as_yes));
        }
    }
}
