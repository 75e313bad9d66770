//! Settling the budget (issue 21 item 6): the calls in flight are awaited, their outcomes
//! recorded, and each call's estimate replaced by what the provider reported it used, in
//! question order, so the budget's state never depends on which call finished first
//! ([`super::budget`]).

use tokio::task::JoinSet;

use super::budget::Charge;
use super::pipeline::{Engine, Outcome};
use super::reask::Unparsed;

pub(super) type Asked<P> = (usize, Outcome<P>, Option<Unparsed>, Charge, Option<Charge>);

impl Engine {
    /// Wait for every call in `tasks`, record its outcome, and settle its estimate at
    /// what it used, in question order (so the budget's state never depends on which
    /// call finished first). A call that got no answer at all keeps its estimate.
    pub(super) async fn join_and_settle<P: Clone + Send + 'static>(
        &self,
        tasks: &mut JoinSet<Asked<P>>,
        outcomes: &mut [Option<Outcome<P>>],
        unparsed: &mut Vec<(usize, Unparsed)>,
    ) {
        let mut settled = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            match joined {
                Ok((i, outcome, u, charged, used)) => {
                    if let (Outcome::Failed(_), Some(u)) = (&outcome, u) {
                        unparsed.push((i, u));
                    }
                    outcomes[i] = Some(outcome);
                    if let Some(used) = used {
                        settled.push((i, charged, used));
                    }
                }
                Err(e) => {
                    // A panicking call is a failed call: recorded, never a pass.
                    let mut s = self.inner.stats();
                    s.errors += 1;
                    s.first_error
                        .get_or_insert_with(|| format!("a judge call panicked: {e}"));
                }
            }
        }
        settled.sort_by_key(|(i, _, _)| *i);
        for (_, charged, used) in settled {
            self.inner.budget.settle(charged, used);
            self.inner.stats().cost_usd += used.cost;
        }
    }
}
