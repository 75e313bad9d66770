//! One agent process: spawned in its own process group, with stdin closed,
//! the tails of stdout and stderr kept, a timeout, and the whole group killed
//! when it times out or when its leader exits (so no grandchild outlives its
//! case). On Linux the case's token (`crate::reaper`) also finds what left
//! the group (`setsid`, a double fork): killed and reaped at the same moments.

use std::ffi::OsString;
use std::io;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::task::JoinHandle;

use crate::{interrupt, reaper};

/// Bytes of stdout and stderr kept per stream.
pub(crate) const TAIL_BYTES: usize = 4096;

/// How long to wait for the output pipes to close once the process group is
/// gone. A grandchild that left the group (`setsid`) can hold them open.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

/// How long to wait for the processes a case left behind to die once
/// killed, so they are reaped, not left as zombies of the gate.
/// They die within milliseconds; the bound is for a process stuck in the
/// kernel, reaped by a later case's sweep instead.
const REAP_TIMEOUT: Duration = Duration::from_secs(10);

/// What to run.
#[derive(Debug, Clone)]
pub(crate) struct ProcessSpec {
    pub program: OsString,
    pub args: Vec<OsString>,
    /// Set on top of the inherited environment.
    pub env: Vec<(OsString, OsString)>,
    /// Removed from the inherited environment (secrets: `runner::secrets`).
    pub env_remove: Vec<OsString>,
    pub cwd: PathBuf,
    pub timeout: Duration,
}

/// How the process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Exit {
    Code(i32),
    /// Killed by a signal it did not ask for (a crash, the OOM killer).
    Signal(i32),
    /// The timeout fired; the process group was killed.
    TimedOut,
    /// Waiting for the process failed (the OS lost track of it).
    WaitFailed(String),
}

/// A process that ran (it may have failed).
#[derive(Debug, Clone)]
pub(crate) struct Finished {
    pub exit: Exit,
    pub stdout_tail: String,
    pub stderr_tail: String,
}

/// Run `spec` to completion. `Err` only when the process could not be
/// started (the one failure worth retrying); everything after the spawn is
/// reported in [`Finished`].
pub(crate) async fn run_process(spec: &ProcessSpec) -> io::Result<Finished> {
    let mut cmd = tokio::process::Command::new(&spec.program);
    for key in &spec.env_remove {
        cmd.env_remove(key);
    }
    let token = reaper::new_token();
    cmd.args(&spec.args)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        // Last: no `agent.env` entry replaces the mark of the case's processes.
        .env(reaper::CASE_TOKEN_ENV, &token)
        .current_dir(&spec.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group (pgid = its pid), so a timeout can kill
        // every process the agent started, not only the leader.
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn()?;
    // Kills the group and the case's processes if this future is dropped
    // half-way (the run is aborted), and registers both so SIGINT/SIGTERM
    // kill them too.
    let mut group = CaseGuard::new(child.id(), token);
    let stdout = Tail::spawn(child.stdout.take());
    let stderr = Tail::spawn(child.stderr.take());
    let exit = match tokio::time::timeout(spec.timeout, child.wait()).await {
        Ok(status) => {
            // The leader is done: anything it left behind in its group goes too.
            group.kill();
            match status {
                Ok(status) => exit_of(status),
                Err(e) => Exit::WaitFailed(e.to_string()),
            }
        }
        Err(_elapsed) => {
            // Killed before the leader is reaped, so the group id cannot have been reused.
            group.kill();
            let _reaped = child.wait().await;
            Exit::TimedOut
        }
    };
    // The leader is reaped: what it left outside its group goes now, and
    // before the pipes are drained (a `setsid` daemon holds them open).
    group.sweep().await;
    Ok(Finished {
        exit,
        stdout_tail: stdout.finish().await,
        stderr_tail: stderr.finish().await,
    })
}

fn exit_of(status: ExitStatus) -> Exit {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Exit::Code(code),
        (None, Some(signal)) => Exit::Signal(signal),
        (None, None) => Exit::Code(-1),
    }
}

/// The agent's process group (pgid = the leader's pid), killed once, and
/// the case's token, which marks the processes that left the group.
struct CaseGuard {
    pgid: Option<i32>,
    token: Option<String>,
}

impl CaseGuard {
    fn new(leader: Option<u32>, token: String) -> Self {
        // A pgid of 0 or 1 would signal our own group or init: never.
        let pgid = leader
            .and_then(|p| i32::try_from(p).ok())
            .filter(|&p| p > 1);
        if let Some(pgid) = pgid {
            interrupt::register_group(pgid);
        }
        interrupt::register_token(&token);
        Self {
            pgid,
            token: Some(token),
        }
    }

    /// SIGKILL every process of the group.
    fn kill(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            interrupt::kill_group(pgid);
            interrupt::unregister_group(pgid);
        }
    }

    /// Kill the group, then every process of the case outside it (Linux),
    /// and reap them. Call once the leader is reaped.
    async fn sweep(&mut self) {
        self.kill();
        let Some(token) = self.token.take() else {
            return;
        };
        let swept = tokio::task::spawn_blocking({
            let token = token.clone();
            move || reaper::reap(&reaper::kill_cases(&[&token]), REAP_TIMEOUT)
        })
        .await;
        if swept.is_err() {
            // The blocking pool is gone (the runtime shuts down): kill only.
            reaper::kill_cases(&[&token]);
        }
        interrupt::unregister_token(&token);
    }
}

impl Drop for CaseGuard {
    fn drop(&mut self) {
        self.kill();
        if let Some(token) = self.token.take() {
            // Dropped half-way: kill, and leave the reaping to the exit.
            reaper::kill_cases(&[&token]);
            interrupt::unregister_token(&token);
        }
    }
}

/// The last [`TAIL_BYTES`] of a stream, read in the background.
struct Tail {
    buf: Arc<Mutex<TailBuf>>,
    task: Option<JoinHandle<()>>,
}

#[derive(Default)]
struct TailBuf {
    bytes: Vec<u8>,
    cut: bool,
}

impl Tail {
    fn spawn<R: AsyncRead + Unpin + Send + 'static>(stream: Option<R>) -> Self {
        let buf = Arc::new(Mutex::new(TailBuf::default()));
        let task = stream.map(|mut r| {
            let buf = Arc::clone(&buf);
            tokio::spawn(async move {
                let mut chunk = vec![0u8; 8192];
                while let Ok(n) = r.read(&mut chunk).await {
                    if n == 0 {
                        break;
                    }
                    if let Ok(mut b) = buf.lock() {
                        b.push(&chunk[..n]);
                    }
                }
            })
        });
        Self { buf, task }
    }

    /// Wait (bounded) for the stream to close, then render what was kept.
    async fn finish(mut self) -> String {
        if let Some(task) = self.task.take() {
            let abort = task.abort_handle();
            if tokio::time::timeout(DRAIN_TIMEOUT, task).await.is_err() {
                abort.abort();
            }
        }
        self.buf
            .lock()
            .map(|b| render_tail(&b.bytes, b.cut))
            .unwrap_or_default()
    }
}

impl TailBuf {
    fn push(&mut self, data: &[u8]) {
        self.bytes.extend_from_slice(data);
        // Trim in batches so a chatty agent costs amortised O(1) per byte.
        if self.bytes.len() > 2 * TAIL_BYTES {
            let excess = self.bytes.len() - TAIL_BYTES;
            self.bytes.drain(..excess);
            self.cut = true;
        }
    }
}

/// The last `TAIL_BYTES` as text, starting on a character boundary, with a
/// leading `…` when output was cut.
fn render_tail(bytes: &[u8], cut: bool) -> String {
    let (start, cut) = if bytes.len() > TAIL_BYTES {
        (bytes.len() - TAIL_BYTES, true)
    } else {
        (0, cut)
    };
    let mut tail = &bytes[start..];
    if cut {
        // Skip UTF-8 continuation bytes left over from a cut character.
        while let Some((&b, rest)) = tail.split_first() {
            if b & 0b1100_0000 != 0b1000_0000 {
                break;
            }
            tail = rest;
        }
    }
    let text = String::from_utf8_lossy(tail);
    if cut {
        format!("…{text}")
    } else {
        text.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_last_bytes_on_a_char_boundary() {
        let mut b = TailBuf::default();
        b.push("é".repeat(3000).as_bytes()); // 6000 bytes
        b.push(b"end");
        let s = render_tail(&b.bytes, b.cut);
        assert!(s.starts_with('…'));
        assert!(s.ends_with("end"));
        assert!(!s.contains('\u{fffd}'), "cut inside a character");
        // 4096 bytes minus "end" leaves 4093 bytes of 2-byte characters: one
        // dangling continuation byte is dropped.
        assert_eq!(s.trim_start_matches('…').len(), 4092 + 3);
    }

    #[test]
    fn short_output_is_kept_whole() {
        let mut b = TailBuf::default();
        b.push(b"line 1\nline 2\n");
        assert_eq!(render_tail(&b.bytes, b.cut), "line 1\nline 2\n");
    }

    #[tokio::test]
    async fn exit_codes_and_tails_are_reported() {
        let spec = ProcessSpec {
            program: "sh".into(),
            args: vec!["-c".into(), "echo out; echo err >&2; exit 3".into()],
            env: vec![],
            env_remove: vec![],
            cwd: std::env::temp_dir(),
            timeout: Duration::from_secs(30),
        };
        let f = run_process(&spec).await.unwrap();
        assert_eq!(f.exit, Exit::Code(3));
        assert_eq!(f.stdout_tail, "out\n");
        assert_eq!(f.stderr_tail, "err\n");
    }

    #[tokio::test]
    async fn a_missing_program_is_a_spawn_error() {
        let spec = ProcessSpec {
            program: "agenteval-no-such-program".into(),
            args: vec![],
            env: vec![],
            env_remove: vec![],
            cwd: std::env::temp_dir(),
            timeout: Duration::from_secs(30),
        };
        let err = run_process(&spec).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
