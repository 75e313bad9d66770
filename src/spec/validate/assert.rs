//! Compile tier-1 assertions (checkpoints, `active_when`, `applies_to`,
//! `task.success`); errors point at the assertion's `path`.

use crate::spec::matcher::compile_regex;
use crate::spec::model::AssertSpec;
use crate::spec::suite::{StateAssert, StateOp};

use super::context::{Ctx, loc};

pub(super) fn state_assert(
    cx: &mut Ctx<'_>,
    spec: &AssertSpec,
    owner: &str,
) -> Option<StateAssert> {
    let at = loc(&spec.path);
    let path = spec.path.value.as_str();
    let mut ok = true;
    if !(path.is_empty() || path.starts_with('/')) {
        cx.error(
            at,
            format!("`path: {path}` in `{owner}` is not a JSON Pointer"),
            format!(
                "JSON Pointers start with `/`, e.g. `/{}`",
                path.replace('.', "/")
            ),
        );
        ok = false;
    }
    if spec.operators().is_empty() {
        cx.error(
            at,
            format!("the assertion in `{owner}` has no operator"),
            "add one of `equals`, `not_equals`, `exists`, `contains`, `matches`, `in`, `gte`, `lte`",
        );
        ok = false;
    }
    let mut ops = Vec::new();
    if let Some(v) = &spec.equals {
        ops.push(StateOp::Equals(v.clone()));
    }
    if let Some(v) = &spec.not_equals {
        ops.push(StateOp::NotEquals(v.clone()));
    }
    if let Some(v) = spec.exists {
        ops.push(StateOp::Exists(v));
    }
    if let Some(v) = &spec.contains {
        ops.push(StateOp::Contains(v.clone()));
    }
    if let Some(pattern) = &spec.matches {
        match compile_regex(pattern) {
            Ok(re) => ops.push(StateOp::Matches(re)),
            Err(e) => {
                cx.error(
                    at,
                    format!("`matches` in `{owner}` is not a valid regex: {e}"),
                    e.hint("", "the syntax is Rust's `regex` crate (no look-around)"),
                );
                ok = false;
            }
        }
    }
    if let Some(v) = &spec.in_ {
        ops.push(StateOp::In(v.clone()));
    }
    for (name, value, make) in [
        ("gte", spec.gte, StateOp::Gte as fn(f64) -> StateOp),
        ("lte", spec.lte, StateOp::Lte),
    ] {
        if let Some(v) = value {
            if v.is_finite() {
                ops.push(make(v));
            } else {
                cx.error(
                    at,
                    format!("`{name}` in `{owner}` is not a finite number"),
                    "use a number",
                );
                ok = false;
            }
        }
    }
    ok.then(|| StateAssert {
        path: path.to_owned(),
        ops,
    })
}
