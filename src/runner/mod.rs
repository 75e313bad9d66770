//! The runner: selects cases (tiers, shards), replays recorded traces or
//! runs the agent, evaluates each case, and merges shard reports.

pub(crate) mod agent;
mod error;
pub(crate) mod evaluate;
pub(crate) mod merge;
pub(crate) mod process;
pub(crate) mod progress;
pub(crate) mod recorded;
pub(crate) mod replay;
pub(crate) mod run_mode;
pub(crate) mod secrets;
pub(crate) mod select;
pub(crate) mod session;
pub(crate) mod settings;
pub(crate) mod tiers;

pub use error::RunnerError;
pub use session::{RunSession, SessionOptions};

// The API the integration tests, benches and fuzz targets use.
pub use evaluate::evaluate_replay;
pub use settings::EvalSettings;
pub use settings::EvidenceOverride;
pub use settings::SuiteSettings;
pub use settings::TierChoice;
