//! The two streams. Writes to stdout report errors (a broken pipe is turned
//! into exit 0 by `main`); writes to stderr are best effort.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

/// Write `text` to stdout as is.
pub fn write_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(Error::Stdout)
}

/// Write `text` to stderr, ignoring failures (there is nowhere left to report
/// them). Through anstream: ANSI colour is stripped when colour is off.
pub fn write_stderr(text: &str) {
    let mut err = anstream::stderr().lock();
    let _ignored = err.write_all(text.as_bytes());
}

/// Write `text` to `path`, or to stdout when `path` is `-`. Files are
/// written atomically (temp file + rename) so a reader never sees half a report.
pub fn write_to(path: &Path, text: &str) -> Result<()> {
    if path.as_os_str() == "-" {
        return write_stdout(text);
    }
    crate::fsutil::write_atomic(path, text.as_bytes()).map_err(|e| Error::io("write", path, e))
}
