//! Command-line definitions: clap derive structs only (named `Cli*`).
//! They are converted into validated settings before anything runs.

mod args;
mod rubric;
mod suggest;

pub(crate) use args::*;
pub(crate) use rubric::*;
pub(crate) use suggest::without_weakening_suggestions;
