//! Root-cause attribution and the workflow score Q (DESIGN §6, `AgentEval`).
//!
//! A step *fails* when it has a score below its type's threshold. Only
//! failing, non-compensated parents carry a failure forward: a compensated
//! attempt (a failed try that a retry superseded) is reported but never the
//! cause of anything downstream, and N/A steps stop propagation.
//!
//! Modes ([`RootCauseMode`]), for a failing step `v`:
//! - **greedy** (default, `AgentEval` Algorithm 1): start at `v`; while the
//!   current step has failing parents, move to the one with the lowest score
//!   (ties: the earlier step). The step where the walk stops is the root.
//! - **`full_path`**: consider every path from `v` back through failing
//!   parents. Among the steps where such paths start (failing steps with no
//!   failing parent), the root is the one with the longest path to `v`
//!   (ties: lower score, then the earlier step) — the deepest origin.
//! - **weighted**: the greedy walk, but it moves to the failing parent with
//!   the largest `(threshold − score) × (descendants + 1)`: how far below the
//!   bar a step is, times how much of the workflow depends on it (ties:
//!   lower score, then the earlier step).
//!
//! In every mode the root has no failing parent, so it is itself a root
//! cause; `v` is a root cause when the root is `v`, otherwise it is
//! propagated from the root. (`judge` walks like greedy here; the judge
//! names the case's decisive step separately.)
//!
//! Before the walk, an execution that failed on its input ([`input_charges`])
//! is charged to the PARAMGEN that produced the input: that step fails too,
//! so the walk stops there, on the agent that wrote the code or arguments,
//! and not on the tool that ran them. Infrastructure failures (timeouts,
//! 5xx, rate limits) and errors the rules cannot place stay on the
//! execution; so does a failed attempt a retry superseded.
//!
//! The case's decisive root cause ([`decisive_root`]) is its earliest root
//! cause that is not a superseded attempt: the first error the rest follow from.

use std::cmp::Ordering;

use super::graph::Dag;
use super::model::{Edge, EdgeKind};
use super::outcome::{FailureOrigin, exec_outcome, failure_origin};
use crate::spec::model::{RootCauseMode, StepType};

/// What RCA needs to know about one node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeVerdict {
    /// 1–5, `None` when not scored (N/A).
    pub score: Option<f64>,
    /// The pass threshold of the node's step type.
    pub threshold: f64,
    /// `score < threshold`.
    pub failed: bool,
}

impl NodeVerdict {
    /// A verdict for `score` against `threshold`; N/A never fails.
    pub fn new(score: Option<f64>, threshold: f64) -> Self {
        Self {
            score,
            threshold,
            failed: score.is_some_and(|s| s < threshold),
        }
    }
}

/// The attribution of one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attribution {
    /// Not failing.
    Pass,
    /// Failing, and no failing parent explains it.
    RootCause,
    /// Failing because of the failing step at this index.
    Propagated { root: usize },
}

/// Attribute every failing node of `dag` (`verdicts[i]` describes node `i`).
pub fn attribute_root_causes(
    dag: &Dag,
    verdicts: &[NodeVerdict],
    mode: RootCauseMode,
) -> Vec<Attribution> {
    attribute_root_causes_by(dag, verdicts.len(), |i| verdicts[i], mode)
}

/// [`attribute_root_causes`] of the first `count` nodes, each verdict made
/// when it is needed: a list of them cost 32 bytes a step at the peak of a
/// large trace's evaluation (issue 25).
pub fn attribute_root_causes_by(
    dag: &Dag,
    count: usize,
    verdict: impl Fn(usize) -> NodeVerdict,
    mode: RootCauseMode,
) -> Vec<Attribution> {
    let n = dag.len().min(count);
    let failing_parents = |i: usize| -> Vec<usize> {
        dag.parents(i)
            .filter(|&p| p < n && verdict(p).failed && !dag.nodes[p].compensated)
            .collect()
    };
    let score = |i: usize| verdict(i).score.unwrap_or(f64::INFINITY);
    let by_score_then_index = |a: &usize, b: &usize| score(*a).total_cmp(&score(*b)).then(a.cmp(b));
    let descendants = if mode == RootCauseMode::Weighted {
        dag.descendant_counts()
    } else {
        Vec::new()
    };
    let weight = |i: usize| {
        (verdict(i).threshold - score(i)) * (descendants.get(i).copied().unwrap_or(0) + 1) as f64
    };
    let origins = if mode == RootCauseMode::FullPath {
        deepest_origins(dag, n, &failing_parents, &by_score_then_index)
    } else {
        Vec::new()
    };

    let greedy = |ps: &[usize]| ps.iter().copied().min_by(by_score_then_index);
    let heaviest = |ps: &[usize]| {
        ps.iter().copied().min_by(|a, b| {
            weight(*b)
                .total_cmp(&weight(*a))
                .then_with(|| by_score_then_index(a, b))
        })
    };
    let mut walks = Walks::new(n);
    (0..n)
        .map(|v| {
            if !verdict(v).failed {
                return Attribution::Pass;
            }
            let root = match mode {
                RootCauseMode::Greedy | RootCauseMode::Judge => {
                    walks.root(v, &failing_parents, greedy)
                }
                RootCauseMode::Weighted => walks.root(v, &failing_parents, heaviest),
                RootCauseMode::FullPath => origins[v],
            };
            if root == v {
                Attribution::RootCause
            } else {
                Attribution::Propagated { root }
            }
        })
        .collect()
}

/// An execution that failed on its input, charged to the step that made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputCharge {
    /// The EXEC.
    pub exec: usize,
    /// The PARAMGEN whose arguments (or code) it ran.
    pub producer: usize,
    /// The execution's error.
    pub message: String,
}

/// Every execution of `dag` that failed on its input (see
/// [`FailureOrigin::Input`]), with the PARAMGEN that produced the input: its
/// call parent, or the call parent of the first attempt of its retry chain.
/// Superseded attempts are left out: a retry that changed nothing and
/// succeeded shows the input was not at fault.
pub fn input_charges(dag: &Dag) -> Vec<InputCharge> {
    let mut out = Vec::new();
    for (i, node) in dag.nodes.iter().enumerate() {
        if node.step_type != StepType::Exec
            || node.compensated
            || failure_origin(node) != Some(FailureOrigin::Input)
        {
            continue;
        }
        let Some(producer) = producer_of(dag, i) else {
            continue;
        };
        out.push(InputCharge {
            exec: i,
            producer,
            message: exec_outcome(node).message().unwrap_or_default().to_owned(),
        });
    }
    out
}

/// The PARAMGEN an EXEC ran, following retry edges back to the first attempt.
fn producer_of(dag: &Dag, exec: usize) -> Option<usize> {
    let mut cur = exec;
    for _ in 0..=dag.len() {
        let incoming = |kind: EdgeKind| {
            dag.edges
                .iter()
                .find(|e| e.to() == cur && e.kind == kind)
                .map(Edge::from)
        };
        if let Some(p) = incoming(EdgeKind::Call).filter(|&p| {
            dag.nodes
                .get(p)
                .is_some_and(|n| n.step_type == StepType::ParamGen)
        }) {
            return Some(p);
        }
        cur = incoming(EdgeKind::Retry)?;
    }
    None
}

/// The case's decisive root cause: the earliest root cause (nodes are in
/// time order) that is not a superseded attempt.
pub fn decisive_root(dag: &Dag, attributions: &[Attribution]) -> Option<usize> {
    attributions
        .iter()
        .enumerate()
        .find(|(i, a)| {
            **a == Attribution::RootCause && dag.nodes.get(*i).is_some_and(|n| !n.compensated)
        })
        .map(|(i, _)| i)
}

/// The walks of the greedy and weighted modes: from a failing step to the
/// failing parent `choose` picks, until a step has none. The parent picked
/// depends only on the step, so every step a walk passes through has the
/// walk's root: each is remembered, and a later walk stops at the first
/// step with a known root. Walking every failing step to its root anew was
/// quadratic in the length of a failing chain: a trace of 82,000 spans with
/// long chains of failing steps spent 35 s here (issue 25).
struct Walks {
    /// The root of each step a walk has passed through, [`Walks::UNKNOWN`]
    /// for the others (4 bytes a step, not 16: issue 25).
    root: Vec<u32>,
    path: Vec<usize>,
}

impl Walks {
    /// No walk has passed through the step. A file under any read cap has
    /// fewer than `u32::MAX` steps, so no step has this index.
    const UNKNOWN: u32 = u32::MAX;

    fn new(n: usize) -> Self {
        Self {
            root: vec![Self::UNKNOWN; n],
            path: Vec::new(),
        }
    }

    fn root(
        &mut self,
        start: usize,
        failing_parents: &dyn Fn(usize) -> Vec<usize>,
        choose: impl Fn(&[usize]) -> Option<usize>,
    ) -> usize {
        self.path.clear();
        let mut cur = start;
        // Parents are strictly earlier in a topological order, so a walk
        // has at most n steps; the bound only guards against a cycle.
        let root = loop {
            if self.root[cur] != Self::UNKNOWN {
                break self.root[cur] as usize;
            }
            self.path.push(cur);
            if self.path.len() > self.root.len() {
                break cur;
            }
            match choose(&failing_parents(cur)) {
                Some(next) => cur = next,
                None => break cur,
            }
        };
        let known = u32::try_from(root).unwrap_or(Self::UNKNOWN);
        for &step in &self.path {
            self.root[step] = known;
        }
        root
    }
}

/// The `full_path` root of every failing step: the start of the longest
/// failing path into it (a failing ancestor with no failing parent; on a
/// tie in length, the first under `tie`). Computed once over a topological
/// order: a step's longest failing paths are one edge longer than its
/// failing parents' longest, so its origin is the `tie`-first origin of
/// the parents whose paths are longest. Searching each step's failing
/// ancestors anew was quadratic in a failing chain: 117 s on a trace of
/// 82,000 spans (issue 25).
fn deepest_origins(
    dag: &Dag,
    n: usize,
    failing_parents: &dyn Fn(usize) -> Vec<usize>,
    tie: &dyn Fn(&usize, &usize) -> Ordering,
) -> Vec<usize> {
    let mut length = vec![0_usize; n];
    let mut origin: Vec<usize> = (0..n).collect();
    for &u in dag.topological_order().iter().filter(|&&u| u < n) {
        let mut best: Option<(usize, usize)> = None;
        for p in failing_parents(u) {
            let candidate = (length[p] + 1, origin[p]);
            best = match best {
                Some(b)
                    if b.0 > candidate.0
                        || (b.0 == candidate.0 && tie(&b.1, &candidate.1) != Ordering::Greater) =>
                {
                    Some(b)
                }
                _ => Some(candidate),
            };
        }
        if let Some((l, o)) = best {
            length[u] = l;
            origin[u] = o;
        }
    }
    origin
}

/// `AgentEval`'s workflow score: the descendant-weighted harmonic mean of the
/// step scores, `Q = Σ w / Σ (w / q)` over scored nodes, `w = |descendants| + 1`.
/// `None` when no node is scored. Scores that are not positive finite
/// numbers are left out (the 1–5 scale never produces them).
///
/// The result is rounded to 9 decimal places and kept within the smallest
/// and largest score: summing `w / q` leaves last-bit noise (all-5 steps
/// could give 4.999999999999999), and cases whose Q is mathematically equal
/// must compare equal in the paired statistics downstream.
pub fn workflow_quality(dag: &Dag, scores: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let descendants = dag.descendant_counts();
    // One pass, nothing collected: at a large trace's peak a list of the
    // scored steps cost 16 bytes a step (issue 25). The sums add in step
    // order, as they did over that list.
    let mut num = 0.0;
    let mut den = 0.0;
    let mut range: Option<(f64, f64)> = None;
    for (q, d) in scores.into_iter().zip(&descendants) {
        let Some(q) = q.filter(|q| q.is_finite() && *q > 0.0) else {
            continue;
        };
        let w = (d + 1) as f64;
        num += w;
        den += w / q;
        range = Some(range.map_or((q, q), |(lo, hi)| (lo.min(q), hi.max(q))));
    }
    let (lo, hi) = range?;
    Some(((num / den * 1e9).round() / 1e9).clamp(lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dag::model::{Edge, EdgeKind, Node};
    use crate::model::run::DagStatus;
    use crate::spec::model::StepType;

    fn dag(n: usize, edges: &[(usize, usize)]) -> Dag {
        let nodes = (0..n)
            .map(|i| Node::new(StepType::Exec, format!("n{i}")))
            .collect();
        let edges = edges
            .iter()
            .map(|&(a, b)| Edge::new(a, b, EdgeKind::Flow))
            .collect();
        Dag::new(DagStatus::Dag, nodes, edges, Vec::new()).unwrap()
    }

    fn verdicts(scores: &[Option<f64>]) -> Vec<NodeVerdict> {
        scores.iter().map(|&s| NodeVerdict::new(s, 3.0)).collect()
    }

    #[test]
    fn modes_disagree_where_they_should() {
        // 0 → 2, 1 → 2 → 3 ; 4 → 0.  Failing: 0 (2.0), 1 (1.0), 2 (2.5), 3 (1.0), 4 (2.9).
        // greedy from 3: parents {2} → 2: parents {0 (2.0), 1 (1.0)} → 1 (lowest) → no failing parents.
        // full_path from 3: origins 4 (path 4→0→2→3, length 3) and 1 (1→2→3, length 2) → 4.
        // weighted from 2: w(0) = (3−2)×(2+1) = 3 (descendants 2,3), w(1) = (3−1)×3 = 6 → 1.
        let d = dag(5, &[(0, 2), (1, 2), (2, 3), (4, 0)]);
        let v = verdicts(&[Some(2.0), Some(1.0), Some(2.5), Some(1.0), Some(2.9)]);
        let greedy = attribute_root_causes(&d, &v, RootCauseMode::Greedy);
        assert_eq!(greedy[3], Attribution::Propagated { root: 1 });
        assert_eq!(greedy[0], Attribution::Propagated { root: 4 });
        assert_eq!(greedy[4], Attribution::RootCause);
        let full = attribute_root_causes(&d, &v, RootCauseMode::FullPath);
        assert_eq!(full[3], Attribution::Propagated { root: 4 });
        assert_eq!(full[1], Attribution::RootCause);
        let weighted = attribute_root_causes(&d, &v, RootCauseMode::Weighted);
        assert_eq!(weighted[2], Attribution::Propagated { root: 1 });
    }

    #[test]
    fn na_and_passing_steps_stop_propagation() {
        let d = dag(3, &[(0, 1), (1, 2)]);
        let v = verdicts(&[Some(1.0), None, Some(1.0)]);
        let a = attribute_root_causes(&d, &v, RootCauseMode::Greedy);
        assert_eq!(
            a,
            [
                Attribution::RootCause,
                Attribution::Pass,
                Attribution::RootCause
            ]
        );
    }

    #[test]
    fn compensated_parents_never_become_roots() {
        let mut d = dag(3, &[(0, 1), (1, 2)]);
        d.nodes[0].compensated = true;
        let v = verdicts(&[Some(1.0), Some(1.0), Some(1.0)]);
        let a = attribute_root_causes(&d, &v, RootCauseMode::Greedy);
        assert_eq!(
            a,
            [
                Attribution::RootCause,
                Attribution::RootCause,
                Attribution::Propagated { root: 1 }
            ]
        );
    }

    #[test]
    fn q_is_the_descendant_weighted_harmonic_mean() {
        // Chain 0 → 1 → 2 with scores 5, 1, 5: w = 3, 2, 1.
        // Q = (3 + 2 + 1) / (3/5 + 2/1 + 1/5) = 6 / 2.8 = 2.142857…
        let d = dag(3, &[(0, 1), (1, 2)]);
        let q = workflow_quality(&d, [Some(5.0), Some(1.0), Some(5.0)]).unwrap();
        assert!((q - 6.0 / 2.8).abs() < 1e-9, "{q}");
        // Equal scores give exactly that score, whatever the weights.
        assert_eq!(
            workflow_quality(&d, [Some(5.0), Some(5.0), Some(5.0)]).map(f64::to_bits),
            Some(5.0f64.to_bits())
        );
        assert_eq!(workflow_quality(&d, [None, None, None]), None);
        // N/A nodes still count as descendants: w(0) = 3 even though node 1 is N/A.
        let q = workflow_quality(&d, [Some(2.0), None, Some(4.0)]).unwrap();
        assert!((q - 4.0 / (3.0 / 2.0 + 1.0 / 4.0)).abs() < 1e-9, "{q}");
    }

    /// Each failing step walked to its root on its own, as before the walks
    /// were remembered.
    fn walked_alone(d: &Dag, v: &[NodeVerdict], mode: RootCauseMode) -> Vec<Attribution> {
        let failing_parents = |i: usize| -> Vec<usize> {
            d.parents(i)
                .filter(|&p| v[p].failed && !d.nodes[p].compensated)
                .collect()
        };
        let score = |i: usize| v[i].score.unwrap_or(f64::INFINITY);
        let order = |a: &usize, b: &usize| score(*a).total_cmp(&score(*b)).then(a.cmp(b));
        let descendants = d.descendant_counts();
        let weight = |i: usize| (v[i].threshold - score(i)) * (descendants[i] + 1) as f64;
        (0..d.len())
            .map(|start| {
                if !v[start].failed {
                    return Attribution::Pass;
                }
                let mut cur = start;
                loop {
                    let ps = failing_parents(cur);
                    let next = if mode == RootCauseMode::Weighted {
                        ps.iter().copied().min_by(|a, b| {
                            weight(*b).total_cmp(&weight(*a)).then_with(|| order(a, b))
                        })
                    } else {
                        ps.iter().copied().min_by(order)
                    };
                    match next {
                        Some(p) => cur = p,
                        None => break,
                    }
                }
                if cur == start {
                    Attribution::RootCause
                } else {
                    Attribution::Propagated { root: cur }
                }
            })
            .collect()
    }

    /// The `full_path` root of `v` by a search of its failing ancestors, as
    /// before the single pass.
    fn deepest_origin(
        dag: &Dag,
        position: &[usize],
        v: usize,
        failing_parents: &dyn Fn(usize) -> Vec<usize>,
        tie: &dyn Fn(&usize, &usize) -> Ordering,
    ) -> usize {
        // Longest distance (in edges) from each failing ancestor down to v,
        // computed over a reverse topological order of the nodes involved.
        let mut involved = vec![v];
        let mut seen = vec![false; dag.len()];
        seen[v] = true;
        let mut k = 0;
        while k < involved.len() {
            for p in failing_parents(involved[k]) {
                if !seen[p] {
                    seen[p] = true;
                    involved.push(p);
                }
            }
            k += 1;
        }
        involved.sort_by_key(|&i| std::cmp::Reverse(position[i]));
        let mut dist: Vec<Option<usize>> = vec![None; dag.len()];
        dist[v] = Some(0);
        for &u in &involved {
            if u == v {
                continue;
            }
            dist[u] = dag
                .children(u)
                .filter_map(|c| if seen[c] { dist[c] } else { None })
                .max()
                .map(|d| d + 1);
        }
        involved
            .iter()
            .copied()
            .filter(|&u| failing_parents(u).is_empty())
            .max_by(|a, b| dist[*a].cmp(&dist[*b]).then_with(|| tie(b, a)))
            .unwrap_or(v)
    }

    proptest::proptest! {
        /// Random DAGs (edges forward, several parents per step) with random
        /// scores, mostly failing: the remembered walks give every step the
        /// root its own walk reaches, in the greedy and the weighted mode, and
        /// the single pass of `full_path` the root a search of the ancestors
        /// finds.
        #[test]
        fn remembered_walks_reach_the_same_roots(
            n in 1_usize..60,
            back in proptest::collection::vec((1_usize..5, 1_usize..9), 0..120),
            scores in proptest::collection::vec(proptest::option::weighted(0.9, 1.0_f64..5.0), 60),
        ) {
            let edges: Vec<(usize, usize)> = back
                .iter()
                .enumerate()
                .map(|(k, &(gap, extra))| ((k * extra) % n, gap))
                .filter(|&(to, gap)| to >= gap)
                .map(|(to, gap)| (to - gap, to))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            let d = dag(n, &edges);
            let v = verdicts(&scores[..n]);
            let mut position = vec![0; n];
            for (k, &i) in d.topological_order().iter().enumerate() {
                position[i] = k;
            }
            for mode in [RootCauseMode::Greedy, RootCauseMode::Weighted] {
                proptest::prop_assert_eq!(
                    attribute_root_causes(&d, &v, mode),
                    walked_alone(&d, &v, mode),
                    "{:?}", mode
                );
            }
            let failing_parents = |i: usize| -> Vec<usize> {
                d.parents(i).filter(|&p| v[p].failed).collect()
            };
            let score = |i: usize| v[i].score.unwrap_or(f64::INFINITY);
            let tie = |a: &usize, b: &usize| score(*a).total_cmp(&score(*b)).then(a.cmp(b));
            let searched: Vec<Attribution> = (0..n)
                .map(|i| match v[i].failed.then(|| deepest_origin(&d, &position, i, &failing_parents, &tie)) {
                    None => Attribution::Pass,
                    Some(root) if root == i => Attribution::RootCause,
                    Some(root) => Attribution::Propagated { root },
                })
                .collect();
            proptest::prop_assert_eq!(attribute_root_causes(&d, &v, RootCauseMode::FullPath), searched);
        }
    }
}
