//! Case and suite metrics beside the step scores: task success, tool use,
//! tokens/cost/latency, and suite-level root-cause propagation statistics.

pub(crate) mod cost;
pub(crate) mod propagation;
pub(crate) mod semantic;
pub(crate) mod task;
pub(crate) mod tool_use;

pub(crate) use semantic::SemanticJudgment;
pub(crate) use task::evaluate_task_with;
