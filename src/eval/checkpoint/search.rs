//! Subsequence search for `order` and `never: [X, Y, …]`. Without captures
//! the earliest match of each step is taken (linear, and exact). With
//! captures the search backtracks over candidates so that a later step can
//! find an earlier step's value; it stops after a fixed budget of match
//! attempts and says so, never guessing. The backtracking tries each step
//! only on the events that pass its fields (tool, kind, text, …), listed
//! once.

use super::EventLog;
use super::matching::Bindings;
use crate::spec::matcher::Matcher;

/// Match attempts a capture search may make (one per candidate event
/// tried for a step).
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

/// The events each step may match by its fields alone
/// ([`super::Event::may_match`]), in order: the only ones the backtracking
/// search tries for that step.
struct Candidates(Vec<Vec<usize>>);

impl Candidates {
    fn new(log: &EventLog, steps: &[Matcher]) -> Self {
        Self(
            steps
                .iter()
                .map(|m| {
                    (0..log.events.len())
                        .filter(|&i| log.events[i].may_match(m))
                        .collect()
                })
                .collect(),
        )
    }

    /// The candidates of `step` at or after event `from`.
    fn from(&self, step: usize, from: usize) -> &[usize] {
        let all = &self.0[step];
        &all[all.partition_point(|&i| i < from)..]
    }
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
            let candidates = Candidates::new(log, steps);
            let mut search = Dfs {
                log,
                steps,
                candidates: &candidates,
                budget: BUDGET,
            };
            let mut path = Vec::with_capacity(steps.len());
            match search.run(0, 0, &Bindings::new(), &mut path) {
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
        if !log.may_occur(m) {
            return Err((k, from));
        }
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

/// The backtracking search over the steps' candidates.
struct Dfs<'a> {
    log: &'a EventLog<'a>,
    steps: &'a [Matcher],
    candidates: &'a Candidates,
    /// Match attempts left.
    budget: usize,
}

impl Dfs<'_> {
    /// `Some(true)` found (indices in `path`), `Some(false)` none, `None` out of budget.
    fn run(
        &mut self,
        step: usize,
        from: usize,
        bindings: &Bindings,
        path: &mut Vec<usize>,
    ) -> Option<bool> {
        if step == self.steps.len() {
            return Some(true);
        }
        let (log, candidates) = (self.log, self.candidates);
        for &i in candidates.from(step, from) {
            if self.budget == 0 {
                return None;
            }
            self.budget -= 1;
            if let Some(next) = log.events[i].bind(&self.steps[step], bindings, log) {
                path.push(i);
                match self.run(step + 1, i + 1, &next, path) {
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
}
