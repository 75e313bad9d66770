//! The runner: selects cases (tiers, shards), replays recorded traces or
//! runs the agent, and evaluates each case.

mod error;
pub mod evaluate;
pub mod replay;
pub mod select;

pub use error::RunnerError;
