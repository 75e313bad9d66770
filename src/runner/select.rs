//! Which cases run: the smoke tier (tags, first N, cap) and shards (a stable
//! hash of the case id, so a case always lands in the same shard).

use crate::runner::settings::Shard;
use crate::spec::suite::Case;

/// Shard (1-based) a case belongs to among `count`.
pub(crate) fn shard_of(case_id: &str, count: u32) -> u32 {
    let digest = crate::digest::sha256_hex(case_id.as_bytes());
    // The first 16 hex digits as a u64: uniform and stable across platforms.
    let prefix = u64::from_str_radix(&digest[..16], 16).unwrap_or(0);
    (prefix % u64::from(count)) as u32 + 1
}

/// Keep only the indices whose case falls in `shard`.
pub(crate) fn in_shard(cases: &[Case], indices: Vec<usize>, shard: Option<Shard>) -> Vec<usize> {
    match shard {
        None => indices,
        Some(s) => indices
            .into_iter()
            .filter(|&i| shard_of(&cases[i].id, s.count) == s.index)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_and_are_stable() {
        let ids: Vec<String> = (0..200).map(|i| format!("case-{i:03}")).collect();
        let mut counts = [0usize; 4];
        for id in &ids {
            let s = shard_of(id, 4);
            assert_eq!(s, shard_of(id, 4));
            counts[(s - 1) as usize] += 1;
        }
        assert_eq!(counts.iter().sum::<usize>(), 200);
        assert!(counts.iter().all(|&c| c > 30), "unbalanced: {counts:?}");
        // Pinned values (computed independently with Python's hashlib): the
        // assignment must never change between versions.
        assert_eq!(shard_of("cs-001", 4), 2);
        assert_eq!(shard_of("case-007", 4), 4);
        assert_eq!(shard_of("abc", 1), 1);
    }
}
