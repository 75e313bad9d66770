//! Evaluation: checkpoints (tiers 1-3), step scores, root causes, task and
//! tool-use metrics (DESIGN §6). Pure and synchronous; judge verdicts are
//! computed beforehand and passed in.

pub mod case;
pub mod checkpoint;
pub mod compliance;
pub mod metrics;
pub mod report;
pub mod steps;
