//! A Mermaid `xychart-beta` of a metric's baseline history with its 2σ band
//! and the head run's mean, for the PR comment (GitHub renders Mermaid
//! natively). Three lines: the history followed by the head, and the band's
//! lower and upper limits. Text in the chart comes from the baseline history
//! and the suite (metric names), so it is reduced to a safe character set.

use std::fmt::Write as _;

use crate::model::compare::MetricComparison;
use crate::report::svg::scale::display_factor;
use crate::report::views::HistorySeries;

/// The chart, or `None` when it would not help: no band, a band of zero
/// width (the table already says everything), or fewer than two history points.
pub(crate) fn history_chart(m: &MetricComparison, history: &HistorySeries) -> Option<String> {
    let band = m
        .sigma_band
        .as_ref()
        .filter(|b| b.upper - b.lower > 1e-12)?;
    let f = display_factor(&m.name);
    let pts = history.points(&m.name);
    if pts.len() < 2 || !band.head_mean.is_finite() {
        return None;
    }
    let mut labels: Vec<String> = pts
        .iter()
        .map(|(i, _)| safe(history.labels.get(*i).map_or("", String::as_str)))
        .collect();
    labels.push("head".to_owned());
    let mut series: Vec<f64> = pts.iter().map(|(_, v)| v * f).collect();
    series.push(band.head_mean * f);
    let lower = vec![band.lower * f; series.len()];
    let upper = vec![band.upper * f; series.len()];
    let all = series.iter().chain(&lower).chain(&upper).copied();
    let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    if !(lo.is_finite() && hi.is_finite()) {
        return None;
    }
    let pad = ((hi - lo) * 0.1).max(hi.abs().max(1.0) * 0.01);
    let (mut y0, mut y1) = (lo - pad, hi + pad);
    if f > 1.0 || m.name.ends_with("_percent") {
        // Percentages stay inside 0–100 when the data does.
        if lo >= 0.0 {
            y0 = y0.max(0.0);
        }
        if hi <= 100.0 {
            y1 = y1.min(100.0);
        }
    }
    let unit = if f > 1.0 || m.name.ends_with("_percent") {
        "%"
    } else {
        "value"
    };
    let mut out = String::new();
    out.push_str("```mermaid\n");
    // Colours in series order: history and head red, band limits blue.
    out.push_str("%%{init: {\"themeVariables\": {\"xyChart\": {\"plotColorPalette\": \"#cf222e, #0969da, #0969da\"}}}}%%\n");
    out.push_str("xychart-beta\n");
    let _ = writeln!(
        out,
        "    title \"{} - history, 2 sigma band, head\"",
        safe(&m.name)
    );
    let _ = writeln!(
        out,
        "    x-axis [{}]",
        labels
            .iter()
            .map(|l| format!("\"{l}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(out, "    y-axis \"{unit}\" {} --> {}", num(y0), num(y1));
    for line in [&series, &lower, &upper] {
        let _ = writeln!(
            out,
            "    line [{}]",
            line.iter().map(|v| num(*v)).collect::<Vec<_>>().join(", ")
        );
    }
    out.push_str("```\n");
    Some(out)
}

fn num(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_owned()
    } else {
        s.to_owned()
    }
}

/// Letters, digits and `._:#/-` and spaces; anything else becomes `_`, at most 40 characters.
fn safe(text: &str) -> String {
    text.chars()
        .take(40)
        .map(|c| {
            if c.is_ascii_alphanumeric() || " ._:#/-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Built from JSON so the test does not depend on every field of the struct.
    fn metric(name: &str) -> MetricComparison {
        serde_json::from_value(serde_json::json!({
            "suite": "s", "name": name, "direction": "higher", "severity": "high",
            "n": 10, "base_mean": 0.9, "head_mean": 0.6, "delta": -0.3, "ci95": [-0.4, -0.2],
            "p_value": 0.001, "q_value": 0.002,
            "sigma_band": {"mean": 0.9, "sd": 0.02, "lower": 0.86, "upper": 0.94, "points": 3,
                           "head_mean": 0.6, "fired": true},
            "sigma_note": "", "mde": null, "status": "regression"
        }))
        .unwrap()
    }

    #[test]
    fn draws_history_band_and_head_with_safe_labels() {
        let name = "checkpoint:P\"]\n%%{init}%%";
        let history = HistorySeries {
            labels: vec!["abc1234".into(), "x\"] ; click".into(), "#3".into()],
            series: BTreeMap::from([(name.to_owned(), vec![Some(0.9), None, Some(0.92)])]),
        };
        let chart = history_chart(&metric(name), &history).unwrap();
        assert!(
            chart.contains("x-axis [\"abc1234\", \"#3\", \"head\"]"),
            "{chart}"
        );
        assert!(chart.contains("line [90, 92, 60]"), "{chart}");
        assert!(chart.contains("line [86, 86, 86]"), "{chart}");
        assert!(chart.contains("line [94, 94, 94]"), "{chart}");
        assert!(
            chart.contains("title \"checkpoint:P______init___ - history"),
            "{chart}"
        );
        // The hostile name cannot open a directive or end the block.
        assert_eq!(chart.matches("%%{").count(), 1);
        assert_eq!(chart.matches("```").count(), 2);
    }

    #[test]
    fn no_chart_without_a_band_or_history() {
        let mut m = metric("compliance_percent");
        let history = HistorySeries {
            labels: vec!["a".into()],
            series: BTreeMap::from([("compliance_percent".to_owned(), vec![Some(90.0)])]),
        };
        assert!(history_chart(&m, &history).is_none(), "one point");
        let flat = metric("checkpoint:P1");
        let mut flat_band = flat.clone();
        if let Some(b) = flat_band.sigma_band.as_mut() {
            (b.lower, b.upper) = (1.0, 1.0);
        }
        let two = HistorySeries {
            labels: vec!["a".into(), "b".into()],
            series: BTreeMap::from([("checkpoint:P1".to_owned(), vec![Some(1.0), Some(1.0)])]),
        };
        assert!(history_chart(&flat, &two).is_some());
        assert!(history_chart(&flat_band, &two).is_none(), "zero-width band");
        m.sigma_band = None;
        assert!(history_chart(&m, &HistorySeries::default()).is_none());
    }
}
