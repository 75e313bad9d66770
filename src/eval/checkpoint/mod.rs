//! Checkpoint evaluation (workflow framework): tier 1 on evidence, tier 2 on
//! the trace's events (calls and messages), tier 3 by a judge; N/A "not
//! applicable to this case" outside a checkpoint's `applies_to`; BLOCKED
//! through active environment constraints; N/A always with a reason.

mod evaluate;
mod events;
mod matching;
mod per_occurrence;
mod scope;
mod search;
#[cfg(test)]
mod testing;
mod tier1;
mod tier2;
pub(crate) mod tier3;
mod verdict;
mod wheres;

pub(crate) use evaluate::{CheckpointInputs, JudgeVerdicts, evaluate_checkpoints};
pub(crate) use events::{Event, EventLog};
pub(crate) use tier1::eval_state;
pub(crate) use tier2::eval_sequence;
pub(crate) use verdict::Verdict;
