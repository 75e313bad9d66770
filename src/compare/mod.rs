//! Comparison of a head run with a baseline: metrics, statuses, localization,
//! verdict (DESIGN §8). Pure and synchronous.

pub mod absolute;
pub mod coverage;
pub mod decide;
pub mod engine;
pub mod error;
pub mod localize;
pub mod pairing;
pub mod preflight;
#[cfg(test)]
mod tests;
