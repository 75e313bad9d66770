//! "The next step-like span after this one that is not inside it", for
//! every model call of a trace, in O(log n) each (DAG building stays
//! near-linear: a 20,000-span chain used to take 29 s).
//!
//! Positions follow the build order (`order`); each step-like span (model
//! call, tool, user turn) stores its depth-first entry position
//! ([`AgentIndex::subtree`]). A span is a descendant of `me` exactly when
//! its entry lies in `(entry(me), exit(me)]`, so the query is: the first
//! position after `pos` whose value lies outside that range. A segment tree
//! of minima and maxima answers it by descending into the leftmost subtree
//! that can hold one.

use crate::trace::model::{SpanKind, Trace};

use super::agents::AgentIndex;

/// See the module docs.
pub(crate) struct StepScan {
    /// Leaves from `size`: (min, max) entry of the step-like span at that
    /// position, or (MAX, 0) for a position that is not step-like.
    tree: Vec<(usize, usize)>,
    size: usize,
}

const EMPTY: (usize, usize) = (usize::MAX, 0);

/// Spans `ends_turn` stops at: a user turn, a model call, a tool.
pub(crate) fn is_step_like(trace: &Trace, i: usize) -> bool {
    let span = &trace.spans[i];
    matches!(
        span.kind,
        SpanKind::User | SpanKind::Llm | SpanKind::Tool | SpanKind::Retriever
    ) || span.tool.is_some()
}

impl StepScan {
    pub(crate) fn new(trace: &Trace, index: &AgentIndex, order: &[usize]) -> Self {
        let size = order.len().next_power_of_two().max(1);
        let mut tree = vec![EMPTY; 2 * size];
        for (pos, &i) in order.iter().enumerate() {
            if is_step_like(trace, i)
                && let Some((entry, _)) = index.subtree(i)
            {
                tree[size + pos] = (entry, entry);
            }
        }
        for v in (1..size).rev() {
            let (a, b) = (tree[2 * v], tree[2 * v + 1]);
            tree[v] = (a.0.min(b.0), a.1.max(b.1));
        }
        Self { tree, size }
    }

    /// The first position after `pos` holding a step-like span that is not a
    /// descendant of span `me`.
    pub(crate) fn next_outside(&self, index: &AgentIndex, me: usize, pos: usize) -> Option<usize> {
        let (entry, exit) = index.subtree(me)?;
        // Outside `(entry, exit]`: value <= entry or value > exit.
        let outside = |(lo, hi): (usize, usize)| lo <= entry || (hi > exit && hi != 0);
        self.first(1, 0, self.size, pos + 1, &outside)
    }

    /// Leftmost leaf in `[from, size)` under node `v` (covering `[l, r)`)
    /// whose value satisfies `outside`.
    fn first(
        &self,
        v: usize,
        l: usize,
        r: usize,
        from: usize,
        outside: &impl Fn((usize, usize)) -> bool,
    ) -> Option<usize> {
        if r <= from || !outside(self.tree[v]) {
            return None;
        }
        if r - l == 1 {
            return Some(l);
        }
        let mid = usize::midpoint(l, r);
        self.first(2 * v, l, mid, from, outside)
            .or_else(|| self.first(2 * v + 1, mid, r, from, outside))
    }
}
