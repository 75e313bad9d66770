//! Geometry of the drawings in the HTML report: the evaluation DAG (layered
//! layout), the forest plot of Δ with CIs and the history band charts. These
//! modules compute coordinates and labels only; the HTML templates turn them
//! into SVG elements, so every label goes through the template engine's
//! escaping.

pub mod dag;
pub mod forest;
pub mod history;
pub mod layout;
pub mod scale;
