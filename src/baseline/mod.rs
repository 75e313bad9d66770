//! Baselines: `baselines/<name>/<suite>.json` and its append-only history.

mod error;
pub mod model;
pub mod store;

pub use error::BaselineError;
