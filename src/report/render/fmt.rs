//! Number formatting shared by every renderer.

use crate::model::metric_id::{MetricId, Unit};

/// `81.2%`, or `—` when undefined.
pub(crate) fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "—".to_owned(), |v| format!("{v:.1}%"))
}

/// A number with `digits` decimals, or `—`.
pub(crate) fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "—".to_owned(), |v| format!("{v:.digits$}"))
}

/// A metric value in its natural unit: percentages, dollars, milliseconds,
/// 0–1 rates and 1–5 scores.
pub(crate) fn metric(name: &str, v: Option<f64>) -> String {
    let Some(v) = v else { return "—".to_owned() };
    match MetricId::parse(name).unit() {
        Unit::Percent => format!("{v:.1}%"),
        Unit::Usd => format!("${v:.4}"),
        Unit::Ms => format!("{v:.0} ms"),
        Unit::Rate => format!("{:.1}%", v * 100.0),
        Unit::Score => format!("{v:.2}"),
    }
}

/// A signed delta in the metric's unit.
pub(crate) fn delta(name: &str, d: f64) -> String {
    let sign = if d > 0.0 {
        "+"
    } else if d < 0.0 {
        "−"
    } else {
        "±"
    };
    let a = d.abs();
    let body = match MetricId::parse(name).unit() {
        Unit::Percent => format!("{a:.1} pp"),
        Unit::Usd => format!("${a:.4}"),
        Unit::Ms => format!("{a:.0} ms"),
        Unit::Rate => format!("{:.1} pp", a * 100.0),
        Unit::Score => format!("{a:.2}"),
    };
    format!("{sign}{body}")
}

/// p- and q-values: 4 decimals, `<0.0001` below.
pub(crate) fn pvalue(p: Option<f64>) -> String {
    match p {
        None => "—".to_owned(),
        Some(p) if p < 0.0001 => "<0.0001".to_owned(),
        Some(p) => format!("{p:.4}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_follow_the_metric() {
        assert_eq!(metric("compliance_percent", Some(81.25)), "81.2%");
        assert_eq!(metric("task_success", Some(0.5)), "50.0%");
        assert_eq!(metric("cost_usd", Some(0.0123)), "$0.0123");
        assert_eq!(metric("workflow_quality", Some(3.456)), "3.46");
        assert_eq!(delta("compliance_percent", -4.0), "−4.0 pp");
        assert_eq!(delta("checkpoint:P1", 0.25), "+25.0 pp");
        assert_eq!(pvalue(Some(0.00001)), "<0.0001");
        assert_eq!(pct(None), "—");
    }
}
