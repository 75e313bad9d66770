//! Reports: the run report model and its renderers.

mod error;
pub(crate) mod read;
pub mod render;
pub(crate) mod svg;
pub(crate) mod views;

pub use error::ReportError;

// The API the integration tests, benches and fuzz targets use.
pub use read::read_compare_report;
pub use read::read_run_report;
pub use render::compare_markdown::render_compare_markdown;
pub use render::html::compare::render_compare_html;
pub use render::html::run::render_run_html;
pub use views::build::compare_views;
