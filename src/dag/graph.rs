//! The evaluation DAG as a graph: checked construction, adjacency,
//! topological order and descendant counts.
//!
//! A [`Dag`] is only built through [`Dag::new`], which checks that the edges
//! form a directed acyclic graph and assigns the stable node ids `s1`, `s2`,
//! … in node order, or [`Dag::flat`] (no edges). The trace builder creates
//! nodes in time order with every edge pointing forward, so node order is
//! also a topological order.

use super::adjacency::{Adjacency, Neighbours};
use super::model::{Edge, Node};
use crate::model::run::{DagInfo, DagStatus, Deviation};
use crate::model::{ShortText, StepEdge};
use thin_vec::ThinVec;

/// Why a set of edges is not a DAG.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DagError {
    #[error("edge {from} → {to} names a node outside 0..{nodes}")]
    EdgeOutOfRange {
        from: usize,
        to: usize,
        nodes: usize,
    },
    #[error("node {node} depends on itself")]
    SelfLoop { node: usize },
    #[error("the edges form a cycle through node {node}")]
    Cycle { node: usize },
}

/// The evaluation DAG of one trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Dag {
    pub status: DagStatus,
    pub nodes: Vec<Node>,
    /// Sorted by `(from, to)`, at most one edge per pair.
    pub edges: Vec<Edge>,
    /// How the DAG was built: unrolled retries, the reason for a flat fallback.
    pub notes: Vec<String>,
    parents: Adjacency,
    children: Adjacency,
}

impl Dag {
    /// Check the edges, deduplicate them (the first kind given for a pair
    /// wins), and assign ids `s1..sN` in node order.
    pub fn new(
        status: DagStatus,
        nodes: Vec<Node>,
        edges: Vec<Edge>,
        notes: Vec<String>,
    ) -> Result<Self, DagError> {
        Self::try_new(status, nodes, edges, notes).map_err(|(e, _)| e)
    }

    /// [`Self::new`] that hands the nodes back with the error, so a caller
    /// can fall back to [`Self::flat`] without a copy of every node made in
    /// advance (a second copy of a million-step trace).
    pub fn try_new(
        status: DagStatus,
        mut nodes: Vec<Node>,
        edges: Vec<Edge>,
        notes: Vec<String>,
    ) -> Result<Self, (DagError, Vec<Node>)> {
        let n = nodes.len();
        for edge in &edges {
            if edge.from() >= n || edge.to() >= n {
                let e = DagError::EdgeOutOfRange {
                    from: edge.from(),
                    to: edge.to(),
                    nodes: n,
                };
                return Err((e, nodes));
            }
            if edge.from() == edge.to() {
                return Err((DagError::SelfLoop { node: edge.from() }, nodes));
            }
        }
        // The first edge of each pair is kept: the sort is stable, so it
        // leads its run (no set of pairs and second list beside the edges
        // of a large trace; issue 25).
        let mut kept = edges;
        kept.sort_by_key(|e| (e.from(), e.to()));
        kept.dedup_by_key(|e| (e.from(), e.to()));
        kept.shrink_to_fit();
        // No spare room in the node list the builder grew: a large trace
        // has hundreds of thousands of nodes (issue 25).
        nodes.shrink_to_fit();
        // Edges are sorted by (from, to): children and parents come out
        // sorted.
        let parents = Adjacency::from_pairs(n, kept.iter().map(|e| (e.to(), e.from())));
        let children = Adjacency::from_pairs(n, kept.iter().map(|e| (e.from(), e.to())));
        if let Some(node) = first_cycle_node(&children) {
            return Err((DagError::Cycle { node }, nodes));
        }
        for (i, node) in nodes.iter_mut().enumerate() {
            node.id = compact_str::format_compact!("s{}", i + 1);
        }
        Ok(Self {
            status,
            nodes,
            edges: kept,
            notes,
            parents,
            children,
        })
    }

    /// The flat fallback: the same nodes, no edges, no compensation (nothing
    /// propagates without edges), and `reason` as the first note.
    pub fn flat(mut nodes: Vec<Node>, reason: String) -> Self {
        for (i, node) in nodes.iter_mut().enumerate() {
            node.id = compact_str::format_compact!("s{}", i + 1);
            node.compensated = false;
            node.attempt = None;
        }
        let n = nodes.len();
        Self {
            status: DagStatus::FlatFallback,
            nodes,
            edges: Vec::new(),
            notes: vec![reason],
            parents: Adjacency::empty(n),
            children: Adjacency::empty(n),
        }
    }

    /// Parents (sorted node indices) of node `i`.
    pub fn parents(&self, i: usize) -> Neighbours<'_> {
        self.parents.nodes(i)
    }

    /// Children (sorted node indices) of node `i`.
    pub fn children(&self, i: usize) -> Neighbours<'_> {
        self.children.nodes(i)
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// A topological order (Kahn's algorithm, smallest index first, so it
    /// is the node order whenever every edge points forward).
    pub fn topological_order(&self) -> Vec<usize> {
        topological(&self.children).unwrap_or_default()
    }

    /// For every node, how many distinct nodes are reachable from it.
    ///
    /// Exact. Traces give chain-like DAGs (a flow of turns with diamonds
    /// where a call and its result rejoin the flow), whose reach sets are a
    /// few runs of consecutive positions in a depth-first order: counted in
    /// linear time through those runs ([`Self::descendant_counts_by_runs`]).
    /// A DAG whose reach sets fragment falls back to blocked bitsets, which
    /// are quadratic (a 1M-span trace took minutes that way, issue 25).
    pub fn descendant_counts(&self) -> Vec<usize> {
        self.descendant_counts_by_runs()
            .unwrap_or_else(|| self.descendant_counts_by_bitsets())
    }

    /// Reach sets as sorted runs `[start, end)` of positions in a reverse
    /// postorder of a depth-first search, built children first; a set is
    /// dropped once every parent has used it. `None` once the runs kept or
    /// merged exceed a budget linear in the size of the graph.
    fn descendant_counts_by_runs(&self) -> Option<Vec<usize>> {
        let n = self.nodes.len();
        let last = u32::try_from(n).ok()?;
        let postorder = postorder(&self.children);
        let mut position = vec![0u32; n];
        for (k, &v) in postorder.iter().enumerate() {
            // k < n ≤ u32::MAX
            position[v] = last - 1 - k as u32;
        }
        // Per node a parent count and a run list of one word each (nothing
        // allocated while empty): this is transient at the peak of a large
        // trace's evaluation (issue 25). A node has fewer than n ≤ u32::MAX parents.
        let mut waiting: Vec<u32> = self
            .parents
            .iter()
            .map(|p| u32::try_from(p.len()).unwrap_or(u32::MAX))
            .collect();
        let mut runs: Vec<ThinVec<(u32, u32)>> = vec![ThinVec::new(); n];
        let mut counts = vec![0usize; n];
        let budget = 32 * (n + self.edges.len()) + 1024;
        let (mut kept, mut work) = (0usize, 0usize);
        let mut gathered: Vec<(u32, u32)> = Vec::new();
        for &v in &postorder {
            gathered.clear();
            for c in self.children(v) {
                gathered.push((position[c], position[c] + 1));
                gathered.extend_from_slice(&runs[c]);
                waiting[c] -= 1;
                if waiting[c] == 0 {
                    kept -= runs[c].len();
                    runs[c] = ThinVec::new();
                }
            }
            work += gathered.len();
            gathered.sort_unstable();
            let mut merged: ThinVec<(u32, u32)> = ThinVec::new();
            for &(a, b) in &gathered {
                match merged.last_mut() {
                    Some(run) if a <= run.1 => run.1 = run.1.max(b),
                    _ => merged.push((a, b)),
                }
            }
            counts[v] = merged.iter().map(|(a, b)| (b - a) as usize).sum();
            if waiting[v] > 0 {
                kept += merged.len();
                runs[v] = merged;
            }
            if kept > budget || work > budget {
                return None;
            }
        }
        Some(counts)
    }

    /// [`Self::descendant_counts`] through blocked reachability bitsets:
    /// any DAG, O(n² / 64) words.
    fn descendant_counts_by_bitsets(&self) -> Vec<usize> {
        // Reachability bitsets over topological positions, one block of
        // BLOCK target positions at a time, so memory stays n × BLOCK bits
        // whatever the size of the trace. A node at position p reaches only
        // positions after p, so a block [start, end) needs the sets of the
        // nodes before `end` only.
        const WORDS: usize = 16;
        const BLOCK: usize = WORDS * 64;
        let n = self.nodes.len();
        let order = self.topological_order();
        let mut position = vec![0usize; n];
        for (p, &i) in order.iter().enumerate() {
            position[i] = p;
        }
        let mut counts = vec![0usize; n];
        let mut sets = vec![[0u64; WORDS]; n];
        for start in (0..n).step_by(BLOCK) {
            let end = (start + BLOCK).min(n);
            for p in (0..end).rev() {
                let i = order[p];
                let mut set = [0u64; WORDS];
                for c in self.children(i) {
                    let pc = position[c];
                    if pc >= end {
                        continue;
                    }
                    if pc >= start {
                        let bit = pc - start;
                        set[bit / 64] |= 1 << (bit % 64);
                    }
                    for (w, bits) in set.iter_mut().zip(&sets[pc]) {
                        *w |= bits;
                    }
                }
                counts[i] += set.iter().map(|w| w.count_ones() as usize).sum::<usize>();
                sets[p] = set;
            }
        }
        counts
    }

    /// Whether `ancestor` reaches `node` through one or more edges.
    pub fn is_ancestor(&self, ancestor: usize, node: usize) -> bool {
        let mut stack = vec![ancestor];
        let mut seen = vec![false; self.nodes.len()];
        while let Some(i) = stack.pop() {
            for c in self.children(i) {
                if c == node {
                    return true;
                }
                if !seen[c] {
                    seen[c] = true;
                    stack.push(c);
                }
            }
        }
        false
    }

    /// Edges as `[from_id, to_id]` pairs, as the run report stores them.
    pub fn edge_ids(&self) -> Vec<[ShortText; 2]> {
        self.edges
            .iter()
            .map(|e| {
                [
                    self.nodes[e.from()].id.clone(),
                    self.nodes[e.to()].id.clone(),
                ]
            })
            .collect()
    }

    /// The report's `dag {}` block.
    pub fn info(&self, deviations: Vec<Deviation>) -> DagInfo {
        DagInfo {
            status: self.status,
            nodes: self.nodes.len(),
            edges: self
                .edges
                .iter()
                .map(|e| StepEdge::between(e.from(), e.to()))
                .collect(),
            deviations,
        }
    }

    /// The nodes, without the edges and adjacency lists (dropped here).
    pub fn into_nodes(self) -> Vec<Node> {
        self.nodes
    }

    /// Index of the node with this id.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.id == id)
    }
}

/// Kahn's algorithm; `None` when there is a cycle.
/// A postorder of a depth-first search from every node in index order,
/// children in index order (iterative: a chain of a million spans is no
/// stack overflow). Its reverse is a topological order of a DAG.
fn postorder(children: &Adjacency) -> Vec<usize> {
    let n = children.len();
    let mut seen = vec![false; n];
    let mut out = Vec::with_capacity(n);
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for start in 0..n {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push((start, 0));
        while let Some((v, next)) = stack.last_mut() {
            if let Some(c) = children[*v].get(*next).map(|&c| c as usize) {
                *next += 1;
                if !seen[c] {
                    seen[c] = true;
                    stack.push((c, 0));
                }
            } else {
                out.push(*v);
                stack.pop();
            }
        }
    }
    out
}

fn topological(children: &Adjacency) -> Option<Vec<usize>> {
    let n = children.len();
    let mut indegree = vec![0usize; n];
    for cs in children.iter() {
        for &c in cs {
            indegree[c as usize] += 1;
        }
    }
    let mut ready: std::collections::BTreeSet<usize> =
        (0..n).filter(|&i| indegree[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(i) = ready.pop_first() {
        order.push(i);
        for c in children.nodes(i) {
            indegree[c] -= 1;
            if indegree[c] == 0 {
                ready.insert(c);
            }
        }
    }
    (order.len() == n).then_some(order)
}

fn first_cycle_node(children: &Adjacency) -> Option<usize> {
    if topological(children).is_some() {
        return None;
    }
    // Some node kept a positive in-degree: report the smallest such index.
    let n = children.len();
    let mut indegree = vec![0usize; n];
    for cs in children.iter() {
        for &c in cs {
            indegree[c as usize] += 1;
        }
    }
    let mut queue: Vec<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
    while let Some(i) = queue.pop() {
        for c in children.nodes(i) {
            indegree[c] -= 1;
            if indegree[c] == 0 {
                queue.push(c);
            }
        }
    }
    (0..n).find(|&i| indegree[i] > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dag::model::EdgeKind;
    use crate::spec::model::StepType;

    fn nodes(n: usize) -> Vec<Node> {
        (0..n)
            .map(|i| Node::new(StepType::Exec, format!("t{i}")))
            .collect()
    }

    #[test]
    fn ids_follow_node_order_and_duplicate_edges_collapse() {
        let edges = vec![
            Edge::new(0, 1, EdgeKind::Call),
            Edge::new(0, 1, EdgeKind::Flow),
            Edge::new(1, 2, EdgeKind::Result),
        ];
        let dag = Dag::new(DagStatus::Dag, nodes(3), edges, Vec::new()).unwrap();
        assert_eq!(
            dag.nodes.iter().map(|n| n.id.as_str()).collect::<Vec<_>>(),
            ["s1", "s2", "s3"]
        );
        assert_eq!(dag.edges.len(), 2);
        assert_eq!(dag.edges[0].kind, EdgeKind::Call);
        assert_eq!(
            dag.edge_ids(),
            [
                ["s1".to_owned(), "s2".to_owned()],
                ["s2".to_owned(), "s3".to_owned()]
            ]
        );
    }

    #[test]
    fn cycles_self_loops_and_bad_indices_are_rejected() {
        let cycle = vec![
            Edge::new(0, 1, EdgeKind::Flow),
            Edge::new(1, 2, EdgeKind::Flow),
            Edge::new(2, 1, EdgeKind::Flow),
        ];
        assert_eq!(
            Dag::new(DagStatus::Dag, nodes(3), cycle, Vec::new()).unwrap_err(),
            DagError::Cycle { node: 1 }
        );
        let self_loop = vec![Edge::new(1, 1, EdgeKind::Flow)];
        assert_eq!(
            Dag::new(DagStatus::Dag, nodes(2), self_loop, Vec::new()).unwrap_err(),
            DagError::SelfLoop { node: 1 }
        );
        let out = vec![Edge::new(0, 5, EdgeKind::Flow)];
        assert!(matches!(
            Dag::new(DagStatus::Dag, nodes(2), out, Vec::new()),
            Err(DagError::EdgeOutOfRange { .. })
        ));
    }

    #[test]
    fn descendant_counts_count_each_node_once_across_diamonds() {
        // 0 → 1 → 3, 0 → 2 → 3, 3 → 4: node 0 reaches {1,2,3,4} once each.
        let edges = [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)]
            .map(|(a, b)| Edge::new(a, b, EdgeKind::Flow))
            .to_vec();
        let dag = Dag::new(DagStatus::Dag, nodes(5), edges, Vec::new()).unwrap();
        assert_eq!(dag.descendant_counts(), [4, 2, 2, 1, 0]);
        assert!(dag.is_ancestor(0, 4));
        assert!(!dag.is_ancestor(1, 2));
        assert_eq!(dag.parents(3).collect::<Vec<_>>(), [1, 2]);
    }

    #[test]
    fn descendant_counts_match_a_plain_search_across_blocks() {
        // 2,500 nodes (three blocks), each with up to three pseudo-random later children.
        let n = 2500;
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as usize
        };
        let mut edges = Vec::new();
        for i in 0..n - 1 {
            for _ in 0..next() % 4 {
                let j = i + 1 + next() % (n - i - 1).min(300);
                edges.push(Edge::new(i, j, EdgeKind::Flow));
            }
        }
        let dag = Dag::new(DagStatus::Dag, nodes(n), edges, Vec::new()).unwrap();
        let counts = dag.descendant_counts();
        for i in (0..n).step_by(97) {
            let mut seen = vec![false; n];
            let mut stack = vec![i];
            let mut reached = 0;
            while let Some(u) = stack.pop() {
                for c in dag.children(u) {
                    if !seen[c] {
                        seen[c] = true;
                        reached += 1;
                        stack.push(c);
                    }
                }
            }
            assert_eq!(counts[i], reached, "node {i}");
        }
    }

    /// Runs and bitsets agree on chains with diamonds (the shape of a
    /// trace), on a random DAG, and on a DAG whose reach sets fragment.
    #[test]
    fn descendant_counts_by_runs_match_the_bitsets() {
        let mut state = 11u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as usize
        };
        let n = 3000;
        let mut chain = Vec::new();
        let mut random = Vec::new();
        for i in 0..n - 1 {
            chain.push(Edge::new(i, i + 1, EdgeKind::Flow));
            if i % 3 == 0 && i + 3 < n {
                chain.push(Edge::new(i, i + 3, EdgeKind::Flow));
            }
            for _ in 0..next() % 3 {
                let j = i + 1 + next() % (n - i - 1).min(200);
                random.push(Edge::new(i, j, EdgeKind::Flow));
            }
        }
        // Every even node reaches every odd node after it and no even one:
        // reach sets of alternating positions.
        let m = 400;
        let mut comb = Vec::new();
        for i in (0..m).step_by(2) {
            for j in (i + 1..m).step_by(2) {
                comb.push(Edge::new(i, j, EdgeKind::Flow));
            }
        }
        for (len, edges) in [(n, chain), (n, random), (m, comb)] {
            let dag = Dag::new(DagStatus::Dag, nodes(len), edges, Vec::new()).unwrap();
            let bits = dag.descendant_counts_by_bitsets();
            if let Some(runs) = dag.descendant_counts_by_runs() {
                assert_eq!(runs, bits);
            }
            assert_eq!(dag.descendant_counts(), bits);
        }
        let chain = Dag::new(
            DagStatus::Dag,
            nodes(5),
            (0..4)
                .map(|i| Edge::new(i, i + 1, EdgeKind::Flow))
                .collect(),
            Vec::new(),
        )
        .unwrap();
        assert_eq!(chain.descendant_counts_by_runs(), Some(vec![4, 3, 2, 1, 0]));
    }

    #[test]
    fn a_chain_of_a_million_nodes_is_counted_in_linear_time() {
        let n = 1_000_000;
        let edges = (0..n - 1)
            .map(|i| Edge::new(i, i + 1, EdgeKind::Flow))
            .collect();
        let dag = Dag::new(DagStatus::Dag, nodes(n), edges, Vec::new()).unwrap();
        let counts = dag.descendant_counts_by_runs().expect("runs stay small");
        assert_eq!(counts[0], n - 1);
        assert_eq!(counts[n / 2], n - 1 - n / 2);
    }

    #[test]
    fn descendant_counts_handle_more_than_64_nodes() {
        let n = 130;
        let edges = (0..n - 1)
            .map(|i| Edge::new(i, i + 1, EdgeKind::Flow))
            .collect();
        let dag = Dag::new(DagStatus::Dag, nodes(n), edges, Vec::new()).unwrap();
        let counts = dag.descendant_counts();
        assert_eq!(counts[0], n - 1);
        assert_eq!(counts[64], n - 65);
        assert_eq!(counts[n - 1], 0);
    }
}
