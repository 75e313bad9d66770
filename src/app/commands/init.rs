//! `agenteval-gate init --from-trace FILE…`: draft a starter suite from recorded traces
//! ([`crate::spec::from_trace`]) into `<suites dir>/<name>/`: `suite.yaml`, `cases.jsonl`
//! and `traces/` with a copy of each trace, so `lint`, `baseline update` and `compare` run on
//! it at once.

use std::collections::BTreeSet;
use std::path::Path;

use crate::app::cli::CliInit;
use crate::app::config::Config;
use crate::app::error::{Error, Result};
use crate::exit_code::ExitCode;
use crate::output::escape::terminal;
use crate::output::plural;
use crate::runner::replay::TRACE_EXTENSIONS;
use crate::spec::from_trace::{DraftTrace, case_id, draft_suite};
use crate::trace::{parse_traces, read_trace_bytes};

pub(crate) fn run(args: &CliInit, config: &Config) -> Result<ExitCode> {
    if case_id(&args.name) != args.name {
        return Err(Error::usage_with_help(
            format!("`{}` cannot be a suite name", terminal(&args.name)),
            format!(
                "use letters, digits, `-`, `_` and `.`, e.g. `{}`",
                case_id(&args.name)
            ),
        ));
    }
    let dir = config.suites_dir(args.suites_dir.as_ref()).join(&args.name);
    if dir.join("suite.yaml").exists() && !args.force {
        return Err(Error::usage_with_help(
            format!("`{}` already holds a suite", dir.display()),
            "pick another `--name`, or `--force` to replace its suite.yaml, cases.jsonl and traces",
        ));
    }
    // Read every trace first: a file that is not one trace stops before anything is written.
    let mut traces = Vec::new();
    let mut ids: BTreeSet<String> = BTreeSet::new();
    for path in &args.from_trace {
        // The bytes parsed are the bytes copied into the suite.
        let bytes = read_trace_bytes(path)?;
        let mut read = parse_traces(&bytes, path)?;
        if read.len() != 1 {
            return Err(Error::usage_with_help(
                format!(
                    "`{}` holds {}; each file becomes one case",
                    path.display(),
                    plural(read.len(), "trace", "traces")
                ),
                "split it into one file per trace",
            ));
        }
        let stem = path
            .file_stem()
            .map_or_else(|| "case".to_owned(), |s| s.to_string_lossy().into_owned());
        let base = case_id(&stem);
        let mut id = base.clone();
        let mut n = 2;
        while !ids.insert(id.clone()) {
            id = format!("{base}-{n}");
            n += 1;
        }
        traces.push((id, path, bytes, read.remove(0)));
    }
    let inputs: Vec<DraftTrace<'_>> = traces
        .iter()
        .map(|(id, _, _, trace)| DraftTrace {
            id: id.clone(),
            trace,
        })
        .collect();
    let draft = draft_suite(&args.name, &inputs);
    let traces_dir = dir.join("traces");
    std::fs::create_dir_all(&traces_dir).map_err(|source| Error::Io {
        action: "create",
        path: traces_dir.clone(),
        source,
    })?;
    let write = |path: &Path, bytes: &[u8]| {
        crate::fsutil::write_atomic(path, bytes).map_err(|source| Error::Io {
            action: "write",
            path: path.to_path_buf(),
            source,
        })
    };
    for (id, path, bytes, _) in &traces {
        // Replay finds a trace by these extensions only.
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .filter(|e| TRACE_EXTENSIONS.contains(e))
            .unwrap_or("json");
        write(&traces_dir.join(format!("{id}.{ext}")), bytes)?;
    }
    write(&dir.join("suite.yaml"), draft.suite_yaml.as_bytes())?;
    write(&dir.join("cases.jsonl"), draft.cases_jsonl.as_bytes())?;
    outln!(
        "drafted suite `{}` in {}: {}, {} ({}), starter tier-2 checkpoints",
        terminal(&args.name),
        terminal(&dir.display().to_string()),
        plural(traces.len(), "case", "cases"),
        plural(draft.tools.len(), "tool", "tools"),
        terminal(&draft.tools.join(", "))
    )?;
    outln!(
        "next: edit {}, then `agenteval-gate lint --suite {}` and `agenteval-gate baseline update --name main --suite {}`",
        terminal(&dir.join("suite.yaml").display().to_string()),
        terminal(&args.name),
        terminal(&args.name)
    )?;
    Ok(ExitCode::Success)
}
