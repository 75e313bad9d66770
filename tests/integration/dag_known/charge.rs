//! Issue 14: an execution that failed on its input is charged to the step
//! and agent that produced the input; infrastructure failures stay on the
//! execution. Hand-built traces whose answers are worked out by hand.

use agenteval_gate::eval::{
    RulesScorer, StepContext, StepEvaluation, StepSettings, ToolCatalog, evaluate_steps,
};
use agenteval_gate::model::RootCauseStatus;
use agenteval_gate::spec::RootCauseMode;
use agenteval_gate::spec::model::StepType::{self, Exec, ParamGen};
use agenteval_gate::trace::Trace;
use agenteval_gate::trace::read_trace;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::TraceBuilder;

fn evaluate(trace: &Trace) -> StepEvaluation {
    let catalog = ToolCatalog::empty();
    let settings = StepSettings::default();
    evaluate_steps(trace, &StepContext::new(&catalog, &settings, &RulesScorer))
}

/// `(type, span, agent, score, root_cause, propagated_from)` of the failing steps.
type Failing = (StepType, String, String, Option<f64>, bool, Option<String>);

fn failing(eval: &StepEvaluation) -> Vec<Failing> {
    eval.steps()
        .iter()
        .zip(&eval.graph.nodes)
        .filter(|(s, _)| s.failed)
        .map(|(s, n)| {
            (
                s.step_type,
                s.span_id.as_deref().unwrap_or_default().to_owned(),
                n.agent.as_deref().unwrap_or_default().to_owned(),
                s.score,
                s.root_cause,
                s.propagated_from().map(str::to_owned),
            )
        })
        .collect()
}

fn row(
    t: StepType,
    span: &str,
    agent: &str,
    score: f64,
    root: bool,
    from: Option<&str>,
) -> Failing {
    (
        t,
        span.into(),
        agent.into(),
        Some(score),
        root,
        from.map(Into::into),
    )
}

#[test]
fn magentic_one_terminal_failures_land_on_the_orchestrator_unless_the_network_failed() {
    let log = json!({
        "question": "What is 2 + 2?",
        "mistake_agent": "Orchestrator",
        "mistake_step": "2",
        "history": [
            {"role": "human", "content": "What is 2 + 2?"},
            {"role": "Orchestrator (thought)", "content": "We should compute it with code."},
            {"role": "Orchestrator (-> ComputerTerminal)", "content": "Please run a script that adds the numbers."},
            {"role": "ComputerTerminal", "content": "No code block detected in the messages. Please provide a markdown-encoded code block to execute for the original task."},
            {"role": "Orchestrator (-> ComputerTerminal)", "content": "```python\nprint(x + 2)\n```"},
            {"role": "ComputerTerminal", "content": "The script ran, then exited with Unix exit code: 1\nIts output was:\nTraceback (most recent call last):\n  File \"/workspace/tmp_code.py\", line 1, in <module>\n    print(x + 2)\nNameError: name 'x' is not defined"},
            {"role": "Orchestrator (-> ComputerTerminal)", "content": "```python\nimport urllib.request\nprint(urllib.request.urlopen('http://example.com').status)\n```"},
            {"role": "ComputerTerminal", "content": "The script ran, then exited with Unix exit code: 1\nIts output was:\nTraceback (most recent call last):\nTimeoutError: [Errno 110] Connection timed out"},
            {"role": "Orchestrator (-> ComputerTerminal)", "content": "```python\nprint(2 + 2)\n```"},
            {"role": "ComputerTerminal", "content": "The script ran, then exited with Unix exit code: 0\nIts output was:\n4"},
            {"role": "Orchestrator (termination condition)", "content": "FINAL ANSWER: 4"}
        ]
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("magentic.json");
    std::fs::write(&path, log.to_string()).unwrap();
    let trace = read_trace(&path).unwrap();
    let eval = evaluate(&trace);
    let pg_of = |span: &str| {
        eval.steps()
            .iter()
            .find(|s| s.step_type == ParamGen && s.span_id.as_deref() == Some(span))
            .map(|s| s.id.clone())
            .unwrap()
    };
    let (first, second) = (pg_of("m2"), pg_of("m4"));
    assert_eq!(
        failing(&eval),
        [
            // No code block: the orchestrator's request (m2) is the root, the run propagates.
            row(ParamGen, "m2", "Orchestrator", 1.0, true, None),
            row(Exec, "m3", "ComputerTerminal", 1.0, false, Some(&first)),
            // A NameError in the orchestrator's code (m4).
            row(ParamGen, "m4", "Orchestrator", 1.0, true, None),
            row(Exec, "m5", "ComputerTerminal", 1.0, false, Some(&second)),
            // A network timeout is the infrastructure's: it stays on the run.
            row(Exec, "m7", "ComputerTerminal", 1.0, true, None),
        ]
    );
    let pg = eval.steps().into_iter().find(|s| s.id == second).unwrap();
    assert!(
        pg.notes.contains("NameError: name 'x' is not defined"),
        "{}",
        pg.notes
    );
    assert_eq!(
        pg.taxonomy().map(|t| t.l3.as_str()),
        Some("invalid_parameter_value")
    );
    // The code that ran fine (m8) is not charged, and stays N/A.
    let ok = eval
        .steps()
        .into_iter()
        .find(|s| s.id == pg_of("m8"))
        .unwrap();
    assert_eq!(ok.score, None);
    // The case's decisive root cause: the earliest, on the agent that wrote the input.
    let rc = eval.root_cause.as_ref().unwrap();
    assert_eq!(
        (
            rc.status,
            rc.method,
            rc.step.as_deref(),
            rc.span_id.as_deref(),
            rc.agent.as_deref(),
            rc.by.as_str()
        ),
        (
            RootCauseStatus::Named,
            RootCauseMode::Greedy,
            Some(first.as_str()),
            Some("m2"),
            Some("Orchestrator"),
            "rules"
        )
    );
    assert!(
        rc.reason.contains("No code block detected"),
        "{}",
        rc.reason
    );
}

#[test]
fn a_not_found_id_is_charged_to_the_arguments_and_a_503_stays_on_the_call() {
    let mut t = TraceBuilder::chat();
    t.llm("", &[("c1", "get_user", json!({"user_id": "mia_li_3669"}))]);
    t.tool("c1", "get_user", None, json!("Error: user not found"));
    t.llm("", &[("c2", "get_order", json!({"order_id": "#W1"}))]);
    t.tool_error("c2", "get_order", None, "HTTP 503 Service Unavailable");
    t.llm("", &[("c3", "cancel", json!({"order_id": "#W1"}))]);
    t.tool(
        "c3",
        "cancel",
        None,
        json!("Error: the order cannot be cancelled"),
    );
    t.llm("Sorry, I could not help.", &[]);
    let eval = evaluate(&t.build());
    let rows: Vec<(StepType, bool, Option<String>)> = eval
        .steps()
        .iter()
        .filter(|s| s.failed)
        .map(|s| {
            (
                s.step_type,
                s.root_cause,
                s.propagated_from().map(str::to_owned),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            // user not found: the arguments (s2) are the root.
            (ParamGen, true, None),
            (Exec, false, Some("s2".to_owned())),
            // 503: infrastructure, the call itself.
            (Exec, true, None),
            // An error the rules cannot place stays on the call too.
            (Exec, true, None),
        ]
    );
    assert_eq!(
        eval.root_cause.as_ref().and_then(|r| r.step.as_deref()),
        Some("s2")
    );
}

#[test]
fn a_failed_attempt_that_a_retry_superseded_is_not_charged() {
    let mut t = TraceBuilder::chat();
    t.llm("", &[("c1", "lookup", json!({"id": 7}))]);
    t.tool("c1", "lookup", None, json!("Error: record 7 not found"));
    t.llm("", &[("c2", "lookup", json!({"id": 7}))]);
    t.tool("c2", "lookup", None, json!({"id": 7, "name": "x"}));
    t.llm("Found it.", &[]);
    let eval = evaluate(&t.build());
    assert!(
        eval.steps()
            .iter()
            .all(|s| s.step_type != ParamGen || s.score.is_none()),
        "{:?}",
        eval.steps()
    );
    // The superseded attempt is reported, but it is not the case's root cause.
    assert!(eval.steps().iter().any(|s| s.compensated() && s.root_cause));
    assert_eq!(eval.root_cause, None);
}
