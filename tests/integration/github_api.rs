//! The `github` module end to end: the sticky comment, retries and the
//! publish entry points against a fake GitHub on 127.0.0.1 (wiremock), and
//! the Actions environment read from real temp files.

mod comments;
mod env;
pub(crate) mod fake;
mod publish;
mod retries;
