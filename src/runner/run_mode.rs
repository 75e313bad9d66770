//! Run mode (DESIGN §11): run the suite's agent once per selected case, at
//! most `concurrency` at a time, retrying only when the process could not
//! start; turn what each run left behind into a trace outcome (a crash, a
//! timeout, a missing or unparsable trace all count as failed cases, never
//! dropped); then evaluate exactly as replay does.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::eval::case::TraceOutcome;
use crate::interrupt::{self, Graceful, INTERRUPTED_WARNING};
use crate::model::run::{CaseError, CaseStatus, RunMode, RunReport, Tier};
use crate::output::plural;
use crate::runner::RunnerError;
use crate::runner::agent::{AgentPlan, CaseFiles};
use crate::runner::evaluate::{CaseInput, TierRun, display_path, evaluate_cases};
use crate::runner::process::{Exit, Finished, ProcessSpec, run_process};
use crate::runner::progress::Progress;
use crate::runner::replay::load_trace;
use crate::runner::session::RunSession;
use crate::runner::settings::EvalSettings;
use crate::spec::model::AgentSpec;
use crate::spec::suite::Suite;

/// First delay between start attempts; doubles per attempt, capped.
const RETRY_DELAY: Duration = Duration::from_millis(200);
const RETRY_DELAY_MAX: Duration = Duration::from_secs(2);

/// One case to run.
struct Job {
    index: usize,
    case_id: String,
    files: CaseFiles,
    spec: ProcessSpec,
}

/// Run the agent for the cases of `indices` this session has not run yet
/// (in trial `trial`, 0-based, with `AGENTEVAL_TRIAL=t`), then evaluate all of
/// them. In a run of `several` trials each trial's files sit in the replay
/// layout under the suite's run root ([`CaseFiles::under_trial`]: `traces/trial-<t>/`
/// and so on), so the kept run replays with every trial; the session keeps the
/// trials' runs apart.
#[expect(
    clippy::too_many_arguments,
    reason = "the tier's inputs plus which trial of how many; called from `tiers` only"
)]
pub(crate) fn evaluate_run(
    suite: &Suite,
    agent: &AgentSpec,
    indices: &[usize],
    tier: Tier,
    settings: &EvalSettings,
    session: &RunSession,
    trial: u32,
    several: bool,
) -> Result<RunReport, RunnerError> {
    let started = Instant::now();
    let plan = AgentPlan::new(suite, agent, session.jobs_cap())?;
    if !session.quiet() && session.first_note(&suite.name) {
        for (key, suite_value, caller) in &plan.overridden {
            noteln!(
                "`{key}={caller}` from the environment overrides `agent.env` of suite `{}` (`{suite_value}`)",
                suite.name
            );
        }
        if !plan.scrubbed.is_empty() {
            noteln!(
                "the agent of suite `{}` runs without {} (GitHub tokens, runner files and judge keys stay with the gate); list a judge key in `agent.env_passthrough` to pass it",
                suite.name,
                plan.scrubbed
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    let root = session.root(&suite.name)?;
    let key = if trial == 0 {
        suite.name.clone()
    } else {
        format!("{}#trial-{trial}", suite.name)
    };
    let files_of = |id: &str| {
        if several {
            CaseFiles::under_trial(&root, trial, id)
        } else {
            CaseFiles::under(&root, id)
        }
    };
    let to_run: Vec<usize> = indices
        .iter()
        .copied()
        .filter(|&i| session.recorded(&key, &suite.cases[i].id).is_none())
        .collect();
    let reused = indices.len() - to_run.len();
    let header = format!(
        "run mode: {tier} tier of `{}`{}{}: {}, concurrency {}{}",
        suite.name,
        if trial > 0 {
            format!(" (trial {})", trial + 1)
        } else {
            String::new()
        },
        settings
            .shard
            .map(|s| format!(" (shard {}/{})", s.index, s.count))
            .unwrap_or_default(),
        plural(to_run.len(), "case", "cases"),
        plan.concurrency,
        if reused > 0 {
            format!(" ({reused} reused from the smoke tier)")
        } else {
            String::new()
        }
    );
    // Prepare every case's files first: a disk problem stops the run before any agent starts.
    let jobs = to_run
        .iter()
        .map(|&index| {
            let case = &suite.cases[index];
            let files = files_of(&case.id);
            files.prepare(case)?;
            Ok(Job {
                index,
                case_id: case.id.clone(),
                spec: plan.process(&case.id, &files, trial),
                files,
            })
        })
        .collect::<Result<Vec<_>, RunnerError>>()?;
    let progress = Progress::start(session.quiet(), &header, jobs.len());
    let ran = {
        // A signal now kills the agents and lets this finish (see `interrupt`).
        let _graceful = Graceful::enter();
        run_jobs(&plan, jobs, &root, &progress)
    };
    progress.finish();
    for (index, mut outcome) in ran? {
        if settings.deterministic
            && let TraceOutcome::Failed { elapsed_ms, .. } = &mut outcome
        {
            *elapsed_ms = None;
        }
        session.record(&key, &suite.cases[index].id, outcome);
    }
    let mut outcomes = HashMap::with_capacity(indices.len());
    for &i in indices {
        let id = &suite.cases[i].id;
        let outcome = session
            .recorded(&key, id)
            .ok_or_else(|| RunnerError::Task {
                case: id.clone(),
                message: "no run was recorded".into(),
            })?;
        outcomes.insert(i, outcome);
    }
    let run = TierRun {
        suite,
        indices,
        tier,
        mode: RunMode::Run,
        started,
    };
    let report = evaluate_cases(&run, settings, |i| CaseInput {
        outcome: outcomes[&i].clone(),
        warnings: Vec::new(),
        evidence_file: Some(files_of(&suite.cases[i].id).evidence),
    })?;
    match interrupt::received() {
        None => Ok(report),
        Some(signal) => {
            let mut partial = report;
            let missing = partial
                .cases
                .iter()
                .filter(|c| c.status != CaseStatus::Ok)
                .count();
            partial.warnings.push(format!(
                "{INTERRUPTED_WARNING} {} stopped the run; {} did not complete (marked `agent_error`): this report is partial and cannot become a baseline",
                signal.name(),
                plural(missing, "case", "cases")
            ));
            Err(RunnerError::Interrupted {
                signal,
                partial: Some(Box::new(partial)),
            })
        }
    }
}

/// Run `jobs` on a small runtime, at most `plan.concurrency` at once.
fn run_jobs(
    plan: &AgentPlan,
    jobs: Vec<Job>,
    root: &Path,
    progress: &Progress,
) -> Result<Vec<(usize, TraceOutcome)>, RunnerError> {
    if jobs.is_empty() {
        return Ok(Vec::new());
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| RunnerError::Io {
            action: "start the async runtime for",
            path: root.to_path_buf(),
            source,
        })?;
    runtime.block_on(async {
        let limit = Arc::new(Semaphore::new(plan.concurrency));
        let plan = Arc::new(plan.clone());
        let root: Arc<PathBuf> = Arc::new(root.to_path_buf());
        let mut set = JoinSet::new();
        let mut names = HashMap::new();
        for job in jobs {
            let (limit, plan, root) = (Arc::clone(&limit), Arc::clone(&plan), Arc::clone(&root));
            let case_id = job.case_id.clone();
            let handle = set.spawn(async move {
                // The semaphore is never closed, so this always yields a permit.
                let _permit = limit.acquire_owned().await.ok();
                let outcome = match interrupt::received() {
                    // Stop new work: the case is known not to have run.
                    Some(signal) => failed(
                        CaseStatus::AgentError,
                        format!("not run: interrupted by {}", signal.name()),
                        None,
                        None,
                    ),
                    None => run_case(&plan, &job, &root).await,
                };
                (job.index, job.case_id, outcome)
            });
            names.insert(handle.id(), case_id);
        }
        let mut out = Vec::new();
        while let Some(joined) = set.join_next_with_id().await {
            match joined {
                Ok((_, (index, case_id, outcome))) => {
                    progress.case_done(&case_id, &outcome);
                    out.push((index, outcome));
                }
                Err(e) => {
                    return Err(RunnerError::Task {
                        case: names.get(&e.id()).cloned().unwrap_or_default(),
                        message: e.to_string(),
                    });
                }
            }
        }
        Ok(out)
    })
}

/// One case, timed: a case that fails keeps its wall time as its latency.
async fn run_case(plan: &AgentPlan, job: &Job, root: &Path) -> TraceOutcome {
    let started = Instant::now();
    let mut outcome = attempt_case(plan, job, root).await;
    if let TraceOutcome::Failed { elapsed_ms, .. } = &mut outcome {
        *elapsed_ms = Some(started.elapsed().as_secs_f64() * 1000.0);
    }
    outcome
}

/// Start the agent (retrying only a failed start), then read its trace.
async fn attempt_case(plan: &AgentPlan, job: &Job, root: &Path) -> TraceOutcome {
    let mut attempts: u32 = 0;
    let finished = loop {
        attempts += 1;
        match run_process(&job.spec).await {
            Ok(finished) => break finished,
            Err(_) if attempts <= plan.retries => {
                let delay = RETRY_DELAY.saturating_mul(1 << (attempts - 1).min(8));
                tokio::time::sleep(delay.min(RETRY_DELAY_MAX)).await;
            }
            Err(e) => {
                return failed(
                    CaseStatus::AgentError,
                    format!(
                        "could not start `{}`: {e} ({}; `agent.retries` is {}); check `agent.command` and `agent.cwd`",
                        plan.program(),
                        plural(attempts as usize, "attempt", "attempts"),
                        plan.retries
                    ),
                    None,
                    None,
                );
            }
        }
    };
    if let Some(signal) = interrupt::received() {
        return failed(
            CaseStatus::AgentError,
            format!(
                "interrupted by {}: the agent's process group was killed",
                signal.name()
            ),
            None,
            Some((finished.stdout_tail, finished.stderr_tail)),
        );
    }
    let display = display_path(&job.files.trace, root);
    outcome_of(finished, &job.files.trace, display, plan.timeout).await
}

async fn outcome_of(
    finished: Finished,
    trace: &Path,
    display: String,
    timeout: Duration,
) -> TraceOutcome {
    let Finished {
        exit,
        stdout_tail,
        stderr_tail,
    } = finished;
    let tails = Some((stdout_tail, stderr_tail));
    match exit {
        Exit::Code(0) => {
            let path = trace.to_path_buf();
            let read = tokio::task::spawn_blocking(move || read_agent_trace(&path, &display)).await;
            match read {
                Ok(TraceOutcome::Failed {
                    status,
                    mut error,
                    info,
                    ..
                }) => {
                    error.exit_code = Some(0);
                    attach_tails(&mut error, tails);
                    TraceOutcome::Failed {
                        status,
                        error,
                        info,
                        elapsed_ms: None,
                    }
                }
                Ok(loaded) => loaded,
                Err(e) => failed(
                    CaseStatus::ParseError,
                    format!("reading the trace stopped unexpectedly: {e}"),
                    Some(0),
                    tails,
                ),
            }
        }
        Exit::Code(code) => failed(
            CaseStatus::AgentError,
            format!("the agent exited with code {code}"),
            Some(code),
            tails,
        ),
        Exit::Signal(signal) => failed(
            CaseStatus::AgentError,
            format!("the agent was killed by {}", signal_name(signal)),
            None,
            tails,
        ),
        Exit::TimedOut => failed(
            CaseStatus::Timeout,
            format!(
                "no exit within {} s (`agent.timeout_s`); its process group was killed",
                timeout.as_secs()
            ),
            None,
            tails,
        ),
        Exit::WaitFailed(message) => failed(
            CaseStatus::AgentError,
            format!("lost track of the agent process: {message}"),
            None,
            tails,
        ),
    }
}

/// The trace an agent that exited 0 left: missing or blank is
/// `trace_missing`, unreadable is `parse_error` (via [`load_trace`]).
fn read_agent_trace(path: &Path, display: &str) -> TraceOutcome {
    let missing = |message: String| TraceOutcome::Failed {
        status: CaseStatus::TraceMissing,
        error: CaseError {
            message,
            exit_code: None,
            stdout_tail: None,
            stderr_tail: None,
        },
        info: None,
        elapsed_ms: None,
    };
    match crate::fsutil::read_input(path) {
        Err(crate::fsutil::InputError::NotFound(_)) => missing(format!(
            "the agent exited 0 but wrote no trace (`{display}`); it must write `{{trace_file}}`"
        )),
        Ok(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => missing(format!(
            "the agent exited 0 but its trace `{display}` is empty"
        )),
        _ => load_trace(path, display),
    }
}

fn failed(
    status: CaseStatus,
    message: String,
    exit_code: Option<i32>,
    tails: Option<(String, String)>,
) -> TraceOutcome {
    let mut error = CaseError {
        message,
        exit_code,
        stdout_tail: None,
        stderr_tail: None,
    };
    attach_tails(&mut error, tails);
    TraceOutcome::Failed {
        status,
        error,
        info: None,
        elapsed_ms: None,
    }
}

fn attach_tails(error: &mut CaseError, tails: Option<(String, String)>) {
    if let Some((stdout, stderr)) = tails {
        error.stdout_tail = Some(stdout).filter(|t| !t.is_empty());
        error.stderr_tail = Some(stderr).filter(|t| !t.is_empty());
    }
}

fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGINT => "SIGINT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGPIPE => "SIGPIPE",
        _ => return format!("signal {signal}"),
    };
    format!("signal {signal} ({name})")
}
