//! Tests of the compare engine and decisions.

mod columns;
mod family;
mod fixtures;
mod flaky;
mod gates;
mod history_pool;
mod judge_coverage;
mod pooled_counts;
mod rerun_drivers;
mod simulation;
mod statuses;
