//! Command-line definitions: clap derive structs only (named `Cli*`).
//! They are converted into validated settings before anything runs.

mod args;
mod rubric;

pub use args::*;
pub use rubric::*;
