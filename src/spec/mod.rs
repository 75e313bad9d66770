//! The suite spec: YAML model, loading (with `include:` files), lint, and
//! the generated JSON Schema.

mod error;
pub mod model;
pub mod schema;

pub use error::SpecError;
