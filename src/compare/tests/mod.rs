//! Tests of the compare engine and decisions.

mod columns;
mod family;
mod fixtures;
mod flaky;
mod gates;
mod history_pool;
mod judge_coverage;
mod simulation;
mod statuses;
