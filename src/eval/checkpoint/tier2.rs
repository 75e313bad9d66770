//! Tier 2: sequence assertions over the event log (DESIGN §13 forms; exact
//! semantics in docs/suites.md). First-occurrence forms live here, the
//! per-occurrence forms in `per_occurrence`.

use crate::model::run::NaKind;
use crate::spec::json::brief;
use crate::spec::matcher::Matcher;
use crate::spec::suite::SequenceAssert;

use super::matching::Bindings;
use super::per_occurrence;
use super::search::{BUDGET, Found, subsequence};
use super::{EventLog, Verdict};

const BY: &str = "tier2";

/// A sequence's verdict; when a `where` could not be evaluated on the way,
/// N/A (`expr_error`) with the reason instead, which the gate counts as
/// unevaluated.
pub(crate) fn eval_sequence(assert: &SequenceAssert, log: &EventLog) -> Verdict {
    log.take_error();
    let verdict = eval_inner(assert, log);
    match log.take_error() {
        Some(why) => Verdict::not_applicable_because(
            NaKind::ExprError,
            format!("could not be evaluated: {why}"),
            BY,
        ),
        None => verdict,
    }
}

fn eval_inner(assert: &SequenceAssert, log: &EventLog) -> Verdict {
    match assert {
        SequenceAssert::BeforeThen { before, then } => before_then(before, then, log),
        SequenceAssert::Never(m) => match log.first(m) {
            Some(i) => {
                let e = &log.events[i];
                Verdict::fail(
                    format!("forbidden event at position {}: {}", i + 1, e.describe()),
                    BY,
                )
                .citing([e.span_id.to_string()])
            }
            None => Verdict::pass(
                format!("no matching event among {} events", log.events.len()),
                BY,
            ),
        },
        SequenceAssert::NeverOrder(steps) => never_order(steps, log),
        SequenceAssert::Eventually(m) => match log.first(m) {
            Some(i) => {
                let e = &log.events[i];
                Verdict::pass(format!("found at position {}: {}", i + 1, e.describe()), BY)
                    .citing([e.span_id.to_string()])
            }
            None => Verdict::fail(
                format!("no matching event among {} events", log.events.len()),
                BY,
            ),
        },
        SequenceAssert::Count { of, min, max } => {
            let hits: Vec<String> = log
                .matching(of)
                .map(|(_, e)| e.span_id.to_string())
                .collect();
            let n = hits.len() as u32;
            let range = match (min, max) {
                (Some(a), Some(b)) => format!("{a}..={b}"),
                (Some(a), None) => format!("≥ {a}"),
                (None, Some(b)) => format!("≤ {b}"),
                (None, None) => "any".to_owned(),
            };
            let ok = min.is_none_or(|a| n >= a) && max.is_none_or(|b| n <= b);
            let notes = format!(
                "{n} matching event{} (allowed {range})",
                if n == 1 { "" } else { "s" }
            );
            let v = if ok {
                Verdict::pass(notes, BY)
            } else {
                Verdict::fail(notes, BY)
            };
            v.citing(hits)
        }
        SequenceAssert::Order(steps) => order(steps, log),
        SequenceAssert::Each {
            each,
            other,
            side,
            within,
            none_between,
        } => per_occurrence::each(each, other, *side, *within, none_between.as_ref(), log),
    }
}

/// `name = value, …` of the captured values, or empty.
fn shown(bindings: &Bindings) -> String {
    if bindings.is_empty() {
        return String::new();
    }
    let values: Vec<String> = bindings
        .iter()
        .map(|(name, v)| format!("{name} = {}", brief(v)))
        .collect();
    format!(" with {}", values.join(", "))
}

fn before_then(before: &Matcher, then: &Matcher, log: &EventLog) -> Verdict {
    let Some((y, bindings)) = log.bound(then).next() else {
        return Verdict::not_applicable(
            "no event matches `then`, so the order cannot be checked",
            BY,
        );
    };
    let then_event = &log.events[y];
    if let Some(x) = (0..y).find(|&x| log.events[x].bind(before, &bindings, log).is_some()) {
        return Verdict::pass(
            format!(
                "{} (position {}) precedes the first `then` event {} (position {}){}",
                log.events[x].describe(),
                x + 1,
                then_event.describe(),
                y + 1,
                shown(&bindings)
            ),
            BY,
        )
        .citing([
            log.events[x].span_id.to_string(),
            then_event.span_id.to_string(),
        ]);
    }
    let uncaptured = (0..y).find(|&x| log.events[x].matches(before, log));
    let notes = match (uncaptured, log.first(before)) {
        (Some(x), _) => format!(
            "{} (position {}) is preceded by {} (position {}), but by none{}",
            then_event.describe(),
            y + 1,
            log.events[x].describe(),
            x + 1,
            shown(&bindings)
        ),
        (None, Some(x)) => format!(
            "{} (position {}) ran before the first {}: {} (position {})",
            then_event.describe(),
            y + 1,
            before.phrase("before"),
            log.events[x].describe(),
            x + 1
        ),
        (None, None) => format!(
            "{} (position {}) ran with no {} before it",
            then_event.describe(),
            y + 1,
            before.phrase("before")
        ),
    };
    Verdict::fail(notes, BY).citing([then_event.span_id.to_string()])
}

fn order(steps: &[Matcher], log: &EventLog) -> Verdict {
    match subsequence(log, steps) {
        Found::Yes(found) => Verdict::pass(format!("all {} steps occur in order", steps.len()), BY)
            .citing(found.iter().map(|&i| log.events[i].span_id.to_string())),
        Found::No {
            step: Some(k),
            from,
        } => {
            let after = if k == 0 {
                "in the trace".to_owned()
            } else {
                format!("after position {from}")
            };
            Verdict::fail(
                format!(
                    "step {} of {} of the order not found {after}",
                    k + 1,
                    steps.len()
                ),
                BY,
            )
        }
        Found::No { step: None, .. } => Verdict::fail(
            format!(
                "the {} steps occur in order, but never with equal captured values",
                steps.len()
            ),
            BY,
        ),
        Found::TooLong => too_long(),
    }
}

fn never_order(steps: &[Matcher], log: &EventLog) -> Verdict {
    // A later step no event can match by its fields alone: the sequence
    // cannot occur, and no `where` needs evaluating to say so (the search
    // would answer the same, after evaluating the first steps' expressions;
    // it checks the first step's fields before any expression of it).
    let impossible = steps
        .iter()
        .skip(1)
        .any(|m| !log.may_occur(m) || !log.events.iter().any(|e| e.may_match(m)));
    let found = if impossible {
        Found::No {
            step: None,
            from: 0,
        }
    } else {
        subsequence(log, steps)
    };
    match found {
        Found::Yes(found) => {
            let events: Vec<String> = found
                .iter()
                .map(|&i| format!("{} at position {}", log.events[i].describe(), i + 1))
                .collect();
            Verdict::fail(
                format!("forbidden sequence found: {}", events.join(", then ")),
                BY,
            )
            .citing(found.iter().map(|&i| log.events[i].span_id.to_string()))
        }
        Found::No { .. } => Verdict::pass(
            format!(
                "the forbidden sequence of {} steps does not occur among {} events",
                steps.len(),
                log.events.len()
            ),
            BY,
        ),
        Found::TooLong => too_long(),
    }
}

/// A capture search that ran out of budget cannot vouch for the trace:
/// N/A `search_limit`, as for the per-occurrence forms, which the gate
/// counts as unevaluated (never as a pass).
fn too_long() -> Verdict {
    Verdict::not_applicable_because(
        NaKind::SearchLimit,
        format!(
            "could not be decided: the capture search gave up after {BUDGET} match attempts; \
             make the matchers more specific (e.g. name the tool)"
        ),
        BY,
    )
}

#[cfg(test)]
mod tests;
