//! Suite-level root-cause propagation statistics from saved case results.
//!
//! - `failing_steps`, `root_causes`, `propagated`: counts over every case;
//! - `mean_chain_length`: for each root cause, the length in steps of the
//!   longest propagation chain it starts — 1 + the largest number of edges
//!   from the root to a step propagated from it (shortest path over the
//!   case's `dag.edges`); a root cause nothing propagated from counts 1. The
//!   mean over all root causes; `None` when there are none;
//! - `taxonomy`: `l1/l2/l3` → failing steps with that label;
//! - `dag_status`: DAG status → cases.

use std::collections::{BTreeMap, VecDeque};

use crate::report::model::{CaseReport, DagStatus, Propagation};

fn status_name(status: DagStatus) -> &'static str {
    match status {
        DagStatus::None => "none",
        DagStatus::Dag => "dag",
        DagStatus::Unrolled => "unrolled",
        DagStatus::FlatFallback => "flat_fallback",
    }
}

/// Aggregate propagation statistics over `cases`.
pub fn propagation_stats(cases: &[CaseReport]) -> Propagation {
    let mut p = Propagation::default();
    let mut chain_lengths: Vec<usize> = Vec::new();
    for case in cases {
        *p.dag_status
            .entry(status_name(case.dag.status).to_owned())
            .or_default() += 1;
        for step in case.steps.iter().filter(|s| s.failed) {
            p.failing_steps += 1;
            if step.root_cause {
                p.root_causes += 1;
            }
            if step.propagated_from.is_some() {
                p.propagated += 1;
            }
            if let Some(t) = &step.taxonomy {
                *p.taxonomy
                    .entry(format!("{}/{}/{}", t.l1, t.l2, t.l3))
                    .or_default() += 1;
            }
        }
        chain_lengths.extend(case_chain_lengths(case));
    }
    p.mean_chain_length = (!chain_lengths.is_empty())
        .then(|| chain_lengths.iter().sum::<usize>() as f64 / chain_lengths.len() as f64);
    p
}

/// The chain length of every root cause of one case.
fn case_chain_lengths(case: &CaseReport) -> Vec<usize> {
    let mut children: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for [from, to] in &case.dag.edges {
        children.entry(from.as_str()).or_default().push(to.as_str());
    }
    case.steps
        .iter()
        .filter(|s| s.root_cause)
        .map(|root| {
            let mut dist: BTreeMap<&str, usize> = BTreeMap::from([(root.id.as_str(), 0)]);
            let mut queue = VecDeque::from([root.id.as_str()]);
            while let Some(n) = queue.pop_front() {
                let d = dist[n];
                for &c in children.get(n).map_or(&[][..], Vec::as_slice) {
                    if !dist.contains_key(c) {
                        dist.insert(c, d + 1);
                        queue.push_back(c);
                    }
                }
            }
            1 + case
                .steps
                .iter()
                .filter(|s| s.propagated_from.as_deref() == Some(root.id.as_str()))
                .filter_map(|s| dist.get(s.id.as_str()).copied())
                .max()
                .unwrap_or(0)
        })
        .collect()
}
