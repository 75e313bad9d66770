//! Comparison of a head run with a baseline: metrics, statuses, localization,
//! verdict (DESIGN §8). Pure and synchronous.

pub mod absolute;
