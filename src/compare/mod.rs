//! Comparison of a head run with a baseline: metrics, statuses, localization,
//! verdict (DESIGN §8). Pure and synchronous.

pub(crate) mod absolute;
pub(crate) mod columns;
pub(crate) mod coverage;
pub(crate) mod decide;
pub(crate) mod engine;
pub(crate) mod error;
pub(crate) mod flaky;
pub(crate) mod gate_changes;
pub(crate) mod history_pool;
pub(crate) mod inconclusive;
pub(crate) mod judge_coverage;
pub(crate) mod judge_gate;
pub(crate) mod localize;
pub(crate) mod pairing;
pub(crate) mod preflight;
#[cfg(test)]
mod tests;
pub(crate) mod trials;

// The API the integration tests, benches and fuzz targets use.
pub use decide::AlphaPlan;
pub use decide::CompareOptions;
pub use decide::compare;
pub use engine::{SuiteInput, shed_unread};
