//! Reports: the run report model and its renderers.

mod error;
pub mod read;
pub mod render;
pub(crate) mod svg;
pub mod views;

pub use error::ReportError;
