//! Root causes and Q on hand-built DAGs whose answers are worked out by hand.

use agenteval_gate::dag::{
    Attribution, Dag, Edge, EdgeKind, NodeVerdict, attribute_root_causes, workflow_quality,
};
use agenteval_gate::eval::{RulesScorer, StepContext, StepSettings, ToolCatalog, evaluate_steps};
use agenteval_gate::model::DagStatus;
use agenteval_gate::spec::ExpectedOutput;
use agenteval_gate::spec::model::RootCauseMode::{self, FullPath, Greedy, Weighted};
use agenteval_gate::spec::model::StepType::{self, Exec, ParamGen, Plan, Synth, ToolSel};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::{TraceBuilder, nodes};
use crate::common::close;

/// A DAG of `types` with edges between 1-based step numbers.
fn dag(types: &[StepType], edges: &[(usize, usize)]) -> Dag {
    let edges = edges
        .iter()
        .map(|&(a, b)| Edge::new(a - 1, b - 1, EdgeKind::Flow))
        .collect();
    Dag::new(DagStatus::Dag, nodes(types), edges, Vec::new()).unwrap()
}

/// Verdicts with each type's default threshold.
fn verdicts(dag: &Dag, scores: &[Option<f64>]) -> Vec<NodeVerdict> {
    dag.nodes
        .iter()
        .zip(scores)
        .map(|(n, s)| NodeVerdict::new(*s, n.step_type.default_threshold()))
        .collect()
}

/// Attributions rendered as `"root"`, `"<-sN"`, or `"ok"` per step.
fn attribution(dag: &Dag, scores: &[Option<f64>], mode: RootCauseMode) -> Vec<String> {
    attribute_root_causes(dag, &verdicts(dag, scores), mode)
        .into_iter()
        .map(|a| match a {
            Attribution::Pass => "ok".to_owned(),
            Attribution::RootCause => "root".to_owned(),
            Attribution::Propagated { root } => format!("<-s{}", root + 1),
        })
        .collect()
}

/// `(id, score, compensated, root_cause, propagated_from)` of one step.
type Row<'a> = (&'a str, Option<f64>, bool, bool, Option<&'a str>);

#[test]
fn single_chain_roots_at_the_first_failure() {
    let d = dag(
        &[Plan, ToolSel, ParamGen, Exec, Synth],
        &[(1, 2), (2, 3), (3, 4), (4, 5)],
    );
    let scores = [Some(4.0), Some(4.0), Some(1.0), Some(1.0), Some(2.0)];
    for mode in [Greedy, FullPath, Weighted] {
        assert_eq!(
            attribution(&d, &scores, mode),
            ["ok", "ok", "root", "<-s3", "<-s3"],
            "{mode:?}"
        );
    }
    // w = |descendants| + 1 = 5, 4, 3, 2, 1
    // Q = 15 / (5/4 + 4/4 + 3/1 + 2/1 + 1/2) = 15 / 7.75
    assert!(close(
        workflow_quality(&d, scores.iter().copied()).unwrap(),
        15.0 / 7.75
    ));
}

#[test]
fn converging_branches_follow_the_lowest_scoring_parent() {
    // s1 PLAN → s2 TOOLSEL → s3 PARAMGEN → s5 EXEC ┐
    //                      └→ s4 PARAMGEN → s6 EXEC ┴→ s7 SYNTH
    let d = dag(
        &[Plan, ToolSel, ParamGen, ParamGen, Exec, Exec, Synth],
        &[(1, 2), (2, 3), (2, 4), (3, 5), (4, 6), (5, 7), (6, 7)],
    );
    let scores = [
        Some(4.0),
        Some(4.0),
        Some(2.0),
        Some(5.0),
        Some(1.0),
        Some(2.0),
        Some(1.0),
    ];
    // greedy: s7's failing parents s5 (1.0), s6 (2.0) → s5 → s3 (2.0 < 2.5) → s2 passes: root s3.
    // s6's only parent s4 passes: s6 is its own root.
    let expected = ["ok", "ok", "root", "ok", "<-s3", "root", "<-s3"];
    assert_eq!(attribution(&d, &scores, Greedy), expected);
    // full_path: origins of s7 are s3 (s3→s5→s7, 2 edges) and s6 (1 edge): the deeper s3.
    assert_eq!(attribution(&d, &scores, FullPath), expected);
    // weighted: (3−1)×(1+1) = 4 for s5 against (3−2)×(1+1) = 2 for s6: s5, then s3.
    assert_eq!(attribution(&d, &scores, Weighted), expected);
    // w = 7, 6, 3, 3, 2, 2, 1
    // Q = 24 / (7/4 + 6/4 + 3/2 + 3/5 + 2/1 + 2/2 + 1/1) = 24 / 9.35
    assert!(close(
        workflow_quality(&d, scores.iter().copied()).unwrap(),
        24.0 / 9.35
    ));
}

#[test]
fn modes_pick_different_roots_when_paths_disagree() {
    // s1 (2.9) → s2 (2.0) → s4 (1.0); s3 (1.0) → s4 ; all EXEC (threshold 3).
    // greedy from s4: parents s2 (2.0), s3 (1.0) → s3, a source: root s3.
    // full_path: origins s1 (s1→s2→s4, 2 edges) and s3 (1 edge): root s1.
    // weighted: s2: (3−2)×(1+1) = 2, s3: (3−1)×(1+1) = 4 → s3.
    let d = dag(&[Exec, Exec, Exec, Exec], &[(1, 2), (2, 4), (3, 4)]);
    let scores = [Some(2.9), Some(2.0), Some(1.0), Some(1.0)];
    assert_eq!(
        attribution(&d, &scores, Greedy),
        ["root", "<-s1", "root", "<-s3"]
    );
    assert_eq!(
        attribution(&d, &scores, FullPath),
        ["root", "<-s1", "root", "<-s1"]
    );
    assert_eq!(
        attribution(&d, &scores, Weighted),
        ["root", "<-s1", "root", "<-s3"]
    );
}

#[test]
fn long_chains_propagate_to_the_first_failure_after_a_pass() {
    let n = 30;
    let edges: Vec<(usize, usize)> = (1..n).map(|i| (i, i + 1)).collect();
    let d = dag(&vec![Exec; n], &edges);
    let mut scores = vec![Some(1.0); n];
    scores[10] = Some(5.0); // s11 passes
    let a = attribution(&d, &scores, Greedy);
    assert_eq!(a[0], "root");
    assert!(a[1..10].iter().all(|x| x == "<-s1"), "{a:?}");
    assert_eq!(a[10], "ok");
    assert_eq!(a[11], "root");
    assert!(a[12..].iter().all(|x| x == "<-s12"), "{a:?}");
    // w(s11) = 20 and q = 5; the other 29 steps have q = 1 and w = 30 − i + 1 for step i.
    // Σw = 465, Σ w/q = (465 − 20) + 20/5 = 449  →  Q = 465 / 449
    assert!(close(
        workflow_quality(&d, scores.iter().copied()).unwrap(),
        465.0 / 449.0
    ));
}

#[test]
fn parallel_failures_are_separate_roots() {
    // s1 TOOLSEL → s2, s3 PARAMGEN → s4, s5 EXEC → s6 SYNTH
    let d = dag(
        &[ToolSel, ParamGen, ParamGen, Exec, Exec, Synth],
        &[(1, 2), (1, 3), (2, 4), (3, 5), (4, 6), (5, 6)],
    );
    let scores = [None, Some(2.0), Some(1.0), Some(1.0), Some(1.0), Some(2.0)];
    // s6: parents s4 and s5 tie at 1.0 → the earlier s4 → s2 (2.0 < 2.5): root s2.
    assert_eq!(
        attribution(&d, &scores, Greedy),
        ["ok", "root", "root", "<-s2", "<-s3", "<-s2"]
    );
    // s1 is N/A: left out of Q. w = 3, 3, 2, 2, 1 for s2..s6.
    // Q = 11 / (3/2 + 3/1 + 2/1 + 2/1 + 1/2) = 11 / 9
    assert!(close(
        workflow_quality(&d, scores.iter().copied()).unwrap(),
        11.0 / 9.0
    ));
}

#[test]
fn a_compensated_failure_never_roots_what_follows() {
    // Hand-built: s1 EXEC (failed attempt, compensated) → s2 EXEC (retry, ok) → s3 SYNTH (fails),
    // plus s1 → s3 directly. s3's only failing parent is compensated: s3 is its own root.
    let mut d = dag(&[Exec, Exec, Synth], &[(1, 2), (1, 3), (2, 3)]);
    d.nodes[0].compensated = true;
    let scores = [Some(1.0), Some(5.0), Some(1.0)];
    assert_eq!(attribution(&d, &scores, Greedy), ["root", "ok", "root"]);

    // The same through the whole pipeline: a retried payment, then a wrong answer.
    let mut t = TraceBuilder::chat();
    t.llm("", &[("c1", "refund", json!({"order": 7}))]);
    t.tool_error("c1", "refund", None, "503 service unavailable");
    t.llm("", &[("c2", "refund", json!({"order": 7}))]);
    t.tool("c2", "refund", None, json!({"status": "done"}));
    t.llm("Your order was shipped.", &[]);
    let expected: ExpectedOutput = serde_saphyr::from_str("{contains: refunded}").unwrap();
    let catalog = ToolCatalog::empty();
    let settings = StepSettings::default();
    let ctx = StepContext {
        expected_output: Some(&expected),
        ..StepContext::new(&catalog, &settings, &RulesScorer)
    };
    let eval = evaluate_steps(&t.build(), &ctx);
    let steps = eval.steps();
    let summary: Vec<Row<'_>> = steps
        .iter()
        .map(|s| {
            (
                s.id.as_str(),
                s.score,
                s.compensated(),
                s.root_cause,
                s.propagated_from(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("s1", None, false, false, None),
            ("s2", None, false, false, None),
            ("s3", Some(1.0), true, true, None),
            ("s4", None, false, false, None),
            ("s5", None, false, false, None),
            ("s6", Some(5.0), false, false, None),
            ("s7", Some(1.0), false, true, None),
        ]
    );
    assert_eq!(eval.graph.status, DagStatus::Unrolled);
    assert_eq!(eval.task.as_ref().and_then(|t| t.success), Some(false));
    // Scored: s3 (q 1, descendants s4..s7 → w 5), s6 (q 5, w 2), s7 (q 1, w 1).
    // Q = 8 / (5/1 + 2/5 + 1/1) = 8 / 6.4 = 1.25
    assert!(
        close(eval.workflow_quality.unwrap(), 1.25),
        "{:?}",
        eval.workflow_quality
    );
}
