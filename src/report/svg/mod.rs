//! Geometry of the drawings in the HTML report: the evaluation DAG (layered
//! layout), the forest plot of Δ with CIs and the history band charts. These
//! modules compute coordinates and labels only; the HTML templates turn them
//! into SVG elements, so every label goes through the template engine's
//! escaping.

pub(crate) mod dag;
pub(crate) mod forest;
pub(crate) mod history;
pub(crate) mod layout;
pub(crate) mod scale;
