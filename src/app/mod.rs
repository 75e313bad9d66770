//! The application (DESIGN §3, top floor): the command line (`cli`, clap
//! types only), settings resolved once from flags, environment and
//! `agenteval.yaml` (`config`), the commands (glue that calls the layers
//! below), the top-level error and the entry point.

pub(crate) mod cli;
mod commands;
pub(crate) mod config;
pub(crate) mod error;
mod run;

pub use run::main_entry;
