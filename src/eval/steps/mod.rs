//! Step evaluation (DESIGN §6, `AgentEval`): the `StepScorer` trait, the
//! deterministic `rules` scorer, the tool catalog, the failure taxonomy, and
//! the per-case entry point [`evaluate_steps`].

pub(crate) mod catalog;
mod evaluate;
pub(crate) mod judged;
pub(crate) mod rules;
pub(crate) mod scorer;
pub(crate) mod settings;
pub(crate) mod taxonomy;

pub use catalog::{ArgCheck, CatalogError, ToolCatalog, Violation, ViolationKind};
pub use evaluate::{
    StepContext, StepEvaluation, build_case_dag, evaluate_steps, final_answer, step_input,
    workflow_tools,
};
pub use judged::{JudgedScorer, MetricJudgment, StepJudgments};
pub use rules::RulesScorer;
pub use scorer::{Metric, ParentOutput, ScorerChain, StepInput, StepScore, StepScorer};
pub use settings::{StepSettings, Thresholds};
pub use taxonomy::{Category, Failure, Level};
