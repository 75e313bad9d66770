//! Validation: build a [`crate::spec::suite::Suite`] from a loaded file while
//! collecting every problem as a located diagnostic. `lint` and every
//! command that loads a suite run the same checks.

mod build;
mod cases;
mod checkpoints;
mod context;
mod ids;
mod workflow;

pub use build::{SUITE_METRICS, Validation, validate};
