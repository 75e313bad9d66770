//! A small chart per metric: the baseline history of suite means, the 2σ band
//! the gate compares against, and the head run's mean.

use serde::Serialize;

use crate::model::compare::MetricComparison;
use crate::report::render::fmt::metric as fmt_metric;
use crate::report::views::HistorySeries;

use super::scale::{Linear, display_factor, round1};

const W: f64 = 300.0;
const H: f64 = 136.0;
const LEFT: f64 = 46.0;
const RIGHT: f64 = 14.0;
const TOP: f64 = 10.0;
const BOTTOM: f64 = 24.0;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct HistoryChart {
    pub width: f64,
    pub height: f64,
    pub plot_x0: f64,
    pub plot_x1: f64,
    pub plot_y0: f64,
    pub plot_y1: f64,
    /// `(y, height)` of the 2σ band.
    pub band: Option<(f64, f64)>,
    pub plot_w: f64,
    pub plot_h: f64,
    pub mean_y: Option<f64>,
    pub points: Vec<Dot>,
    /// Polyline through the history points.
    pub line: String,
    pub head: Option<HeadDot>,
    pub y_ticks: Vec<Label>,
    pub x_labels: Vec<Label>,
    /// Whether anything could be drawn (history points or a band).
    pub drawable: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Dot {
    pub x: f64,
    pub y: f64,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct HeadDot {
    pub x: f64,
    pub y: f64,
    pub fired: bool,
    pub label: String,
    /// Where the value label goes (left of the dot).
    pub label_x: f64,
    pub label_y: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Label {
    pub x: f64,
    pub y: f64,
    /// For y ticks: the grid line's y.
    pub line_y: f64,
    pub text: String,
}

pub(crate) fn chart(m: &MetricComparison, history: Option<&HistorySeries>) -> HistoryChart {
    let f = display_factor(&m.name);
    let pts: Vec<(usize, f64)> = history.map(|h| h.points(&m.name)).unwrap_or_default();
    let n = history.map_or(0, |h| h.labels.len());
    let band = m.sigma_band.as_ref();
    let head_value = band.map(|b| b.head_mean).or(m.head_mean);

    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    let vals = pts
        .iter()
        .map(|p| p.1)
        .chain(band.into_iter().flat_map(|b| [b.lower, b.upper, b.mean]))
        .chain(head_value);
    for v in vals.filter(|v| v.is_finite()) {
        lo = lo.min(v * f);
        hi = hi.max(v * f);
    }
    let drawable = lo.is_finite() && (!pts.is_empty() || band.is_some());
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    let pad = ((hi - lo) * 0.12).max(hi.abs().max(1e-9) * 0.01);
    let (px0, px1) = (LEFT, W - RIGHT);
    let (py0, py1) = (TOP, H - BOTTOM);
    let y = Linear::new((lo - pad, hi + pad), (py1, py0));
    // History at 0..n-1, then a gap, then the head.
    let slots = n.max(1) as f64 + 1.0;
    let x_of = |i: f64| round1(px0 + 8.0 + (px1 - px0 - 16.0) * i / slots);
    let labels = history.map(|h| h.labels.clone()).unwrap_or_default();
    let points: Vec<Dot> = pts
        .iter()
        .map(|&(i, v)| Dot {
            x: x_of(i as f64),
            y: y.at(v * f),
            title: format!(
                "{}: {}",
                labels.get(i).map_or("", String::as_str),
                fmt_metric(&m.name, Some(v))
            ),
        })
        .collect();
    let line = points
        .iter()
        .map(|p| format!("{},{}", p.x, p.y))
        .collect::<Vec<_>>()
        .join(" ");
    let head = head_value.filter(|v| v.is_finite()).map(|v| {
        let (hx, hy) = (x_of(slots - 0.5), y.at(v * f));
        HeadDot {
            x: hx,
            y: hy,
            fired: band.is_some_and(|b| b.fired),
            label: fmt_metric(&m.name, Some(v)),
            label_x: round1(hx - 8.0),
            label_y: round1(if hy < py0 + 14.0 { hy + 16.0 } else { hy - 8.0 }),
        }
    });
    let mut x_labels = Vec::new();
    if let (Some(first), Some(last)) = (labels.first(), labels.last()) {
        x_labels.push(Label {
            x: x_of(0.0),
            y: H - 8.0,
            line_y: H - 8.0,
            text: first.clone(),
        });
        if labels.len() > 1 {
            x_labels.push(Label {
                x: x_of((labels.len() - 1) as f64),
                y: H - 8.0,
                line_y: H - 8.0,
                text: last.clone(),
            });
        }
    }
    if let Some(h) = &head {
        x_labels.push(Label {
            x: h.x,
            y: H - 8.0,
            line_y: H - 8.0,
            text: "head".into(),
        });
    }
    HistoryChart {
        width: W,
        height: H,
        plot_x0: px0,
        plot_x1: px1,
        plot_y0: py0,
        plot_y1: py1,
        band: band.map(|b| {
            let (top, bottom) = (y.at(b.upper * f), y.at(b.lower * f));
            // A zero-width band (σ = 0 is never a band, but bands clip) still shows as a line.
            (top, round1((bottom - top).max(1.0)))
        }),
        plot_w: round1(px1 - px0),
        plot_h: round1(py1 - py0),
        mean_y: band.map(|b| y.at(b.mean * f)),
        points,
        line,
        head,
        y_ticks: y
            .ticks(4)
            .into_iter()
            .map(|t| Label {
                x: px0 - 4.0,
                y: round1(y.at(t) + 4.0),
                line_y: y.at(t),
                text: fmt_metric(&m.name, Some(t / f)),
            })
            .collect(),
        x_labels,
        drawable,
    }
}
