//! The suite spec: YAML model, loading (with `include:` files), lint, and
//! the generated JSON Schema.

pub mod discover;
pub mod draft;
mod error;
pub mod gates;
pub mod json;
pub mod judge;
pub mod judge_check;
pub mod load;
pub mod matcher;
pub mod model;
pub mod prompts;
pub mod schema;
pub mod stability;
pub mod suite;
pub mod validate;

pub use error::SpecError;
