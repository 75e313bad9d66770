//! The suite spec: YAML model, loading (with `include:` files), lint, and
//! the generated JSON Schema.

pub mod discover;
pub mod draft;
pub mod gates;
mod error;
pub mod judge;
pub mod judge_check;
pub mod load;
pub mod matcher;
pub mod model;
pub mod schema;
pub mod stability;
pub mod suite;
pub mod validate;

pub use error::SpecError;
