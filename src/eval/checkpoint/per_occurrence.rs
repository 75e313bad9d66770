//! The per-occurrence forms: `{each: Y, preceded_by: X}` — before EVERY Y
//! event, an X event since the previous Y (or since the start) — and
//! `{each: X, followed_by: Y}` — after EVERY X, a Y before the next X (or
//! the end); optionally `within: N` events. Captures taken by the `each`
//! event must be equal on the event found for it. With `none_between: Z`,
//! the search stops at the first Z event: no Z may lie between the two.

use crate::spec::matcher::Matcher;
use crate::spec::model::{Since, Until};
use crate::spec::suite::Side;

use super::matching::Bindings;
use super::{EventLog, Verdict};

const BY: &str = "tier2";
/// Occurrences named in the notes; the rest are counted.
const SHOWN: usize = 3;
/// Spans cited per verdict.
const CITED: usize = 20;

pub(super) fn each(
    each: &Matcher,
    steps: &[Matcher],
    side: Side,
    within: Option<u32>,
    none_between: Option<&Matcher>,
    log: &EventLog,
) -> Verdict {
    // The steps in search order (nearest to the `each` event first): each
    // step is the first event in that order that matches it, unless a fence
    // event comes first. An event matching a step and the fence counts as
    // the step.
    let search = |range: &mut dyn Iterator<Item = usize>, bindings: &Bindings, backwards: bool| {
        let order: Vec<&Matcher> = if backwards {
            steps.iter().rev().collect()
        } else {
            steps.iter().collect()
        };
        let mut bindings = bindings.clone();
        let mut hits = Vec::with_capacity(steps.len());
        for x in range {
            let e = &log.events[x];
            if let Some(next) = e.bind(order[hits.len()], &bindings, log) {
                bindings = next;
                hits.push(x);
                if hits.len() == order.len() {
                    return Some(hits);
                }
                continue;
            }
            if none_between.is_some_and(|z| e.bind(z, &bindings, log).is_some()) {
                return None;
            }
        }
        None
    };
    let none = Bindings::new();
    let occurrences: Vec<(usize, Bindings)> = log
        .events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.bind(each, &none, log).map(|b| (i, b)))
        .collect();
    if occurrences.is_empty() {
        return Verdict::not_applicable(
            "no event matches `each`, so there is nothing to check",
            BY,
        );
    }
    let n = log.events.len();
    let window = within.map_or(usize::MAX, |w| w as usize);
    let mut found: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut missing = Vec::new();
    for (k, (y, bindings)) in occurrences.iter().enumerate() {
        let y = *y;
        let hit = match side {
            Side::Before(since) => {
                let mut lo = match since {
                    Since::Previous => k.checked_sub(1).map_or(0, |p| occurrences[p].0 + 1),
                    Since::Start => 0,
                };
                lo = lo.max(y.saturating_sub(window));
                search(&mut (lo..y).rev(), bindings, true)
            }
            Side::After(until) => {
                let mut hi = match until {
                    Until::Next => occurrences.get(k + 1).map_or(n, |(next, _)| *next),
                    Until::End => n,
                };
                hi = hi.min(y.saturating_add(window).saturating_add(1));
                search(&mut ((y + 1)..hi), bindings, false)
            }
        };
        match hit {
            Some(xs) => found.push((y, xs)),
            None => missing.push((y, bindings)),
        }
    }
    let total = occurrences.len();
    let (key, place) = match side {
        Side::Before(Since::Previous) => {
            ("preceded_by", "before it since the previous `each` event")
        }
        Side::Before(Since::Start) => ("preceded_by", "before it"),
        Side::After(Until::Next) => ("followed_by", "after it before the next `each` event"),
        Side::After(Until::End) => ("followed_by", "after it"),
    };
    let mut window_text = within.map_or(String::new(), |w| {
        format!(" within {w} event{}", if w == 1 { "" } else { "s" })
    });
    if none_between.is_some() {
        window_text.push_str(" with no `none_between` event in between");
    }
    if steps.len() > 1 {
        window_text.push_str(&format!(" (all {} steps, in order)", steps.len()));
    }
    if missing.is_empty() {
        let cited = found
            .iter()
            .flat_map(|(y, xs)| {
                std::iter::once(*y)
                    .chain(xs.iter().copied())
                    .map(|i| log.events[i].span_id.clone())
            })
            .take(CITED);
        return Verdict::pass(
            format!(
                "all {total} `each` event{} have a `{key}` match {place}{window_text}",
                if total == 1 { "" } else { "s" }
            ),
            BY,
        )
        .citing(cited);
    }
    let shown: Vec<String> = missing
        .iter()
        .take(SHOWN)
        .map(|(y, bindings)| {
            let mut s = format!("{} at position {}", log.events[*y].describe(), y + 1);
            if !bindings.is_empty() {
                let values: Vec<String> = bindings
                    .iter()
                    .map(|(name, v)| format!("{name} = {}", crate::spec::json::brief(v)))
                    .collect();
                s.push_str(&format!(" ({})", values.join(", ")));
            }
            s
        })
        .collect();
    let more = missing.len().saturating_sub(SHOWN);
    let mut notes = format!(
        "{} of {total} `each` events have no `{key}` match {place}{window_text}: {}",
        missing.len(),
        shown.join("; ")
    );
    if more > 0 {
        notes.push_str(&format!("; and {more} more"));
    }
    Verdict::fail(notes, BY).citing(
        missing
            .iter()
            .map(|(y, _)| log.events[*y].span_id.clone())
            .take(CITED),
    )
}

#[cfg(test)]
mod tests;
