//! What can go wrong when the gate writes its results. The top-level error
//! (`app::error`) turns each variant into the same message and exit code as
//! its own `Stdout`, `Io` and `Internal` variants.

use std::io;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// Writing to stdout failed (a closed pipe is not an error: see `main`).
    #[error("cannot write to stdout")]
    Stdout(#[source] io::Error),

    /// Writing an output file (`--out`) failed.
    #[error("cannot write `{}`", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// A line that is not exactly one workflow command was about to be
    /// printed as one: a bug.
    #[error("internal error: not a single workflow command: {0:?}")]
    NotACommand(String),
}
