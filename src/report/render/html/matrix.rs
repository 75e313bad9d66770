//! The case × checkpoint matrix: one row per case, one cell per checkpoint,
//! cells that changed against the baseline marked, worst rows first.

use serde::Serialize;

use crate::model::run::{CaseStatus, CheckpointState};
use crate::report::render::fmt::pct;
use crate::report::views::build::is_worse;
use crate::report::views::{CaseRow, SuiteViews};

#[derive(Debug, Clone, Serialize)]
pub(super) struct Matrix {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    pub compare: bool,
    /// Rows shown by default are the changed/failing ones when the suite is large.
    pub default_mode: &'static str,
    pub changed: usize,
    pub failing: usize,
}

#[derive(Debug, Clone, Serialize)]
pub(super) struct Column {
    pub id: String,
    pub title: String,
}

#[derive(Debug, Clone, Serialize)]
pub(super) struct Row {
    pub id: String,
    pub anchor: Option<String>,
    pub status: Option<String>,
    pub changed: bool,
    pub failing: bool,
    pub cells: Vec<Cell>,
    pub compliance: String,
    pub compliance_delta: String,
}

#[derive(Debug, Clone, Serialize)]
pub(super) struct Cell {
    /// The head state's code (`P`, `~`, `F`, `N`, `B`, `-`).
    pub code: char,
    /// What the cell shows: a glyph per state.
    pub text: &'static str,
    /// CSS class of the state.
    pub class: &'static str,
    /// `worse`, `better`, `changed` or empty.
    pub flip: &'static str,
    /// `PASS → FAIL` on changed cells.
    pub title: String,
}

/// Rows with more than this many cases start filtered to the changed/failing ones.
const FILTER_ABOVE: usize = 60;

pub(super) fn matrix(v: &SuiteViews, anchor_of: &dyn Fn(&str) -> Option<String>) -> Matrix {
    let compare = v.cases.iter().any(|r| !r.base.is_empty());
    let mut rows: Vec<(usize, Row)> = v
        .cases
        .iter()
        .map(|r| {
            let row = row(r, anchor_of(&r.id));
            let worse = row.cells.iter().filter(|c| c.flip == "worse").count();
            let rank = if worse > 0 {
                1000 - worse.min(999)
            } else if row.status.is_some() {
                1000
            } else if row.failing {
                1001
            } else if row.changed {
                1002
            } else {
                1003
            };
            (rank, row)
        })
        .collect();
    rows.sort_by_key(|(rank, _)| *rank);
    let rows: Vec<Row> = rows.into_iter().map(|(_, r)| r).collect();
    let changed = rows.iter().filter(|r| r.changed).count();
    let failing = rows.iter().filter(|r| r.failing).count();
    Matrix {
        columns: v
            .checkpoints
            .iter()
            .map(|c| Column {
                id: c.id.clone(),
                title: format!(
                    "{} (tier {}, {}): {}",
                    c.id, c.tier, c.severity, c.instruction
                ),
            })
            .collect(),
        default_mode: if rows.len() > FILTER_ABOVE && changed + failing > 0 {
            "attention"
        } else {
            "all"
        },
        rows,
        compare,
        changed,
        failing,
    }
}

fn row(r: &CaseRow, anchor: Option<String>) -> Row {
    let base: Vec<char> = r.base.chars().collect();
    let cells: Vec<Cell> = r
        .head
        .chars()
        .enumerate()
        .map(|(i, code)| {
            let b = base.get(i).copied();
            let (hs, bs) = (state(code), b.and_then(state));
            let flip = match (bs, hs) {
                (Some(bs), Some(hs)) if bs != hs => {
                    if is_worse(bs, hs) {
                        "worse"
                    } else if is_worse(hs, bs) {
                        "better"
                    } else {
                        "changed"
                    }
                }
                _ => "",
            };
            let title = match (bs, hs) {
                (Some(bs), Some(hs)) if bs != hs => format!("baseline {bs} → head {hs}"),
                (_, Some(hs)) => hs.as_str().to_owned(),
                _ => "not evaluated".to_owned(),
            };
            Cell {
                code,
                text: glyph(code),
                class: class(code),
                flip,
                title,
            }
        })
        .collect();
    let changed = cells.iter().any(|c| !c.flip.is_empty());
    let failing = r.status != CaseStatus::Ok || cells.iter().any(|c| c.code == 'F');
    let compliance_delta = match (r.base_compliance, r.head_compliance) {
        (Some(b), Some(h)) if (h - b).abs() >= 0.05 => {
            crate::report::render::fmt::delta("compliance_percent", h - b)
        }
        _ => String::new(),
    };
    Row {
        id: r.id.clone(),
        anchor,
        status: (r.status != CaseStatus::Ok).then(|| r.status.as_str().to_owned()),
        changed,
        failing,
        cells,
        compliance: pct(r.head_compliance),
        compliance_delta,
    }
}

fn state(code: char) -> Option<CheckpointState> {
    match code {
        'P' => Some(CheckpointState::Pass),
        '~' => Some(CheckpointState::Partial),
        'F' => Some(CheckpointState::Fail),
        'N' => Some(CheckpointState::NotApplicable),
        'B' => Some(CheckpointState::Blocked),
        _ => None,
    }
}

fn class(code: char) -> &'static str {
    match code {
        'P' => "st-pass",
        '~' => "st-partial",
        'F' => "st-fail",
        'N' => "st-na",
        'B' => "st-blocked",
        _ => "st-none",
    }
}

fn glyph(code: char) -> &'static str {
    match code {
        'P' => "✓",
        '~' => "½",
        'F' => "✗",
        'N' => "–",
        'B' => "⊘",
        _ => "·",
    }
}
