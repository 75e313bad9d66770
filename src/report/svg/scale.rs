//! Linear scales, "nice" ticks and the display unit of a metric.

use crate::model::metric_id::{MetricId, Unit};

/// Maps a data interval onto a pixel interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Linear {
    pub d0: f64,
    pub d1: f64,
    pub r0: f64,
    pub r1: f64,
}

impl Linear {
    pub(crate) fn new(domain: (f64, f64), range: (f64, f64)) -> Self {
        let (mut d0, mut d1) = domain;
        if !(d0.is_finite() && d1.is_finite()) {
            (d0, d1) = (0.0, 1.0);
        }
        if (d1 - d0).abs() < f64::EPSILON {
            let pad = if d0.abs() > 0.0 { d0.abs() * 0.1 } else { 1.0 };
            (d0, d1) = (d0 - pad, d1 + pad);
        }
        Self {
            d0,
            d1,
            r0: range.0,
            r1: range.1,
        }
    }

    /// Pixel of `v`, clamped to the range (a hostile value cannot leave the plot).
    pub(crate) fn at(&self, v: f64) -> f64 {
        let t = ((v - self.d0) / (self.d1 - self.d0)).clamp(-0.05, 1.05);
        round1(self.r0 + t * (self.r1 - self.r0))
    }

    /// About `count` round tick values inside the domain.
    pub(crate) fn ticks(&self, count: usize) -> Vec<f64> {
        let (lo, hi) = (self.d0.min(self.d1), self.d0.max(self.d1));
        let span = hi - lo;
        let raw = span / count.max(1) as f64;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 2.5, 5.0, 10.0]
            .iter()
            .map(|m| m * mag)
            .find(|s| span / s <= count as f64)
            .unwrap_or(10.0 * mag);
        let decimals = (-step.log10().floor() + 1.0).clamp(0.0, 12.0) as i32;
        let unit = 10f64.powi(decimals);
        let first = (lo / step - 1e-9).ceil() as i64;
        let last = (hi / step + 1e-9).floor() as i64;
        let mut out = Vec::new();
        for k in first..=last.min(first + 50) {
            let v = (k as f64 * step * unit).round() / unit;
            // Avoid `-0`.
            out.push(if v == 0.0 { 0.0 } else { v });
        }
        out
    }
}

/// One decimal: coordinates stay short and byte-stable.
pub(crate) fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

/// Factor from stored values to displayed ones: rates (checkpoints, task
/// success) are shown in percent.
pub(crate) fn display_factor(metric: &str) -> f64 {
    MetricId::parse(metric).unit().display_factor()
}

/// The unit group of a metric in the forest plot, and its axis caption.
pub(crate) fn unit_of(metric: &str) -> (&'static str, &'static str) {
    match MetricId::parse(metric).unit() {
        Unit::Percent | Unit::Rate => ("pp", "Δ in percentage points"),
        Unit::Usd => ("usd", "Δ in US dollars"),
        Unit::Ms => ("ms", "Δ in milliseconds"),
        Unit::Score => ("score", "Δ in score points (1–5 scale)"),
    }
}

/// A tick label in the display unit.
pub(crate) fn tick_label(unit: &str, v: f64) -> String {
    let sign = if v < 0.0 {
        "−"
    } else if v > 0.0 {
        "+"
    } else {
        ""
    };
    let a = v.abs();
    match unit {
        "usd" => format!("{sign}${}", trim(a, 4)),
        "ms" | "pp" => format!("{sign}{}", trim(a, 1)),
        _ => format!("{sign}{}", trim(a, 2)),
    }
}

fn trim(v: f64, digits: usize) -> String {
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_inside() {
        let s = Linear::new((-100.0, 10.0), (0.0, 400.0));
        assert_eq!(s.ticks(5), vec![-100.0, -75.0, -50.0, -25.0, 0.0]);
        let s = Linear::new((-0.03, 0.02), (0.0, 1.0));
        assert_eq!(s.ticks(5), vec![-0.03, -0.02, -0.01, 0.0, 0.01, 0.02]);
        assert!(s.at(-0.03).abs() < 1e-9);
        assert!((s.at(1e9) - 1.1).abs() < 1e-9, "clamped");
    }

    #[test]
    fn degenerate_domains_get_a_width() {
        let s = Linear::new((0.0, 0.0), (0.0, 100.0));
        assert!(s.d1 > s.d0);
        let s = Linear::new((f64::NAN, 1.0), (0.0, 100.0));
        assert_eq!((s.d0, s.d1), (0.0, 1.0));
    }

    #[test]
    fn labels_follow_units() {
        assert_eq!(tick_label("pp", -50.0), "−50");
        assert_eq!(tick_label("score", 0.25), "+0.25");
        assert_eq!(tick_label("usd", 0.0012), "+$0.0012");
        assert_eq!(unit_of("checkpoint:P1").0, "pp");
        assert_eq!(unit_of("step_type:EXEC").0, "score");
    }
}
