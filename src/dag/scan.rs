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
    /// position, or (MAX, 0) for a position that is not step-like. `u32`,
    /// as the entries are ([`AgentIndex::subtree`]): half the memory.
    tree: Vec<(u32, u32)>,
    size: usize,
}

const EMPTY: (u32, u32) = (u32::MAX, 0);

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
                let entry = u32::try_from(entry).unwrap_or(u32::MAX);
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
        let outside = |(lo, hi): (u32, u32)| {
            let (lo, hi) = (lo as usize, hi as usize);
            lo <= entry || (hi > exit && hi != 0)
        };
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
        outside: &impl Fn((u32, u32)) -> bool,
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::trace::model::{Span, TraceFormat};

    /// Random forests (some with parent cycles), random span kinds and a
    /// random build order: the tree answer equals a plain scan.
    #[test]
    fn next_outside_matches_a_plain_scan() {
        let mut state = 42u64;
        let mut next = |n: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) as usize) % n.max(1)
        };
        let kinds = [
            SpanKind::Llm,
            SpanKind::Tool,
            SpanKind::Agent,
            SpanKind::User,
            SpanKind::Other,
        ];
        for _ in 0..300 {
            let n = 1 + next(60);
            let spans: Vec<Span> = (0..n)
                .map(|i| {
                    let mut s = Span::new(format!("s{i}"), "x", kinds[next(kinds.len())], i);
                    // Mostly earlier parents (a forest), sometimes any span (cycles).
                    s.parent = match next(10) {
                        0 => None,
                        1 => Some(compact_str::format_compact!("s{}", next(n))),
                        _ if i > 0 => Some(compact_str::format_compact!("s{}", next(i))),
                        _ => None,
                    };
                    if next(8) == 0 {
                        s.agent = Some(compact_str::format_compact!("a{}", next(3)));
                    }
                    s
                })
                .collect();
            let trace = Trace {
                id: "t".into(),
                format: TraceFormat::Otlp,
                spans,
                final_output: None,
                metadata: BTreeMap::new(),
                warnings: Vec::new(),
            };
            let index = AgentIndex::new(&trace);
            let mut order: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                order.swap(i, next(i + 1));
            }
            let scan = StepScan::new(&trace, &index, &order);
            for (pos, &me) in order.iter().enumerate() {
                let plain = (pos + 1..n).find(|&p| {
                    is_step_like(&trace, order[p]) && !index.is_descendant(order[p], me)
                });
                assert_eq!(scan.next_outside(&index, me, pos), plain, "n={n} pos={pos}");
            }
        }
    }
}
