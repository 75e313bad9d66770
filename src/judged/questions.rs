//! The questions a judge is asked about one case: one per tier-3 checkpoint
//! and repeat, one per judged metric of every step the rules cannot settle,
//! and one for a semantic `expected_output`. Each is rendered from the
//! suite's templates with every piece of the trace fenced.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::answer::AnswerFormat;
use super::excerpt::{compact, trace_excerpt};
use crate::dag::Dag;
use crate::eval::checkpoint::tier3::blocked_ids;
use crate::eval::steps::judged::{judged_metrics, rules_certain};
use crate::eval::steps::{
    Metric, RulesScorer, StepContext, StepScorer, StepSettings, ToolCatalog, build_case_dag,
    final_answer, step_input, workflow_tools,
};
use crate::judged::answer::Request;
use crate::llm::config::JudgeSettings;
use crate::llm::error::JudgeError;
use crate::llm::prompts::{Prompts, fence};
use crate::spec::suite::{Case, Check, Suite};
use crate::trace::SharedValue;
use crate::trace::model::Trace;

/// Characters kept of a step or of one parent's output.
const STEP_CHARS: usize = 3_000;
const PARENT_CHARS: usize = 1_500;
const INPUT_CHARS: usize = 2_000;
const ANSWER_CHARS: usize = 4_000;
const EVIDENCE_CHARS: usize = 4_000;

/// What a question is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Target {
    Checkpoint {
        id: String,
        repeat: u32,
    },
    Step {
        node: String,
        metric: Metric,
    },
    Task,
    /// A trace-level judge (all its dimensions in one question).
    TraceJudge(crate::spec::judge::TraceJudgeName),
}

/// One case as the judge sees it.
pub struct CaseView<'a> {
    pub case: &'a Case,
    pub trace: &'a Trace,
    pub evidence: Option<&'a Value>,
}

/// The questions about one case, and the trace's span ids (for citations).
#[derive(Debug, Default)]
pub(crate) struct CaseQuestions {
    pub targets: Vec<Target>,
    pub requests: Vec<Request>,
    pub span_ids: BTreeSet<String>,
}

impl CaseQuestions {
    fn push(&mut self, target: Target, request: Request) {
        self.targets.push(target);
        self.requests.push(request);
    }
}

/// Everything fixed per suite.
pub(crate) struct SuiteContext<'a> {
    pub suite: &'a Suite,
    pub settings: &'a JudgeSettings,
    pub catalog: &'a ToolCatalog,
    pub step_settings: &'a StepSettings,
}

pub(crate) fn case_questions(
    cx: &SuiteContext<'_>,
    view: &CaseView<'_>,
) -> Result<CaseQuestions, JudgeError> {
    let mut out = CaseQuestions {
        span_ids: view.trace.spans.iter().map(|s| s.id.to_string()).collect(),
        ..CaseQuestions::default()
    };
    let prompts = &cx.settings.prompts;
    let dag = build_case_dag(view.trace, cx.suite.workflow.as_ref());
    let answer = final_answer(&dag, view.trace);
    let case_input = fence("case_input", &input_text(&view.case.input), INPUT_CHARS);
    checkpoint_questions(cx, view, answer.as_deref(), prompts, &mut out)?;
    if cx.settings.steps {
        step_questions(cx, view, &dag, &case_input, prompts, &mut out)?;
    }
    for judge in &cx.settings.trace_judges {
        match judge {
            crate::spec::judge::TraceJudgeName::Gpa => out.push(
                Target::TraceJudge(*judge),
                super::gpa::question(
                    prompts,
                    &case_input,
                    view.trace,
                    cx.settings.excerpt_chars,
                    answer.as_deref(),
                )?,
            ),
        }
    }
    if let (Some(reference), Some(answer)) = (
        view.case
            .expected_output
            .as_ref()
            .and_then(|e| e.semantic.as_ref()),
        answer.as_deref(),
    ) {
        let ctx = json!({
            "reference": reference,
            "case_input": case_input,
            "answer": fence("final_answer", answer, ANSWER_CHARS),
        });
        out.push(
            Target::Task,
            Request {
                prompt: prompts.prompt("task", &ctx)?,
                format: AnswerFormat::Semantic,
                repeat: 0,
            },
        );
    }
    Ok(out)
}

fn checkpoint_questions(
    cx: &SuiteContext<'_>,
    view: &CaseView<'_>,
    answer: Option<&str>,
    prompts: &Prompts,
    out: &mut CaseQuestions,
) -> Result<(), JudgeError> {
    let tier3: Vec<_> = cx
        .suite
        .checkpoints
        .iter()
        .filter(|c| matches!(c.check, Check::Semantic { .. }))
        .collect();
    if tier3.is_empty() {
        return Ok(());
    }
    let blocked = blocked_ids(cx.suite, view.evidence);
    let trace = fence(
        "trace",
        &trace_excerpt(view.trace, cx.settings.excerpt_chars),
        cx.settings.excerpt_chars + 200,
    );
    let final_answer = fence(
        "final_answer",
        answer.unwrap_or("(the run produced no final answer)"),
        ANSWER_CHARS,
    );
    for cp in tier3 {
        if blocked.contains(&cp.id) {
            continue;
        }
        let Check::Semantic { partial_criteria } = &cp.check else {
            continue;
        };
        let criteria: Vec<Value> = partial_criteria
            .iter()
            .enumerate()
            .map(|(i, (condition, weight))| json!({"index": i + 1, "condition": condition, "weight": weight}))
            .collect();
        let ctx = json!({
            "id": cp.id,
            "severity": cp.severity.as_str(),
            "instruction": cp.instruction,
            "criteria": criteria,
            "evidence_sources": cp.evidence_sources,
            "evidence": view
                .evidence
                .and_then(|e| evidence_text(e, &cp.evidence_sources))
                .map(|t| fence("evidence", &t, EVIDENCE_CHARS)),
            "span_count": view.trace.spans.len(),
            "trace": trace,
            "final_answer": final_answer,
        });
        let prompt = prompts.prompt("checkpoint", &ctx)?;
        for repeat in 0..cx.settings.runs {
            out.push(
                Target::Checkpoint {
                    id: cp.id.clone(),
                    repeat,
                },
                Request {
                    prompt: prompt.clone(),
                    format: AnswerFormat::Checkpoint {
                        criteria: partial_criteria.len(),
                    },
                    repeat,
                },
            );
        }
    }
    Ok(())
}

fn step_questions(
    cx: &SuiteContext<'_>,
    view: &CaseView<'_>,
    dag: &Dag,
    case_input: &str,
    prompts: &Prompts,
    out: &mut CaseQuestions,
) -> Result<(), JudgeError> {
    let rules = RulesScorer;
    let ctx = StepContext::for_case(cx.suite, view.case, cx.catalog, cx.step_settings, &rules);
    let tools = workflow_tools(cx.suite.workflow.as_ref());
    for i in 0..dag.len() {
        let node = &dag.nodes[i];
        let metrics = judged_metrics(node.step_type);
        if metrics.is_empty() {
            continue;
        }
        let input = step_input(dag, i, &ctx, tools.as_ref());
        if rules_certain(&rules.score(&input)) {
            continue;
        }
        let step_text = match node.step_type {
            crate::spec::model::StepType::ParamGen => format!(
                "tool: {}\narguments: {}",
                node.tool().unwrap_or(&node.name),
                node.arguments
                    .as_ref()
                    .map_or_else(|| "(none recorded)".to_owned(), SharedValue::to_text)
            ),
            crate::spec::model::StepType::ToolSel => format!(
                "selected: {}",
                if node.tools.is_empty() {
                    node.name.to_string()
                } else {
                    node.tools.join(", ")
                }
            ),
            _ => node
                .output
                .as_ref()
                .map_or_else(|| "(no output recorded)".to_owned(), SharedValue::to_text),
        };
        let parents: Vec<String> = dag.parents(i).map(|p| parent_text(&dag.nodes[p])).collect();
        let parents_text = if parents.is_empty() {
            "(none: this is the first step)".to_owned()
        } else {
            parents.join("\n")
        };
        for &metric in metrics {
            let key = format!("{}.{}", node.step_type, metric.as_str());
            let rubric = prompts.render("step_rubric.j2", &json!({"key": key}))?;
            let ctx = json!({
                "metric": metric.as_str(),
                "metric_label": format!("{} {}", node.step_type, metric.as_str().replace('_', " ")),
                "rubric": rubric,
                "step_type": node.step_type.as_str(),
                "step_id": node.id,
                "step_name": node.name,
                "case_input": case_input,
                "tools": tool_listing(cx.suite, node.step_type, node.tool()),
                "step": fence("step", &step_text, STEP_CHARS),
                "parent_count": input.parents.len(),
                "parents": fence("parents", &parents_text, STEP_CHARS * 2),
            });
            out.push(
                Target::Step {
                    node: node.id.to_string(),
                    metric,
                },
                Request {
                    prompt: prompts.prompt("step", &ctx)?,
                    format: AnswerFormat::Score { min: 1, max: 5 },
                    repeat: 0,
                },
            );
        }
    }
    Ok(())
}

/// A parent as the judge sees it: its output, and for a tool execution the
/// call that produced it (the result alone often lacks the ids it is about).
fn parent_text(node: &crate::dag::Node) -> String {
    use crate::llm::prompts::cap_chars;
    let output = node
        .output
        .as_ref()
        .map_or_else(|| "(no output)".to_owned(), SharedValue::to_text);
    let call = match (node.step_type, &node.arguments) {
        (crate::spec::model::StepType::Exec, Some(args)) => format!(
            "called {}({}) → ",
            node.tool().unwrap_or(&node.name),
            cap_chars(&args.to_text(), PARENT_CHARS / 3)
        ),
        _ => String::new(),
    };
    format!(
        "[step {} {} `{}`] {call}{}",
        node.id,
        node.step_type,
        node.name,
        cap_chars(&output, PARENT_CHARS)
    )
}

/// The suite's tools as the judge sees them (suite content, not trace
/// content): names and descriptions, and the schema of the tool a
/// PARAMGEN calls.
fn tool_listing(
    suite: &Suite,
    step_type: crate::spec::model::StepType,
    tool: Option<&str>,
) -> String {
    use crate::spec::model::StepType;
    if suite.tools.is_empty() || step_type == StepType::Synth {
        return String::new();
    }
    suite
        .tools
        .iter()
        .map(|t| {
            let mut line = format!(
                "- {}: {}",
                t.name.value,
                t.description.as_deref().unwrap_or("(no description)")
            );
            if step_type == StepType::ParamGen
                && tool == Some(t.name.value.as_str())
                && let Some(schema) = &t.schema
            {
                line.push_str(&format!("\n  argument schema: {schema}"));
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn input_text(input: &Value) -> String {
    match input {
        Value::Null => "(the case has no input)".to_owned(),
        Value::Object(map) if map.len() == 1 => {
            map.values().next().map(compact).unwrap_or_default()
        }
        other => compact(other),
    }
}

/// The parts of the evidence the checkpoint names as sources, if any.
fn evidence_text(evidence: &Value, sources: &[String]) -> Option<String> {
    let Value::Object(map) = evidence else {
        return None;
    };
    let picked: serde_json::Map<String, Value> = sources
        .iter()
        .filter_map(|k| map.get(k).map(|v| (k.clone(), v.clone())))
        .collect();
    (!picked.is_empty())
        .then(|| serde_json::to_string_pretty(&Value::Object(picked)).unwrap_or_default())
}
