//! Case and suite metrics beside the step scores: task success, tool use,
//! tokens/cost/latency, and suite-level root-cause propagation statistics.

pub mod cost;
pub mod propagation;
pub mod semantic;
pub mod task;
pub mod tool_use;

pub use cost::{cost_metrics, price_for};
pub use propagation::propagation_stats;
pub use semantic::SemanticJudgment;
pub use task::{evaluate_task, evaluate_task_with};
pub use tool_use::tool_use_metrics;
