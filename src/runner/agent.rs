//! Run mode's contract with the user's agent (DESIGN §11): the resolved
//! `agent:` block, the per-case files (input, trace, workdir), placeholder
//! expansion in `agent.command`, and the `AGENTEVAL_*` environment.
//!
//! Layout under a run root (`--artifacts DIR/<suite>`, or a scratch
//! directory removed afterwards):
//!
//! ```text
//! traces/<case_id>.json        {trace_file}: the agent writes its trace here
//! evidence/<case_id>.json      {evidence_file}: the agent may write the case's end state here
//! work/<case_id>/              {workdir}: fresh for every case
//! work/<case_id>/input.json    {input_file}: {"case_id", "input", "tags", "metadata"}
//! ```
//!
//! In a run of several trials (`agent.trials`, `--trials`), trial `t` of every case lives
//! one level down, in `traces/trial-<t>/`, `evidence/trial-<t>/` and `work/trial-<t>/`.
//!
//! `traces/` and `evidence/` are laid out like a suite's recordings, so `--traces
//! DIR/<suite>/traces --evidence DIR/<suite>/evidence` replays a kept run, every trial of it. Evidence the agent
//! wrote is the case's tier-1 evidence; without it, the suite's `evidence:` directory is read
//! as in replay (`--evidence` wins over both).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::env_policy::EnvClass;
use crate::runner::RunnerError;
use crate::runner::process::ProcessSpec;
use crate::runner::secrets;
use crate::spec::model::AgentSpec;
use crate::spec::suite::{Case, Suite};

/// `agent.timeout_s` when the suite gives none.
pub(crate) const DEFAULT_TIMEOUT_S: u64 = 300;
/// `agent.retries` when the suite gives none.
pub(crate) const DEFAULT_RETRIES: u32 = 2;

/// The suite's `agent:` block, resolved and checked.
#[derive(Debug, Clone)]
pub(crate) struct AgentPlan {
    /// argv template, placeholders unexpanded.
    pub command: Vec<String>,
    /// `agent.env` entries that apply (the caller's environment wins).
    pub env: Vec<(String, String)>,
    /// `agent.env` entries the caller's environment overrides: (key, suite value, caller value).
    pub overridden: Vec<(String, String, String)>,
    /// Secrets of the caller's environment the agent does not inherit
    /// (`runner::secrets`; `agent.env_passthrough` keeps a name).
    pub scrubbed: Vec<String>,
    pub cwd: PathBuf,
    pub timeout: Duration,
    pub retries: u32,
    /// Cases run at once: `agent.concurrency` (default: CPUs), capped by `--jobs`.
    pub concurrency: usize,
}

impl AgentPlan {
    /// Resolve `spec` for `suite`. `jobs_cap` is `--jobs` when given.
    pub(crate) fn new(
        suite: &Suite,
        spec: &AgentSpec,
        jobs_cap: Option<usize>,
    ) -> Result<Self, RunnerError> {
        let invalid = |message: String, help: &str| RunnerError::AgentSpec {
            suite: suite.name.clone(),
            message,
            help: help.to_owned(),
        };
        if spec.command.first().is_none_or(String::is_empty) {
            return Err(invalid(
                "`agent.command` is empty".into(),
                "give the argv, e.g. `command: [\"python3\", \"agent.py\", \"--input\", \"{input_file}\", \"--trace-out\", \"{trace_file}\"]`",
            ));
        }
        let timeout_s = spec.timeout_s.unwrap_or(DEFAULT_TIMEOUT_S);
        if timeout_s == 0 {
            return Err(invalid(
                "`agent.timeout_s` is 0".into(),
                "give the per-case timeout in seconds (default 300)",
            ));
        }
        if spec.concurrency == Some(0) {
            return Err(invalid(
                "`agent.concurrency` is 0".into(),
                "give how many cases run at once (default: the number of CPUs)",
            ));
        }
        let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let concurrency = spec
            .concurrency
            .unwrap_or(cpus)
            .min(jobs_cap.unwrap_or(usize::MAX))
            .max(1);
        let cwd = spec
            .cwd
            .as_deref()
            .map_or_else(|| suite.dir.clone(), |c| suite.dir.join(c));
        if !cwd.is_dir() {
            return Err(invalid(
                format!("`agent.cwd` `{}` is not a directory", cwd.display()),
                "`agent.cwd` is relative to the suite directory (default: the suite directory)",
            ));
        }
        let scrubbed =
            secrets::scrubbed(std::env::vars_os().map(|(k, _)| k), &spec.env_passthrough);
        let mut env = Vec::new();
        let mut overridden = Vec::new();
        // The loader refuses a credential or a runner file command in
        // `agent.env`; a suite built in memory cannot set one either.
        let settable = spec
            .env
            .iter()
            .filter(|(k, _)| !EnvClass::of(k).never_for_agents());
        for (k, v) in settable {
            // A scrubbed secret of the caller does not override the suite's value.
            match std::env::var(k) {
                Ok(caller) if caller != *v && !scrubbed.contains(k) => {
                    overridden.push((k.clone(), v.clone(), caller));
                }
                _ => env.push((k.clone(), v.clone())),
            }
        }
        Ok(Self {
            command: spec.command.clone(),
            env,
            overridden,
            scrubbed,
            cwd,
            timeout: Duration::from_secs(timeout_s),
            retries: spec.retries.unwrap_or(DEFAULT_RETRIES),
            concurrency,
        })
    }

    /// The program as written in `agent.command`, for messages.
    pub(crate) fn program(&self) -> &str {
        self.command.first().map_or("", String::as_str)
    }

    /// The process for one case: placeholders expanded, `AGENTEVAL_*` set.
    pub(crate) fn process(&self, case_id: &str, files: &CaseFiles, trial: u32) -> ProcessSpec {
        let expand = |arg: &str| expand_placeholders(arg, case_id, files);
        let mut argv = self.command.iter().map(|a| expand(a));
        let program = argv.next().unwrap_or_default();
        // A relative program path with a directory (`./agent.sh`) means the
        // agent's working directory, whatever the platform's exec does.
        let program = if program.contains('/') && Path::new(&program).is_relative() {
            self.cwd.join(&program).into_os_string()
        } else {
            OsString::from(program)
        };
        let mut env: Vec<(OsString, OsString)> =
            self.env.iter().map(|(k, v)| (k.into(), v.into())).collect();
        env.extend([
            ("AGENTEVAL_CASE_ID".into(), case_id.into()),
            ("AGENTEVAL_INPUT_FILE".into(), files.input.clone().into()),
            ("AGENTEVAL_TRACE_FILE".into(), files.trace.clone().into()),
            (
                "AGENTEVAL_EVIDENCE_FILE".into(),
                files.evidence.clone().into(),
            ),
            ("AGENTEVAL_WORKDIR".into(), files.workdir.clone().into()),
            ("AGENTEVAL_TRIAL".into(), trial.to_string().into()),
        ]);
        // Set after removal: a suite's own `agent.env` value is passed as written.
        let env_remove = self
            .scrubbed
            .iter()
            .filter(|k| !self.env.iter().any(|(set, _)| set == *k))
            .map(OsString::from)
            .collect();
        ProcessSpec {
            program,
            args: argv.map(OsString::from).collect(),
            env,
            env_remove,
            cwd: self.cwd.clone(),
            timeout: self.timeout,
        }
    }
}

/// The files of one case (absolute paths).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CaseFiles {
    pub workdir: PathBuf,
    pub input: PathBuf,
    pub trace: PathBuf,
    pub evidence: PathBuf,
}

impl CaseFiles {
    /// Where case `case_id` lives under `root` (see the module docs).
    pub(crate) fn under(root: &Path, case_id: &str) -> Self {
        Self::in_dirs(root, None, case_id)
    }

    /// Where trial `trial` of case `case_id` lives under `root` in a run of several trials:
    /// `traces/trial-<t>/`, `evidence/trial-<t>/` and `work/trial-<t>/`, the layout replay
    /// reads trials from.
    pub(crate) fn under_trial(root: &Path, trial: u32, case_id: &str) -> Self {
        Self::in_dirs(root, Some(&format!("trial-{trial}")), case_id)
    }

    fn in_dirs(root: &Path, trial: Option<&str>, case_id: &str) -> Self {
        let dir = |name: &str| match trial {
            Some(t) => root.join(name).join(t),
            None => root.join(name),
        };
        let workdir = dir("work").join(case_id);
        Self {
            input: workdir.join("input.json"),
            trace: dir("traces").join(format!("{case_id}.json")),
            evidence: dir("evidence").join(format!("{case_id}.json")),
            workdir,
        }
    }

    /// A fresh workdir with the input file, and no stale trace or evidence from an
    /// earlier run (it would be taken for this run's output).
    pub(crate) fn prepare(&self, case: &Case) -> Result<(), RunnerError> {
        let io = |action: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source| RunnerError::Io {
                action,
                path,
                source,
            }
        };
        // `--artifacts DIR` inside the working directory: a link the pull request
        // committed there (`DIR/<suite>/work -> /elsewhere`) must not carry the
        // workdir, the input file or the trace outside it (issue 25).
        for path in [&self.input, &self.trace, &self.evidence] {
            crate::fsutil::check_directories_stay_inside(path)
                .map_err(io("prepare the run directory", path))?;
        }
        match std::fs::remove_dir_all(&self.workdir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(io("clear the workdir", &self.workdir)(e));
            }
            _ => {}
        }
        std::fs::create_dir_all(&self.workdir).map_err(io("create the workdir", &self.workdir))?;
        if let Some(dir) = self.trace.parent() {
            std::fs::create_dir_all(dir).map_err(io("create the trace directory", dir))?;
        }
        if let Some(dir) = self.evidence.parent() {
            std::fs::create_dir_all(dir).map_err(io("create the evidence directory", dir))?;
        }
        for (path, action) in [
            (&self.trace, "remove the stale trace"),
            (&self.evidence, "remove the stale evidence"),
        ] {
            match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(io(action, path)(e));
                }
                _ => {}
            }
        }
        std::fs::write(&self.input, input_json(case)).map_err(io("write the input", &self.input))
    }
}

/// The input file: `{"case_id", "input", "tags", "metadata"}`.
pub(crate) fn input_json(case: &Case) -> String {
    let value = serde_json::json!({
        "case_id": case.id,
        "input": case.input,
        "tags": case.tags,
        "metadata": case.metadata,
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// Replace `{case_id} {input_file} {trace_file} {evidence_file} {workdir}`; any other
/// braces are left as written.
pub(crate) fn expand_placeholders(arg: &str, case_id: &str, files: &CaseFiles) -> String {
    let path = |p: &Path| p.to_string_lossy().into_owned();
    arg.replace("{case_id}", case_id)
        .replace("{input_file}", &path(&files.input))
        .replace("{trace_file}", &path(&files.trace))
        .replace("{evidence_file}", &path(&files.evidence))
        .replace("{workdir}", &path(&files.workdir))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> CaseFiles {
        CaseFiles::under(Path::new("/runs/s"), "c-1")
    }

    #[test]
    fn layout_and_placeholders() {
        let f = files();
        assert_eq!(f.trace, Path::new("/runs/s/traces/c-1.json"));
        assert_eq!(f.input, Path::new("/runs/s/work/c-1/input.json"));
        assert_eq!(f.evidence, Path::new("/runs/s/evidence/c-1.json"));
        assert_eq!(
            expand_placeholders("--evidence-out={evidence_file}", "c-1", &f),
            "--evidence-out=/runs/s/evidence/c-1.json"
        );
        assert_eq!(
            expand_placeholders("--in={input_file} {case_id}/{workdir} {other}", "c-1", &f),
            "--in=/runs/s/work/c-1/input.json c-1//runs/s/work/c-1 {other}"
        );
    }
}
