//! `agenteval-gate lint`: every check of suite loading plus ID stability
//! against each baseline, all problems reported at once.

use crate::baseline::store::{baseline_path, list_names, read_baseline};
use crate::cli::CliLint;
use crate::config::{Config, SuiteSettings};
use crate::diagnostic::{FileDiagnostic, Level};
use crate::error::Result;
use crate::exit_code::ExitCode;
use crate::output::plural;
use crate::spec::SpecError;
use crate::spec::discover::suite_paths;
use crate::spec::load::load_suite;
use crate::spec::stability::check_id_stability;
use crate::spec::validate::{check_evidence_pointers, validate};

use super::common::print_diagnostic;

pub(crate) fn run(args: &CliLint, config: &Config) -> Result<ExitCode> {
    let settings = SuiteSettings::resolve(&args.suite, config);
    let paths = suite_paths(&settings.suites_dir, &settings.suites)?;
    let mut diagnostics: Vec<FileDiagnostic> = Vec::new();
    for path in &paths {
        let loaded = match load_suite(path) {
            Ok(l) => l,
            Err(SpecError::Invalid { diagnostics: d, .. }) => {
                diagnostics.extend(d);
                continue;
            }
            Err(other) => return Err(other.into()),
        };
        let mut found = validate(&loaded).diagnostics;
        found.extend(check_evidence_pointers(&loaded));
        found.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
        diagnostics.extend(found);
        let mut baselines = Vec::new();
        for name in list_names(&settings.baselines_dir) {
            let p = baseline_path(&settings.baselines_dir, &name, &loaded.file.suite.value);
            if let Some(file) = read_baseline(&p)? {
                baselines.push((name, file.report.checkpoint_catalog));
            }
        }
        diagnostics.extend(check_id_stability(&loaded, &baselines));
    }
    for d in &diagnostics {
        print_diagnostic(d);
    }
    let errors = diagnostics
        .iter()
        .filter(|d| d.level == Level::Error)
        .count();
    let warnings = diagnostics.len() - errors;
    outln!(
        "lint: {} checked, {}, {}",
        plural(paths.len(), "suite", "suites"),
        plural(errors, "error", "errors"),
        plural(warnings, "warning", "warnings")
    )?;
    Ok(if errors > 0 || (args.deny_warnings && warnings > 0) {
        ExitCode::Config
    } else {
        ExitCode::Success
    })
}
