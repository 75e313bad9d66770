//! Self-contained HTML for run and compare reports: one file with inline CSS,
//! inline SVG drawn in Rust (`report::svg`) and a small inline script, no
//! external resource of any kind, so it works from a CI artifact. Pages are
//! minijinja templates compiled into the binary with HTML auto-escaping: every
//! string from a trace, suite or report is escaped by the engine, in text and
//! in attributes, SVG labels included.

mod case;
pub(crate) mod compare;
mod engine;
mod flaky;
mod matrix;
pub(crate) mod run;

pub(crate) use compare::render_compare_html;
pub(crate) use run::render_run_html;
