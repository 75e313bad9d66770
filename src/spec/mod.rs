//! The suite spec: YAML model, loading (with `include:` files), lint, and
//! the generated JSON Schema.

pub mod discover;
pub(crate) mod draft;
mod error;
pub(crate) mod gates;
pub(crate) mod json;
pub mod judge;
pub(crate) mod judge_check;
pub(crate) mod load;
pub(crate) mod matcher;
pub mod model;
pub(crate) mod prompts;
pub mod schema;
pub(crate) mod stability;
pub(crate) mod suite;
pub(crate) mod validate;

pub use error::SpecError;
