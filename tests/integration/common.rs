//! Helpers shared by integration tests.

use std::path::PathBuf;

/// `tests/fixtures/<rel>` inside the repository.
#[allow(dead_code, reason = "not every test module uses it yet")]
pub fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}
