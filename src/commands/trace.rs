//! `agenteval-gate trace FILE`: ingest one trace file and show what the
//! gate sees: the detected format, the spans and (with the DAG) the steps.

use crate::cli::{CliTrace, CliTraceFormat};
use crate::error::{Error, Result};
use crate::exit_code::ExitCode;
use crate::report::render::json::to_json;
use crate::trace::{read_traces, render_text};

pub(crate) fn run(args: &CliTrace) -> Result<ExitCode> {
    let traces = read_traces(&args.file)?;
    let text = match args.format {
        CliTraceFormat::Text => {
            let n = traces.len();
            traces
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    if n > 1 {
                        format!("── trace {} of {n}\n{}", i + 1, render_text(t))
                    } else {
                        render_text(t)
                    }
                })
                .collect::<Vec<_>>()
                .join("\n")
        }
        CliTraceFormat::Json if traces.len() == 1 => to_json(&traces[0]),
        CliTraceFormat::Json => to_json(&traces),
        CliTraceFormat::Mermaid => {
            return Err(Error::usage_with_help(
                "`--format mermaid` needs the evaluation DAG, which is not built yet",
                "use `--format text` or `json`",
            ));
        }
    };
    crate::output::write_stdout(&text)?;
    Ok(ExitCode::Success)
}
