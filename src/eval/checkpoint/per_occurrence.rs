//! The per-occurrence forms: `{each: Y, preceded_by: X}` — before EVERY Y
//! event, an X event since the previous Y (or since the start) — and
//! `{each: X, followed_by: Y}` — after EVERY X, a Y before the next X (or
//! the end); optionally `within: N` events. Captures taken by the `each`
//! event must be equal on the event found for it. With `none_between: Z`,
//! the search stops at the first Z event: no Z may lie between the two.

use crate::spec::matcher::Matcher;
use crate::spec::model::{Since, Until};
use crate::spec::suite::Side;

use std::collections::HashSet;

use crate::model::run::NaKind;

use super::matching::Bindings;
use super::search::BUDGET;
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
    // The steps in search order (nearest to the `each` event first).
    let order: Vec<&Matcher> = match side {
        Side::Before(_) => steps.iter().rev().collect(),
        Side::After(_) => steps.iter().collect(),
    };
    let mut search = Search {
        log,
        order: &order,
        fence: none_between,
        backtrack: order.iter().any(|m| binds(m)),
        budget: BUDGET,
        failed: HashSet::new(),
    };
    let occurrences: Vec<(usize, Bindings)> = log.bound(each).collect();
    if occurrences.is_empty() {
        return Verdict::not_applicable(
            "no event matches `each`, so there is nothing to check",
            BY,
        );
    }
    let n = log.events.len();
    let window = within.map_or(usize::MAX, |w| w as usize);
    // A step no event of the trace can match (its tool or kind is absent):
    // every window misses it, and none needs searching.
    let hopeless = steps.iter().any(|m| !log.may_occur(m));
    let mut found: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut missing = Vec::new();
    for (k, (y, bindings)) in occurrences.iter().enumerate() {
        let y = *y;
        let hit = match side {
            _ if hopeless => Hit::Missing,
            Side::Before(since) => {
                let mut lo = match since {
                    Since::Previous => k.checked_sub(1).map_or(0, |p| occurrences[p].0 + 1),
                    Since::Start => 0,
                };
                lo = lo.max(y.saturating_sub(window));
                search.run(&Window::Backward(lo..y), bindings)
            }
            Side::After(until) => {
                let mut hi = match until {
                    Until::Next => occurrences.get(k + 1).map_or(n, |(next, _)| *next),
                    Until::End => n,
                };
                hi = hi.min(y.saturating_add(window).saturating_add(1));
                search.run(&Window::Forward((y + 1)..hi), bindings)
            }
        };
        match hit {
            Hit::Found(xs) => found.push((y, xs)),
            Hit::Missing => missing.push((y, bindings)),
            Hit::OutOfBudget => return too_long(y, log),
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
                    .map(|i| log.events[i].span_id.to_string())
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
            .map(|(y, _)| log.events[*y].span_id.to_string())
            .take(CITED),
    )
}

/// The events searched for one `each` event, in search order: those of
/// the range, nearest to the `each` event first.
#[derive(Debug, Clone)]
enum Window {
    /// Before it: from the end of the range back.
    Backward(std::ops::Range<usize>),
    /// After it: from the start of the range on.
    Forward(std::ops::Range<usize>),
}

impl Window {
    /// The event indices from the `pos`-th on, with their positions.
    fn from(&self, pos: usize) -> impl Iterator<Item = (usize, usize)> + use<> {
        let (range, backward) = match self {
            Self::Backward(r) => (r.clone(), true),
            Self::Forward(r) => (r.clone(), false),
        };
        let len = range.len();
        (pos..len).map(move |p| {
            let x = if backward {
                range.end - 1 - p
            } else {
                range.start + p
            };
            (p, x)
        })
    }
}

/// What the search of one window found.
#[derive(Debug, PartialEq, Eq)]
enum Hit {
    Found(Vec<usize>),
    Missing,
    OutOfBudget,
}

/// The search for one `each` event's steps in its window.
///
/// A match is one event per step, in order from the `each` event, each
/// matching its step with the captures bound so far (the `each` event's and
/// the earlier steps'), such that no other event of the window up to the
/// farthest one used matches `none_between`. The nearest candidate of each
/// step is tried first; when steps bind captures and the rest cannot be
/// found with its values, the next candidate is tried (backtracking), within
/// [`BUDGET`] match attempts for the whole checkpoint. Without captures
/// bound by the steps, the bindings never change, so a step that could not
/// be completed from a position is not searched from it again: the search
/// is then polynomial and has no budget.
struct Search<'a> {
    log: &'a EventLog<'a>,
    order: &'a [&'a Matcher],
    fence: Option<&'a Matcher>,
    backtrack: bool,
    budget: usize,
    /// (step, position) known to fail, when the steps bind nothing.
    failed: HashSet<(usize, usize)>,
}

impl Search<'_> {
    /// The events of the steps in `window`, in search order.
    fn run(&mut self, window: &Window, bindings: &Bindings) -> Hit {
        self.failed.clear();
        let mut hits = Vec::with_capacity(self.order.len());
        match self.find(window, 0, 0, bindings, &mut hits) {
            Some(true) => Hit::Found(hits),
            Some(false) => Hit::Missing,
            None => Hit::OutOfBudget,
        }
    }

    fn find(
        &mut self,
        window: &Window,
        pos: usize,
        step: usize,
        bindings: &Bindings,
        hits: &mut Vec<usize>,
    ) -> Option<bool> {
        if step == self.order.len() {
            return Some(true);
        }
        if !self.backtrack && self.failed.contains(&(step, pos)) {
            return Some(false);
        }
        let log = self.log;
        for (p, x) in window.from(pos) {
            if self.backtrack {
                if self.budget == 0 {
                    return None;
                }
                self.budget -= 1;
            }
            let e = &log.events[x];
            if let Some(next) = e.bind(self.order[step], bindings, log) {
                hits.push(x);
                if self.find(window, p + 1, step + 1, &next, hits)? {
                    return Some(true);
                }
                hits.pop();
            }
            // Not used as this step: a fence ends the window.
            if self
                .fence
                .is_some_and(|z| e.bind(z, bindings, log).is_some())
            {
                break;
            }
        }
        if !self.backtrack {
            self.failed.insert((step, pos));
        }
        Some(false)
    }
}

/// Whether an event matching `m` may bind captures (`not` binds none).
fn binds(m: &Matcher) -> bool {
    !m.captures.is_empty() || m.all_of.iter().chain(&m.any_of).any(binds)
}

/// The search ran out of budget: it cannot vouch for the trace either way.
fn too_long(y: usize, log: &EventLog) -> Verdict {
    Verdict::not_applicable_because(
        NaKind::SearchLimit,
        format!(
            "could not be decided: the search for the steps of {} (position {}) gave up after {BUDGET} match attempts; \
             make the steps more specific (e.g. name the tool) or narrow the window (`within`)",
            log.events[y].describe(),
            y + 1
        ),
        BY,
    )
    .citing([log.events[y].span_id.to_string()])
}

#[cfg(test)]
mod tests;
