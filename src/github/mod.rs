//! GitHub: sticky PR comment, step summary, outputs and annotations.

mod error;

pub use error::GitHubError;
