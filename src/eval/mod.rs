//! Evaluation: checkpoints (tiers 1-3), step scores, root causes, task and
//! tool-use metrics (DESIGN §6). Pure and synchronous; judge verdicts are
//! computed beforehand and passed in.

pub(crate) mod case;
pub(crate) mod checkpoint;
pub(crate) mod compliance;
pub(crate) mod metrics;
pub(crate) mod report;
pub mod steps;
pub(crate) mod trials;
