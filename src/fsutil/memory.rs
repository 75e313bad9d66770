//! The memory budget (`--max-memory`, `AGENTEVAL_MAX_MEMORY`): the most
//! memory one input may need before the gate refuses it with the size it
//! would need, instead of being killed by the kernel's OOM killer half-way
//! through a CI job (issue 25). Without the flag the budget is the memory
//! the system reports available when the gate starts (`MemAvailable` in
//! `/proc/meminfo`); where that cannot be read, there is no check.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};

/// 0 = not set: use what the system reports available.
static MAX_MEMORY: AtomicU64 = AtomicU64::new(0);

/// Set the budget once at start-up (`--max-memory`).
pub fn set_max_memory(bytes: u64) {
    MAX_MEMORY.store(bytes, Ordering::Relaxed);
}

/// The budget in bytes and where it comes from (`--max-memory` or
/// `available memory`); `None` when neither is known.
pub fn memory_budget() -> Option<(u64, &'static str)> {
    match MAX_MEMORY.load(Ordering::Relaxed) {
        0 => {
            // Read once: what the gate itself allocates later is no less available to it.
            static AVAILABLE: OnceLock<Option<u64>> = OnceLock::new();
            AVAILABLE
                .get_or_init(available_memory)
                .map(|b| (b, "the memory available"))
        }
        set => Some((set, "the --max-memory limit")),
    }
}

/// Memory reserved by the inputs being read right now (bytes), and a signal when it drops.
#[derive(Debug)]
struct Ledger {
    reserved: Mutex<u64>,
    released: Condvar,
}

impl Ledger {
    const fn new() -> Self {
        Self {
            reserved: Mutex::new(0),
            released: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, u64> {
        self.reserved
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn reserve(&'static self, need: u64, budget: u64) -> Reservation {
        let mut reserved = self.lock();
        while *reserved > 0 && reserved.saturating_add(need) > budget {
            reserved = self
                .released
                .wait(reserved)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        *reserved = reserved.saturating_add(need);
        Reservation {
            ledger: self,
            bytes: need,
        }
    }
}

static LEDGER: Ledger = Ledger::new();

/// `need` bytes of the budget, held while one input is read; released on drop.
#[derive(Debug)]
#[must_use = "the memory is reserved only while this is held"]
pub struct Reservation {
    ledger: &'static Ledger,
    bytes: u64,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let mut reserved = self.ledger.lock();
        *reserved = reserved.saturating_sub(self.bytes);
        self.ledger.released.notify_all();
    }
}

/// Reserve `need` bytes of `budget` for one input (`need ≤ budget`, checked by the caller):
/// several inputs read at once (`--jobs`) share the budget, so this waits while the inputs
/// already being read hold too much of it. It never waits when nothing else is reserved, so
/// one input that fits always proceeds.
pub fn reserve(need: u64, budget: u64) -> Reservation {
    LEDGER.reserve(need, budget)
}

/// `MemAvailable` from `/proc/meminfo`, in bytes.
fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_share_the_budget_and_wait_for_each_other() {
        use std::sync::mpsc;
        use std::time::Duration;
        // A ledger of its own: the tests that read traces reserve from the global one.
        let ledger: &'static Ledger = Box::leak(Box::new(Ledger::new()));
        let budget = 100;
        let first = ledger.reserve(70, budget);
        let (tx, rx) = mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let second = ledger.reserve(50, budget);
            tx.send(()).ok();
            drop(second);
        });
        // 70 + 50 > 100: the second waits while the first is held.
        assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
        drop(first);
        assert!(rx.recv_timeout(Duration::from_secs(10)).is_ok());
        waiter.join().ok();
        // Alone, a reservation never waits, and two that fit together do not either.
        let a = ledger.reserve(60, budget);
        let b = ledger.reserve(40, budget);
        assert_eq!(*ledger.lock(), 100);
        drop((a, b));
        assert_eq!(*ledger.lock(), 0);
    }

    #[test]
    fn meminfo_gives_bytes() {
        let text = "MemTotal:       24000000 kB\nMemAvailable:    7340032 kB\n";
        assert_eq!(parse_meminfo(text), Some(7_340_032 * 1024));
        assert_eq!(parse_meminfo("MemTotal: 1 kB\n"), None);
    }
}
