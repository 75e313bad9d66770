//! agenteval-gate: a regression gate for AI agents.
//!
//! Data flow (DESIGN §3): `spec` → `runner` → `trace` → `dag` → `eval` →
//! report, then `compare` against a `baseline` with `stats`, rendered by
//! `report` and posted by `github`. `dag`, `eval`, `stats` and `compare` are
//! pure and synchronous; only `judge`, `github` and `runner` use tokio.

#[macro_use]
pub mod output;

pub(crate) mod app;
pub mod baseline;
pub(crate) mod clock;
pub mod compare;
pub mod dag;
pub(crate) mod diagnostic;
pub mod digest;
pub(crate) mod env_policy;
pub mod eval;
pub(crate) mod exit_code;
pub mod fsutil;
pub mod github;
pub(crate) mod insights;
pub mod interrupt;
pub mod judged;
pub mod llm;
pub mod model;
pub mod reaper;
pub mod report;
pub mod runner;
pub mod spec;
pub mod stats;
pub mod trace;

pub use app::error::{Error, Result};
pub use app::main_entry;
pub use exit_code::ExitCode;

/// This build's version, recorded in every report.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
