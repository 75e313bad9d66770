//! Which agent each span belongs to, and which agent called which.
//!
//! A span's agent is its own `agent`, else the nearest ancestor's, else the
//! unnamed top-level agent `""`. An agent's caller is the agent of the
//! nearest ancestor span that belongs to a different agent. Parent links are
//! followed with a visited set, so a parent cycle in bad input cannot hang
//! the builder; it is reported instead (and the DAG falls back to flat).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::trace::model::Trace;

/// Agent membership of every span of one trace.
#[derive(Debug, Clone, Default)]
pub(crate) struct AgentIndex {
    /// Per span index (the trace's order): the agent key.
    agent_of: Vec<String>,
    /// Agent → its caller, for agents nested under another agent's span.
    caller: BTreeMap<String, String>,
    /// Per span index: its parent's index, when the parent is in the trace.
    parent_of: Vec<Option<usize>>,
    /// Set when following parents met a cycle: the span id where it closed.
    pub(crate) cycle_at: Option<String>,
}

impl AgentIndex {
    pub(crate) fn new(trace: &Trace) -> Self {
        let mut by_id: HashMap<&str, usize> = HashMap::with_capacity(trace.spans.len());
        for (i, span) in trace.spans.iter().enumerate() {
            by_id.entry(span.id.as_str()).or_insert(i);
        }
        let parent_of: Vec<Option<usize>> = trace
            .spans
            .iter()
            .map(|s| s.parent.as_deref().and_then(|p| by_id.get(p).copied()))
            .collect();

        let mut cycle_at = None;
        let mut agent_of = Vec::with_capacity(trace.spans.len());
        for i in 0..trace.spans.len() {
            let mut seen = BTreeSet::new();
            let mut cur = Some(i);
            let mut found = String::new();
            while let Some(c) = cur {
                if !seen.insert(c) {
                    cycle_at.get_or_insert_with(|| trace.spans[c].id.clone());
                    break;
                }
                if let Some(agent) = &trace.spans[c].agent {
                    found.clone_from(agent);
                    break;
                }
                cur = parent_of[c];
            }
            agent_of.push(found);
        }

        let mut caller = BTreeMap::new();
        for i in 0..trace.spans.len() {
            let me = &agent_of[i];
            if caller.contains_key(me) {
                continue;
            }
            let mut seen = BTreeSet::from([i]);
            let mut cur = parent_of[i];
            while let Some(c) = cur {
                if !seen.insert(c) {
                    break;
                }
                if agent_of[c] != *me {
                    caller.insert(me.clone(), agent_of[c].clone());
                    break;
                }
                cur = parent_of[c];
            }
        }
        Self {
            agent_of,
            caller,
            parent_of,
            cycle_at,
        }
    }

    /// The agent key of span `i` (`""` for the unnamed top-level agent).
    pub(crate) fn agent(&self, i: usize) -> &str {
        self.agent_of.get(i).map_or("", String::as_str)
    }

    pub(crate) fn caller(&self, agent: &str) -> Option<&str> {
        self.caller.get(agent).map(String::as_str)
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
    pub(crate) fn is_descendant(&self, i: usize, ancestor: usize) -> bool {
        let mut cur = self.parent_of.get(i).copied().flatten();
        let mut hops = 0;
        while let Some(c) = cur {
            if c == ancestor {
                return true;
            }
            hops += 1;
            if hops > self.parent_of.len() {
                return false;
            }
            cur = self.parent_of[c];
        }
        false
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
