//! Retry unrolling (DESIGN §5, "non-DAG handling").
//!
//! A retry is an EXEC of the same tool with the same arguments (compared as
//! canonical JSON) by the same agent after an identical EXEC failed (see
//! [`super::outcome`]). Executions whose arguments the trace does not record
//! (`None` or `null`, e.g. a chat log's code terminal) are never retries:
//! there is nothing to compare. Each run of such attempts becomes a chain of
//! sequential nodes, attempt k → attempt k+1 (a `retry` edge), holding at
//! most [`MAX_ATTEMPTS`]. The last attempt is canonical; earlier attempts are
//! *compensated*: they stay in the report with their scores but never
//! propagate a failure downstream. A chain longer than the cap is a loop the
//! DAG cannot represent: the trace falls back to flat evaluation.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::model::{Attempt, Edge, EdgeKind, Node};
use super::outcome::exec_outcome;
use crate::model::ShortText;
use crate::spec::model::StepType;

/// Most attempts one retry chain may hold (`AgentEval`'s unroll cap).
pub const MAX_ATTEMPTS: usize = 5;

/// What unrolling did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unrolled {
    /// No retries.
    None,
    /// Chains were unrolled; one description per chain.
    Chains(Vec<String>),
    /// A chain exceeded [`MAX_ATTEMPTS`]; the reason.
    Overflow(String),
}

/// Find retry chains among the EXEC nodes, number their attempts, mark the
/// compensated ones and add `retry` edges.
pub(crate) fn unroll_retries(nodes: &mut [Node], edges: &mut Vec<Edge>) -> Unrolled {
    type Key = (Option<ShortText>, ShortText, String);
    let mut open: BTreeMap<Key, Vec<usize>> = BTreeMap::new();
    let mut chains: Vec<Vec<usize>> = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let Some(args) = node.arguments.as_ref().filter(|a| !a.is_null()) else {
            continue;
        };
        if node.step_type != StepType::Exec {
            continue;
        }
        let key: Key = (
            node.agent.clone(),
            // An EXEC's tool is its name.
            node.name.clone(),
            // Canonical text: equal arguments whatever order the trace
            // wrote their keys in.
            args.compact().into_owned(),
        );
        let failed = exec_outcome(node).is_failure();
        match open.remove(&key) {
            Some(mut chain) => {
                chain.push(i);
                if failed {
                    open.insert(key, chain);
                } else {
                    chains.push(chain);
                }
            }
            None if failed => {
                open.insert(key, vec![i]);
            }
            None => {}
        }
    }
    chains.extend(open.into_values());
    chains.retain(|c| c.len() >= 2);
    chains.sort();
    if chains.is_empty() {
        return Unrolled::None;
    }
    if let Some(long) = chains.iter().find(|c| c.len() > MAX_ATTEMPTS) {
        let first = &nodes[long[0]];
        return Unrolled::Overflow(format!(
            "`{}` was retried with the same arguments {} times in a row (steps s{}…s{}), more than the {MAX_ATTEMPTS} attempts a retry chain may unroll to",
            first.name,
            long.len(),
            long[0] + 1,
            long[long.len() - 1] + 1,
        ));
    }
    let mut described = Vec::with_capacity(chains.len());
    for chain in &chains {
        let of = chain.len();
        for (k, &i) in chain.iter().enumerate() {
            // A chain is at most MAX_ATTEMPTS long: the numbers fit.
            let (number, count) = (
                u32::try_from(k + 1).unwrap_or(u32::MAX),
                u32::try_from(of).unwrap_or(u32::MAX),
            );
            nodes[i].attempt = Some(Attempt { number, of: count });
            nodes[i].compensated = k + 1 < of;
            if let Some(&next) = chain.get(k + 1) {
                edges.push(Edge::new(i, next, EdgeKind::Retry));
            }
        }
        let mut text = format!(
            "retry of `{}` unrolled into {of} attempts:",
            nodes[chain[0]].name
        );
        for &i in chain {
            let _ = write!(text, " s{}", i + 1);
        }
        described.push(text);
    }
    Unrolled::Chains(described)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use serde_json::Value;

    use super::*;

    fn exec(tool: &str, args: Value, error: bool) -> Node {
        let mut n = Node::new(StepType::Exec, tool);
        n.arguments = Some(args.into());
        n.output = Some(json!("ok").into());
        if error {
            n.set_error(Some("boom".into()));
        }
        n
    }

    #[test]
    fn failed_attempts_before_a_success_are_compensated() {
        let mut nodes = vec![
            exec("lookup", json!({"id": 1}), true),
            exec("other", json!({}), false),
            exec("lookup", json!({"id": 1}), true),
            exec("lookup", json!({"id": 1}), false),
            exec("lookup", json!({"id": 1}), false),
        ];
        let mut edges = Vec::new();
        let out = unroll_retries(&mut nodes, &mut edges);
        assert!(
            matches!(out, Unrolled::Chains(ref c) if c.len() == 1 && c[0].ends_with("s1 s3 s4"))
        );
        assert_eq!(
            nodes.iter().map(|n| n.compensated).collect::<Vec<_>>(),
            [true, false, true, false, false]
        );
        assert_eq!(nodes[3].attempt, Some(Attempt { number: 3, of: 3 }));
        assert_eq!(
            nodes[4].attempt, None,
            "a repeat after a success is not a retry"
        );
        assert_eq!(
            edges,
            [
                Edge::new(0, 2, EdgeKind::Retry),
                Edge::new(2, 3, EdgeKind::Retry)
            ]
        );
    }

    #[test]
    fn unrecorded_arguments_are_never_retries() {
        let mut nodes = vec![
            exec("terminal", Value::Null, true),
            exec("terminal", Value::Null, false),
        ];
        nodes[1].arguments = None;
        assert_eq!(unroll_retries(&mut nodes, &mut Vec::new()), Unrolled::None);
    }

    #[test]
    fn different_arguments_are_a_correction_not_a_retry() {
        let mut nodes = vec![
            exec("lookup", json!({"id": 1}), true),
            exec("lookup", json!({"id": 2}), false),
        ];
        assert_eq!(unroll_retries(&mut nodes, &mut Vec::new()), Unrolled::None);
        assert!(!nodes[0].compensated);
    }

    #[test]
    fn a_chain_over_the_cap_overflows() {
        let mut nodes: Vec<Node> = (0..6)
            .map(|_| exec("flaky", json!({"x": 1}), true))
            .collect();
        match unroll_retries(&mut nodes, &mut Vec::new()) {
            Unrolled::Overflow(reason) => assert!(reason.contains("6 times"), "{reason}"),
            other => panic!("expected overflow, got {other:?}"),
        }
        let mut five: Vec<Node> = (0..5)
            .map(|_| exec("flaky", json!({"x": 1}), true))
            .collect();
        assert!(matches!(
            unroll_retries(&mut five, &mut Vec::new()),
            Unrolled::Chains(_)
        ));
        assert!(!five[4].compensated && five[3].compensated);
    }
}
