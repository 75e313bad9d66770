//! The data every layer shares (DESIGN §3, floor 1): the run report, the
//! compare report, recurring issues, trace-judge scores, the views' data,
//! metric names and the small vocabulary of severities and step types.
//! Serde types and accessors only: nothing here evaluates, decides or
//! renders, and nothing here imports a module above it.

pub(crate) mod compare;
pub(crate) mod insights;
pub(crate) mod metric;
pub(crate) mod metric_id;
pub(crate) mod notes;
pub(crate) mod rare;
pub(crate) mod rules;
pub(crate) mod run;
pub(crate) mod sorted_map;
pub(crate) mod step_edge;
pub(crate) mod step_metric;
pub(crate) mod step_result;
pub(crate) mod trace_judges;
pub(crate) mod views;
pub(crate) mod vocab;

// The API the integration tests, benches and fuzz targets use.
pub use compare::CompareReport;
pub use run::CaseReport;
pub use run::CaseStatus;
pub use run::CheckpointSummary;
pub use run::DagStatus;
pub use run::EvaluatorAudit;
pub use run::Quartiles;
pub use run::RootCauseStatus;
pub use run::RunReport;
pub use run::Scores;
pub use run::StepResult;
pub use run::Tier;
pub use sorted_map::SortedMap;
pub use step_edge::StepEdge;
pub use step_metric::StepMetrics;

/// Short text kept inside its struct up to 24 bytes: ids, names, agents,
/// roles. As `String`s they were most of a trace's allocations, each a
/// 32-byte heap chunk for a few bytes of text (issue 22 item 7, issue 25
/// item 8); longer text is allocated as a `String` would be.
pub type ShortText = compact_str::CompactString;
