//! Nothing an agent starts survives its case (issue 25, item 4).
//!
//! An agent runs in its own process group, and killing the group takes its
//! children and grandchildren (`runner::process`, `interrupt`). A process
//! that calls `setsid` (or `setpgid`) leaves the group, and a double fork
//! leaves the agent's tree too. On Linux the gate therefore
//!
//! 1. is a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`, [`install`]):
//!    an orphan of an agent is reparented to the gate, not to init, so it
//!    stays the gate's to kill and to reap;
//! 2. marks each case's processes: the agent starts with
//!    [`CASE_TOKEN_ENV`]`=<random>`, which every process it starts inherits
//!    whatever group, session or parent it ends up with;
//! 3. at the end of the case, on its timeout and on SIGINT/SIGTERM, kills
//!    ([`kill_cases`]) every process whose `/proc/<pid>/environ` carries the
//!    case's token, and every descendant of one (a process that exec'd with
//!    an empty environment is still found while its parent lives), scanning
//!    again until a scan finds nothing new (a process forking as it dies);
//! 4. reaps what it killed ([`reap`]): the gate's own zombies, checked by
//!    pid and start time, never a child the runtime waits for. Concurrent
//!    cases have their own
//!    tokens: a case's sweep never touches another case's processes.
//!
//! Not covered: a process that both leaves the tree and replaces its
//! environment (an `env -i` exec after a double fork) or changes its user
//! (its `environ` is unreadable); a process handed to another service
//! (`systemd-run`, `at`, a container daemon). On macOS and other Unixes
//! only the process group is killed. See docs/trust.md.

use std::time::Duration;

/// The variable that marks a case's processes.
pub const CASE_TOKEN_ENV: &str = "AGENTEVAL_CASE_TOKEN";

/// Make the gate a child subreaper (Linux; elsewhere nothing). Call once,
/// first thing in `main`. Returns whether the gate is one.
pub fn install() -> bool {
    imp::install()
}

/// A fresh token for one case: 128 random bits in hex.
pub fn new_token() -> String {
    let bits: u128 = rand::random();
    format!("{bits:032x}")
}

/// A process [`kill_cases`] signalled: its pid and start time, so a pid
/// the system gave to a new process is never taken for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Killed {
    pub pid: i32,
    start: u64,
}

/// SIGKILL every live process carrying one of `tokens` (see the module
/// docs) and every descendant of one, never the gate itself. Returns what
/// it signalled, for [`reap`]. Linux only; elsewhere nothing.
pub fn kill_cases(tokens: &[&str]) -> Vec<Killed> {
    if tokens.is_empty() {
        return Vec::new();
    }
    imp::kill_cases(tokens)
}

/// Reap the processes of `killed` once they are dead children of the gate
/// (an orphan is handed to the gate when its parent, also killed, dies),
/// waiting up to `timeout`. What is still dying then is reaped by a later
/// call (or by init when the gate exits). Only the gate's own zombies with
/// the recorded start time are waited for: never a child the gate tracks
/// elsewhere.
pub fn reap(killed: &[Killed], timeout: Duration) {
    imp::reap(killed, timeout);
}

#[cfg(target_os = "linux")]
mod imp {
    use std::collections::{BTreeMap, BTreeSet};
    use std::sync::{Mutex, PoisonError};
    use std::time::{Duration, Instant};

    use nix::sys::signal::{Signal, kill};
    use nix::sys::wait::{WaitPidFlag, waitpid};
    use nix::unistd::Pid;

    use super::Killed;

    /// Scans per sweep: each kills what the last one found alive, so a
    /// process that forks while it is killed is caught by the next.
    const MAX_ROUNDS: usize = 50;

    /// Killed processes not reaped yet (still dying when their sweep's
    /// wait ended).
    static PENDING: Mutex<Vec<Killed>> = Mutex::new(Vec::new());

    pub(super) fn install() -> bool {
        nix::sys::prctl::set_child_subreaper(true).is_ok()
    }

    /// One process of `/proc`.
    struct Proc {
        ppid: i32,
        /// A zombie: dead, waiting for its parent to reap it.
        dead: bool,
        /// Clock ticks after boot: with the pid, it names one process.
        start: u64,
    }

    /// Every process of the system, by pid.
    fn scan() -> BTreeMap<i32, Proc> {
        let mut out = BTreeMap::new();
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return out;
        };
        for entry in dir.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            if let Some(p) = stat(pid) {
                out.insert(pid, p);
            }
        }
        out
    }

    /// `/proc/<pid>/stat`: `pid (comm) state ppid …`, the start time 20
    /// fields after the state (proc(5)); the command may hold spaces and
    /// parentheses, so the fields follow the last `)`.
    fn stat(pid: i32) -> Option<Proc> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let (_, rest) = text.rsplit_once(')')?;
        let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
        Some(Proc {
            ppid: fields.get(1)?.parse().ok()?,
            dead: matches!(*fields.first()?, "Z" | "X" | "x"),
            start: fields.get(19)?.parse().ok()?,
        })
    }

    /// Whether `pid` was started with one of `needles` (`NAME=token`) in
    /// its environment. Unreadable (another user, gone) means no.
    ///
    /// A child the gate has just spawned can still be inside `execve`: its
    /// parent is already running again, but the kernel has not yet placed
    /// the new environment, so `environ` reads empty. For the gate's own
    /// children an empty read is retried for up to 50 ms instead of being
    /// taken as "not a carrier" (a sweep at that moment missed the process).
    fn carries(pid: i32, needles: &[Vec<u8>], own_child: bool) -> bool {
        let path = format!("/proc/{pid}/environ");
        let mut env = std::fs::read(&path);
        for _ in 0..50 {
            if !own_child || !matches!(&env, Ok(e) if e.is_empty()) {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
            env = std::fs::read(&path);
        }
        env.is_ok_and(|env| {
            env.split(|&b| b == 0)
                .any(|var| needles.iter().any(|n| var == n.as_slice()))
        })
    }

    fn me() -> i32 {
        i32::try_from(std::process::id()).unwrap_or(0)
    }

    /// The live processes of the cases: token carriers and their
    /// descendants, without the gate.
    fn targets(needles: &[Vec<u8>]) -> Vec<Killed> {
        let me = me();
        let procs = scan();
        let mut children: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
        for (&pid, p) in &procs {
            children.entry(p.ppid).or_default().push(pid);
        }
        let mut found = BTreeSet::new();
        let mut stack: Vec<i32> = procs
            .iter()
            .filter(|(pid, p)| **pid != me && !p.dead && carries(**pid, needles, p.ppid == me))
            .map(|(pid, _)| *pid)
            .collect();
        while let Some(pid) = stack.pop() {
            if pid <= 1 || pid == me || !found.insert(pid) {
                continue;
            }
            stack.extend(children.get(&pid).into_iter().flatten().copied());
        }
        found
            .into_iter()
            .filter_map(|pid| {
                let p = procs.get(&pid)?;
                (!p.dead).then_some(Killed {
                    pid,
                    start: p.start,
                })
            })
            .collect()
    }

    pub(super) fn kill_cases(tokens: &[&str]) -> Vec<Killed> {
        let needles: Vec<Vec<u8>> = tokens
            .iter()
            .map(|t| format!("{}={t}", super::CASE_TOKEN_ENV).into_bytes())
            .collect();
        let mut killed: Vec<Killed> = Vec::new();
        for _ in 0..MAX_ROUNDS {
            let fresh: Vec<Killed> = targets(&needles)
                .into_iter()
                .filter(|k| !killed.contains(k))
                .collect();
            if fresh.is_empty() {
                break;
            }
            for k in fresh {
                // ESRCH: it died between the scan and the kill.
                let _gone = kill(Pid::from_raw(k.pid), Signal::SIGKILL);
                killed.push(k);
            }
        }
        killed
    }

    pub(super) fn reap(killed: &[Killed], timeout: Duration) {
        let me = me();
        let deadline = Instant::now() + timeout;
        let mut pending =
            std::mem::take(&mut *PENDING.lock().unwrap_or_else(PoisonError::into_inner));
        pending.extend_from_slice(killed);
        loop {
            pending.retain(|k| match stat(k.pid) {
                // Gone, or reaped by its parent and the pid given to another.
                None => false,
                Some(p) if p.start != k.start => false,
                Some(p) if p.dead && p.ppid == me => {
                    let _reaped = waitpid(Pid::from_raw(k.pid), Some(WaitPidFlag::WNOHANG));
                    false
                }
                // Dying, or dead under a parent that is dying too.
                Some(_) => true,
            });
            if pending.is_empty() || Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        PENDING
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(pending);
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::time::Duration;

    pub(super) fn install() -> bool {
        false
    }

    use super::Killed;

    pub(super) fn kill_cases(_tokens: &[&str]) -> Vec<Killed> {
        Vec::new()
    }

    pub(super) fn reap(_killed: &[Killed], _timeout: Duration) {}
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_fresh() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }

    #[test]
    fn a_sweep_kills_the_carriers_of_its_token_and_no_others() {
        let (mine, other) = (new_token(), new_token());
        let spawn = |token: &str| {
            std::process::Command::new("sleep")
                .arg("300")
                .env(CASE_TOKEN_ENV, token)
                .spawn()
                .unwrap()
        };
        let (mut a, mut b) = (spawn(&mine), spawn(&other));
        let killed = kill_cases(&[&mine]);
        let pids: Vec<i32> = killed.iter().map(|k| k.pid).collect();
        assert_eq!(pids, [i32::try_from(a.id()).unwrap()]);
        // The test's own children: `wait` reaps them (no `reap` here).
        let status = a.wait().unwrap();
        assert!(!status.success(), "killed");
        assert!(
            b.try_wait().unwrap().is_none(),
            "the other case's process lives"
        );
        b.kill().unwrap();
        b.wait().unwrap();
    }
}
