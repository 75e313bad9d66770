//! The runner: selects cases (tiers, shards), replays recorded traces or
//! runs the agent, evaluates each case, and merges shard reports.

pub mod agent;
mod error;
pub mod evaluate;
pub mod merge;
pub mod process;
pub mod progress;
pub mod replay;
pub mod run_mode;
pub mod secrets;
pub mod select;
pub mod session;
pub mod settings;
pub mod tiers;

pub use error::RunnerError;
pub use session::{RunSession, SessionOptions};
