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

use std::collections::{HashMap, VecDeque};

use crate::model::ShortText;
use crate::model::run::{CaseReport, DagStatus, Propagation};

fn status_name(status: DagStatus) -> &'static str {
    match status {
        DagStatus::None => "none",
        DagStatus::Dag => "dag",
        DagStatus::Unrolled => "unrolled",
        DagStatus::FlatFallback => "flat_fallback",
    }
}

/// Aggregate propagation statistics over `cases`.
pub(crate) fn propagation_stats(cases: &[CaseReport]) -> Propagation {
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
            if step.propagated_from().is_some() {
                p.propagated += 1;
            }
            if let Some(t) = step.taxonomy() {
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
///
/// One breadth-first search per root cause that something propagated from,
/// stopped once it has reached every step propagated from that root; a
/// root cause nothing propagated from is 1 without a search. Searching the
/// whole DAG from every root cause was quadratic: a 250,000-message chat
/// trace with thousands of failed tool calls kept `run` busy for minutes
/// (issue 25).
fn case_chain_lengths(case: &CaseReport) -> Vec<usize> {
    // Steps, then any other id an edge names, as indices; each edge's ids
    // are made and looked up once.
    let mut index: HashMap<ShortText, usize> = HashMap::with_capacity(case.steps.len());
    let mut at = |id: ShortText| {
        let next = index.len();
        *index.entry(id).or_insert(next)
    };
    for s in &case.steps {
        at(s.id.clone());
    }
    let pairs: Vec<(usize, usize)> = case
        .dag
        .edges
        .iter()
        .map(|edge| {
            let [from, to] = edge.ids();
            (at(from), at(to))
        })
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); index.len()];
    for (from, to) in pairs {
        children[from].push(to);
    }
    let mut propagated: HashMap<&str, Vec<usize>> = HashMap::new();
    for s in &case.steps {
        if let Some(root) = s.propagated_from() {
            propagated
                .entry(root)
                .or_default()
                .push(index[s.id.as_str()]);
        }
    }
    // Per node: the search that last reached it (`seen`), its distance
    // there, and the search that wants it (`wanted`); searches count from 1.
    let mut seen = vec![0_usize; index.len()];
    let mut wanted = vec![0_usize; index.len()];
    let mut distance = vec![0_usize; index.len()];
    let mut queue = VecDeque::new();
    let mut search = 0;
    case.steps
        .iter()
        .filter(|s| s.root_cause)
        .map(|root| {
            let Some(targets) = propagated.get(root.id.as_str()) else {
                return 1;
            };
            search += 1;
            let mut left = 0;
            for &t in targets {
                if wanted[t] != search {
                    wanted[t] = search;
                    left += 1;
                }
            }
            let start = index[root.id.as_str()];
            seen[start] = search;
            distance[start] = 0;
            queue.clear();
            queue.push_back(start);
            let mut longest = 0;
            while let Some(n) = queue.pop_front() {
                if wanted[n] == search {
                    longest = longest.max(distance[n]);
                    left -= 1;
                    if left == 0 {
                        break;
                    }
                }
                for &c in &children[n] {
                    if seen[c] != search {
                        seen[c] = search;
                        distance[c] = distance[n] + 1;
                        queue.push_back(c);
                    }
                }
            }
            1 + longest
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::StepEdge;
    use crate::model::run::{
        CaseStatus, CheckpointSummary, DagInfo, EvaluatorAudit, Quartiles, Scores, StepResult,
        TaxonomyLabel,
    };
    use crate::spec::model::StepType;

    fn step(
        id: &str,
        failed: bool,
        root: bool,
        from: Option<&str>,
        l3: Option<&str>,
    ) -> StepResult {
        StepResult {
            id: id.into(),
            step_type: StepType::Exec,
            name: id.into(),
            span_id: None,
            score: Some(if failed { 1.0 } else { 5.0 }),
            scored_by: "rules".into(),
            failed,
            root_cause: root,
            notes: "".into(),
            metrics: crate::model::StepMetrics::default(),
            agent: None,
            extra: crate::model::run::StepExtra {
                propagated_from: from.map(Into::into),
                taxonomy: l3.map(|l3| TaxonomyLabel {
                    l1: "Execution".into(),
                    l2: "tool_execution".into(),
                    l3: l3.into(),
                }),
                ..Default::default()
            }
            .boxed(),
        }
    }

    fn case(status: DagStatus, steps: Vec<StepResult>, edges: &[(&str, &str)]) -> CaseReport {
        CaseReport {
            id: "c".into(),
            trial: 0,
            tags: Vec::new(),
            status: CaseStatus::Ok,
            error: None,
            trace: None,
            scores: Scores::default(),
            summary: CheckpointSummary::default(),
            checkpoints: Vec::new(),
            dag: DagInfo {
                status,
                nodes: steps.len(),
                edges: edges.iter().map(|(a, b)| StepEdge::new(a, b)).collect(),
                deviations: Vec::new(),
            },
            steps,
            tool_use: crate::model::run::ToolUse::default(),
            cost: crate::model::run::Cost::default(),
            task: None,
            trace_judges: Vec::new(),
            position_dropout: Quartiles::default(),
            evaluator_audit: EvaluatorAudit::default(),
            warnings: Vec::new(),
            root_cause: None,
        }
    }

    #[test]
    fn counts_chains_taxonomy_and_statuses() {
        // Case 1: s1 root → s2 (pass) → s3 from s1 (2 edges away) ; s4 root alone.
        let a = case(
            DagStatus::Dag,
            vec![
                step("s1", true, true, None, Some("tool_error_response")),
                step("s2", false, false, None, None),
                step("s3", true, false, Some("s1"), Some("tool_timeout")),
                step("s4", true, true, None, Some("tool_error_response")),
            ],
            &[("s1", "s2"), ("s2", "s3"), ("s1", "s4")],
        );
        // Case 2: flat, one root, nothing propagated.
        let b = case(
            DagStatus::FlatFallback,
            vec![step("s1", true, true, None, None)],
            &[],
        );
        let p = propagation_stats(&[a, b]);
        assert_eq!((p.failing_steps, p.root_causes, p.propagated), (4, 3, 1));
        // chains: s1 → 1 + 2 = 3, s4 → 1, case 2's s1 → 1: mean 5/3
        assert!((p.mean_chain_length.unwrap() - 5.0 / 3.0).abs() < 1e-12);
        assert_eq!(
            p.taxonomy
                .get("Execution/tool_execution/tool_error_response"),
            Some(&2)
        );
        assert_eq!(
            p.taxonomy.get("Execution/tool_execution/tool_timeout"),
            Some(&1)
        );
        assert_eq!(
            p.dag_status,
            BTreeMap::from([("dag".to_owned(), 1), ("flat_fallback".to_owned(), 1)])
        );
        assert_eq!(propagation_stats(&[]).mean_chain_length, None);
    }

    /// The search over the whole DAG from every root cause, as it was
    /// before the early stop (the definition in the module docs, written
    /// out directly).
    fn chain_lengths_by_full_search(case: &CaseReport) -> Vec<usize> {
        let edges: Vec<[ShortText; 2]> = case.dag.edges.iter().map(StepEdge::ids).collect();
        let mut children: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for [from, to] in &edges {
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
                    .filter(|s| s.propagated_from() == Some(root.id.as_str()))
                    .filter_map(|s| dist.get(s.id.as_str()).copied())
                    .max()
                    .unwrap_or(0)
            })
            .collect()
    }

    proptest::proptest! {
        /// Random DAGs (edges forward in id order, some to ids that are no
        /// step, as in a report whose steps were cut), random root causes and
        /// propagation, including steps propagated from a root they cannot
        /// be reached from, from themselves, and from an id that is no root:
        /// the early-stopping search gives the full search's lengths.
        #[test]
        fn the_early_stop_changes_no_chain_length(
            n in 1_usize..40,
            back in proptest::collection::vec(0_usize..4, 40),
            extra in proptest::collection::vec((0_usize..45, 0_usize..45), 0..40),
            kinds in proptest::collection::vec((0_u8..5, 0_usize..45), 40),
        ) {
            // Mostly a chain with short jumps back (`back`: 0 = no parent),
            // so that roots reach the steps propagated from them at several
            // distances; extra edges forward, some to ids beyond the steps.
            let names: Vec<String> = (0..45).map(|i| format!("s{i}")).collect();
            let mut edges: Vec<(&str, &str)> = (1..n)
                .filter(|&i| back[i] > 0)
                .map(|i| (names[i.saturating_sub(back[i])].as_str(), names[i].as_str()))
                .collect();
            edges.extend(
                extra
                    .iter()
                    .filter(|(a, b)| a < b)
                    .map(|&(a, b)| (names[a].as_str(), names[b].as_str())),
            );
            let mut last_root: Option<usize> = None;
            let steps: Vec<StepResult> = (0..n)
                .map(|i| {
                    let (kind, other) = kinds[i];
                    let id = names[i].as_str();
                    match kind {
                        0 => step(id, false, false, None, None),
                        1 => {
                            last_root = Some(i);
                            step(id, true, true, None, None)
                        }
                        // From the latest root, from any id (itself, a
                        // later step, no root, no step).
                        2 | 3 => step(id, true, false, Some(&names[last_root.unwrap_or(other)]), None),
                        _ => step(id, true, false, Some(&names[other]), None),
                    }
                })
                .collect();
            let c = case(DagStatus::Dag, steps, &edges);
            proptest::prop_assert_eq!(case_chain_lengths(&c), chain_lengths_by_full_search(&c));
        }
    }
}
