//! The one per-case entry point of step evaluation: build the DAG, match the
//! schema workflow, score every node, attribute root causes, compute Q, and
//! the task, tool-use and cost metrics.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::catalog::ToolCatalog;
use super::scorer::{ParentOutput, StepInput, StepScore, StepScorer};
use super::settings::StepSettings;
use crate::dag::{
    Attribution, BuildOptions, Dag, DagView, FailureOrigin, NodeVerdict, ScoredSteps,
    attribute_root_causes_by, build_dag_with, decisive_root, failure_origin, input_charges,
    match_workflow, render_mermaid, workflow_quality,
};
use crate::eval::metrics::cost::cost_metrics;
use crate::eval::metrics::task::evaluate_task;
use crate::eval::metrics::tool_use::tool_use_metrics;
use crate::model::run::{
    CaseRootCause, Cost, DagInfo, Deviation, RootCauseStatus, StepResult, TaskResult, ToolUse,
};
use crate::spec::model::{ExpectedOutput, PriceSpec, RootCauseMode, StepType, WorkflowSpec};
use crate::spec::suite::{Case, Suite};
use crate::trace::SharedValue;
use crate::trace::model::Trace;

static NO_PRICES: BTreeMap<String, PriceSpec> = BTreeMap::new();

/// What one case's step evaluation needs. Suite-level parts (catalog,
/// settings, workflow, prices) are built once and borrowed by every case.
#[derive(Clone, Copy)]
pub struct StepContext<'a> {
    pub catalog: &'a ToolCatalog,
    pub workflow: Option<&'a WorkflowSpec>,
    pub settings: &'a StepSettings,
    pub pricing: &'a BTreeMap<String, PriceSpec>,
    pub expected_output: Option<&'a ExpectedOutput>,
    pub expected_tools: &'a [String],
    pub case_input: Option<&'a Value>,
    pub scorer: &'a dyn StepScorer,
}

impl<'a> StepContext<'a> {
    /// The context of one case of a loaded suite. `catalog` is
    /// `ToolCatalog::new(&suite.tools)` and `settings` is
    /// `StepSettings::from_suite(suite)`, both built once per suite.
    pub fn for_case(
        suite: &'a Suite,
        case: &'a Case,
        catalog: &'a ToolCatalog,
        settings: &'a StepSettings,
        scorer: &'a dyn StepScorer,
    ) -> Self {
        Self {
            catalog,
            workflow: suite.workflow.as_ref(),
            settings,
            pricing: &suite.pricing,
            expected_output: case.expected_output.as_ref(),
            expected_tools: &case.expected_tools,
            case_input: (!case.input.is_null()).then_some(&case.input),
            scorer,
        }
    }

    /// A context with no workflow, prices or case expectations.
    pub fn new(
        catalog: &'a ToolCatalog,
        settings: &'a StepSettings,
        scorer: &'a dyn StepScorer,
    ) -> Self {
        Self {
            catalog,
            workflow: None,
            settings,
            pricing: &NO_PRICES,
            expected_output: None,
            expected_tools: &[],
            case_input: None,
            scorer,
        }
    }
}

/// Everything step evaluation says about one case.
#[derive(Debug, Clone, PartialEq)]
pub struct StepEvaluation {
    /// Per DAG node, in id order: its score. With [`Self::failed`],
    /// [`Self::attributions`] and [`Self::workflow_steps`] this is each
    /// step's report entry, made when it is needed ([`Self::step`]): a
    /// `StepResult` per node repeats the node's id, name, span and agent
    /// and its metrics as a map, some 300 bytes a step that `trace` only
    /// writes out (issue 25).
    pub(super) scores: Vec<StepScore>,
    /// Per node: its score is below its step type's threshold.
    pub(super) failed: Vec<bool>,
    /// Per node: root cause, propagated, or passing.
    pub(super) attributions: Vec<Attribution>,
    /// Per node: the id of the schema step it matched (empty without a
    /// workflow).
    pub(super) workflow_steps: Vec<Option<String>>,
    /// Steps outside the suite's workflow. The report's `dag {}` block
    /// ([`Self::dag_info`]) is built from these and [`Self::graph`] when a
    /// report needs it: its edges as id pairs cost some 110 bytes each,
    /// which `trace` never needs (issue 25).
    pub deviations: Vec<Deviation>,
    pub tool_use: ToolUse,
    pub cost: Cost,
    /// Q on the 1–5 scale; `None` when no step was scored.
    pub workflow_quality: Option<f64>,
    /// Task success, when the case has an `expected_output`.
    pub task: Option<TaskResult>,
    /// The decisive root cause, when a step failed.
    pub root_cause: Option<CaseRootCause>,
    /// The DAG itself, for the `trace` views.
    pub graph: Dag,
    /// How the DAG was built (unrolled retries, flat-fallback reason) and
    /// cost caveats (models without a price).
    pub warnings: Vec<String>,
}

impl StepEvaluation {
    /// The report's `dag {}` block: status, node count, edges by step id,
    /// deviations.
    pub fn dag_info(&self) -> DagInfo {
        self.graph.info(self.deviations.clone())
    }

    /// The JSON view for `trace --format json`.
    pub fn view(&self) -> DagView<'_> {
        DagView::new(&self.graph, self, &self.deviations, self.workflow_quality)
    }

    /// The Mermaid flowchart for `trace --format mermaid`.
    pub fn mermaid(&self) -> String {
        render_mermaid(&self.graph, &self.steps())
    }
}

impl ScoredSteps for StepEvaluation {
    fn step_count(&self) -> usize {
        self.scores.len()
    }

    fn step(&self, i: usize) -> StepResult {
        Self::step(self, i)
    }
}

/// The DAG `evaluate_steps` scores for `trace` under `workflow` (the judge
/// builds the same one to ask about its steps).
pub(crate) fn build_case_dag(trace: &Trace, workflow: Option<&WorkflowSpec>) -> Dag {
    let options = BuildOptions {
        first_call_plans: workflow
            .is_some_and(|w| w.steps.iter().any(|s| s.step_type == StepType::Plan)),
    };
    build_dag_with(trace, options)
}

/// The tools an exhaustive schema workflow allows, when it names any. A
/// workflow that is not exhaustive allows every tool: TOOLSEL is then not
/// held to it.
pub(crate) fn workflow_tools(workflow: Option<&WorkflowSpec>) -> Option<BTreeSet<String>> {
    workflow
        .filter(|w| w.is_exhaustive())
        .map(|w| {
            w.steps
                .iter()
                .filter_map(|s| s.tool.as_ref())
                .flat_map(|t| t.names().iter().cloned())
                .collect::<BTreeSet<String>>()
        })
        .filter(|tools| !tools.is_empty())
}

/// What a scorer sees of node `i`: the node and its parents' outputs.
pub(crate) fn step_input<'a>(
    dag: &'a Dag,
    i: usize,
    ctx: &StepContext<'a>,
    workflow_tools: Option<&'a BTreeSet<String>>,
) -> StepInput<'a> {
    let parents = dag
        .parents(i)
        .map(|p| {
            let n = &dag.nodes[p];
            ParentOutput {
                id: &n.id,
                step_type: n.step_type,
                name: &n.name,
                output: n.output.as_ref(),
            }
        })
        .collect();
    StepInput {
        node: &dag.nodes[i],
        parents,
        catalog: ctx.catalog,
        workflow_tools,
        expected_output: ctx.expected_output,
        case_input: ctx.case_input,
    }
}

/// Evaluate the steps of one trace.
pub fn evaluate_steps(trace: &Trace, ctx: &StepContext<'_>) -> StepEvaluation {
    evaluate_steps_answering(trace, ctx).0
}

/// [`evaluate_steps`], and the run's final answer ([`final_answer`]) when
/// the case has an expected output (`None` otherwise, or when the run gave
/// none): the task check read it, and the semantic one asks a judge about it.
pub(crate) fn evaluate_steps_answering(
    trace: &Trace,
    ctx: &StepContext<'_>,
) -> (StepEvaluation, Option<String>) {
    let dag = build_case_dag(trace, ctx.workflow);
    let read = TraceReading::new(trace, &dag, ctx);
    evaluate_dag(dag, read, ctx)
}

/// [`evaluate_steps_answering`] of a trace nothing needs afterwards: it is
/// dropped once its DAG is built, before the steps are scored (a large
/// trace's spans and its step scores were in memory at once, issue 25).
pub(crate) fn evaluate_steps_of(
    trace: Box<Trace>,
    ctx: &StepContext<'_>,
) -> (StepEvaluation, Option<String>) {
    let dag = build_case_dag(&trace, ctx.workflow);
    let read = TraceReading::new(&trace, &dag, ctx);
    drop(trace);
    evaluate_dag(dag, read, ctx)
}

/// What step evaluation reads of the trace itself, besides its DAG.
struct TraceReading {
    cost: Cost,
    cost_warnings: Vec<String>,
    task: Option<TaskResult>,
    /// The final answer, read when the case has an expected output.
    answer: Option<String>,
}

impl TraceReading {
    fn new(trace: &Trace, dag: &Dag, ctx: &StepContext<'_>) -> Self {
        let (cost, cost_warnings) = cost_metrics(trace, ctx.pricing);
        let (task, answer) = match ctx.expected_output {
            Some(e) => {
                let answer = final_answer(dag, trace);
                (Some(evaluate_task(e, answer.as_deref())), answer)
            }
            None => (None, None),
        };
        Self {
            cost,
            cost_warnings,
            task,
            answer,
        }
    }
}

/// Score, attribute and measure the steps of `dag`.
fn evaluate_dag(
    dag: Dag,
    read: TraceReading,
    ctx: &StepContext<'_>,
) -> (StepEvaluation, Option<String>) {
    let matched = ctx.workflow.map(|w| match_workflow(&dag, w));
    let workflow_tools = workflow_tools(ctx.workflow);

    let mut scores: Vec<StepScore> = (0..dag.len())
        .map(|i| {
            sanitize(
                ctx.scorer
                    .score(&step_input(&dag, i, ctx, workflow_tools.as_ref())),
            )
        })
        .collect();
    let thresholds = ctx.settings.thresholds;
    charge_input_failures(&dag, &mut scores, thresholds.get(StepType::ParamGen));

    // Each node's verdict is made when it is needed: a list of them cost
    // 32 bytes a step at the peak of a large trace's evaluation (issue 25).
    let verdict =
        |i: usize| NodeVerdict::new(scores[i].score, thresholds.get(dag.nodes[i].step_type));
    let attributions =
        attribute_root_causes_by(&dag, scores.len(), verdict, ctx.settings.root_cause);
    let failed: Vec<bool> = (0..scores.len()).map(|i| verdict(i).failed).collect();
    // With `root_cause: judge` the judge names the case's root cause after
    // evaluation (`judge::rca`); the walk above still marks the steps.
    let decisive = match ctx.settings.root_cause {
        RootCauseMode::Judge => None,
        _ => decisive_root(&dag, &attributions),
    };
    let root_cause = decisive.map(|i| {
        let s = &scores[i];
        let node = &dag.nodes[i];
        let mut reason = if s.notes.is_empty() {
            format!("{} `{}` failed", node.step_type, node.name)
        } else {
            s.notes.clone().into_owned()
        };
        // A timeout, a 5xx, a refused connection or a rejected key is the
        // environment's failure, not evidence against the agent that ran
        // the tool: the step is named, no agent is (issue 22).
        let infrastructure = node.step_type == StepType::Exec
            && failure_origin(node) == Some(FailureOrigin::Infrastructure);
        if infrastructure {
            reason.push_str(" (an infrastructure failure: no agent is blamed)");
        }
        CaseRootCause {
            method: ctx.settings.root_cause,
            status: RootCauseStatus::Named,
            step: Some(node.id.to_string()),
            span_id: node.span_id.as_deref().map(str::to_owned),
            agent: node
                .agent
                .as_deref()
                .map(str::to_owned)
                .filter(|_| !infrastructure),
            reason,
            by: s.scored_by.clone().into_owned(),
        }
    });
    let q = workflow_quality(&dag, scores.iter().map(|s| s.score));

    let tool_use = tool_use_metrics(&dag, ctx.catalog, ctx.expected_tools, ctx.settings);
    let TraceReading {
        cost,
        cost_warnings,
        task,
        answer,
    } = read;
    let mut warnings = dag.notes.clone();
    warnings.extend(cost_warnings);
    let (workflow_steps, deviations) = matched
        .map(|m| (m.assignments, m.deviations))
        .unwrap_or_default();
    let evaluation = StepEvaluation {
        scores,
        failed,
        attributions,
        workflow_steps,
        deviations,
        tool_use,
        cost,
        workflow_quality: q,
        task,
        root_cause,
        graph: dag,
        warnings,
    };
    (evaluation, answer)
}

/// Charge each execution that failed on its input to the PARAMGEN that
/// produced the input ([`crate::dag::input_charges`]): a PARAMGEN that does
/// not already fail gets correctness 1, scored by the rules, with the
/// execution's error in its notes.
fn charge_input_failures(dag: &Dag, scores: &mut [StepScore], threshold: f64) {
    for charge in input_charges(dag) {
        let Some(current) = scores.get(charge.producer) else {
            continue;
        };
        if current.score.is_some_and(|v| v < threshold) {
            continue;
        }
        let exec = &dag.nodes[charge.exec];
        scores[charge.producer] = StepScore::from_metrics(
            super::rules::RULES,
            [(super::scorer::Metric::Correctness, 1.0)],
            format!(
                "the execution {} (`{}`) failed on these arguments: {}",
                exec.id, exec.name, charge.message
            ),
            Some(super::taxonomy::Failure::InvalidParameterValue),
        );
    }
}

/// The run's answer: the format's own record, else the DAG's final SYNTH,
/// else the last model output of the root agent.
pub(crate) fn final_answer(dag: &Dag, trace: &Trace) -> Option<String> {
    if let Some(out) = &trace.final_output {
        return Some(out.clone());
    }
    dag.nodes
        .iter()
        .find(|n| n.final_answer)
        .and_then(|n| n.output.as_ref())
        .map(SharedValue::to_text)
        .or_else(|| trace.final_answer())
}

/// Keep scores on the 1–5 scale: a non-finite score becomes N/A, an
/// out-of-range one is clamped; both say so in the notes.
fn sanitize(mut s: StepScore) -> StepScore {
    let note = match s.score {
        Some(v) if !v.is_finite() => {
            s.score = None;
            s.scored_by = "none".into();
            "scorer returned a non-finite score; treated as N/A".to_owned()
        }
        Some(v) if !(1.0..=5.0).contains(&v) => {
            s.score = Some(v.clamp(1.0, 5.0));
            format!("score {v} clamped to 1–5")
        }
        _ => return s,
    };
    if !s.notes.is_empty() {
        s.notes.to_mut().push_str("; ");
    }
    s.notes.to_mut().push_str(&note);
    s
}
