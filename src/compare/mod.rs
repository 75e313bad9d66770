//! Comparison of a head run with a baseline: metrics, statuses, localization,
//! verdict (DESIGN §8). Pure and synchronous.

pub(crate) mod absolute;
pub(crate) mod coverage;
pub mod decide;
pub mod engine;
pub(crate) mod error;
pub(crate) mod localize;
pub(crate) mod pairing;
pub(crate) mod preflight;
#[cfg(test)]
mod tests;
pub(crate) mod trials;
