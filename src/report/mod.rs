//! Reports: the run report model and its renderers.

mod error;
pub mod model;

pub use error::ReportError;
