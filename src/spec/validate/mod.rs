//! Validation: build a [`crate::spec::suite::Suite`] from a loaded file while
//! collecting every problem as a located diagnostic. `lint` and every
//! command that loads a suite run the same checks; `lint` also checks
//! evidence pointers against the evidence files ([`check_evidence_pointers`]).

mod args_schema;
mod assert;
mod build;
mod cases;
mod catalog;
mod checkpoints;
mod context;
mod evidence;
mod expr;
mod gates;
mod ids;
mod judge;
mod key_order;
mod locations;
mod matcher;
mod sequence;
mod task;
mod workflow;

pub(crate) use build::{SUITE_METRICS, validate};
pub(crate) use evidence::check_evidence_pointers;
