//! Publishing a compare in GitHub Actions: sticky PR comment, step summary,
//! outputs and annotations. Never changes the exit code: the verdict wins.

use std::path::Path;

use crate::github::{AnnotationLevel, GitHubContext, PublishRequest, annotation, publish};
use crate::model::compare::{CompareReport, MetricStatus};
use crate::report::render::compare_markdown::{render_compare_markdown, render_compare_summary};
use crate::report::render::compare_text::effect;

/// GitHub shows at most 10 error and 10 warning annotations per step.
const MAX_ANNOTATIONS: usize = 10;

/// The sticky comment's key: `<baseline>:<suites, sorted, comma-separated>`,
/// so each baseline and suite set keeps one comment. `comment --report`
/// uses the same key, so it updates the comment `compare` posted.
pub(crate) fn marker_key(report: &CompareReport) -> String {
    let mut suites: Vec<&str> = report.suites.iter().map(|s| s.suite.as_str()).collect();
    suites.sort_unstable();
    format!("{}:{}", report.baseline.name, suites.join(","))
}

pub(crate) fn publish_compare(report: &CompareReport, out: Option<&Path>, quiet: bool) {
    let ctx = match GitHubContext::from_env(|k| std::env::var(k).ok()) {
        Ok(Some(ctx)) => ctx,
        Ok(None) => return,
        Err(e) => {
            warnln!("cannot read the GitHub Actions environment: {e}; not publishing");
            return;
        }
    };
    let body = render_compare_markdown(report);
    // Its own cap (1 MiB): when the comment had to be cut, the summary it
    // points to still holds the full report.
    let summary = render_compare_summary(report);
    let marker_key = marker_key(report);
    let outputs = vec![
        ("verdict".to_owned(), report.verdict.as_str().to_owned()),
        (
            "regressions".to_owned(),
            report.regressions.len().to_string(),
        ),
        (
            "report-path".to_owned(),
            out.map(|p| p.display().to_string()).unwrap_or_default(),
        ),
    ];
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for m in report
        .metrics
        .iter()
        .filter(|m| matches!(m.status, MetricStatus::Regression | MetricStatus::Suspected))
    {
        let fails = m.status == MetricStatus::Regression && report.fail_on.fails(m.severity);
        let title = format!("agenteval-gate: {} in {}", m.status, m.qualified_name());
        let message = format!("{} severity; {}", m.severity, effect(m));
        if fails {
            errors.push(annotation(AnnotationLevel::Error, &title, &message, None));
        } else {
            warnings.push(annotation(AnnotationLevel::Warning, &title, &message, None));
        }
    }
    errors.truncate(MAX_ANNOTATIONS);
    warnings.truncate(MAX_ANNOTATIONS);
    errors.extend(warnings);
    let request = PublishRequest {
        marker_key: &marker_key,
        markdown_body: &body,
        summary_markdown: &summary,
        outputs,
        annotations: errors,
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            warnln!("cannot start the async runtime to post to GitHub: {e}");
            return;
        }
    };
    let outcome = runtime.block_on(publish(&ctx, request));
    if outcome.has_failures() && !quiet {
        warnln!("publishing to GitHub failed in part; the verdict and exit code are unaffected");
    }
}
