//! The suite spec: YAML model, loading (with `include:` files), lint, and
//! the generated JSON Schema.

pub(crate) mod discover;
pub(crate) mod draft;
mod error;
pub mod expr;
pub(crate) mod from_trace;
pub(crate) mod gates;
pub(crate) mod json;
pub(crate) mod judge;
pub(crate) mod judge_check;
pub(crate) mod load;
pub(crate) mod matcher;
pub mod model;
pub(crate) mod prompts;
pub(crate) mod schema;
pub(crate) mod stability;
pub(crate) mod suite;
pub(crate) mod validate;
mod yaml_budget;

pub use error::SpecError;

// The API the integration tests, benches and fuzz targets use.
pub use discover::load_checked;
pub use judge::AuthHeader;
pub use judge::JudgePrice;
pub use judge::ProviderName;
pub use judge::StructuredOutput;
pub use model::FailOn;
pub use model::GatesSpec;
pub use model::RootCauseMode;
pub use model::StepType;
pub use model::cases::ExpectedOutput;
pub use model::suite::ToolSpec;
pub use model::suite::WorkflowSpec;
pub use schema::suite_schema_json;
