//! Turning an adapter's spans into a finished [`Trace`]: unique span ids,
//! time order, dangling parents re-attached (via [`Trace::finish`]), parent
//! cycles broken, agent names inherited from the nearest ancestor, and bare
//! tool arguments recovered from the model's request (`tool_args`). Each
//! repair leaves a warning. Also groups spans of several traces by id.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

use crate::model::ShortText;
use crate::trace::model::{Span, Trace, TraceFormat};
use crate::trace::tool_args;

/// Everything an adapter found for one trace.
#[derive(Debug)]
pub(crate) struct Draft {
    pub(crate) id: String,
    pub(crate) format: TraceFormat,
    pub(crate) spans: Vec<Span>,
    pub(crate) final_output: Option<String>,
    pub(crate) metadata: BTreeMap<String, Value>,
    pub(crate) warnings: Vec<String>,
}

impl Draft {
    pub(crate) fn new(id: impl Into<String>, format: TraceFormat) -> Self {
        Self {
            id: id.into(),
            format,
            spans: Vec::new(),
            final_output: None,
            metadata: BTreeMap::new(),
            warnings: Vec::new(),
        }
    }

    /// Build the finished trace.
    pub(crate) fn finish(mut self) -> Trace {
        dedupe_ids(&mut self.spans, &mut self.warnings);
        // Spans are large: order them in place by following the cycles of
        // the permutation (no second array of spans), so the stable sort in
        // `Trace::finish` only confirms the order.
        let mut order: Vec<usize> = (0..self.spans.len()).collect();
        order.sort_by_key(|&i| self.spans[i].order_key());
        permute_in_place(&mut self.spans, order);
        let trace = Trace {
            id: self.id,
            format: self.format,
            spans: self.spans,
            final_output: self.final_output,
            metadata: self.metadata,
            warnings: self.warnings,
        };
        let mut trace = trace.finish();
        // Ids and parents stay as they are from here: one index serves all.
        let parents = break_cycles(&mut trace);
        super::agent_names::drop_misattributed(&mut trace.spans, &parents, &mut trace.warnings);
        inherit_agents(&mut trace.spans, &parents);
        super::handoffs::link_handoffs(&mut trace.spans);
        tool_args::recover_arguments(&mut trace.spans, &mut trace.warnings);
        trace
    }
}

/// Reorder `items` so that position `k` holds the item that was at
/// `order[k]` (`order` a permutation), with swaps only.
fn permute_in_place<T>(items: &mut [T], mut order: Vec<usize>) {
    for start in 0..order.len() {
        let mut at = start;
        // Walk the cycle through `start`, pulling each wanted item forward.
        while order[at] != start {
            let from = order[at];
            items.swap(at, from);
            order[at] = at;
            at = from;
        }
        order[at] = at;
    }
}

/// Spans of several traces in file order, grouped by trace id (first
/// appearance first).
#[derive(Debug, Default)]
pub(crate) struct Groups {
    order: Vec<(String, Vec<Span>)>,
    index: HashMap<String, usize>,
    /// The slot of the last span: spans of one trace mostly come together,
    /// and an id compared is cheaper than an id hashed.
    last: Option<usize>,
}

impl Groups {
    /// The trace id of the last span pushed.
    pub(crate) fn last_id(&self) -> Option<&str> {
        self.last.map(|i| self.order[i].0.as_str())
    }

    pub(crate) fn push(&mut self, trace_id: &str, span: Span) {
        let slot = if let Some(i) = self.last.filter(|&i| self.order[i].0 == trace_id) {
            i
        } else if let Some(i) = self.index.get(trace_id) {
            *i
        } else {
            self.index.insert(trace_id.to_owned(), self.order.len());
            self.order.push((trace_id.to_owned(), Vec::new()));
            self.order.len() - 1
        };
        self.last = Some(slot);
        self.order[slot].1.push(span);
    }

    pub(crate) fn into_groups(self) -> Vec<(String, Vec<Span>)> {
        self.order
    }
}

fn dedupe_ids(spans: &mut [Span], warnings: &mut Vec<String>) {
    // Ids are nearly always unique: look for a repeat without copying them.
    let mut unique: HashSet<&str> = HashSet::with_capacity(spans.len());
    if spans.iter().all(|s| unique.insert(&s.id)) {
        return;
    }
    let mut seen: HashMap<ShortText, usize> = HashMap::new();
    for span in spans.iter_mut() {
        let count = seen.entry(span.id.clone()).or_insert(0);
        *count += 1;
        if *count > 1 {
            let renamed = compact_str::format_compact!("{}#{}", span.id, count);
            warnings.push(format!(
                "span id `{}` is used by more than one span; the copy named `{}` is now `{renamed}` and children \
                 naming `{}` stay with the first",
                span.id, span.name, span.id
            ));
            span.id = renamed;
        }
    }
}

/// Each span's parent as an index into `spans` (the last span with that id,
/// as a map from ids collected in order gives).
pub(super) fn parent_indices(spans: &[Span]) -> Vec<Option<usize>> {
    let index: HashMap<&str, usize> = spans
        .iter()
        .enumerate()
        .map(|(i, s)| (s.id.as_str(), i))
        .collect();
    spans
        .iter()
        .map(|s| s.parent.as_deref().and_then(|p| index.get(p).copied()))
        .collect()
}

/// Walk up from every span; a walk that meets itself is a cycle, cut at the
/// span that closed it (re-attached to the root, or made a root). Returns
/// each span's parent index after the cuts ([`parent_indices`] of the
/// result).
fn break_cycles(trace: &mut Trace) -> Vec<Option<usize>> {
    let mut parents = parent_indices(&trace.spans);
    // 0 = unvisited, 1 = on the current walk, 2 = known to reach a root.
    let mut state = vec![0u8; trace.spans.len()];
    let mut path = Vec::new();
    for start in 0..trace.spans.len() {
        path.clear();
        let mut at = start;
        loop {
            if state[at] == 2 {
                break;
            }
            if state[at] == 1 {
                parents[at] = cut(trace, at);
                break;
            }
            state[at] = 1;
            path.push(at);
            match parents[at] {
                Some(parent) => at = parent,
                None => break,
            }
        }
        for &i in &path {
            state[i] = 2;
        }
    }
    parents
}

/// Cut the cycle at `at`; its new parent's index.
fn cut(trace: &mut Trace, at: usize) -> Option<usize> {
    // A span without a parent cannot be on a cycle.
    let root = trace.spans.iter().position(|s| s.parent.is_none());
    let span = &trace.spans[at];
    let target = root.map(|r| trace.spans[r].id.clone());
    trace.warnings.push(format!(
        "span `{}` ({}) is its own ancestor through `{}`; the cycle is cut and it is attached to {}",
        span.id,
        span.name,
        span.parent.as_deref().unwrap_or_default(),
        target.as_deref().map_or("nothing (made a root)".to_owned(), |r| format!("root `{r}`"))
    ));
    let parent = target
        .as_deref()
        .and_then(|id| trace.spans.iter().rposition(|s| s.id == id));
    trace.spans[at].parent = target;
    parent
}

/// Spans without an agent take the agent of their nearest ancestor
/// (`parents`: [`parent_indices`] of `spans`).
fn inherit_agents(spans: &mut [Span], parents: &[Option<usize>]) {
    // The span whose agent each span takes (itself when it has one).
    let mut resolved: Vec<Option<Option<usize>>> = vec![None; spans.len()];
    let mut path = Vec::new();
    for start in 0..spans.len() {
        path.clear();
        let mut at = start;
        // Cycles are already cut; the bound only guards against a bug.
        let found = loop {
            if path.len() > spans.len() {
                break None;
            }
            if let Some(known) = resolved[at] {
                break known;
            }
            if spans[at].agent.is_some() {
                break Some(at);
            }
            path.push(at);
            match parents[at] {
                Some(parent) => at = parent,
                None => break None,
            }
        };
        for &i in &path {
            resolved[i] = Some(found);
        }
    }
    for (i, source) in resolved.into_iter().enumerate() {
        if spans[i].agent.is_none()
            && let Some(source) = source.flatten()
        {
            let agent = spans[source].agent.clone();
            spans[i].agent = agent;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::model::SpanKind;

    fn span(id: &str, parent: Option<&str>, seq: usize) -> Span {
        let mut s = Span::new(id, id, SpanKind::Other, seq);
        s.parent = parent.map(ShortText::from);
        s
    }

    #[test]
    fn cycles_are_cut_and_reattached_to_the_root() {
        let mut draft = Draft::new("t", TraceFormat::OtelSdk);
        draft.spans = vec![
            span("r", None, 0),
            span("a", Some("b"), 1),
            span("b", Some("a"), 2),
        ];
        draft.spans[0].agent = Some("boss".into());
        let trace = draft.finish();
        assert_eq!(trace.warnings.len(), 1, "{:?}", trace.warnings);
        let roots: Vec<&str> = trace
            .spans
            .iter()
            .filter(|s| s.parent.is_none())
            .map(|s| s.id.as_str())
            .collect();
        assert_eq!(roots, ["r"]);
        assert!(
            trace
                .spans
                .iter()
                .all(|s| s.agent.as_deref() == Some("boss"))
        );
    }

    #[test]
    fn permute_in_place_matches_a_copy() {
        let mut state = 5u64;
        for n in [0usize, 1, 2, 7, 100] {
            let mut order: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                order.swap(i, (state >> 33) as usize % (i + 1));
            }
            let items: Vec<usize> = (0..n).map(|i| i * 10).collect();
            let want: Vec<usize> = order.iter().map(|&i| items[i]).collect();
            let mut got = items.clone();
            permute_in_place(&mut got, order);
            assert_eq!(got, want, "n = {n}");
        }
    }

    #[test]
    fn duplicate_ids_are_renamed_with_a_warning() {
        let mut draft = Draft::new("t", TraceFormat::OtelSdk);
        draft.spans = vec![
            span("r", None, 0),
            span("x", Some("r"), 1),
            span("x", Some("r"), 2),
        ];
        let trace = draft.finish();
        let ids: Vec<&str> = trace.spans.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["r", "x", "x#2"]);
        assert_eq!(trace.warnings.len(), 1);
    }

    #[test]
    fn a_trace_made_only_of_a_cycle_gets_a_root() {
        let mut draft = Draft::new("t", TraceFormat::OtelSdk);
        draft.spans = vec![span("a", Some("b"), 0), span("b", Some("a"), 1)];
        let trace = draft.finish();
        assert_eq!(trace.spans.iter().filter(|s| s.parent.is_none()).count(), 1);
    }
}
