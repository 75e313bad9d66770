//! `agenteval-gate lint`: every check of suite loading plus ID stability
//! against each baseline, all problems reported at once.

use crate::app::cli::{CliLint, CliSummaryFormat};
use crate::app::config::{Config, judge_configured, resolve_fail_on};
use crate::app::error::Result;
use crate::baseline::store::{baseline_path, list_names, read_baseline};
use crate::compare::preflight::gate_warnings;
use crate::diagnostic::{FileDiagnostic, Level};
use crate::exit_code::ExitCode;
use crate::github::{AnnotationLevel, located_annotation};
use crate::output::plural;
use crate::runner::recorded::check_recorded;
use crate::runner::settings::SuiteSettings;
use crate::spec::SpecError;
use crate::spec::discover::suite_paths;
use crate::spec::load::{LoadedSuite, Origin, load_suite};
use crate::spec::stability::check_id_stability;
use crate::spec::suite::Suite;
use crate::spec::validate::{check_evidence_pointers, validate};

use super::common::print_diagnostic;

/// The gate's pre-flight warnings ([`gate_warnings`]) located in `suite.yaml`: at the
/// checkpoint's `id`, or at the `tiers:` line for the smoke tier.
fn gate_diagnostics(loaded: &LoadedSuite, suite: &Suite, config: &Config) -> Vec<FileDiagnostic> {
    let judge = judge_configured(config, |k| std::env::var(k).ok());
    let fail_on = resolve_fail_on(None, config, suite.gates.fail_on);
    gate_warnings(suite, judge, fail_on)
        .into_iter()
        .map(|w| {
            let origin = match &w.checkpoint {
                Some(id) => loaded
                    .file
                    .checkpoints
                    .iter()
                    .find(|c| c.id.value == *id)
                    .map(|c| LoadedSuite::yaml_origin(c.id.referenced)),
                None => line_of(loaded, "tiers:"),
            }
            .unwrap_or_else(|| LoadedSuite::yaml_origin(loaded.file.suite.referenced));
            loaded
                .diagnostic_at(&origin, false, w.message)
                .with_help(w.help)
        })
        .collect()
}

/// The first line of `suite.yaml` that starts with `key`.
fn line_of(loaded: &LoadedSuite, key: &str) -> Option<Origin> {
    loaded
        .source
        .inner()
        .lines()
        .position(|l| l.starts_with(key))
        .map(|i| Origin {
            include: None,
            line: i + 1,
            column: 1,
        })
}

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
        let validation = validate(&loaded);
        let mut found = validation.diagnostics;
        found.extend(check_evidence_pointers(&loaded));
        if let Some(suite) = &validation.suite {
            found.extend(gate_diagnostics(&loaded, suite, config));
            found.extend(check_recorded(suite));
        }
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
    let errors = diagnostics
        .iter()
        .filter(|d| d.level == Level::Error)
        .count();
    let warnings = diagnostics.len() - errors;
    let code = if errors > 0 || (args.deny_warnings && warnings > 0) {
        ExitCode::Config
    } else {
        ExitCode::Success
    };
    if args.format == CliSummaryFormat::Json {
        let problems: Vec<serde_json::Value> = diagnostics
            .iter()
            .map(|d| {
                serde_json::json!({
                    "level": match d.level {
                        Level::Error => "error",
                        Level::Warning => "warning",
                    },
                    "file": d.path.display().to_string(),
                    "line": (d.line > 0).then_some(d.line),
                    "column": (d.column > 0).then_some(d.column),
                    "message": d.message,
                    "help": d.help,
                })
            })
            .collect();
        let json = serde_json::json!({
            "suites": paths.len(),
            "errors": errors,
            "warnings": warnings,
            "diagnostics": problems,
        });
        crate::output::write_document(&crate::output::to_json(&json))?;
        return Ok(code);
    }
    for d in &diagnostics {
        print_diagnostic(d);
    }
    // Under GitHub Actions each problem is also an annotation on its line of the diff.
    if std::env::var("GITHUB_ACTIONS").as_deref() == Ok("true") {
        for d in &diagnostics {
            let level = match d.level {
                Level::Error => AnnotationLevel::Error,
                Level::Warning => AnnotationLevel::Warning,
            };
            let message = match &d.help {
                Some(help) => format!("{} (help: {help})", d.message),
                None => d.message.clone(),
            };
            crate::output::write_workflow_command(&located_annotation(
                level,
                "agenteval-gate lint",
                &message,
                Some(&d.path.display().to_string()),
                Some((d.line, d.column)),
            ))?;
        }
    }
    outln!(
        "lint: {} checked, {}, {}",
        plural(paths.len(), "suite", "suites"),
        plural(errors, "error", "errors"),
        plural(warnings, "warning", "warnings")
    )?;
    Ok(code)
}
