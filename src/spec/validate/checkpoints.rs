//! Checkpoint and environment-constraint checks; compiles tier-1 and
//! tier-2 assertions.

use std::collections::{BTreeMap, BTreeSet};

use regex::Regex;
use serde_saphyr::Location;

use crate::spec::model::{AssertSpec, CheckpointSpec, EventMatcher, SequenceSpec};
use crate::spec::suite::{
    Check, Checkpoint, Constraint, Glob, Matcher, SequenceAssert, StateAssert, StateOp,
};

use super::context::{Ctx, loc};

/// Validate every checkpoint; returns the compiled ones (those without errors).
pub(super) fn validate(cx: &mut Ctx<'_>, tools: &BTreeSet<String>) -> Vec<Checkpoint> {
    let loaded = cx.loaded;
    let mut seen: BTreeMap<&str, u64> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, spec) in loaded.file.checkpoints.iter().enumerate() {
        let at = loc(&spec.id);
        let id = spec.id.value.as_str();
        if id.trim().is_empty() || id.chars().any(char::is_whitespace) {
            cx.error(
                at,
                format!("checkpoint id `{id}` is empty or has whitespace"),
                "use ids like `P1-01`",
            );
        }
        if let Some(first) = seen.insert(id, at.line()) {
            cx.error(
                at,
                format!("duplicate checkpoint id `{id}` (first defined at line {first})"),
                "checkpoint ids are unique and immutable: give the new checkpoint the next free id",
            );
            continue;
        }
        if spec.evidence_sources.is_empty() {
            cx.error(
                at,
                format!("checkpoint `{id}` has no `evidence_sources`"),
                "say where the evidence comes from, e.g. `evidence_sources: [trace]` or `[ticket]`",
            );
        }
        if let Some(check) = check(cx, spec, at, tools) {
            out.push(Checkpoint {
                id: id.to_owned(),
                position_index: i + 1,
                tier: spec.tier,
                instruction: spec.instruction.clone(),
                severity: spec.severity,
                evidence_sources: spec.evidence_sources.clone(),
                check,
            });
        }
    }
    out
}

fn check(
    cx: &mut Ctx<'_>,
    spec: &CheckpointSpec,
    at: Location,
    tools: &BTreeSet<String>,
) -> Option<Check> {
    let id = &spec.id.value;
    if spec.tier != 3 && !spec.partial_criteria.is_empty() {
        cx.warning(
            at,
            format!(
                "`partial_criteria` on tier-{} checkpoint `{id}` are ignored",
                spec.tier
            ),
            "partial credit is judged; only tier-3 checkpoints use it",
        );
    }
    match spec.tier {
        1 => {
            if spec.sequence.is_some() {
                cx.error(
                    at,
                    format!("tier-1 checkpoint `{id}` has a `sequence`"),
                    "tier 1 checks evidence with `assert`; use tier 2 for `sequence`",
                );
            }
            let Some(assert) = &spec.assert else {
                cx.error(
                    at,
                    format!("tier-1 checkpoint `{id}` has no `assert`"),
                    "add e.g. `assert: {path: /ticket/status, equals: In Progress}`",
                );
                return None;
            };
            state_assert(cx, assert, at, id).map(Check::State)
        }
        2 => {
            if spec.assert.is_some() {
                cx.error(
                    at,
                    format!("tier-2 checkpoint `{id}` has an `assert`"),
                    "tier 2 checks the trace with `sequence`; use tier 1 for `assert`",
                );
            }
            let Some(sequence) = &spec.sequence else {
                cx.error(
                    at,
                    format!("tier-2 checkpoint `{id}` has no `sequence`"),
                    "add e.g. `sequence: {before: {tool: lookup_account}, then: {kind: llm, final: true}}`",
                );
                return None;
            };
            sequence_assert(cx, sequence, at, id, tools).map(Check::Sequence)
        }
        3 => {
            if spec.assert.is_some() || spec.sequence.is_some() {
                cx.error(
                    at,
                    format!("tier-3 checkpoint `{id}` has an `assert` or `sequence`"),
                    "tier 3 is judged from the instruction; move deterministic checks to tier 1 or 2",
                );
            }
            let mut criteria = Vec::new();
            for c in &spec.partial_criteria {
                let w = c.weight.unwrap_or(0.5);
                if !(w > 0.0 && w < 1.0) {
                    cx.error(at, format!("partial criterion weight {w} in `{id}` must lie strictly between 0 and 1"), "the default is 0.5");
                }
                criteria.push((c.condition.clone(), w));
            }
            Some(Check::Semantic {
                partial_criteria: criteria,
            })
        }
        t => {
            cx.error(
                at,
                format!("checkpoint `{id}` has tier {t}"),
                "tier is 1 (state), 2 (sequence) or 3 (semantic)",
            );
            None
        }
    }
}

/// Compile a tier-1 assertion (also used for `active_when`).
pub(super) fn state_assert(
    cx: &mut Ctx<'_>,
    spec: &AssertSpec,
    at: Location,
    owner: &str,
) -> Option<StateAssert> {
    let mut ok = true;
    if !(spec.path.is_empty() || spec.path.starts_with('/')) {
        cx.error(
            at,
            format!("`path: {}` in `{owner}` is not a JSON Pointer", spec.path),
            format!(
                "JSON Pointers start with `/`, e.g. `/{}`",
                spec.path.replace('.', "/")
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
        match Regex::new(pattern) {
            Ok(re) => ops.push(StateOp::Matches(re)),
            Err(e) => {
                cx.error(
                    at,
                    format!("`matches` in `{owner}` is not a valid regex: {e}"),
                    "the syntax is Rust's `regex` crate (no look-around)",
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
        path: spec.path.clone(),
        ops,
    })
}

fn sequence_assert(
    cx: &mut Ctx<'_>,
    spec: &SequenceSpec,
    at: Location,
    id: &str,
    tools: &BTreeSet<String>,
) -> Option<SequenceAssert> {
    let forms = spec.forms();
    if forms.len() != 1 {
        let found = if forms.is_empty() {
            "none".to_owned()
        } else {
            forms.join(", ")
        };
        cx.error(
            at,
            format!("`sequence` in `{id}` must have exactly one form (found: {found})"),
            "forms: `{before: X, then: Y}`, `{never: X}`, `{eventually: X}`, `{count: {of: X, min, max}}`, `{order: [X, Y]}`",
        );
        return None;
    }
    let mut ok = true;
    let m = |cx: &mut Ctx<'_>, spec: &EventMatcher, ok: &mut bool| {
        matcher(cx, spec, at, id, tools).unwrap_or_else(|| {
            *ok = false;
            Matcher::default()
        })
    };
    let assert = if spec.before.is_some() || spec.then.is_some() {
        let (Some(before), Some(then)) = (&spec.before, &spec.then) else {
            cx.error(
                at,
                format!("`sequence` in `{id}` needs both `before` and `then`"),
                "write `{before: X, then: Y}`",
            );
            return None;
        };
        SequenceAssert::BeforeThen {
            before: m(cx, before, &mut ok),
            then: m(cx, then, &mut ok),
        }
    } else if let Some(x) = &spec.never {
        SequenceAssert::Never(m(cx, x, &mut ok))
    } else if let Some(x) = &spec.eventually {
        SequenceAssert::Eventually(m(cx, x, &mut ok))
    } else if let Some(count) = &spec.count {
        if count.min.is_none() && count.max.is_none() {
            cx.error(
                at,
                format!("`count` in `{id}` needs `min`, `max` or both"),
                "e.g. `count: {of: {tool: search}, max: 3}`",
            );
            ok = false;
        }
        if let (Some(min), Some(max)) = (count.min, count.max)
            && min > max
        {
            cx.error(
                at,
                format!("`count` in `{id}` has min {min} above max {max}"),
                "swap them",
            );
            ok = false;
        }
        SequenceAssert::Count {
            of: m(cx, &count.of, &mut ok),
            min: count.min,
            max: count.max,
        }
    } else {
        let order = spec.order.as_deref().unwrap_or_default();
        if order.len() < 2 {
            cx.error(
                at,
                format!("`order` in `{id}` needs at least two matchers"),
                "use `eventually` for a single event",
            );
            ok = false;
        }
        SequenceAssert::Order(order.iter().map(|x| m(cx, x, &mut ok)).collect())
    };
    ok.then_some(assert)
}

fn matcher(
    cx: &mut Ctx<'_>,
    spec: &EventMatcher,
    at: Location,
    id: &str,
    tools: &BTreeSet<String>,
) -> Option<Matcher> {
    let mut ok = true;
    let globs: Vec<Glob> = spec
        .tool
        .iter()
        .flat_map(|t| t.patterns())
        .map(Glob::new)
        .collect();
    for glob in &globs {
        if glob.is_literal() {
            if !tools.contains(glob.as_str()) {
                cx.error(
                    at,
                    format!(
                        "`{id}` refers to tool `{}`, which is not in the `tools:` catalog",
                        glob.as_str()
                    ),
                    format!(
                        "add `- name: {}` (with its argument schema) to `tools:`, or fix the name",
                        glob.as_str()
                    ),
                );
                ok = false;
            }
        } else if !tools.iter().any(|t| glob.matches(t)) {
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
    let args_match = match &spec.args_match {
        Some(p) => match Regex::new(p) {
            Ok(re) => Some(re),
            Err(e) => {
                cx.error(
                    at,
                    format!("`args_match` in `{id}` is not a valid regex: {e}"),
                    "the syntax is Rust's `regex` crate",
                );
                ok = false;
                None
            }
        },
        None => None,
    };
    let empty = globs.is_empty()
        && spec.args_contains.is_none()
        && args_match.is_none()
        && spec.agent.is_none()
        && spec.kind.is_none()
        && spec.status.is_none()
        && spec.is_final.is_none();
    if empty {
        cx.error(
            at,
            format!("a matcher in `{id}` is empty and would match every event"),
            "give at least `tool`, `kind` or `agent`",
        );
        ok = false;
    }
    ok.then(|| Matcher {
        tools: globs,
        args_contains: spec.args_contains.clone(),
        args_match,
        agent: spec.agent.clone(),
        kind: spec.kind,
        status: spec.status,
        is_final: spec.is_final,
    })
}

/// Environment constraints: unique ids, `affects` naming real checkpoints.
pub(super) fn constraints(cx: &mut Ctx<'_>, checkpoint_ids: &BTreeSet<String>) -> Vec<Constraint> {
    let loaded = cx.loaded;
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for c in &loaded.file.environment_constraints {
        let at = loc(&c.id);
        if !seen.insert(c.id.value.as_str()) {
            cx.error(
                at,
                format!("duplicate environment constraint id `{}`", c.id.value),
                "constraint ids are unique",
            );
        }
        for affected in &c.affects {
            if !checkpoint_ids.contains(&affected.value) {
                cx.error(
                    loc(affected),
                    format!(
                        "constraint `{}` affects unknown checkpoint `{}`",
                        c.id.value, affected.value
                    ),
                    "`affects` lists checkpoint ids defined under `checkpoints:`",
                );
            }
        }
        if c.affects.is_empty() {
            cx.warning(
                at,
                format!("constraint `{}` affects no checkpoint", c.id.value),
                "list the blocked checkpoint ids in `affects`",
            );
        }
        let active_when = match &c.active_when {
            Some(a) => match state_assert(cx, a, at, &c.id.value) {
                Some(s) => Some(s),
                None => continue,
            },
            None => None,
        };
        out.push(Constraint {
            id: c.id.value.clone(),
            constraint: c.constraint.clone(),
            affects: c.affects.iter().map(|a| a.value.clone()).collect(),
            active_when,
        });
    }
    out
}
