//! Checkpoint and environment-constraint checks: ids, tiers, scoping
//! (`applies_to`), and the compiled tier-1/2 assertions.

use std::collections::{BTreeMap, BTreeSet};

use serde_saphyr::Location;

use crate::spec::model::{AppliesToSpec, CheckpointSpec};
use crate::spec::suite::{Case, Check, Checkpoint, Constraint, Scope};

use super::assert::state_assert;
use super::catalog::Catalog;
use super::context::{Ctx, did_you_mean, loc};
use super::expr::where_expr;
use super::sequence::sequence_assert;
use crate::spec::matcher::CASE_VARS;

/// Every checkpoint id written in the file, compiled or not: references to
/// a checkpoint that has its own error must not raise a second one.
pub(super) fn declared_ids(cx: &Ctx<'_>) -> BTreeSet<String> {
    cx.loaded
        .file
        .checkpoints
        .iter()
        .map(|c| c.id.value.clone())
        .collect()
}

/// Validate every checkpoint; returns the compiled ones (those without errors).
pub(super) fn validate(cx: &mut Ctx<'_>, catalog: &Catalog, cases: &[Case]) -> Vec<Checkpoint> {
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
        let mut ok = true;
        if let Some(tags) = &spec.tags {
            cx.error(
                loc(tags),
                format!("`tags` on checkpoint `{id}` would not scope it, so it is not accepted"),
                "to run a checkpoint only on some cases, write `applies_to: {tags: [...]}` (or `cases: [...]`, `evidence: {path: ..., equals: ...}`)",
            );
            ok = false;
        }
        let applies_to = match &spec.applies_to {
            Some(a) => scope(cx, a, at, id, cases).map(Some),
            None => Ok(None),
        };
        let check = check(cx, spec, at, catalog);
        if let (true, Ok(applies_to), Some(check)) = (ok, applies_to, check) {
            out.push(Checkpoint {
                id: id.to_owned(),
                position_index: i + 1,
                tier: spec.tier,
                instruction: spec.instruction.clone(),
                severity: spec.severity,
                evidence_sources: spec.evidence_sources.clone(),
                applies_to,
                check,
            });
        }
    }
    out
}

/// `applies_to`: at least one selector, case ids that exist, tags some case
/// carries. `Err` after an error (already reported).
fn scope(
    cx: &mut Ctx<'_>,
    spec: &AppliesToSpec,
    at: Location,
    id: &str,
    cases: &[Case],
) -> Result<Scope, ()> {
    if spec.tags.is_empty()
        && spec.cases.is_empty()
        && spec.evidence.is_none()
        && spec.where_.is_none()
        && spec.any_of.is_empty()
        && spec.all_of.is_empty()
        && spec.not.is_none()
    {
        cx.error(
            at,
            format!("`applies_to` of `{id}` selects nothing"),
            "give `tags: [...]`, `cases: [...]`, `evidence: {path: ..., equals: ...}`, `where`, `any_of`, `all_of` or `not`; remove `applies_to` to apply everywhere",
        );
        return Err(());
    }
    let mut ok = true;
    let ids: BTreeSet<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    for case in &spec.cases {
        if !ids.contains(case.value.as_str()) {
            cx.error(
                loc(case),
                format!(
                    "`applies_to` of `{id}` names case `{}`, which the suite does not have{}",
                    case.value,
                    did_you_mean(&case.value, ids.iter().copied())
                ),
                "list case ids from `cases:`",
            );
            ok = false;
        }
    }
    let tags: BTreeSet<&str> = cases
        .iter()
        .flat_map(|c| c.tags.iter().map(String::as_str))
        .collect();
    for tag in &spec.tags {
        if !tags.contains(tag.value.as_str()) {
            cx.warning(
                loc(tag),
                format!(
                    "no case carries tag `{}`, so `{id}` does not apply to it{}",
                    tag.value,
                    did_you_mean(&tag.value, tags.iter().copied())
                ),
                "check the tag against the cases' `tags`",
            );
        }
    }
    let evidence = match &spec.evidence {
        Some(a) => Some(state_assert(cx, a, id).ok_or(())?),
        None => None,
    };
    let where_ = match &spec.where_ {
        Some(w) => Some(where_expr(cx, w, CASE_VARS, id).ok_or(())?),
        None => None,
    };
    let mut subs = |cx: &mut Ctx<'_>, list: &[AppliesToSpec]| -> Vec<Scope> {
        list.iter()
            .filter_map(|sub| {
                let s = scope(cx, sub, at, id, cases).ok();
                ok &= s.is_some();
                s
            })
            .collect()
    };
    let any_of = subs(cx, &spec.any_of);
    let all_of = subs(cx, &spec.all_of);
    let not = match spec.not.as_deref() {
        Some(sub) => Some(Box::new(scope(cx, sub, at, id, cases)?)),
        None => None,
    };
    if !ok {
        return Err(());
    }
    Ok(Scope {
        tags: spec.tags.iter().map(|t| t.value.clone()).collect(),
        cases: spec.cases.iter().map(|c| c.value.clone()).collect(),
        evidence,
        where_,
        any_of,
        all_of,
        not,
    })
}

fn check(
    cx: &mut Ctx<'_>,
    spec: &CheckpointSpec,
    at: Location,
    catalog: &Catalog,
) -> Option<Check> {
    let id = &spec.id.value;
    if spec.tier != 3 && !spec.partial_criteria.is_empty() {
        // Never accept a field and ignore it.
        cx.error(
            at,
            format!(
                "`partial_criteria` on tier-{} checkpoint `{id}` would never be used",
                spec.tier
            ),
            "partial credit is judged: only tier-3 checkpoints use it; remove it or make the checkpoint tier 3",
        );
        return None;
    }
    match spec.tier {
        1 => {
            if let Some(seq) = &spec.sequence {
                cx.error(
                    loc(seq),
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
            state_assert(cx, assert, id).map(Check::State)
        }
        2 => {
            if let Some(assert) = &spec.assert {
                cx.error(
                    loc(&assert.path),
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
            sequence_assert(cx, &sequence.value, loc(sequence), id, catalog).map(Check::Sequence)
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
                    cx.error(
                        at,
                        format!("partial criterion weight {w} in `{id}` must lie strictly between 0 and 1"),
                        "the default is 0.5",
                    );
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

/// Environment constraints: unique ids, `affects` naming checkpoints that
/// are declared (a checkpoint with its own error is still declared).
pub(super) fn constraints(cx: &mut Ctx<'_>, declared: &BTreeSet<String>) -> Vec<Constraint> {
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
            if !declared.contains(&affected.value) {
                cx.error(
                    loc(affected),
                    format!(
                        "constraint `{}` affects unknown checkpoint `{}`{}",
                        c.id.value,
                        affected.value,
                        did_you_mean(&affected.value, declared.iter().map(String::as_str))
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
            Some(a) => match state_assert(cx, a, &c.id.value) {
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
