//! The forest plot: each metric's Δ (head − base) with its 95% CI, against 0
//! and against the metric's `min_effect`, coloured by status. Metrics are
//! grouped by unit so that rows sharing an axis are comparable.

use serde::Serialize;

use crate::model::compare::MetricComparison;
use crate::report::render::fmt::{delta, pvalue};

use super::dag::clip;
use super::scale::{Linear, display_factor, round1, tick_label, unit_of};

const WIDTH: f64 = 960.0;
const LABEL_W: f64 = 270.0;
const PLOT_W: f64 = 430.0;
const ROW_H: f64 = 26.0;
const TOP: f64 = 8.0;
const AXIS_H: f64 = 40.0;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ForestGroup {
    pub caption: String,
    pub width: f64,
    pub height: f64,
    pub plot_x0: f64,
    pub plot_x1: f64,
    pub zero_x: f64,
    pub axis_y: f64,
    pub tick_y: f64,
    pub caption_x: f64,
    pub caption_y: f64,
    /// x of the numbers column.
    pub text_x: f64,
    pub ticks: Vec<Tick>,
    pub rows: Vec<ForestRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Tick {
    pub x: f64,
    pub label: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ForestRow {
    /// Top of the row's band, its centre line, and the text baseline.
    pub top: f64,
    pub y: f64,
    pub text_y: f64,
    pub label: String,
    pub full_name: String,
    pub status: String,
    /// CI whisker ends; `None` without a CI.
    pub ci: Option<(f64, f64)>,
    pub x: Option<f64>,
    /// The `|Δ| < min_effect` zone as `(x, width)`: changes inside it never alert.
    pub band: Option<(f64, f64)>,
    /// `Δ −100.0 pp [−100.0 pp, −100.0 pp] q 0.0012`.
    pub text: String,
}

/// One group per unit, in the order the metrics come (regressions first).
pub(crate) fn forest(metrics: &[&MetricComparison], with_suite: bool) -> Vec<ForestGroup> {
    let mut units: Vec<&'static str> = Vec::new();
    for m in metrics {
        let u = unit_of(&m.name).0;
        if !units.contains(&u) {
            units.push(u);
        }
    }
    units
        .into_iter()
        .map(|u| {
            let rows: Vec<&MetricComparison> = metrics
                .iter()
                .copied()
                .filter(|m| unit_of(&m.name).0 == u)
                .collect();
            group(u, &rows, with_suite)
        })
        .collect()
}

fn group(unit: &str, metrics: &[&MetricComparison], with_suite: bool) -> ForestGroup {
    let caption = metrics
        .first()
        .map_or("Δ", |m| unit_of(&m.name).1)
        .to_owned();
    let mut lo = 0.0f64;
    let mut hi = 0.0f64;
    for m in metrics {
        let f = display_factor(&m.name);
        let vals = [
            m.delta,
            m.ci95.map(|c| c[0]),
            m.ci95.map(|c| c[1]),
            m.min_effect.map(f64::abs),
            m.min_effect.map(|e| -e.abs()),
        ];
        for v in vals.into_iter().flatten().filter(|v| v.is_finite()) {
            lo = lo.min(v * f);
            hi = hi.max(v * f);
        }
    }
    let pad = (hi - lo) * 0.06;
    let (x0, x1) = (LABEL_W, LABEL_W + PLOT_W);
    let scale = Linear::new((lo - pad, hi + pad), (x0, x1));
    let rows = metrics
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let f = display_factor(&m.name);
            let y = TOP + ROW_H * (i as f64 + 0.5);
            let full_name = if with_suite {
                m.qualified_name()
            } else {
                m.name.clone()
            };
            let mut text = m
                .delta
                .map_or_else(|| "Δ —".to_owned(), |d| format!("Δ {}", delta(&m.name, d)));
            if let Some([l, h]) = m.ci95 {
                text.push_str(&format!("  [{}, {}]", delta(&m.name, l), delta(&m.name, h)));
            }
            if m.q_value.is_some() {
                text.push_str(&format!("  q {}", pvalue(m.q_value)));
            }
            ForestRow {
                top: round1(y - ROW_H / 2.0),
                y: round1(y),
                text_y: round1(y + 4.0),
                label: clip(&full_name, 38),
                full_name,
                status: m.status.as_str().to_owned(),
                ci: m
                    .ci95
                    .filter(|c| c[0].is_finite() && c[1].is_finite())
                    .map(|[l, h]| (scale.at(l * f), scale.at(h * f))),
                x: m.delta.filter(|d| d.is_finite()).map(|d| scale.at(d * f)),
                band: m
                    .min_effect
                    .filter(|e| e.is_finite() && *e != 0.0)
                    .map(|e| {
                        let (a, b) = (scale.at(-e.abs() * f), scale.at(e.abs() * f));
                        (a, round1(b - a))
                    }),
                text,
            }
        })
        .collect::<Vec<_>>();
    let axis_y = TOP + ROW_H * rows.len() as f64 + 4.0;
    ForestGroup {
        caption,
        width: WIDTH,
        height: axis_y + AXIS_H,
        plot_x0: x0,
        plot_x1: x1,
        zero_x: scale.at(0.0),
        axis_y,
        tick_y: round1(axis_y + 15.0),
        caption_x: round1(f64::midpoint(x0, x1)),
        caption_y: round1(axis_y + 32.0),
        text_x: x1 + 14.0,
        ticks: scale
            .ticks(6)
            .into_iter()
            .map(|t| Tick {
                x: scale.at(t),
                label: tick_label(unit, t),
            })
            .collect(),
        rows,
    }
}
