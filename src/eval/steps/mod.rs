//! Step evaluation (DESIGN §6, `AgentEval`): the `StepScorer` trait, the
//! deterministic `rules` scorer, the tool catalog, the failure taxonomy, and
//! the per-case entry point [`evaluate_steps`].

pub(crate) mod catalog;
mod entries;
pub(crate) mod evaluate;
pub(crate) mod judged;
pub(crate) mod rules;
pub(crate) mod scorer;
pub(crate) mod settings;
pub(crate) mod taxonomy;

pub(crate) use catalog::ToolCatalog;
pub(crate) use evaluate::{
    StepContext, StepEvaluation, build_case_dag, evaluate_steps, evaluate_steps_answering,
    evaluate_steps_of, final_answer, step_input, workflow_tools,
};
pub(crate) use judged::{JudgedScorer, MetricJudgment, StepJudgments};
pub(crate) use rules::RulesScorer;
pub(crate) use scorer::{Metric, StepScorer};
pub(crate) use settings::StepSettings;
