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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
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
            propagated_from: from.map(Into::into),
            taxonomy: l3.map(|l3| {
                Box::new(TaxonomyLabel {
                    l1: "Execution".into(),
                    l2: "tool_execution".into(),
                    l3: l3.into(),
                })
            }),
            workflow_step: None,
            notes: "".into(),
            compensated: false,
            metrics: crate::model::StepMetrics::default(),
            agent: None,
            attempt: None,
            judge_missing: false,
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
                edges: edges
                    .iter()
                    .map(|(a, b)| [(*a).to_owned(), (*b).to_owned()])
                    .collect(),
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
}
