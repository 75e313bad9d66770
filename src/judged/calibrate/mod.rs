//! `calibrate`: the judge against human labels on a golden set.

pub mod agreement;
pub mod golden;
pub mod pairing;
pub mod render;

pub use agreement::{Agreement, Scale, agreement};
pub use golden::{Golden, load_golden};
pub use pairing::{CalibrationReport, JudgedCase, pair};
