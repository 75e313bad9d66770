//! The runner: selects cases (tiers, shards), replays recorded traces or
//! runs the agent, evaluates each case, and merges shard reports.

pub(crate) mod agent;
mod error;
pub mod evaluate;
pub(crate) mod merge;
pub(crate) mod process;
pub(crate) mod progress;
pub(crate) mod replay;
pub(crate) mod run_mode;
pub(crate) mod secrets;
pub(crate) mod select;
pub(crate) mod session;
pub mod settings;
pub(crate) mod tiers;

pub use error::RunnerError;
pub use session::{RunSession, SessionOptions};
