//! SIGINT and SIGTERM (DESIGN §11). The binary blocks both signals before
//! any thread starts and waits for them on one watcher thread (`sigwait`:
//! no signal handler, no `unsafe`). On a signal the watcher
//!
//! 1. records it (the exit code becomes 130 or 143),
//! 2. SIGKILLs every registered agent process group (an agent runs in its
//!    own group, so this takes its children and grandchildren too) and, on
//!    Linux, every process carrying a registered case token and their
//!    descendants (those that left the group: `crate::reaper`),
//! 3. and, unless a graceful section is open (agents running, a baseline
//!    being written), removes the registered scratch directories and exits
//!    at once.
//!
//! Inside a graceful section the owner sees [`received`], starts no new
//! work, writes what it knows and returns; `main` then exits 130/143. A
//! second signal always exits at once (after the same clean-up).
//!
//! Child processes start with an empty signal mask (the standard library
//! resets it before `exec`), so agents can still be interrupted themselves.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use nix::sys::signal::{SigSet, Signal, killpg};
use nix::unistd::Pid;

/// Starts the report warning of a run that was interrupted: such a report
/// is partial and never becomes a baseline.
pub const INTERRUPTED_WARNING: &str = "interrupted:";

/// The signal received (0 = none yet).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

struct State {
    /// Live agent process groups.
    groups: BTreeSet<i32>,
    /// Tokens of the cases running (`crate::reaper`).
    tokens: BTreeSet<String>,
    /// Scratch directories to remove on a forced exit.
    scratch: Vec<PathBuf>,
    /// Open graceful sections.
    graceful: usize,
}

static STATE: Mutex<State> = Mutex::new(State {
    groups: BTreeSet::new(),
    tokens: BTreeSet::new(),
    scratch: Vec::new(),
    graceful: 0,
});

fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A signal the gate handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupt {
    Int,
    Term,
}

impl Interrupt {
    /// 130 for SIGINT, 143 for SIGTERM (128 + the signal number).
    pub fn exit_code(self) -> u8 {
        match self {
            Self::Int => 130,
            Self::Term => 143,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Int => "SIGINT",
            Self::Term => "SIGTERM",
        }
    }

    fn from_raw(raw: i32) -> Option<Self> {
        match Signal::try_from(raw).ok()? {
            Signal::SIGINT => Some(Self::Int),
            Signal::SIGTERM => Some(Self::Term),
            _ => None,
        }
    }
}

/// The signal received so far, if any.
pub fn received() -> Option<Interrupt> {
    Interrupt::from_raw(RECEIVED.load(Ordering::SeqCst))
}

/// The signal received so far, now cleared: the owner of a graceful
/// section finished the work the signal arrived during, and says so
/// itself, so `main` exits with the command's own code (a baseline update
/// whose last commit is written exits 0, not 143). A later signal counts
/// as a first one again.
pub fn settle() -> Option<Interrupt> {
    Interrupt::from_raw(RECEIVED.swap(0, Ordering::SeqCst))
}

/// Block SIGINT and SIGTERM in this thread (every thread started later
/// inherits the mask) and start the watcher. Call first thing in `main`,
/// once; later calls do nothing. Without it (library use, tests) signals
/// keep their default action.
pub fn install() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let mut set = SigSet::empty();
        set.add(Signal::SIGINT);
        set.add(Signal::SIGTERM);
        if set.thread_block().is_err() {
            return;
        }
        let spawned = std::thread::Builder::new()
            .name("agenteval-signals".into())
            .spawn(move || watch(set));
        if spawned.is_err() {
            // No watcher: restore the default behaviour.
            let _ignored = set.thread_unblock();
        }
    });
}

fn watch(set: SigSet) {
    loop {
        let Ok(signal) = set.wait() else { continue };
        let Some(interrupt) = Interrupt::from_raw(signal as i32) else {
            continue;
        };
        let first = RECEIVED
            .compare_exchange(0, signal as i32, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok();
        let st = state();
        for &pgid in &st.groups {
            kill_group(pgid);
        }
        let tokens: Vec<&str> = st.tokens.iter().map(String::as_str).collect();
        // Not reaped here: the runner reaps as each case ends, and an exit
        // hands the rest to init.
        let _killed = crate::reaper::kill_cases(&tokens);
        if first && st.graceful > 0 {
            drop(st);
            crate::output::write_stderr(&format!(
                "\ninterrupted by {}: agents stopped; writing what is known (again to exit at once)\n",
                interrupt.name()
            ));
            continue;
        }
        for dir in &st.scratch {
            let _ignored = std::fs::remove_dir_all(dir);
        }
        crate::output::write_stderr(&format!("\ninterrupted by {}\n", interrupt.name()));
        std::process::exit(i32::from(interrupt.exit_code()));
    }
}

/// SIGKILL process group `pgid`. A pgid of 0 or 1 would mean our own group
/// or init: never signalled. ESRCH (already gone) is fine.
pub fn kill_group(pgid: i32) {
    if pgid > 1 {
        let _gone = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
}

/// Register an agent's process group; it is killed on a signal (at once if
/// one already arrived). Unregister with [`unregister_group`].
pub fn register_group(pgid: i32) {
    let mut st = state();
    st.groups.insert(pgid);
    if received().is_some() {
        kill_group(pgid);
    }
}

pub fn unregister_group(pgid: i32) {
    state().groups.remove(&pgid);
}

/// Register a running case's token; its processes are killed on a signal
/// (at once if one already arrived). Unregister with [`unregister_token`].
pub fn register_token(token: &str) {
    let mut st = state();
    st.tokens.insert(token.to_owned());
    if received().is_some() {
        let _killed = crate::reaper::kill_cases(&[token]);
    }
}

pub fn unregister_token(token: &str) {
    state().tokens.remove(token);
}

/// Register a scratch directory, removed on an immediate exit.
pub fn register_scratch(dir: PathBuf) {
    state().scratch.push(dir);
}

pub fn unregister_scratch(dir: &std::path::Path) {
    state().scratch.retain(|d| d != dir);
}

/// While alive, a signal does not exit the process: the holder finishes or
/// stops its work, and `main` exits 130/143 afterwards.
#[derive(Debug)]
pub struct Graceful(());

impl Graceful {
    pub fn enter() -> Self {
        state().graceful += 1;
        Self(())
    }
}

impl Drop for Graceful {
    fn drop(&mut self) {
        let mut st = state();
        st.graceful = st.graceful.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_shell_convention() {
        assert_eq!(Interrupt::Int.exit_code(), 130);
        assert_eq!(Interrupt::Term.exit_code(), 143);
        assert_eq!(Interrupt::from_raw(libc::SIGTERM), Some(Interrupt::Term));
        assert_eq!(Interrupt::from_raw(libc::SIGHUP), None);
        assert_eq!(received(), None, "no watcher in unit tests");
    }
}
