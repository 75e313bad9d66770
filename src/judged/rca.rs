//! Judged root cause (`scoring.root_cause: judge`, issue 14): after a tier's
//! cases are evaluated, the judge reads each *failed* case's step DAG — or,
//! when the trace could not be built into one, its flat list of spans — and
//! names the decisive error step, the agent responsible and a reason.
//!
//! Cost: one question per failed case (a case whose task failed, a
//! checkpoint failed, or a step failed the rules), counted in the report's
//! judge section as `root_cause_questions`. Cases that did not fail are not
//! asked about. The question goes through the same [`Engine`] as every other
//! judge question: cache, budget, retries, fallback, replay.
//!
//! The answer is never taken on trust: the named step must be one of the
//! listed ids and the named agent one of the run's agents (null only when
//! the run has no named agents). Anything else is a judge error — the case's
//! root cause is N/A with the reason, counted in `errors` — never a guess.
//! A question without an answer (judge error, budget exhausted, not in the
//! replay cache, no judge configured) leaves the root cause N/A with that
//! reason. The trace's metadata (where dataset labels live) is never shown.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::answer::{AnswerFormat, Parsed};
use super::excerpt::{compact, trace_excerpt};
use super::tier::SuiteJudge;
use crate::dag::{Dag, Node};
use crate::eval::steps::build_case_dag;
use crate::judged::answer::{Outcome, Request};
use crate::llm::error::JudgeError;
use crate::llm::prompts::{Prompts, cap_chars, fence};
use crate::model::run::{
    CaseReport, CaseRootCause, CaseStatus, CheckpointState, DagStatus, JudgeSummary,
    RootCauseStatus,
};
use crate::spec::model::{RootCauseMode, StepType};
use crate::spec::suite::Suite;
use crate::trace::SharedValue;
use crate::trace::model::Trace;

/// Characters kept of one step's content.
const STEP_CHARS: usize = 1_200;
/// Characters kept of the whole step list (about 12k tokens).
const STEPS_CHARS: usize = 48_000;
const INPUT_CHARS: usize = 2_000;
const FAILURE_CHARS: usize = 2_000;

/// The question about one failed case, and what its answer is checked against.
#[derive(Debug, Clone)]
pub(crate) struct RcaQuestion {
    pub request: Request,
    /// Listed id → (step id, span id, agent) it stands for.
    ids: BTreeMap<String, Listed>,
    /// The run's named agents.
    agents: BTreeSet<String>,
}

#[derive(Debug, Clone)]
struct Listed {
    step: Option<String>,
    span: Option<String>,
}

/// Why `case` counts as failed, or `None` when it did not fail (or has no
/// trace to read).
pub(crate) fn case_failure(case: &CaseReport) -> Option<String> {
    if case.status != CaseStatus::Ok {
        return None;
    }
    let mut why = Vec::new();
    if case.scores.task_success == Some(0.0) {
        let detail = case.task.as_ref().map_or("", |t| t.detail.as_str());
        why.push(format!("the task failed: {detail}"));
    }
    for cp in &case.checkpoints {
        if cp.result == CheckpointState::Fail {
            why.push(format!("checkpoint {} failed: {}", cp.id, cp.notes));
        }
    }
    let failing: Vec<&str> = case
        .steps
        .iter()
        .filter(|s| s.failed && !s.compensated())
        .map(|s| s.id.as_str())
        .collect();
    if !failing.is_empty() {
        why.push(format!(
            "steps that failed the deterministic checks: {}",
            failing.join(", ")
        ));
    }
    (!why.is_empty()).then(|| why.join("\n"))
}

/// The root-cause question about one failed case.
pub(crate) fn rca_question(
    prompts: &Prompts,
    input: &Value,
    trace: &Trace,
    dag: &Dag,
    failure: &str,
) -> Result<RcaQuestion, JudgeError> {
    let structured = dag.status != DagStatus::FlatFallback && !dag.is_empty();
    let mut ids = BTreeMap::new();
    let mut agents: BTreeSet<String> = trace
        .spans
        .iter()
        .filter_map(|s| s.agent.as_deref().map(str::to_owned))
        .collect();
    agents.extend(
        dag.nodes
            .iter()
            .filter_map(|n| n.agent.as_deref().map(str::to_owned)),
    );
    agents.retain(|a| !a.trim().is_empty());
    let (steps, unit, count) = if structured {
        let mut entries = Vec::with_capacity(dag.len());
        for (i, node) in dag.nodes.iter().enumerate() {
            ids.insert(
                node.id.to_string(),
                Listed {
                    step: Some(node.id.to_string()),
                    span: node.span_id.as_deref().map(str::to_owned),
                },
            );
            let after: Vec<&str> = dag.parents(i).map(|p| dag.nodes[p].id.as_str()).collect();
            entries.push(step_entry(node, &after));
        }
        (entries.join("\n"), "step", dag.len())
    } else {
        for span in &trace.spans {
            let step = dag
                .nodes
                .iter()
                .find(|n| n.span_id.as_deref() == Some(span.id.as_str()))
                .map(|n| n.id.to_string());
            ids.insert(
                span.id.to_string(),
                Listed {
                    step,
                    span: Some(span.id.to_string()),
                },
            );
        }
        (trace_excerpt(trace, STEPS_CHARS), "span", trace.spans.len())
    };
    let agent_list = if agents.is_empty() {
        "(none named)".to_owned()
    } else {
        agents.iter().cloned().collect::<Vec<_>>().join(", ")
    };
    let ctx = json!({
        "unit": unit,
        "structured": structured,
        "count": count,
        "case_input": fence("case_input", &input_text(input), INPUT_CHARS),
        "failure": fence("failure", failure, FAILURE_CHARS),
        "agents": fence("agents", &agent_list, 2_000),
        "steps": fence("steps", &steps, STEPS_CHARS + 200),
    });
    Ok(RcaQuestion {
        request: Request {
            prompt: prompts.prompt("rca", &ctx)?,
            format: AnswerFormat::RootCause,
            repeat: 0,
        },
        ids,
        agents,
    })
}

/// One step as the judge sees it: a header line, then its content.
fn step_entry(node: &Node, after: &[&str]) -> String {
    let mut head = format!("[{}] {} `{}`", node.id, node.step_type, node.name);
    if let Some(agent) = &node.agent {
        head.push_str(&format!(" · agent {agent}"));
    }
    if !after.is_empty() {
        head.push_str(&format!(" · after {}", after.join(", ")));
    }
    let body = match node.step_type {
        StepType::ToolSel => format!("selects: {}", node.tools.join(", ")),
        StepType::ParamGen => format!(
            "arguments: {}",
            node.arguments
                .as_ref()
                .map_or_else(|| "(none recorded)".to_owned(), SharedValue::to_text)
        ),
        StepType::Exec => {
            let mut b = format!(
                "result: {}",
                node.output
                    .as_ref()
                    .map_or_else(|| "(none recorded)".to_owned(), SharedValue::to_text)
            );
            if let Some(e) = node.error() {
                b.push_str(&format!("\nerror: {e}"));
            }
            b
        }
        StepType::Plan | StepType::Synth => node
            .output
            .as_ref()
            .map_or_else(|| "(no output recorded)".to_owned(), SharedValue::to_text),
    };
    format!("{head}\n{}", cap_chars(&body, STEP_CHARS))
}

fn input_text(input: &Value) -> String {
    match input {
        Value::Null => {
            "(the case has no input; the task is in the run's first messages)".to_owned()
        }
        Value::String(s) => s.clone(),
        Value::Object(map) if map.len() == 1 => {
            map.values().next().map(compact).unwrap_or_default()
        }
        other => compact(other),
    }
}

/// The root cause an outcome gives, and whether it is a judge error found
/// here (an answer that parsed but names what is not in the trace).
pub(crate) fn resolve(q: &RcaQuestion, outcome: &Outcome) -> (CaseRootCause, bool) {
    let na = |reason: String, by: String| CaseRootCause {
        method: RootCauseMode::Judge,
        status: RootCauseStatus::NotAvailable,
        step: None,
        span_id: None,
        agent: None,
        reason,
        by,
    };
    let answer = match outcome {
        Outcome::Answered(a) => a,
        Outcome::Failed(e) => {
            return (
                na(format!("judge_error: {}", e.class()), "none".into()),
                false,
            );
        }
        Outcome::BudgetExhausted => return (na("budget exhausted".into(), "none".into()), false),
        Outcome::NotInCache => return (na("not in judge cache".into(), "none".into()), false),
    };
    let by = answer.by.label();
    let Parsed::RootCause {
        step,
        agent,
        reason,
    } = &answer.parsed
    else {
        return (na("judge_error: invalid answer".into(), by), true);
    };
    let Some(listed) = q.ids.get(step) else {
        return (
            na(
                format!(
                    "judge_error: the judge named `{}`, which is not a step of this run",
                    cap_chars(step, 80)
                ),
                by,
            ),
            true,
        );
    };
    match agent {
        Some(a) if !q.agents.contains(a) => {
            return (
                na(
                    format!(
                        "judge_error: the judge named agent `{}`, which is not in this run",
                        cap_chars(a, 80)
                    ),
                    by,
                ),
                true,
            );
        }
        None if !q.agents.is_empty() => {
            return (
                na(
                    "judge_error: the judge named no agent, but the run has named agents".into(),
                    by,
                ),
                true,
            );
        }
        _ => {}
    }
    (
        CaseRootCause {
            method: RootCauseMode::Judge,
            status: RootCauseStatus::Named,
            step: listed.step.clone(),
            span_id: listed.span.clone(),
            agent: agent.clone(),
            reason: reason.clone(),
            by,
        },
        false,
    )
}

/// Ask the judge about every failed case of `cases` (`traces[k]` is case
/// `k`'s trace) and set each one's `root_cause`; the judge section of this
/// pass, or `None` without a judge (failed cases are then N/A "no judge
/// configured"). Exit 69 when every question failed to reach a judge.
/// With `scoring.root_cause: judge`, the step the judge named is the case's root-cause step
/// everywhere the flags are read (the compare's "new root cause", the DAG, the HTML report):
/// its flag is set and the rules' flags are cleared. A root cause not named (N/A) leaves the
/// rules' attribution as it is.
fn mark_root_cause(case: &mut CaseReport, rc: &CaseRootCause) {
    let (RootCauseStatus::Named, Some(named)) = (rc.status, rc.step.as_deref()) else {
        return;
    };
    if !case.steps.iter().any(|s| s.id == named) {
        return;
    }
    for s in &mut case.steps {
        s.root_cause = s.id == named;
    }
}

pub(crate) fn judge_root_causes(
    judge: Option<&SuiteJudge>,
    suite: &Suite,
    traces: &[Option<&Trace>],
    cases: &mut [CaseReport],
) -> Result<Option<JudgeSummary>, JudgeError> {
    let failed: Vec<(usize, String)> = cases
        .iter()
        .enumerate()
        .filter(|(k, _)| traces.get(*k).copied().flatten().is_some())
        .filter_map(|(k, c)| case_failure(c).map(|why| (k, why)))
        .collect();
    let Some(judge) = judge else {
        for (k, _) in failed {
            cases[k].root_cause = Some(CaseRootCause {
                method: RootCauseMode::Judge,
                status: RootCauseStatus::NotAvailable,
                step: None,
                span_id: None,
                agent: None,
                reason: "no judge configured".to_owned(),
                by: "none".to_owned(),
            });
        }
        return Ok(None);
    };
    let prompts = &judge.settings.prompts;
    let mut questions = Vec::with_capacity(failed.len());
    for (k, why) in &failed {
        let Some(trace) = traces[*k] else { continue };
        let case = suite.cases.iter().find(|c| c.id == cases[*k].id);
        let input = case.map_or(&Value::Null, |c| &c.input);
        let dag = build_case_dag(trace, suite.workflow.as_ref());
        questions.push((*k, rca_question(prompts, input, trace, &dag, why)?));
    }
    let requests: Vec<Request> = questions.iter().map(|(_, q)| q.request.clone()).collect();
    let (outcomes, stats) = judge.engine()?.run_blocking(&requests)?;
    if stats.judge_unavailable() {
        return Err(JudgeError::Unavailable {
            judge: judge.settings.identity.to_string(),
            attempted: stats.errors,
            failed: stats.errors,
            first_error: stats.first_error.clone().unwrap_or_default(),
        });
    }
    let mut summary =
        super::summary::from_stats(judge.settings.mode, &judge.settings.identity, &stats, 0);
    for ((k, q), outcome) in questions.iter().zip(&outcomes) {
        let (rc, invalid) = resolve(q, outcome);
        if invalid {
            summary.errors += 1;
            *summary
                .error_classes
                .entry("invalid root cause".to_owned())
                .or_default() += 1;
            cases[*k]
                .warnings
                .push(format!("judged root cause: {}", rc.reason));
        }
        mark_root_cause(&mut cases[*k], &rc);
        cases[*k].root_cause = Some(rc);
    }
    summary.root_cause_questions = questions.len() as u64;
    summary.error_rate = super::summary::error_rate(&summary);
    Ok(Some(summary))
}
