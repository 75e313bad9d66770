//! The Mermaid and JSON views of a scored DAG.

use agenteval_gate::dag::render_mermaid_case;
use agenteval_gate::eval::{RulesScorer, StepContext, StepSettings, ToolCatalog, evaluate_steps};
use agenteval_gate::model::{
    CaseReport, CaseStatus, CheckpointSummary, EvaluatorAudit, Quartiles, Scores,
};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::TraceBuilder;

fn evaluation() -> agenteval_gate::eval::StepEvaluation {
    let mut t = TraceBuilder::chat();
    t.llm("", &[("c1", "pay", json!({"amount": 5}))]);
    t.tool_error("c1", "pay", None, "503 unavailable");
    t.llm("", &[("c2", "pay", json!({"amount": 5}))]);
    t.tool("c2", "pay", None, json!("Error: card declined"));
    t.llm("Sorry, \"payment\" failed <again>.", &[]);
    let catalog = ToolCatalog::empty();
    let settings = StepSettings::default();
    evaluate_steps(
        &t.build(),
        &StepContext::new(&catalog, &settings, &RulesScorer),
    )
}

#[test]
fn mermaid_of_a_scored_trace_is_exact_and_matches_the_saved_case_view() {
    let eval = evaluation();
    let expected = r#"flowchart TD
    s1["s1 TOOLSEL pay<br/>N/A"]
    s2["s2 PARAMGEN pay<br/>N/A"]
    s3["s3 EXEC pay<br/>1.0 · root cause · retried"]
    s4["s4 TOOLSEL pay<br/>N/A"]
    s5["s5 PARAMGEN pay<br/>N/A"]
    s6["s6 EXEC pay<br/>1.0 · root cause"]
    s7["s7 SYNTH assistant<br/>N/A"]
    s1 --> s2
    s1 --> s4
    s2 --> s3
    s3 -.-> s4
    s3 -.-> s6
    s4 --> s5
    s4 --> s7
    s5 --> s6
    s6 --> s7
    classDef root fill:#f8d7da,stroke:#c62828,stroke-width:2px,color:#000
    classDef propagated fill:#ffe0b2,stroke:#ef6c00,color:#000
    classDef compensated stroke-dasharray:5 5
    class s3,s6 root
    class s3 compensated
"#;
    assert_eq!(eval.mermaid(), expected);

    let case = CaseReport {
        id: "c".into(),
        trial: 0,
        tags: Vec::new(),
        status: CaseStatus::Ok,
        error: None,
        trace: None,
        scores: Scores::default(),
        summary: CheckpointSummary::default(),
        checkpoints: Vec::new(),
        steps: eval.steps().clone(),
        dag: eval.dag_info(),
        tool_use: eval.tool_use.clone(),
        cost: eval.cost.clone(),
        task: None,
        trace_judges: Vec::new(),
        position_dropout: Quartiles::default(),
        evaluator_audit: EvaluatorAudit::default(),
        warnings: Vec::new(),
        root_cause: None,
    };
    // Round-trip through the report JSON: the PR comment renders from a saved report.
    let saved: CaseReport = serde_json::from_str(&serde_json::to_string(&case).unwrap()).unwrap();
    assert_eq!(render_mermaid_case(&saved), expected);
}

#[test]
fn json_view_carries_nodes_edges_scores_and_statuses() {
    let eval = evaluation();
    let view = serde_json::to_value(eval.view()).unwrap();
    assert_eq!(view["status"], "unrolled");
    assert_eq!(
        view["notes"][0],
        "retry of `pay` unrolled into 2 attempts: s3 s6"
    );
    assert_eq!(view["nodes"].as_array().unwrap().len(), 7);
    let s3 = &view["nodes"][2];
    assert_eq!(s3["id"], "s3");
    assert_eq!(s3["type"], "EXEC");
    assert_eq!(s3["score"], 1.0);
    assert_eq!(s3["compensated"], true);
    assert_eq!(s3["attempt"], json!({"number": 1, "of": 2}));
    assert_eq!(s3["taxonomy"]["l3"], "tool_error_response");
    assert_eq!(s3["arguments"], json!({"amount": 5}));
    assert_eq!(view["nodes"][6]["final_answer"], true);
    assert_eq!(
        view["nodes"][6]["output_preview"],
        "Sorry, \"payment\" failed <again>."
    );
    assert_eq!(
        view["edges"][3],
        json!({"from": "s3", "to": "s4", "kind": "result"})
    );
    assert_eq!(
        view["edges"][4],
        json!({"from": "s3", "to": "s6", "kind": "retry"})
    );
    // Same input, same bytes.
    assert_eq!(
        serde_json::to_string(&eval.view()).unwrap(),
        serde_json::to_string(&evaluation().view()).unwrap()
    );
}
