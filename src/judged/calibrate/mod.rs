//! `calibrate`: the judge against human labels on a golden set.

pub mod agreement;
pub(crate) mod golden;
pub(crate) mod pairing;
pub(crate) mod render;

pub use agreement::{Agreement, Scale, agreement};
pub use golden::{Golden, load_golden};
pub use pairing::{CalibrationReport, JudgedCase, pair};
