//! Tests of the compare engine and decisions.

mod family;
mod fixtures;
mod flaky;
mod gates;
mod judge_coverage;
mod simulation;
mod statuses;
