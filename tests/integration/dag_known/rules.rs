//! The rules scorer: every outcome it can label, through `evaluate_steps`.

use agenteval_gate::eval::{
    Failure, RulesScorer, StepContext, StepSettings, ToolCatalog, evaluate_steps,
};
use agenteval_gate::model::StepResult;
use agenteval_gate::spec::ExpectedOutput;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::{TraceBuilder, tools, workflow};

const CATALOG: &str = "
- name: book
  schema:
    type: object
    required: [user_id, cabin]
    properties:
      user_id: {type: string}
      cabin: {enum: [economy, business]}
      seats: {type: integer, minimum: 1}
- name: lookup
  schema: {type: object, required: [id], properties: {id: {type: string}}}
";

fn label(step: &StepResult) -> Option<String> {
    step.taxonomy()
        .map(|t| format!("{}/{}/{}", t.l1, t.l2, t.l3))
}

fn row(step: &StepResult) -> (String, Option<f64>, bool, Option<String>, Option<String>) {
    (
        step.id.to_string(),
        step.score,
        step.failed,
        label(step),
        step.propagated_from().map(str::to_owned),
    )
}

#[test]
fn every_rules_outcome_gets_its_score_and_label() {
    let mut t = TraceBuilder::chat();
    t.llm("", &[("c1", "book", json!({"cabin": "economy"}))]);
    t.tool("c1", "book", None, json!("Error: user_id is required"));
    t.llm(
        "",
        &[("c2", "book", json!({"user_id": 7, "cabin": "economy"}))],
    );
    t.tool_error("c2", "book", None, "deadline exceeded after 30s");
    t.llm(
        "",
        &[("c3", "book", json!({"user_id": "u", "cabin": "first"}))],
    );
    t.tool_error("c3", "book", None, "invalid cabin");
    t.llm(
        "",
        &[(
            "c4",
            "book",
            json!({"user_id": "u", "cabin": "economy", "seats": 0}),
        )],
    );
    t.tool("c4", "book", None, json!({"reservation": "R1"}));
    t.llm("", &[("c5", "teleport", json!({}))]);
    t.llm("Your booking is done.", &[]);
    let catalog = ToolCatalog::new(&tools(CATALOG)).unwrap();
    let settings = StepSettings::default();
    let expected: ExpectedOutput = serde_saphyr::from_str("{contains: refund}").unwrap();
    let ctx = StepContext {
        expected_output: Some(&expected),
        ..StepContext::new(&catalog, &settings, &RulesScorer)
    };
    let eval = evaluate_steps(&t.build(), &ctx);

    let p = |s: &str| Some(s.to_owned());
    let rows: Vec<_> = eval.steps().iter().map(row).collect();
    assert_eq!(
        rows,
        [
            ("s1".into(), Some(5.0), false, None, None),
            (
                "s2".into(),
                Some(1.0),
                true,
                p("Execution/parameter_generation/missing_required_parameter"),
                None
            ),
            (
                "s3".into(),
                Some(1.0),
                true,
                p("Execution/tool_execution/tool_error_response"),
                p("s2")
            ),
            ("s4".into(), Some(5.0), false, None, None),
            (
                "s5".into(),
                Some(1.0),
                true,
                p("Execution/parameter_generation/parameter_type_mismatch"),
                None
            ),
            (
                "s6".into(),
                Some(1.0),
                true,
                p("Execution/tool_execution/tool_timeout"),
                p("s5")
            ),
            ("s7".into(), Some(5.0), false, None, None),
            (
                "s8".into(),
                Some(1.0),
                true,
                p("Execution/parameter_generation/invalid_enum_value"),
                None
            ),
            (
                "s9".into(),
                Some(1.0),
                true,
                p("Execution/tool_execution/tool_error_response"),
                p("s8")
            ),
            ("s10".into(), Some(5.0), false, None, None),
            (
                "s11".into(),
                Some(2.0),
                true,
                p("Execution/parameter_generation/invalid_parameter_value"),
                None
            ),
            ("s12".into(), Some(5.0), false, None, None),
            (
                "s13".into(),
                Some(1.0),
                true,
                p("Planning/tool_selection/unknown_tool"),
                None
            ),
            ("s14".into(), None, false, None, None),
            (
                "s15".into(),
                Some(1.0),
                true,
                p("Integration/output_synthesis/incorrect_answer"),
                p("s13")
            ),
        ]
    );
    let by_id = |id: &str| eval.steps().into_iter().find(|s| s.id == id).unwrap();
    assert!(
        by_id("s2")
            .notes
            .contains("\"user_id\" is a required property"),
        "{}",
        by_id("s2").notes
    );
    assert!(
        by_id("s5").notes.contains("/user_id"),
        "{}",
        by_id("s5").notes
    );
    assert!(by_id("s13").notes.contains("`teleport`"));
    assert_eq!(by_id("s14").scored_by, "none");
    assert!(by_id("s14").notes.contains("not in the tool catalog"));
    assert_eq!(by_id("s12").scored_by, "rules");
    assert_eq!(by_id("s12").metrics.get("success"), Some(5.0));
    assert_eq!(by_id("s3").metrics.get("result_validity"), Some(1.0));

    let tu = &eval.tool_use;
    assert_eq!((tu.tool_calls, tu.failed_calls, tu.invalid_args), (5, 3, 4));
    assert_eq!(tu.unknown_tools, ["teleport"]);
    assert_eq!(tu.steps, 6);
}

#[test]
fn passing_checks_score_high_and_the_rest_is_na_with_a_reason() {
    let mut t = TraceBuilder::chat();
    t.llm("", &[("c1", "lookup", json!({"id": "A-17"}))]);
    t.tool("c1", "lookup", None, json!({"balance": 12}));
    t.llm("Your balance is 12, due Friday.", &[]);
    let catalog = ToolCatalog::new(&tools(CATALOG)).unwrap();
    let settings = StepSettings::default();
    let expected: ExpectedOutput = serde_saphyr::from_str("{contains: due}").unwrap();
    let ctx = StepContext {
        expected_output: Some(&expected),
        ..StepContext::new(&catalog, &settings, &RulesScorer)
    };
    let eval = evaluate_steps(&t.build(), &ctx);
    let scores: Vec<Option<f64>> = eval.steps().iter().map(|s| s.score).collect();
    // A selection the rules cannot fault passes them (issue 9: it was N/A, so TOOLSEL's mean
    // could only ever hold failures).
    assert_eq!(scores, [Some(5.0), Some(5.0), Some(5.0), Some(5.0)]);
    assert_eq!(
        eval.steps()[0].notes,
        "every selected tool is in the catalog"
    );
    assert!(
        eval.steps()
            .iter()
            .all(|s| !s.failed && s.taxonomy().is_none())
    );
    assert_eq!(eval.workflow_quality, Some(5.0));
    assert_eq!(eval.task.as_ref().and_then(|t| t.success), Some(true));
}

/// A one-lookup trace under a workflow that names `book` (not called).
fn outside_the_workflow(workflow_yaml: &str) -> agenteval_gate::eval::StepEvaluation {
    let mut t = TraceBuilder::chat();
    t.llm("", &[("c1", "lookup", json!({"id": "x"}))]);
    t.tool("c1", "lookup", None, json!("ok"));
    t.llm("done", &[]);
    let catalog = ToolCatalog::new(&tools(CATALOG)).unwrap();
    let settings = StepSettings::default();
    let wf = workflow(workflow_yaml);
    let ctx = StepContext {
        workflow: Some(&wf),
        ..StepContext::new(&catalog, &settings, &RulesScorer)
    };
    evaluate_steps(&t.build(), &ctx)
}

fn deviations(eval: &agenteval_gate::eval::StepEvaluation) -> Vec<(&str, &str)> {
    eval.deviations
        .iter()
        .map(|d| (d.kind.as_str(), d.step.as_str()))
        .collect()
}

#[test]
fn tools_outside_an_exhaustive_workflow_are_unexpected() {
    let eval = outside_the_workflow(
        "exhaustive: true\nsteps:\n  - {id: reserve, type: EXEC, tool: book}\n  - {id: answer, type: SYNTH, after: [reserve]}\n",
    );
    assert_eq!(
        label(&eval.steps()[0]).as_deref(),
        Some("Planning/tool_selection/unexpected_tool")
    );
    assert_eq!(eval.steps()[0].score, Some(2.0));
    assert_eq!(eval.steps()[3].workflow_step(), Some("answer"));
    assert_eq!(
        deviations(&eval),
        [("missing_step", "reserve"), ("unexpected_step", "s3")]
    );
    assert!(
        eval.root_cause.is_some(),
        "the failed TOOLSEL is the root cause"
    );
    assert!(Failure::ALL.contains(&Failure::UnexpectedTool));
}

/// Issue 22, item 6: by default a workflow lists the steps that must
/// happen, not every tool: a tool it does not name is no deviation, its
/// TOOLSEL passes and nothing is named a root cause.
#[test]
fn tools_outside_a_workflow_are_allowed_by_default() {
    for exhaustive in ["", "exhaustive: false\n"] {
        let eval = outside_the_workflow(&format!(
            "{exhaustive}steps:\n  - {{id: reserve, type: EXEC, tool: book}}\n  - {{id: answer, type: SYNTH, after: [reserve]}}\n",
        ));
        assert_eq!(eval.steps()[0].score, Some(5.0), "{exhaustive:?}");
        assert!(label(&eval.steps()[0]).is_none());
        assert_eq!(
            eval.steps()[0].notes,
            "every selected tool is in the catalog"
        );
        // The named step that did not happen is still missing.
        assert_eq!(deviations(&eval), [("missing_step", "reserve")]);
        assert!(eval.root_cause.is_none(), "{:?}", eval.root_cause);
        assert!(eval.steps().iter().all(|s| !s.root_cause));
    }
}

/// `tool: [a, b]`: either alternative matches the step (and is allowed
/// by an exhaustive workflow).
#[test]
fn a_workflow_step_may_list_alternative_tools() {
    let eval = outside_the_workflow(
        "exhaustive: true\nsteps:\n  - {id: find, type: EXEC, tool: [book, lookup]}\n  - {id: answer, type: SYNTH, after: [find]}\n",
    );
    assert_eq!(eval.steps()[0].score, Some(5.0));
    assert_eq!(
        eval.steps()[0].notes,
        "every selected tool is in the catalog and called for by the workflow"
    );
    assert!(deviations(&eval).is_empty(), "{:?}", deviations(&eval));
    let exec = eval.steps().into_iter().find(|s| s.id == "s3").unwrap();
    assert_eq!(exec.workflow_step(), Some("find"));
}

#[test]
fn a_loaded_suite_drives_the_step_context() {
    use agenteval_gate::spec::RootCauseMode;
    use agenteval_gate::spec::load_checked;
    use agenteval_gate::trace::Tokens;

    let checked = load_checked(&crate::common::fixture("dag/support-bot/suite.yaml")).unwrap();
    let suite = &checked.suite;
    let catalog = ToolCatalog::new(&suite.tools).unwrap();
    let settings = StepSettings::from_suite(suite);
    assert_eq!(settings.root_cause, RootCauseMode::FullPath);
    assert_eq!(
        (settings.redundancy_window, settings.loop_threshold),
        (2, 4)
    );
    let ctx = StepContext::for_case(suite, &suite.cases[0], &catalog, &settings, &RulesScorer);

    let mut t = TraceBuilder::chat();
    let first = t.llm(
        "",
        &[("c1", "lookup_account", json!({"account_id": "A-17"}))],
    );
    first.set_model(Some("gpt-4o-2024-08-06".into()));
    first.set_tokens(Some(Tokens {
        input: 1000,
        output: 100,
    }));
    t.tool(
        "c1",
        "lookup_account",
        None,
        json!({"balance": 12, "due": "Friday"}),
    );
    t.llm("Your balance is 12, due Friday.", &[]);
    let eval = evaluate_steps(&t.build(), &ctx);

    // The workflow has a PLAN step, so the first model call plans.
    let steps = eval.steps();
    let types: Vec<&str> = steps.iter().map(|s| s.step_type.as_str()).collect();
    assert_eq!(types, ["PLAN", "TOOLSEL", "PARAMGEN", "EXEC", "SYNTH"]);
    let matched: Vec<Option<&str>> = steps.iter().map(|s| s.workflow_step()).collect();
    assert_eq!(
        matched,
        [Some("plan"), None, None, Some("lookup"), Some("answer")]
    );
    assert!(eval.deviations.is_empty(), "{:?}", eval.deviations);
    assert_eq!(eval.tool_use.missing_expected_tools, ["issue_refund"]);
    assert_eq!(eval.task.as_ref().and_then(|t| t.success), Some(true));
    // 1000 × 2.5 / 1e6 + 100 × 10 / 1e6 = 0.0035 USD, priced by the `gpt-4o` prefix.
    assert!((eval.cost.cost_usd.unwrap() - 0.0035).abs() < 1e-12);
    let (part, warnings) = eval.clone().into_part();
    assert_eq!(part.steps, eval.steps());
    assert_eq!(part.workflow_quality, Some(5.0));
    assert!(warnings.is_empty(), "{warnings:?}");
}
