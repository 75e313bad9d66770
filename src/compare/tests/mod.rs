//! Tests of the compare engine and decisions.

mod family;
mod fixtures;
mod gates;
mod simulation;
mod statuses;
