//! The data the drawn views of a report need (history series, case ×
//! checkpoint matrix, per-case DAGs), saved inside the compare report so that
//! `report compare.json --format html` can draw them later. The size policy
//! is in [`build`].

pub mod build;
pub mod model;

pub use build::{compare_views, run_views};
pub use model::{CaseDetail, CaseRow, CompareViews, HistorySeries, SuiteViews, state_code};
