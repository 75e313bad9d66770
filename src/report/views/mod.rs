//! The data the drawn views of a report need (history series, case ×
//! checkpoint matrix, per-case DAGs), saved inside the compare report so that
//! `report compare.json --format html` can draw them later. The size policy
//! is in [`build`].

pub(crate) mod build;
mod detail;

pub(crate) use crate::model::views::{CaseDetail, CaseRow, HistorySeries, SuiteViews};
pub(crate) use build::{compare_views, run_views};
