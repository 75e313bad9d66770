//! `agenteval-gate baseline update|show|list`.

use std::path::Path;

use comfy_table::{ContentArrangement, Table, presets};

use crate::app::cli::{
    CliBaseline, CliBaselineList, CliBaselineShow, CliBaselineShowFormat, CliBaselineUpdate,
};
use crate::app::config::Config;
use crate::app::error::{Error, Result};
use crate::baseline::model::{BASELINE_SCHEMA_VERSION, BaselineFile, BaselineMeta};
use crate::baseline::store::{
    DEFAULT_HISTORY_CAP, baseline_path, committed_history, history_path, list_names, read_baseline,
    read_history, write_baseline,
};
use crate::compare::flaky::PooledBaseline;
use crate::exit_code::ExitCode;
use crate::interrupt::{self, Graceful, Interrupt};
use crate::model::run::{RunReport, Tier};
use crate::output::plural;
use crate::output::to_json;
use crate::report::ReportError;
use crate::report::read::read_run_report;
use crate::report::render::flaky::baseline_table;
use crate::report::render::fmt::metric;
use crate::runner::RunnerError;
use crate::runner::settings::{EvalSettings, SuiteSettings, TierChoice};
use crate::runner::tiers::cases_phrase;

use super::run::{load_suites, run_session};
use crate::runner::tiers::evaluate_tier;
use crate::spec::discover::{load_checked, suite_paths};
use crate::spec::model::GatesSpec;

pub(crate) fn run(cmd: &CliBaseline, config: &Config, quiet: bool) -> Result<ExitCode> {
    match cmd {
        CliBaseline::Update(args) => update(args, config, quiet),
        CliBaseline::Show(args) => show(args, config),
        CliBaseline::List(args) => list(args, config),
    }
}

fn update(args: &CliBaselineUpdate, config: &Config, quiet: bool) -> Result<ExitCode> {
    let settings = EvalSettings::resolve(&args.eval, config, TierChoice::Full)?;
    validate_name(&args.name)?;
    let reports: Vec<RunReport> = if args.from_report.is_empty() {
        let mut out = Vec::new();
        let session = run_session(&args.eval, &settings, quiet);
        for suite in load_suites(&settings, quiet)? {
            if let Some(r) = evaluate_tier(&suite, Tier::Full, &settings, &session, None)? {
                out.push(r);
            }
        }
        out
    } else {
        args.from_report
            .iter()
            .map(|p| read_baseline_candidate(p).map_err(Error::from))
            .collect::<Result<_>>()?
    };
    if reports.is_empty() {
        return if settings.allow_empty {
            Ok(ExitCode::Success)
        } else {
            Err(RunnerError::NothingSelected.into())
        };
    }
    let git_sha = args.git_sha.clone().or_else(|| {
        (!settings.deterministic)
            .then(|| git(&["rev-parse", "HEAD"]))
            .flatten()
    });
    let git_ref = args.git_ref.clone().or_else(|| {
        (!settings.deterministic)
            .then(|| git(&["rev-parse", "--symbolic-full-name", "HEAD"]))
            .flatten()
    });
    let cap = args.history_cap.unwrap_or(DEFAULT_HISTORY_CAP).max(1);
    // A signal from here on never lands between a commit and its message:
    // it stops the loop before the next suite, and one that arrives after
    // the last commit leaves a complete update (exit 0, issue 25 item 9).
    let _graceful = Graceful::enter();
    let suites: Vec<String> = reports.iter().map(|r| r.suite.clone()).collect();
    for (done, report) in reports.into_iter().enumerate() {
        if let Some(signal) = interrupt::received() {
            warnln!(
                "interrupted by {} before suite `{}`: baseline `{}` was updated for {} and not for {}; run \
                 `baseline update` again for those",
                signal.name(),
                report.suite,
                args.name,
                name_list(&suites[..done]),
                name_list(&suites[done..])
            );
            return Ok(match signal {
                Interrupt::Int => ExitCode::Interrupted,
                Interrupt::Term => ExitCode::Terminated,
            });
        }
        let mut file = BaselineFile {
            schema_version: BASELINE_SCHEMA_VERSION,
            baseline: BaselineMeta {
                name: args.name.clone(),
                suite: report.suite.clone(),
                git_sha: git_sha.clone(),
                git_ref: git_ref.clone(),
                updated_at: (!settings.deterministic).then(crate::clock::now_rfc3339),
                tool_version: crate::VERSION.to_owned(),
                spec_version: report.spec_version.clone(),
                spec_hash: report.spec_hash.clone(),
                config_tags: report.config_tags.clone(),
                update: None, // numbered by `write_baseline`
            },
            report,
        };
        let (path, points) = write_baseline(&settings.suite.baselines_dir, &mut file, cap)?;
        outln!(
            "baseline `{}` of suite `{}` written to {} ({}, {} of history)",
            args.name,
            file.baseline.suite,
            path.display(),
            cases_phrase(&file.report),
            plural(points, "point", "points")
        )?;
    }
    if let Some(signal) = interrupt::settle() {
        noteln!(
            "{} arrived after the last baseline was written: the update is complete ({})",
            signal.name(),
            plural(suites.len(), "suite", "suites")
        );
    }
    Ok(ExitCode::Success)
}

/// `none`, or the suites in backticks.
fn name_list(suites: &[String]) -> String {
    if suites.is_empty() {
        return "none".to_owned();
    }
    suites
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A saved run report that may become a baseline: the full tier of the whole suite. A smoke
/// report would put a handful of cases' means into the history (the 2σ band) and a shard
/// report a fraction of the suite; both are refused (65) with the fix.
fn read_baseline_candidate(path: &Path) -> std::result::Result<RunReport, ReportError> {
    let report = read_run_report(path)?;
    let refuse = |reason: String, help: &str| ReportError::NotABaseline {
        path: path.to_path_buf(),
        reason,
        help: help.to_owned(),
    };
    if report.tier == Tier::Smoke {
        return Err(refuse(
            format!(
                "it holds the smoke tier of suite `{}` ({}), not the full suite",
                report.suite,
                cases_phrase(&report)
            ),
            "write the report with `agenteval-gate run --tier full --out FILE` (the default tier of `run`)",
        ));
    }
    if let Some(shard) = report.shard {
        return Err(refuse(
            format!(
                "it covers shard {}/{} of suite `{}` only",
                shard.index, shard.count, report.suite
            ),
            "merge the shard reports first (`agenteval-gate merge REPORT… --out FILE`), then update the baseline from the merged report",
        ));
    }
    Ok(report)
}

fn validate_name(name: &str) -> Result<()> {
    Ok(crate::baseline::check_name(
        crate::baseline::NameKind::Baseline,
        name,
    )?)
}

/// Output of a git command, trimmed; `None` when git is unavailable.
fn git(args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .args(args)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let s = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (out.status.success() && !s.is_empty() && s != "HEAD").then_some(s)
}

fn show(args: &CliBaselineShow, config: &Config) -> Result<ExitCode> {
    validate_name(&args.name)?;
    let settings = SuiteSettings::resolve(&args.suite, config);
    let dir = &settings.baselines_dir;
    let suites = suites_of(dir, &args.name, &settings.suites);
    if suites.is_empty() {
        return Err(Error::usage_with_help(
            format!("no baseline `{}` under `{}`", args.name, dir.display()),
            "list baselines with `agenteval-gate baseline list`; create one with `baseline update --name NAME`",
        ));
    }
    let mut json = Vec::new();
    for suite in suites {
        let path = baseline_path(dir, &args.name, &suite);
        let Some(file) = read_baseline(&path)? else {
            continue;
        };
        let history = committed_history(
            read_history(&history_path(dir, &args.name, &suite))?,
            Some(&file),
        );
        let trials =
            PooledBaseline::of(&file, &history, &suite_gates(&settings.suites_dir, &suite));
        let flakiness = trials.flakiness();
        // The means over every trial a compare pools, history included.
        let pooled = trials.means();
        if args.wants_json() {
            let mut entry = serde_json::json!({
                "baseline": file.baseline,
                "cases": file.report.case_count(),
                "history_points": history.len(),
                "metrics": file.report.aggregate.metrics,
            });
            if let Some((points, means)) = &pooled {
                entry["pooled"] = serde_json::json!({"history_points": points, "metrics": means});
            }
            if let Some(f) = flakiness {
                entry["flakiness"] = serde_json::json!(f);
            }
            json.push(entry);
            continue;
        }
        let m = &file.baseline;
        outln!("baseline `{}` · suite `{}`", m.name, m.suite)?;
        outln!(
            "  updated {} · git {} {} · tool {} · spec {} ({})",
            m.updated_at.as_deref().unwrap_or("—"),
            m.git_sha.as_deref().unwrap_or("—"),
            m.git_ref.as_deref().unwrap_or(""),
            m.tool_version,
            m.spec_version,
            m.spec_hash
        )?;
        let tags: Vec<String> = m
            .config_tags
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        outln!(
            "  {} · {} of history · tags: {}",
            cases_phrase(&file.report),
            plural(history.len(), "point", "points"),
            if tags.is_empty() {
                "—".to_owned()
            } else {
                tags.join(", ")
            }
        )?;
        let mut t = Table::new();
        t.load_style(presets::UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Disabled);
        match &pooled {
            None => {
                t.set_header(vec!["metric", "mean"]);
            }
            Some((points, _)) => {
                t.set_header(vec![
                    "metric".to_owned(),
                    "mean".to_owned(),
                    format!("with history ({})", plural(*points, "point", "points")),
                ]);
            }
        }
        for (name, v) in &file.report.aggregate.metrics {
            let mut row = vec![name.clone(), metric(name, Some(*v))];
            if let Some((_, means)) = &pooled {
                row.push(metric(name, means.get(name).copied()));
            }
            t.add_row(row);
        }
        outln!("{t}")?;
        if let Some(f) = &flakiness {
            crate::output::write_stdout(&baseline_table(f))?;
        }
    }
    if args.wants_json() {
        crate::output::write_document(&to_json(&json))?;
    }
    Ok(ExitCode::Success)
}

/// The gates of `suite` as its spec says (the history window that `compare`
/// would pool per-case history over), or the defaults when the suite cannot
/// be loaded (a baseline of a suite since removed).
fn suite_gates(suites_dir: &Path, suite: &str) -> GatesSpec {
    suite_paths(suites_dir, &[suite.to_owned()])
        .ok()
        .and_then(|paths| paths.into_iter().next())
        .and_then(|path| load_checked(&path).ok())
        .map(|checked| checked.suite.gates)
        .unwrap_or_default()
}

/// Suites with a baseline file under `<dir>/<name>/`, optionally filtered.
fn suites_of(dir: &Path, name: &str, only: &[String]) -> Vec<String> {
    let mut suites: Vec<String> = std::fs::read_dir(dir.join(name))
        .into_iter()
        .flatten()
        .filter_map(std::result::Result::ok)
        .filter_map(|e| {
            let f = e.file_name().to_string_lossy().into_owned();
            f.strip_suffix(".json")
                .filter(|s| !s.ends_with(".history"))
                .map(str::to_owned)
        })
        .filter(|s| only.is_empty() || only.contains(s))
        .collect();
    suites.sort();
    suites
}

fn list(args: &CliBaselineList, config: &Config) -> Result<ExitCode> {
    let settings = SuiteSettings::resolve(&args.suite, config);
    let dir = &settings.baselines_dir;
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled);
    t.set_header(vec![
        "baseline", "suite", "cases", "history", "updated", "git",
    ]);
    let mut rows = 0;
    let mut json_rows = Vec::new();
    for name in list_names(dir) {
        for suite in suites_of(dir, &name, &settings.suites) {
            let Some(file) = read_baseline(&baseline_path(dir, &name, &suite))? else {
                continue;
            };
            let history = committed_history(
                read_history(&history_path(dir, &name, &suite))?,
                Some(&file),
            );
            json_rows.push(serde_json::json!({
                "baseline": name,
                "suite": suite,
                "cases": file.report.case_count(),
                "history_points": history.len(),
                "updated_at": file.baseline.updated_at,
                "git_sha": file.baseline.git_sha,
            }));
            t.add_row(vec![
                name.clone(),
                suite,
                file.report.cases.len().to_string(),
                history.len().to_string(),
                file.baseline.updated_at.unwrap_or_else(|| "—".into()),
                file.baseline
                    .git_sha
                    .map_or_else(|| "—".into(), |s| s.chars().take(12).collect()),
            ]);
            rows += 1;
        }
    }
    if args.format == CliBaselineShowFormat::Json {
        crate::output::write_document(&crate::output::to_json(&json_rows))?;
        return Ok(ExitCode::Success);
    }
    if rows == 0 {
        noteln!(
            "no baselines under `{}`; create one with `agenteval-gate baseline update --name main`",
            dir.display()
        );
        return Ok(ExitCode::Success);
    }
    outln!("{t}")?;
    Ok(ExitCode::Success)
}
