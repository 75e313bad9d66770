//! Evaluation: checkpoints (tiers 1-3), step scores, root causes, task and tool-use metrics (DESIGN §6).

pub mod metrics;
pub mod steps;
