//! Deterministic random streams: one per (seed, metric name), so the same inputs always give
//! the same report and adding or removing a metric never changes another metric's numbers.
//!
//! Algorithm (portable and versioned, [`RNG_ALGORITHM`]): the 32-byte `SHA-256` digest of
//! `"agenteval-gate/bootstrap/v1\0" ‖ seed (u64 little-endian) ‖ len(name) (u64 little-endian)
//! ‖ name (UTF-8)` is the seed of a xoshiro256++ generator (Blackman & Vigna; the state words
//! are the digest read as four little-endian u64). The length prefix keeps
//! `(seed, name)` pairs from colliding by concatenation. `scripts/stats_reference.py`
//! reimplements this in Python and the integration tests check both agree bit for bit.
//!
//! xoshiro256++ rather than `ChaCha`: the bootstrap draws ~10⁹ indices per compare and
//! xoshiro256++ is several times cheaper per word while passing `BigCrush` and `PractRand`; nothing
//! here needs cryptographic unpredictability.

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

/// The name of the generator and seeding scheme, for reports and docs.
pub const RNG_ALGORITHM: &str = "xoshiro256++ seeded with SHA-256(v1, seed, metric name)";

/// Domain separation for the seed digest; bump the version if the scheme ever changes.
const SEED_DOMAIN: &[u8] = b"agenteval-gate/bootstrap/v1\0";

/// A metric's random stream.
#[derive(Debug, Clone)]
pub struct MetricRng(Xoshiro256PlusPlus);

impl MetricRng {
    /// The stream for `metric` under the run seed `seed`.
    pub fn new(seed: u64, metric: &str) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(SEED_DOMAIN);
        hasher.update(seed.to_le_bytes());
        hasher.update((metric.len() as u64).to_le_bytes());
        hasher.update(metric.as_bytes());
        let digest: [u8; 32] = hasher.finalize().into();
        Self(Xoshiro256PlusPlus::from_seed(digest))
    }

    /// The next 64 uniformly distributed bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(seed: u64, metric: &str, count: usize) -> Vec<u64> {
        let mut rng = MetricRng::new(seed, metric);
        (0..count).map(|_| rng.next_u64()).collect()
    }

    #[test]
    fn same_inputs_same_stream() {
        assert_eq!(first(7, "task_success", 8), first(7, "task_success", 8));
    }

    #[test]
    fn seed_and_name_each_change_the_stream() {
        let base = first(7, "task_success", 4);
        assert_ne!(base, first(8, "task_success", 4));
        assert_ne!(base, first(7, "task_success ", 4));
        assert_ne!(first(0, "", 4), first(0, "\0", 4));
    }

    #[test]
    fn xoshiro_matches_the_reference_c_implementation() {
        // First outputs of xoshiro256++ from state words [1, 2, 3, 4], as published with
        // the reference C code (xoshiro.di.unimi.it/xoshiro256plusplus.c).
        let mut seed = [0u8; 32];
        for (i, word) in [1u64, 2, 3, 4].iter().enumerate() {
            seed[i * 8..i * 8 + 8].copy_from_slice(&word.to_le_bytes());
        }
        let mut rng = Xoshiro256PlusPlus::from_seed(seed);
        let got: Vec<u64> = (0..4).map(|_| rng.next_u64()).collect();
        assert_eq!(
            got,
            [
                41_943_041,
                58_720_359,
                3_588_806_011_781_223,
                3_591_011_842_654_386
            ]
        );
    }
}
