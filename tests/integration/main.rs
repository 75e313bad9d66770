//! The single integration test binary (STYLE §5). One module per area.

mod bad_input;
mod cli;
mod common;
mod compare;
mod coverage_change;
mod dag_known;
mod docs_commands;
mod fail_closed;
mod flaky;
mod github_api;
mod github_e2e;
mod html_report;
mod inconclusive;
mod insights;
mod judge;
mod lint_recorded;
mod metric_families;
mod policy;
mod policy_expr;
mod power;
mod runner;
mod schema;
mod stats_reference;
mod trace_formats;
mod trials;
mod trust;
