//! Evaluation: checkpoints (tiers 1-3), step scores, root causes, task and
//! tool-use metrics (DESIGN §6). Pure and synchronous; judge verdicts are
//! computed beforehand and passed in.

pub(crate) mod case;
pub(crate) mod checkpoint;
pub(crate) mod compliance;
pub(crate) mod metrics;
pub(crate) mod report;
pub(crate) mod steps;
pub(crate) mod trials;

// The API the integration tests, benches and fuzz targets use.
pub use steps::catalog::ToolCatalog;
pub use steps::evaluate::StepContext;
pub use steps::evaluate::StepEvaluation;
pub use steps::evaluate::evaluate_steps;
pub use steps::rules::RulesScorer;
pub use steps::settings::StepSettings;
pub use steps::taxonomy::Failure;
