//! Issue 12, the trust boundary, through the real binary: no input panics
//! the gate or gets the wrong exit code, no string from a trace, suite or
//! report reaches a log, a terminal or the PR comment live, the sticky
//! marker cannot be forged, agents get no secrets, signals stop everything,
//! baselines survive kills and races, and a pull request cannot move its
//! own goalposts.

#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test fixtures panic when their setup fails"
)]

mod baselines;
mod escapes;
mod goalposts;
mod injection;
mod json_output;
mod limits;
mod long_patterns;
mod marker;
mod messages;
mod orphans;
mod out_links;
mod panics;
mod prompt_rules;
mod resources;
mod rules;
mod secrets;
mod signals;

use std::process::Output;

use crate::common::outputs;

/// Assert exit `code` and that nothing panicked; stdout and stderr.
pub(crate) fn expect(out: &Output, code: i32) -> (String, String) {
    let (stdout, stderr) = outputs(out);
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    (stdout, stderr)
}

/// No line of `text` is a GitHub workflow command (`::…` after leading
/// whitespace, or the legacy `##[` anywhere).
pub(crate) fn no_workflow_command(text: &str) {
    for line in text.lines() {
        assert!(
            !line.trim_start().starts_with("::") && !line.contains("##["),
            "a workflow command reached the log: {line:?}"
        );
    }
}
