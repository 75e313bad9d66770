//! Helpers shared by the command glue.

use crate::diagnostic::{FileDiagnostic, Level};

/// Print a diagnostic with its snippet on stderr.
pub(crate) fn print_diagnostic(d: &FileDiagnostic) {
    let report = miette::Report::new(d.clone());
    crate::output::write_stderr(&crate::output::escape::rendered_report(&format!(
        "{report:?}\n"
    )));
}

/// Print warnings unless `quiet`.
pub(crate) fn print_warnings(warnings: &[FileDiagnostic], quiet: bool) {
    if quiet {
        return;
    }
    for w in warnings.iter().filter(|d| d.level == Level::Warning) {
        print_diagnostic(w);
    }
}
