//! Renderers. They are pure: a report in, text out. Formatting helpers live
//! in `fmt.rs` so every format shows numbers the same way.

pub mod compare_junit;
pub(crate) mod compare_lead;
pub mod compare_markdown;
mod compare_sections;
pub mod compare_table;
pub(crate) mod compare_text;
pub(crate) mod flaky;
pub(crate) mod fmt;
pub(crate) mod gate_changes;
pub(crate) mod html;
pub(crate) mod insights;
pub(crate) mod mermaid_history;
pub mod run_junit;
pub mod run_markdown;
pub mod run_table;
pub(crate) mod run_trials;

#[cfg(test)]
mod tests;
