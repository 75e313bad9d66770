//! Compile one tier-2 matcher: tool globs against the catalog, regexes,
//! captures, argument keys and values against the tool's schema, and
//! combinations that can never match.

use regex::Regex;
use serde_json::Value;
use serde_saphyr::Location;

use crate::spec::matcher::{
    Capture, CaptureSource, EVENT_VARS, Matcher, ToolGlob, compile_regex, shown,
};
use crate::spec::model::{EventKind, EventMatcher, EventStatus};

use super::args_schema::{check_pointer, check_value, schema_type_at};
use super::catalog::Catalog;
use super::context::{Ctx, did_you_mean, loc};
use super::expr::where_expr;
use super::key_order::key_order_dependent;

const GLOB_HINT: &str = "`*` matches any run, `?` one character, `{a,b}` either name";

pub(super) fn matcher(
    cx: &mut Ctx<'_>,
    spec: &EventMatcher,
    at: Location,
    id: &str,
    catalog: &Catalog,
) -> Option<Matcher> {
    let mut ok = true;
    let mut tools = Vec::new();
    for pattern in spec.tool.iter().flat_map(|t| t.patterns()) {
        match ToolGlob::new(pattern) {
            Ok(glob) => tools.push(glob),
            Err(e) => {
                cx.error(
                    at,
                    format!(
                        "tool pattern `{}` in `{id}` is not a valid glob: {e}",
                        shown(pattern)
                    ),
                    e.hint(GLOB_HINT, GLOB_HINT),
                );
                ok = false;
            }
        }
    }
    for glob in &tools {
        if glob.is_literal() {
            if !catalog.contains(glob.as_str()) {
                cx.error(
                    at,
                    format!(
                        "`{id}` refers to tool `{}`, which is not in the `tools:` catalog{}",
                        glob.as_str(),
                        did_you_mean(glob.as_str(), catalog.names())
                    ),
                    format!(
                        "add `- name: {}` (with its argument schema) to `tools:`, or fix the name",
                        glob.as_str()
                    ),
                );
                ok = false;
            }
        } else if !catalog.names().any(|t| glob.matches(t)) {
            cx.warning(
                at,
                format!(
                    "tool pattern `{}` in `{id}` matches no tool in the catalog",
                    glob.as_str()
                ),
                "check the pattern against the names under `tools:`",
            );
        }
    }
    let mut regex = |cx: &mut Ctx<'_>, key: &str, pattern: &Option<String>| -> Option<Regex> {
        let p = pattern.as_ref()?;
        match compile_regex(p) {
            Ok(re) => Some(re),
            Err(e) => {
                cx.error(
                    at,
                    format!("`{key}` in `{id}` is not a valid regex: {e}"),
                    e.hint(
                        "",
                        "the syntax is Rust's `regex` crate (no look-around); `(?i)` ignores case",
                    ),
                );
                ok = false;
                None
            }
        }
    };
    let args_match = regex(cx, "args_match", &spec.args_match);
    let result_match = regex(cx, "result_match", &spec.result_match);
    for (key, pattern) in [
        ("args_match", &spec.args_match),
        ("result_match", &spec.result_match),
    ] {
        if let Some(keys) = pattern.as_deref().and_then(key_order_dependent) {
            cx.warning(
                at,
                format!(
                    "`{key}` in `{id}` names the keys {keys} in one order; it matches the recorded text (keys as the agent wrote them) or the compact JSON (keys sorted), so another order of the same arguments slips past it"
                ),
                "match one key at a time (`args_contains: {key: value}`), or compare fields with `where: \"args.a == 1 && args.b == 2\"`",
            );
        }
    }
    let content_matches = regex(cx, "content_matches", &spec.content_matches);

    let mut captures = Vec::new();
    for (name, pointer) in &spec.capture {
        match Capture::parse(name, pointer) {
            Ok(c) => captures.push(c),
            Err(why) => {
                cx.error(
                    at,
                    format!("{why} (in `{id}`)"),
                    "captures read the tool arguments (`/args/reservation_id`), the result (`/result/cabin`) or the text (`/content`)",
                );
                ok = false;
            }
        }
    }

    let where_ = spec.where_.as_ref().and_then(|w| {
        let e = where_expr(cx, w, EVENT_VARS, id);
        ok &= e.is_some();
        e
    });
    let mut subs = |cx: &mut Ctx<'_>, list: &[serde_saphyr::Spanned<EventMatcher>]| {
        list.iter()
            .filter_map(|sub| {
                let m = matcher(cx, &sub.value, loc(sub), id, catalog);
                ok &= m.is_some();
                m
            })
            .collect::<Vec<_>>()
    };
    let any_of = subs(cx, &spec.any_of);
    let all_of = subs(cx, &spec.all_of);
    let not = spec.not.as_deref().and_then(|sub| {
        if has_capture(&sub.value) {
            cx.error(
                loc(sub),
                format!("`not` in `{id}` cannot capture: a value from an event that does not match means nothing"),
                "move the `capture` out of `not`",
            );
            ok = false;
        }
        let m = matcher(cx, &sub.value, loc(sub), id, catalog);
        ok &= m.is_some();
        m.map(Box::new)
    });
    for (key, range) in [
        ("turn_tool_calls", spec.turn_tool_calls),
        ("turn_replies", spec.turn_replies),
    ] {
        if let Some(r) = range
            && (r.min.is_none() && r.max.is_none() || r.min > r.max && r.max.is_some())
        {
            cx.error(
                at,
                format!("`{key}` in `{id}` needs `min` ≤ `max` (one of them at least)"),
                "e.g. `turn_tool_calls: {min: 2}`",
            );
            ok = false;
        }
    }
    if !never_matches(cx, spec, at, id) {
        ok = false;
    }
    let selecting = spec.tool.is_some()
        || spec.args_contains.is_some()
        || spec.args_match.is_some()
        || spec.result_contains.is_some()
        || spec.result_match.is_some()
        || spec.content_contains.is_some()
        || spec.content_matches.is_some()
        || spec.agent.is_some()
        || spec.kind.is_some()
        || spec.status.is_some()
        || spec.is_final.is_some()
        || spec.where_.is_some()
        || !spec.any_of.is_empty()
        || !spec.all_of.is_empty()
        || spec.not.is_some()
        || spec.turn_tool_calls.is_some()
        || spec.turn_replies.is_some();
    if !selecting {
        cx.error(
            at,
            format!("a matcher in `{id}` selects nothing and would match every event"),
            "give at least `tool`, `kind`, `agent` or `where`",
        );
        ok = false;
    }
    if ok {
        schema_lint(
            cx,
            spec,
            &tools,
            &captures,
            where_.as_deref(),
            at,
            id,
            catalog,
        );
    }
    ok.then(|| Matcher {
        tools,
        args_contains: spec.args_contains.clone(),
        args_match,
        result_contains: spec.result_contains.clone(),
        result_match,
        content_contains: spec.content_contains.clone(),
        content_matches,
        agent: spec.agent.clone(),
        kind: spec.kind,
        status: spec.status,
        is_final: spec.is_final,
        captures,
        where_,
        any_of,
        all_of,
        not,
        turn_tool_calls: spec.turn_tool_calls,
        turn_replies: spec.turn_replies,
    })
}

/// Whether a matcher or one of its sub-matchers captures.
pub(super) fn has_capture(m: &EventMatcher) -> bool {
    !m.capture.is_empty()
        || m.any_of
            .iter()
            .chain(&m.all_of)
            .any(|s| has_capture(&s.value))
        || m.not.as_deref().is_some_and(|s| has_capture(&s.value))
}

/// Combinations no event can satisfy; `false` after reporting one.
fn never_matches(cx: &mut Ctx<'_>, spec: &EventMatcher, at: Location, id: &str) -> bool {
    let Some(kind) = spec.kind else {
        return true;
    };
    let tool_fields = spec.tool.is_some()
        || spec.args_contains.is_some()
        || spec.args_match.is_some()
        || spec.result_contains.is_some()
        || spec.result_match.is_some()
        || spec
            .capture
            .values()
            .any(|p| p.starts_with("/args") || p.starts_with("/result"));
    let why = if spec.tool.is_some() && kind != EventKind::Tool {
        Some("`tool` only matches tool events")
    } else if tool_fields && kind.is_message() {
        Some(
            "messages have no arguments or result: `args_*`, `result_*` and `/args`/`/result` captures never match them",
        )
    } else if spec.is_final == Some(true) && kind != EventKind::Llm {
        Some("`final: true` marks the root agent's last LLM event")
    } else if spec.status == Some(EventStatus::Error) && kind.is_message() {
        Some("messages never have an error status")
    } else {
        None
    };
    match why {
        Some(why) => {
            cx.error(
                at,
                format!(
                    "a matcher in `{id}` has `kind: {}` and can never match: {why}",
                    kind.as_str()
                ),
                "remove the conflicting field or change `kind`",
            );
            false
        }
        None => true,
    }
}

/// `args_contains` keys/values and `/args` capture pointers against the
/// schemas of the tools the matcher can match. A problem is reported only
/// when it holds for every such tool that has a schema.
#[expect(
    clippy::too_many_arguments,
    reason = "the matcher's parts, already validated, and where to report"
)]
fn schema_lint(
    cx: &mut Ctx<'_>,
    spec: &EventMatcher,
    tools: &[ToolGlob],
    captures: &[Capture],
    where_: Option<&crate::spec::expr::Expr>,
    at: Location,
    id: &str,
    catalog: &Catalog,
) {
    if tools.is_empty() {
        return;
    }
    let schemas: Vec<(&str, &Value)> = catalog
        .tools
        .iter()
        .filter(|(name, _)| tools.iter().any(|g| g.matches(name)))
        .filter_map(|(name, schema)| schema.as_ref().map(|s| (name.as_str(), s)))
        .collect();
    let candidates = catalog
        .tools
        .keys()
        .filter(|name| tools.iter().any(|g| g.matches(name)))
        .count();
    if schemas.is_empty() || schemas.len() < candidates {
        return;
    }
    let names = schemas
        .iter()
        .map(|(n, _)| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if let Some(pattern @ Value::Object(_)) = &spec.args_contains {
        let problems: Vec<String> = schemas
            .iter()
            .filter_map(|(_, schema)| check_value(pattern, schema, ""))
            .collect();
        if problems.len() == schemas.len() {
            cx.error(
                at,
                format!(
                    "`args_contains` in `{id}` can never match {names}: {}",
                    problems[0]
                ),
                "use the argument names and values of the tool's `schema:` in `tools:`",
            );
        }
    }
    if let Some(e) = where_ {
        where_lint(cx, e, &schemas, &names, at, id);
    }
    for capture in captures.iter().filter(|c| c.source == CaptureSource::Args) {
        let problems: Vec<String> = schemas
            .iter()
            .filter_map(|(_, schema)| check_pointer(&capture.pointer, schema))
            .collect();
        if problems.len() == schemas.len() {
            cx.error(
                at,
                format!(
                    "capture `{}` in `{id}` reads `{}`, which {names} never has: {}",
                    capture.name,
                    capture.display_pointer(),
                    problems[0]
                ),
                "point at an argument of the tool's `schema:` in `tools:`",
            );
        }
    }
}

/// A `where:` against the tools' schemas: every `args.a.b` it reads must be an argument some
/// tool has, and `args.a <op> literal` must compare values of the argument's type (CEL
/// compares values of one type only: `"2" == 2` is false, `"2" < 3` an error, so such a rule
/// never fires, or is never evaluated).
fn where_lint(
    cx: &mut Ctx<'_>,
    e: &crate::spec::expr::Expr,
    schemas: &[(&str, &Value)],
    names: &str,
    at: Location,
    id: &str,
) {
    let shown = |pointer: &str| {
        format!(
            "args{}",
            pointer
                .replace("~1", "/")
                .replace("~0", "~")
                .replace('/', ".")
        )
    };
    for pointer in &e.arg_paths {
        let problems: Vec<String> = schemas
            .iter()
            .filter_map(|(_, schema)| check_pointer(pointer, schema))
            .collect();
        if problems.len() == schemas.len() {
            cx.error(
                at,
                format!(
                    "`where` in `{id}` reads `{}`, which {names} never has: {}",
                    shown(pointer),
                    problems[0]
                ),
                "read an argument of the tool's `schema:` in `tools:`",
            );
            return;
        }
    }
    for (pointer, literal) in &e.arg_comparisons {
        let types: Vec<&str> = schemas
            .iter()
            .filter_map(|(_, schema)| schema_type_at(pointer, schema))
            .collect();
        let numeric = |t: &str| t == "number" || t == "integer";
        let fits = |t: &str| t == *literal || (*literal == "number" && numeric(t));
        if types.len() == schemas.len() && !types.iter().any(|t| fits(t)) {
            let convert = match *literal {
                "number" => format!("`int({0})` or `double({0})`", shown(pointer)),
                "string" => format!("`string({})`", shown(pointer)),
                _ => "a literal of the argument's type".to_owned(),
            };
            cx.error(
                at,
                format!(
                    "`where` in `{id}` compares `{}` ({} in the schema of {names}) with a {literal}: CEL compares values of one type only, so this never holds or cannot be evaluated",
                    shown(pointer),
                    types[0]
                ),
                format!("convert it: {convert}, or compare with a {} literal", types[0]),
            );
            return;
        }
    }
}
