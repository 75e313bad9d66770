//! The data every layer shares (DESIGN §3, floor 1): the run report, the
//! compare report, recurring issues, trace-judge scores, the views' data,
//! metric names and the small vocabulary of severities and step types.
//! Serde types and accessors only: nothing here evaluates, decides or
//! renders, and nothing here imports a module above it.

pub mod compare;
pub(crate) mod insights;
pub(crate) mod metric;
pub(crate) mod metric_id;
pub mod run;
pub(crate) mod trace_judges;
pub(crate) mod views;
pub(crate) mod vocab;
