//! What the fuzz targets do with their input. Two kinds of target
//! (issue 25):
//!
//! - parser targets (`trace_*`, `suite_yaml`, `cases_jsonl`,
//!   `baseline_json`, `history_jsonl`, `run_report`, `compare_report`):
//!   parse the input the way the gate does and evaluate what parses (the
//!   DAG and rules scores of a trace, the validation of a suite), nothing
//!   more, so that each exec is cheap;
//! - render targets (`render_trace`, `render_suite`, `render_reports`):
//!   push what parses through every renderer, render every error as the
//!   terminal would (miette's graphical handler: that is where a column past
//!   65,535 used to panic), and check a few cheap invariants of the output
//!   (no workflow command, no control character, no sticky marker from
//!   data).
//!
//! [`limits`] scales the gate's size limits down so that inputs of a few
//! MiB reach the paths past them.

#![expect(clippy::unwrap_used, clippy::expect_used, reason = "fuzz harness")]

use std::path::{Path, PathBuf};
use std::sync::{Once, OnceLock};

use agenteval_gate::eval::{RulesScorer, StepContext, StepSettings, ToolCatalog, evaluate_steps};
use agenteval_gate::output::is_workflow_command;
use agenteval_gate::trace::{Trace, TraceFormat};

/// The file cap the file-reading targets run with (the gate's default is
/// 256 MiB, out of reach of a fuzzer): inputs past 1 MiB take the
/// "file too large" path. `-max_len` is 2 MiB for these targets.
pub const FILE_CAP: u64 = 1 << 20;

/// The memory budget trace detection runs with (the gate's default is the
/// memory available): a trace past budget / factor (512 KiB of chat,
/// 964 KiB of telemetry JSONL, 1.1 MiB of `OTel` SDK, 2.7 MiB of OTLP)
/// takes the "needs more memory" path. `-max_len` is 4 MiB for traces.
pub const MEMORY_BUDGET: u64 = 16 << 20;

/// Set [`FILE_CAP`] and [`MEMORY_BUDGET`], once per process.
pub fn limits() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        agenteval_gate::fsutil::set_max_input_bytes(FILE_CAP);
        agenteval_gate::fsutil::set_max_memory(MEMORY_BUDGET);
    });
}

/// Render `error` as the binary does on stderr.
pub fn render_error(error: &dyn miette::Diagnostic) -> String {
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_context_lines(1)
        .with_wrap_lines(false)
        .render_report(&mut out, error)
        .expect("rendering a diagnostic never fails");
    out
}

/// A directory of this process for targets whose parser reads a file.
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = Path::new("/dev/shm");
        let base = if base.is_dir() {
            base.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let dir = base.join(format!("agenteval-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

/// Write `data` to `name` in the scratch directory.
pub fn file(name: &str, data: &[u8]) -> PathBuf {
    let path = scratch().join(name);
    std::fs::write(&path, data).unwrap();
    path
}

/// What a terminal or CI log gets when `text` is printed (the stream
/// guard of `write_stdout`): no workflow command, no control character.
pub fn assert_inert(text: &str) {
    use agenteval_gate::output::{terminal_text, workflow_guard};
    let printed = terminal_text(text);
    let text = workflow_guard(&printed);
    for line in text.lines() {
        assert!(
            !is_workflow_command(line),
            "workflow command in output: {line:?}"
        );
    }
    assert!(
        !text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "control character in output"
    );
}

/// Parse `data` as a trace (detected, or as `format`) and evaluate the
/// first traces' steps (DAG and rules scores); an error is only returned.
pub fn trace(format: Option<TraceFormat>, data: &[u8]) {
    limits();
    if let Ok(traces) = parse_trace(format, data) {
        let catalog = ToolCatalog::new(&[]).unwrap();
        let settings = StepSettings::default();
        let ctx = StepContext::new(&catalog, &settings, &RulesScorer);
        for trace in traces.iter().take(4) {
            let _ = evaluate_steps(trace, &ctx);
        }
    }
}

fn parse_trace(
    format: Option<TraceFormat>,
    data: &[u8],
) -> Result<Vec<Trace>, agenteval_gate::trace::TraceError> {
    let path = Path::new("fuzz.json");
    match format {
        Some(f) => agenteval_gate::trace::parse_traces_as(f, data, path),
        None => agenteval_gate::trace::parse_traces(data, path),
    }
}

/// Parse `data` as a detected trace, then DAG, rules scores, text, Mermaid
/// and JSON views; or render the error.
pub fn render_trace(data: &[u8]) {
    limits();
    match parse_trace(None, data) {
        Ok(traces) => traces.iter().take(4).for_each(pipeline),
        Err(e) => {
            render_error(&e);
            let _ = e.one_line();
        }
    }
}

fn pipeline(trace: &Trace) {
    let catalog = ToolCatalog::new(&[]).unwrap();
    let settings = StepSettings::default();
    let ctx = StepContext::new(&catalog, &settings, &RulesScorer);
    let evaluation = evaluate_steps(trace, &ctx);
    let _ = evaluation.view();
    let mermaid = evaluation.mermaid();
    for line in mermaid.lines().skip(1) {
        let t = line.trim_start();
        assert!(
            !t.starts_with("click") && !t.starts_with("%%") && !t.starts_with("```"),
            "a Mermaid line from data: {line:?}"
        );
    }
    assert_inert(&agenteval_gate::trace::render_text(trace));
    let _ = serde_json::to_string(trace).unwrap();
}

/// Every renderer of a run report.
pub fn run_renderers(report: &agenteval_gate::model::RunReport) {
    use agenteval_gate::report::render::{run_junit, run_markdown, run_table};
    let table = run_table::render_run_table(report);
    assert_inert(&table);
    let md = run_markdown::render_run_markdown(report);
    assert!(!md.contains("<!-- agenteval-gate"), "a marker from data");
    for line in md.lines() {
        assert!(!is_workflow_command(line), "workflow command: {line:?}");
    }
    let _ = run_junit::render_run_junit(&[report]);
    let _ = agenteval_gate::output::to_json(report);
}

/// Every renderer of a compare report, and the comment as posted.
pub fn compare_renderers(report: &agenteval_gate::model::CompareReport) {
    use agenteval_gate::report::render::{compare_junit, compare_markdown, compare_table};
    let md = compare_markdown::render_compare_markdown(report);
    assert!(!md.contains("<!-- agenteval-gate"), "a marker from data");
    for line in md.lines() {
        assert!(!is_workflow_command(line), "workflow command: {line:?}");
    }
    let marker = agenteval_gate::github::marker("main:fuzz");
    let (body, _) = agenteval_gate::github::cap_body(&format!("{marker}\n{md}"), &marker);
    assert_eq!(
        agenteval_gate::github::find_marker(&body),
        Some(marker.as_str())
    );
    assert_inert(&compare_table::render_compare_table(report));
    let _ = compare_junit::render_compare_junit(report);
}
