//! The counts of one judge engine run, which become the run report's
//! `judge` section ([`crate::judged::summary`]).

use std::collections::BTreeMap;

/// Counts of one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunStats {
    pub items: u64,
    pub answered: u64,
    pub cache_hits: u64,
    /// HTTP requests sent, retries and fallbacks included.
    pub calls: u64,
    pub retries: u64,
    /// Questions answered by a fallback provider.
    pub fallbacks: u64,
    /// Questions asked once more after an answer that did not parse.
    pub reasked: u64,
    /// Questions no provider answered (N/A `judge_error`).
    pub errors: u64,
    pub budget_exhausted: u64,
    pub not_in_cache: u64,
    /// Cache files that could not be read as entries (treated as misses).
    pub corrupt_entries: u64,
    /// Cache writes that failed (the answer was still used).
    pub cache_write_errors: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Actual cost of the calls made, where a price is known.
    pub cost_usd: f64,
    /// Some call was made by a judge without a price.
    pub cost_incomplete: bool,
    /// Error class → questions that failed with it (first error of each).
    pub error_classes: BTreeMap<String, u64>,
    /// The first failure, in question order, with its detail.
    pub first_error: Option<String>,
    /// Failed questions whose first error was the provider being unreachable.
    pub unavailable: u64,
    /// What providers made the run change (a rejected parameter and the provider's message).
    pub notes: Vec<String>,
}

impl RunStats {
    /// The judge could not be reached at all: questions needed it, every one
    /// of them failed for lack of a provider, and nothing was answered.
    pub fn judge_unavailable(&self) -> bool {
        self.errors > 0 && self.answered == 0 && self.unavailable == self.errors
    }
}
