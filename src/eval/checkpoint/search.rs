//! Subsequence search for `order` and `never: [X, Y, …]`. Without captures
//! the earliest match of each step is taken (linear, and exact). With
//! captures the search backtracks over candidates so that a later step can
//! find an earlier step's value; it stops after a fixed budget of match
//! attempts and says so, never guessing.

use super::EventLog;
use super::matching::Bindings;
use crate::spec::matcher::Matcher;

/// Match attempts a capture search may make.
pub(super) const BUDGET: usize = 1_000_000;

#[derive(Debug, PartialEq, Eq)]
pub(super) enum Found {
    /// Event indices, one per step.
    Yes(Vec<usize>),
    /// The greedy scan (captures ignored) stopped at this step (0-based),
    /// searching from this event index; `None` when every step was found but
    /// never with equal captured values.
    No { step: Option<usize>, from: usize },
    /// The budget ran out before an answer.
    TooLong,
}

pub(super) fn subsequence(log: &EventLog, steps: &[Matcher]) -> Found {
    let greedy = greedy(log, steps);
    let captures = steps.iter().any(|m| !m.captures.is_empty());
    match greedy {
        Err((step, from)) => Found::No {
            step: Some(step),
            from,
        },
        Ok(found) if !captures => Found::Yes(found),
        Ok(_) => {
            let mut budget = BUDGET;
            let mut path = Vec::with_capacity(steps.len());
            match dfs(log, steps, 0, 0, &Bindings::new(), &mut path, &mut budget) {
                Some(true) => Found::Yes(path),
                Some(false) => Found::No {
                    step: None,
                    from: 0,
                },
                None => Found::TooLong,
            }
        }
    }
}

/// Earliest match of each step in turn, captures ignored.
fn greedy(log: &EventLog, steps: &[Matcher]) -> Result<Vec<usize>, (usize, usize)> {
    let mut found = Vec::with_capacity(steps.len());
    let mut from = 0;
    for (k, m) in steps.iter().enumerate() {
        match log.events[from..].iter().position(|e| e.matches(m, log)) {
            Some(offset) => {
                found.push(from + offset);
                from += offset + 1;
            }
            None => return Err((k, from)),
        }
    }
    Ok(found)
}

/// `Some(true)` found (indices in `path`), `Some(false)` none, `None` out of budget.
fn dfs(
    log: &EventLog,
    steps: &[Matcher],
    step: usize,
    from: usize,
    bindings: &Bindings,
    path: &mut Vec<usize>,
    budget: &mut usize,
) -> Option<bool> {
    if step == steps.len() {
        return Some(true);
    }
    for i in from..log.events.len() {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        if let Some(next) = log.events[i].bind(&steps[step], bindings, log) {
            path.push(i);
            match dfs(log, steps, step + 1, i + 1, &next, path, budget) {
                Some(true) => return Some(true),
                None => return None,
                Some(false) => {
                    path.pop();
                }
            }
        }
    }
    Some(false)
}
