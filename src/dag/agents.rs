//! Which agent each span belongs to, and which agent called which.
//!
//! A span's agent is its own `agent`, else the nearest ancestor's, else the
//! unnamed top-level agent `""`. An agent's caller is the agent of the
//! nearest ancestor span that belongs to a different agent. Parent links are
//! followed with a visited set, so a parent cycle in bad input cannot hang
//! the builder; it is reported instead (and the DAG falls back to flat).

use std::collections::{BTreeMap, HashMap};

use crate::model::ShortText;
use crate::trace::model::Trace;

/// Agent membership of every span of one trace.
#[derive(Debug, Clone, Default)]
pub(crate) struct AgentIndex {
    /// Per span index (the trace's order): the agent key.
    agent_of: Vec<ShortText>,
    /// Agent → its caller, for agents nested under another agent's span.
    caller: BTreeMap<ShortText, ShortText>,
    /// Per span index: position in a depth-first walk of the span tree, and
    /// the last position inside its subtree (`is_descendant` in O(1)).
    /// `u32`: a file under any read cap holds fewer than 2^32 spans.
    tin: Vec<u32>,
    tout: Vec<u32>,
    /// Set when following parents met a cycle: the span id where it closed.
    pub(crate) cycle_at: Option<ShortText>,
}

/// Walk state of a span while resolving agents.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Walk {
    New,
    OnPath,
    Done,
}

impl AgentIndex {
    /// Linear in the number of spans: every span's agent and nearest
    /// other-agent ancestor are resolved once (memoised walks up the parent
    /// links), so a 20,000-span chain costs no more than 20,000 siblings.
    pub(crate) fn new(trace: &Trace) -> Self {
        let n = trace.spans.len();
        let mut by_id: HashMap<&str, usize> = HashMap::with_capacity(n);
        for (i, span) in trace.spans.iter().enumerate() {
            by_id.entry(span.id.as_str()).or_insert(i);
        }
        let mut parent_of: Vec<Option<usize>> = trace
            .spans
            .iter()
            .map(|s| s.parent.as_deref().and_then(|p| by_id.get(p).copied()))
            .collect();

        // The span whose `agent` names each span's agent (None: the unnamed
        // top-level agent). A parent cycle is cut where it closes: that span
        // becomes a root of the tree below.
        let mut source: Vec<Option<usize>> = vec![None; n];
        let mut walk = vec![Walk::New; n];
        let mut cycle_at = None;
        let mut path = Vec::new();
        for i in 0..n {
            if walk[i] == Walk::Done {
                continue;
            }
            path.clear();
            let mut cur = Some(i);
            let mut found = None;
            while let Some(c) = cur {
                match walk[c] {
                    Walk::Done => {
                        found = source[c];
                        break;
                    }
                    Walk::OnPath => {
                        cycle_at.get_or_insert_with(|| trace.spans[c].id.clone());
                        // Cut the cycle at `c`: its parent link points back into the path.
                        parent_of[c] = None;
                        break;
                    }
                    Walk::New => {}
                }
                walk[c] = Walk::OnPath;
                path.push(c);
                if trace.spans[c].agent.is_some() {
                    found = Some(c);
                    break;
                }
                cur = parent_of[c];
            }
            for &p in &path {
                source[p] = found;
                walk[p] = Walk::Done;
            }
        }
        let agent_of: Vec<ShortText> = source
            .iter()
            .map(|s| {
                s.and_then(|c| trace.spans[c].agent.clone())
                    .unwrap_or_default()
            })
            .collect();

        // Children lists of the (now acyclic) tree, then one depth-first
        // walk from the roots: entry/exit positions, and each span's nearest
        // ancestor of another agent.
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut roots = Vec::new();
        for (i, p) in parent_of.iter().enumerate() {
            match p {
                Some(p) => children[*p].push(i),
                None => roots.push(i),
            }
        }
        let mut tin = vec![0_u32; n];
        let mut tout = vec![0_u32; n];
        let mut other: Vec<Option<usize>> = vec![None; n];
        let mut clock = 0_u32;
        let mut stack: Vec<(usize, bool)> = roots.iter().rev().map(|&r| (r, false)).collect();
        while let Some((v, done)) = stack.pop() {
            if done {
                tout[v] = clock;
                continue;
            }
            clock = clock.saturating_add(1);
            tin[v] = clock;
            if let Some(p) = parent_of[v] {
                other[v] = if agent_of[p] == agent_of[v] {
                    other[p]
                } else {
                    Some(p)
                };
            }
            stack.push((v, true));
            stack.extend(children[v].iter().rev().map(|&c| (c, false)));
        }

        let mut caller = BTreeMap::new();
        for i in 0..n {
            if let Some(o) = other[i] {
                caller
                    .entry(agent_of[i].clone())
                    .or_insert_with(|| agent_of[o].clone());
            }
        }
        Self {
            agent_of,
            caller,
            tin,
            tout,
            cycle_at,
        }
    }

    /// The agent key of span `i` (`""` for the unnamed top-level agent).
    pub(crate) fn agent(&self, i: usize) -> &str {
        self.agent_of.get(i).map_or("", ShortText::as_str)
    }

    pub(crate) fn caller(&self, agent: &str) -> Option<&str> {
        self.caller.get(agent).map(ShortText::as_str)
    }

    /// Whether `agent` is `ancestor` or runs (transitively) under it.
    pub(crate) fn runs_under(&self, agent: &str, ancestor: &str) -> bool {
        let mut cur = Some(agent);
        let mut hops = 0;
        while let Some(a) = cur {
            if a == ancestor {
                return true;
            }
            hops += 1;
            if hops > self.caller.len() {
                return false;
            }
            cur = self.caller(a);
        }
        false
    }

    /// Whether span `i` is a (transitive) child of span `ancestor`.
    #[cfg(test)]
    pub(crate) fn is_descendant(&self, i: usize, ancestor: usize) -> bool {
        match (
            self.tin.get(i),
            self.tin.get(ancestor),
            self.tout.get(ancestor),
        ) {
            (Some(&t), Some(&a_in), Some(&a_out)) => a_in < t && t <= a_out,
            _ => false,
        }
    }

    /// Depth-first entry position of span `i` and the last position inside
    /// its subtree: the descendants of `i` are exactly the spans whose entry
    /// position lies in `(entry, exit]`.
    pub(crate) fn subtree(&self, i: usize) -> Option<(usize, usize)> {
        Some((*self.tin.get(i)? as usize, *self.tout.get(i)? as usize))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::trace::model::{Span, SpanKind, TraceFormat};

    fn span(id: &str, parent: Option<&str>, agent: Option<&str>, seq: usize) -> Span {
        let mut s = Span::new(id, id, SpanKind::Other, seq);
        s.parent = parent.map(Into::into);
        s.agent = agent.map(Into::into);
        s
    }

    fn trace(spans: Vec<Span>) -> Trace {
        Trace {
            id: "t".into(),
            format: TraceFormat::Otlp,
            spans,
            final_output: None,
            metadata: BTreeMap::new(),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn agents_inherit_from_ancestors_and_know_their_caller() {
        let t = trace(vec![
            span("root", None, Some("main"), 0),
            span("llm", Some("root"), None, 1),
            span("sub", Some("root"), Some("helper"), 2),
            span("sub-llm", Some("sub"), None, 3),
            span("loose", None, None, 4),
        ]);
        let idx = AgentIndex::new(&t);
        assert_eq!(idx.agent(1), "main");
        assert_eq!(idx.agent(3), "helper");
        assert_eq!(idx.agent(4), "");
        assert_eq!(idx.caller("helper"), Some("main"));
        assert_eq!(idx.caller("main"), None);
        assert!(idx.runs_under("helper", "main"));
        assert!(!idx.runs_under("main", "helper"));
        assert!(idx.is_descendant(3, 0));
        assert!(idx.cycle_at.is_none());
    }

    #[test]
    fn parent_cycles_are_reported_not_followed_forever() {
        let t = trace(vec![
            span("a", Some("b"), None, 0),
            span("b", Some("a"), None, 1),
        ]);
        let idx = AgentIndex::new(&t);
        assert_eq!(idx.agent(0), "");
        assert!(idx.cycle_at.is_some());
        assert!(!idx.is_descendant(0, 5));
    }
}
