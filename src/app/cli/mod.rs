//! Command-line definitions: clap derive structs only (named `Cli*`).
//! They are converted into validated settings before anything runs.

mod args;
mod rubric;
mod suggest;

pub use args::*;
pub use rubric::*;
pub use suggest::without_weakening_suggestions;
