//! Number formatting shared by every renderer.

/// `81.2%`, or `—` when undefined.
pub fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "—".to_owned(), |v| format!("{v:.1}%"))
}

/// A number with `digits` decimals, or `—`.
pub fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "—".to_owned(), |v| format!("{v:.digits$}"))
}

/// A metric value in its natural unit: percentages, dollars, milliseconds,
/// 0–1 rates and 1–5 scores.
pub fn metric(name: &str, v: Option<f64>) -> String {
    let Some(v) = v else { return "—".to_owned() };
    if name.ends_with("_percent") {
        format!("{v:.1}%")
    } else if name == "cost_usd" {
        format!("${v:.4}")
    } else if name == "latency_ms" {
        format!("{v:.0} ms")
    } else if name == "task_success" || name.starts_with("checkpoint:") {
        format!("{:.1}%", v * 100.0)
    } else {
        format!("{v:.2}")
    }
}

/// A signed delta in the metric's unit.
pub fn delta(name: &str, d: f64) -> String {
    let sign = if d > 0.0 {
        "+"
    } else if d < 0.0 {
        "−"
    } else {
        "±"
    };
    let a = d.abs();
    let body = if name.ends_with("_percent") {
        format!("{a:.1} pp")
    } else if name == "cost_usd" {
        format!("${a:.4}")
    } else if name == "latency_ms" {
        format!("{a:.0} ms")
    } else if name == "task_success" || name.starts_with("checkpoint:") {
        format!("{:.1} pp", a * 100.0)
    } else {
        format!("{a:.2}")
    };
    format!("{sign}{body}")
}

/// p- and q-values: 4 decimals, `<0.0001` below.
pub fn pvalue(p: Option<f64>) -> String {
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
