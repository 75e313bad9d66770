//! State that outlives one tier of a command: where run mode puts its files,
//! how loud it is, and the agent runs already done. The full tier of a
//! progressive run reuses the smoke tier's runs instead of running those
//! cases again, so `runs_saved` counts real agent runs.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::eval::case::TraceOutcome;
use crate::runner::RunnerError;

/// How a command wants run mode to behave.
#[derive(Debug, Clone, Default)]
pub struct SessionOptions {
    /// Only errors on stderr.
    pub quiet: bool,
    /// `--artifacts DIR`: keep inputs, workdirs and traces under `DIR/<suite>/`.
    pub artifacts: Option<PathBuf>,
    /// `--jobs N` when given: caps `agent.concurrency`.
    pub jobs_cap: Option<usize>,
}

/// One command's run-mode state.
#[derive(Debug, Default)]
pub struct RunSession {
    options: SessionOptions,
    /// (suite, case id) → what the agent produced.
    runs: Mutex<HashMap<(String, String), TraceOutcome>>,
    scratch: Mutex<Option<Scratch>>,
    /// Suites whose environment overrides were already reported.
    noted: Mutex<BTreeSet<String>>,
}

impl RunSession {
    pub fn new(options: SessionOptions) -> Self {
        Self {
            options,
            ..Self::default()
        }
    }

    pub fn quiet(&self) -> bool {
        self.options.quiet
    }

    pub fn jobs_cap(&self) -> Option<usize> {
        self.options.jobs_cap
    }

    /// Whether the artifacts are kept after the command.
    pub fn keeps_artifacts(&self) -> bool {
        self.options.artifacts.is_some()
    }

    /// The run root of `suite`: `--artifacts DIR/<suite>`, or a scratch
    /// directory that is removed when the session ends. Always absolute,
    /// because the agent runs in its own working directory.
    pub fn root(&self, suite: &str) -> Result<PathBuf, RunnerError> {
        let base = if let Some(dir) = &self.options.artifacts {
            absolute(dir)?
        } else {
            let mut scratch = lock(&self.scratch);
            if scratch.is_none() {
                *scratch = Some(Scratch::create()?);
            }
            scratch.as_ref().map(|s| s.path.clone()).unwrap_or_default()
        };
        Ok(base.join(suite))
    }

    /// The recorded run of a case, if this session already ran it.
    pub fn recorded(&self, suite: &str, case: &str) -> Option<TraceOutcome> {
        lock(&self.runs)
            .get(&(suite.to_owned(), case.to_owned()))
            .cloned()
    }

    pub fn record(&self, suite: &str, case: &str, outcome: TraceOutcome) {
        lock(&self.runs).insert((suite.to_owned(), case.to_owned()), outcome);
    }

    /// True the first time it is asked about `suite`.
    pub fn first_note(&self, suite: &str) -> bool {
        lock(&self.noted).insert(suite.to_owned())
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere cannot leave these maps half-updated: keep going.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn absolute(dir: &Path) -> Result<PathBuf, RunnerError> {
    std::path::absolute(dir).map_err(|source| RunnerError::Io {
        action: "resolve",
        path: dir.to_path_buf(),
        source,
    })
}

/// A private temporary directory, removed on drop.
#[derive(Debug)]
struct Scratch {
    path: PathBuf,
}

impl Scratch {
    fn create() -> Result<Self, RunnerError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let tmp = absolute(&std::env::temp_dir())?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mut last = None;
        for _ in 0..16 {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = tmp.join(format!(
                "agenteval-run-{}-{nanos:x}-{n}",
                std::process::id()
            ));
            // `create_dir` fails if the name exists: no one else's directory is reused.
            match std::fs::create_dir(&path) {
                Ok(()) => {
                    // Removed by the signal watcher if SIGINT/SIGTERM exits at once.
                    crate::interrupt::register_scratch(path.clone());
                    return Ok(Self { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => {
                    return Err(RunnerError::Io {
                        action: "create a scratch directory in",
                        path: tmp,
                        source: e,
                    });
                }
            }
        }
        Err(RunnerError::Io {
            action: "create a scratch directory in",
            path: tmp,
            source: last.unwrap_or_else(|| std::io::Error::other("no free name")),
        })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ignored = std::fs::remove_dir_all(&self.path);
        crate::interrupt::unregister_scratch(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_roots_are_absolute_and_removed() {
        let session = RunSession::new(SessionOptions::default());
        let root = session.root("s").unwrap();
        assert!(root.is_absolute());
        let scratch = root.parent().unwrap().to_path_buf();
        assert!(scratch.is_dir());
        assert_eq!(session.root("t").unwrap().parent(), Some(scratch.as_path()));
        drop(session);
        assert!(!scratch.exists());
    }

    #[test]
    fn artifacts_roots_are_per_suite() {
        let dir = tempfile::tempdir().unwrap();
        let session = RunSession::new(SessionOptions {
            artifacts: Some(dir.path().join("out")),
            ..SessionOptions::default()
        });
        assert_eq!(session.root("s").unwrap(), dir.path().join("out/s"));
        assert!(session.keeps_artifacts());
    }
}
