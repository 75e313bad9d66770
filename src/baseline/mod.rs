//! Baselines: `baselines/<name>/<suite>.json` and its append-only history.

mod error;

pub use error::BaselineError;
