//! `agenteval-gate trace FILE`: ingest one trace file and show what the
//! gate sees: the detected format, the spans, and the evaluation DAG with
//! step types, rules scores and root causes.

use std::fmt::Write as _;

use serde::Serialize;

use crate::app::cli::{CliTrace, CliTraceFormat};
use crate::app::config::Config;
use crate::app::error::{Error, Result};
use crate::eval::steps::{
    RulesScorer, StepContext, StepEvaluation, StepSettings, ToolCatalog, evaluate_steps,
};
use crate::exit_code::ExitCode;
use crate::output::escape::terminal;
use crate::output::to_json;
use crate::spec::discover::{load_checked, suite_paths};
use crate::spec::suite::Suite;
use crate::trace::{Trace, read_traces, render_text};

pub(crate) fn run(args: &CliTrace, config: &Config) -> Result<ExitCode> {
    let traces = read_traces(&args.file)?;
    if args.events {
        let text = match args.format {
            CliTraceFormat::Mermaid => {
                return Err(Error::usage_with_help(
                    "`--events` lists events as text or JSON, not Mermaid",
                    "use `--format text` or `--format json` with `--events`",
                ));
            }
            CliTraceFormat::Json => one_or_all(
                &traces
                    .iter()
                    .map(super::trace_events::events_json)
                    .collect::<Vec<_>>(),
            ),
            CliTraceFormat::Text => per_trace(&traces, super::trace_events::events_text),
        };
        // JSON is a document (its own escaping); the text view is for people.
        if args.format == CliTraceFormat::Json {
            crate::output::write_document(&text)?;
        } else {
            crate::output::write_stdout(&text)?;
        }
        return Ok(ExitCode::Success);
    }
    let suite = match &args.suite {
        Some(s) => {
            let path = suite_paths(
                &config.suites_dir(args.suites_dir.as_ref()),
                std::slice::from_ref(s),
            )?
            .into_iter()
            .next()
            .ok_or_else(|| Error::usage(format!("no suite `{s}`")))?;
            Some(load_checked(&path)?.suite)
        }
        None => None,
    };
    let no_tools = [];
    let catalog =
        ToolCatalog::new(suite.as_ref().map_or(&no_tools[..], |s| &s.tools)).map_err(|e| {
            Error::usage_with_help(
                format!("invalid tool catalog: {e}"),
                "run `agenteval-gate lint` for the location",
            )
        })?;
    let settings = suite
        .as_ref()
        .map_or_else(StepSettings::default, StepSettings::from_suite);
    let scorer = RulesScorer;
    let evaluate = |t: &Trace| {
        let mut ctx = StepContext::new(&catalog, &settings, &scorer);
        if let Some(s) = &suite {
            ctx = with_suite(ctx, s);
        }
        evaluate_steps(t, &ctx)
    };
    let text = match args.format {
        CliTraceFormat::Text => per_trace(&traces, |t| {
            format!("{}{}", render_text(t), steps_text(&evaluate(t)))
        }),
        CliTraceFormat::Json => {
            super::trace_json::write(&traces, &evaluate)?;
            // As for the evaluation above: the OS takes the spans back at
            // exit at once; dropping them was 7 % of a 100 MB trace's run.
            std::mem::forget(traces);
            return Ok(ExitCode::Success);
        }
        CliTraceFormat::Mermaid => traces
            .iter()
            .map(|t| evaluate(t).mermaid())
            .collect::<Vec<_>>()
            .join("\n"),
    };
    // Human text passes the terminal escaper; JSON and Mermaid are escaped
    // by their own rules where they were rendered.
    if args.format == CliTraceFormat::Text {
        crate::output::write_stdout(&text)?;
    } else {
        crate::output::write_document(&text)?;
    }
    Ok(ExitCode::Success)
}

/// Each trace's text, under a `── trace i of n` heading when the file holds several.
fn per_trace(traces: &[Trace], text: impl Fn(&Trace) -> String) -> String {
    let n = traces.len();
    traces
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let head = if n > 1 {
                format!("── trace {} of {n}\n", i + 1)
            } else {
                String::new()
            };
            format!("{head}{}", text(t))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One JSON document: the object of a file's one trace, or the array of several.
fn one_or_all<T: Serialize>(items: &[T]) -> String {
    match items {
        [one] => to_json(one),
        all => to_json(&all),
    }
}

fn with_suite<'a>(ctx: StepContext<'a>, suite: &'a Suite) -> StepContext<'a> {
    StepContext {
        workflow: suite.workflow.as_ref(),
        pricing: &suite.pricing,
        ..ctx
    }
}

/// The DAG and its scored steps, one line per step.
fn steps_text(e: &StepEvaluation) -> String {
    let mut out = format!(
        "dag: {} · {} steps · {} edges · workflow score Q {}\n",
        serde_json::to_value(e.graph.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        e.graph.len(),
        e.graph.edges.len(),
        e.workflow_quality
            .map_or_else(|| "—".to_owned(), |q| format!("{q:.2}"))
    );
    // Parents of every step, gathered once (a step-by-step scan of the edges
    // was quadratic on long traces).
    let mut parents_of: std::collections::HashMap<&str, Vec<&str>> =
        std::collections::HashMap::new();
    let nodes = &e.graph.nodes;
    for edge in &e.graph.edges {
        parents_of
            .entry(nodes[edge.to()].id.as_str())
            .or_default()
            .push(nodes[edge.from()].id.as_str());
    }
    for s in (0..e.graph.len()).map(|i| e.step(i)) {
        let score = s
            .score
            .map_or_else(|| "N/A".to_owned(), |v| format!("{v:.1}"));
        let mark = if s.root_cause {
            " ROOT CAUSE".to_owned()
        } else if let Some(r) = s.propagated_from() {
            format!(" propagated from {}", terminal(r))
        } else if s.failed {
            " failed".to_owned()
        } else {
            String::new()
        };
        let parents: Vec<std::borrow::Cow<'_, str>> = parents_of
            .get(s.id.as_str())
            .into_iter()
            .flatten()
            .map(|from| terminal(from))
            .collect();
        let _ = write!(
            out,
            "  {:<4} {:<8} {:<28} {:>4} ({}){mark}",
            terminal(&s.id),
            s.step_type.as_str(),
            crate::output::truncate_chars(&terminal(&s.name), 28),
            score,
            s.scored_by
        );
        if !parents.is_empty() {
            let _ = write!(out, " ← {}", parents.join(", "));
        }
        if let Some(t) = s.taxonomy() {
            let _ = write!(out, " [{} / {} / {}]", t.l1, t.l2, t.l3);
        }
        out.push('\n');
    }
    for d in &e.deviations {
        let _ = writeln!(
            out,
            "  deviation {}: {} ({})",
            d.kind,
            terminal(&d.step),
            terminal(&d.detail)
        );
    }
    if let Some(rc) = &e.root_cause {
        let _ = writeln!(
            out,
            "root cause: {} (span {}, agent {}): {}",
            terminal(rc.step.as_deref().unwrap_or("—")),
            terminal(rc.span_id.as_deref().unwrap_or("—")),
            terminal(rc.agent.as_deref().unwrap_or("—")),
            crate::output::truncate_chars(&terminal(&rc.reason), 200)
        );
    }
    out
}
