//! The memory budget (`--max-memory`, `AGENTEVAL_MAX_MEMORY`): the most
//! memory one input may need before the gate refuses it with the size it
//! would need, instead of being killed by the kernel's OOM killer half-way
//! through a CI job (issue 25). Without the flag the budget is the memory
//! the system reports available when the gate starts (`MemAvailable` in
//! `/proc/meminfo`); where that cannot be read, there is no check.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

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
    fn meminfo_gives_bytes() {
        let text = "MemTotal:       24000000 kB\nMemAvailable:    7340032 kB\n";
        assert_eq!(parse_meminfo(text), Some(7_340_032 * 1024));
        assert_eq!(parse_meminfo("MemTotal: 1 kB\n"), None);
    }
}
