//! The public entry points of trace ingestion: read a file (or bytes),
//! detect its format, run the adapter, return finished traces.
//!
//! A file may hold several traces (a tau-bench subset holds one episode per
//! array element; OTLP exports may mix trace ids). JSONL files are read one
//! line at a time; a malformed line is an error naming its line, never
//! skipped.

use std::path::Path;

use crate::trace::detect::{self, Plan};
use crate::trace::error::TraceError;
use crate::trace::input::Input;
use crate::trace::model::{Trace, TraceFormat};
use crate::trace::{
    attribute_map, chat, multi_agent, openinference_nested, otel_sdk, otlp, swe_agent,
    telemetry_jsonl,
};

/// Read every trace in the file at `path`.
///
/// Errors: [`TraceError::Io`] when the file cannot be read,
/// [`TraceError::Empty`] when it holds no spans, [`TraceError::Invalid`]
/// for malformed JSON/JSONL or values of the wrong type (with
/// `file:line:col`), [`TraceError::UnknownFormat`] for valid JSON that is no
/// trace format we know.
pub fn read_traces(path: &Path) -> Result<Vec<Trace>, TraceError> {
    let bytes = read_trace_bytes(path)?;
    let input = Input::new(path, &bytes);
    let plan = detect::plan(&input)?;
    // Held while the trace is parsed: inputs read at once share the budget.
    let _reserved = check_memory(&input, plan.format)?;
    let traces = if plan.format == TraceFormat::Otlp {
        let spans = otlp::read(&input, &plan)?;
        // Finishing the spans reads none of the file: its bytes go first (issue 25: on one
        // large OTLP trace they were a third of the peak).
        drop(bytes);
        spans.finish()
    } else {
        run(&input, &plan)?
    };
    non_empty(traces, path)
}

/// The bytes of the trace file at `path`, under the input cap ([`read_traces`]'s errors for
/// a file that cannot be read).
pub fn read_trace_bytes(path: &Path) -> Result<Vec<u8>, TraceError> {
    crate::fsutil::read_input(path).map_err(|e| match e.diagnostic(path) {
        Some(d) => TraceError::invalid(d),
        None => TraceError::Io {
            path: path.to_path_buf(),
            source: e.into_io(),
        },
    })
}

/// Read the one trace in the file at `path`; a file holding several traces
/// is an error with a hint.
pub fn read_trace(path: &Path) -> Result<Trace, TraceError> {
    exactly_one(read_traces(path)?, path)
}

/// Parse every trace in `bytes`; `path` names the source in errors and
/// supplies ids for formats that have none.
pub fn parse_traces(bytes: &[u8], path: &Path) -> Result<Vec<Trace>, TraceError> {
    let input = Input::new(path, bytes);
    let plan = detect::plan(&input)?;
    // Held while the trace is parsed: inputs read at once share the budget.
    let _reserved = check_memory(&input, plan.format)?;
    non_empty(run(&input, &plan)?, path)
}

/// `traces`, unless none has a span ([`TraceError::Empty`]).
fn non_empty(traces: Vec<Trace>, path: &Path) -> Result<Vec<Trace>, TraceError> {
    if traces.iter().all(|t| t.spans.is_empty()) {
        return Err(TraceError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(traces)
}

/// Parse `bytes` with the adapter of `format`, whatever detection would say.
/// For the fuzz targets (`fuzz/`): every adapter must turn any JSON into
/// traces or a located error, never a panic.
#[doc(hidden)]
pub fn parse_traces_as(
    format: TraceFormat,
    bytes: &[u8],
    path: &Path,
) -> Result<Vec<Trace>, TraceError> {
    let input = Input::new(path, bytes);
    let plan = detect::plan_as(&input, format)?;
    run(&input, &plan)
}

/// Parse exactly one trace from `bytes`.
pub fn parse_trace(bytes: &[u8], path: &Path) -> Result<Trace, TraceError> {
    exactly_one(parse_traces(bytes, path)?, path)
}

/// The format of `bytes`, or `None` when they are not a trace this crate
/// can read (including malformed JSON and empty input).
pub fn detect_format(bytes: &[u8]) -> Option<TraceFormat> {
    detect::detect(bytes)
}

/// Peak memory per byte of input of the command that needs most for one
/// trace, rounded up by a quarter (docs/resources.md, "Memory, round 7";
/// rounds 9 to 13 left them). Measured with one case whose trace is the
/// bench file (round 13, glibc builds; the static musl release binary
/// needs 0.84–1.0× of these): `trace --format json` (OTLP 2.2×, bare OTLP
/// spans 2.7×, `OTel` SDK 4.3×, telemetry 5.1×, chat 13.3×) and `run`
/// (2.4×, 3.2×, 3.9×, 4.8×, 12.3×) need least, `baseline update` about
/// what `run` does (it writes the baseline as it serializes it and reads
/// the one it replaces as it parses it); `compare` (the baseline's case
/// report beside the head's evaluation) most: OTLP 2.7×, bare spans 3.2×,
/// `OTel` SDK 5.1×, telemetry 6.2×, chat 14.8× (round 12: 2.7×, 3.4×,
/// 5.1×, 6.4×, 15.9×; round 11: 3.0×, 3.4×, 6.6×, 8.0×, 18.1×; round 10: 3.4×, 3.5×, 9.2×, 10.9×, 21.6×; round 9:
/// 4.2×, 3.5×, 10.9×, 12.5×, 25.7–26.4×).
/// The factors were 9×, 18×, 19× and 35× in round 6,
/// when `baseline update` held the baseline it replaced, a copy of the
/// report and its JSON text. Chat-like formats not measured take the chat
/// factor.
fn memory_factor(format: TraceFormat) -> u64 {
    match format {
        TraceFormat::Otlp => 6,
        TraceFormat::OtelSdk | TraceFormat::OpenInference | TraceFormat::AttributeMap => 15,
        TraceFormat::TelemetryJsonl => 17,
        TraceFormat::ChatMessages | TraceFormat::SweAgent | TraceFormat::MultiAgentChat => 32,
    }
}

/// Refuse an input whose ingestion would need more memory than the budget
/// (`--max-memory`, else the memory available), with the size it needs:
/// a clear error instead of the OOM killer ending the CI job (issue 25).
/// An input that fits reserves what it needs ([`crate::fsutil::reserve`]): while
/// other inputs being read at the same time hold too much of the budget, it waits.
fn check_memory(
    input: &Input<'_>,
    format: TraceFormat,
) -> Result<Option<crate::fsutil::Reservation>, TraceError> {
    let Some((budget, source)) = crate::fsutil::memory_budget() else {
        return Ok(None);
    };
    let size = input.bytes.len() as u64;
    let factor = memory_factor(format);
    let need = size.saturating_mul(factor);
    if need <= budget {
        return Ok(Some(crate::fsutil::reserve(need, budget)));
    }
    Err(input.invalid(
        format!(
            "reading this {} {} trace needs about {} of memory ({factor}× its size), more than {source} ({})",
            crate::fsutil::human(size),
            format.as_str(),
            crate::fsutil::human(need),
            crate::fsutil::human(budget)
        ),
        format!(
            "run on a machine with more memory and pass `--max-memory {}` (or `AGENTEVAL_MAX_MEMORY`), or split \
             the trace into smaller files (one trace, session or episode per file); docs/resources.md lists what \
             each format needs",
            crate::fsutil::human_ceiling(need)
        ),
    ))
}

fn run(input: &Input<'_>, plan: &Plan) -> Result<Vec<Trace>, TraceError> {
    match plan.format {
        TraceFormat::Otlp => otlp::parse(input, plan),
        TraceFormat::OtelSdk => otel_sdk::parse(input, plan),
        TraceFormat::OpenInference => openinference_nested::parse(input, plan),
        TraceFormat::AttributeMap => attribute_map::parse(input, plan),
        TraceFormat::TelemetryJsonl => telemetry_jsonl::parse(input, plan),
        TraceFormat::ChatMessages => chat::parse(input, plan),
        TraceFormat::SweAgent => swe_agent::parse(input, plan),
        TraceFormat::MultiAgentChat => multi_agent::parse(input, plan),
    }
}

fn exactly_one(mut traces: Vec<Trace>, path: &Path) -> Result<Trace, TraceError> {
    if traces.len() == 1 {
        return Ok(traces.remove(0));
    }
    let ids: Vec<String> = traces
        .iter()
        .take(5)
        .map(|t| format!("`{}`", t.id))
        .collect();
    let more = if traces.len() > 5 { ", …" } else { "" };
    let input = Input::new(path, b"");
    Err(input.invalid(
        format!("expected one trace but the file holds {} ({}{more})", traces.len(), ids.join(", ")),
        "split the file so that each holds one trace (one episode per file), or use a command that reads \
         several traces from one file",
    ))
}
