//! Localization of a regression: which checkpoint, step type or workflow
//! step moved, which cases got worse, and the most common new root cause.

use std::collections::BTreeMap;

use crate::compare::pairing::Paired;
use crate::model::compare::{CheckpointRef, FlippedCase, Localization, MetricComparison, Moved};
use crate::model::metric::higher_is_better;
use crate::model::metric_id::MetricId;
use crate::model::run::RunReport;

const MAX_FLIPPED: usize = 10;
const MAX_MOVED: usize = 5;

/// Localize `metric` of a suite, given every metric's stats of that suite.
pub(crate) fn localize(
    metric: &MetricComparison,
    suite_stats: &[&MetricComparison],
    paired: &Paired,
    head: &RunReport,
    base: &RunReport,
) -> Localization {
    let name = metric.name.as_str();
    let worse = worse_cases(paired, name);

    let id = MetricId::parse(name);
    let checkpoint_id = id.checkpoint_id();
    let trace_judge = |case: &str| {
        head.cases
            .iter()
            .find(|c| c.id == case)?
            .trace_judges
            .iter()
            .find(|t| t.metric() == name)
    };
    let flipped_cases = worse
        .iter()
        .take(MAX_FLIPPED)
        .map(|(case, b, h, _)| FlippedCase {
            case: case.clone(),
            base: *b,
            head: *h,
            cited_spans: trace_judge(case)
                .map(|t| t.cited_spans.clone())
                .unwrap_or_default(),
            // With several trials, the note of the worst one (a FAIL rather than a PASS).
            note: checkpoint_id
                .and_then(|id| {
                    head.cases
                        .iter()
                        .filter(|c| c.id == *case)
                        .filter_map(|c| c.checkpoints.iter().find(|r| r.id == id))
                        .min_by(|a, b| {
                            let w = |r: &crate::model::run::CheckpointResult| {
                                r.earned_weight.unwrap_or(f64::INFINITY)
                            };
                            w(a).total_cmp(&w(b))
                        })
                })
                .map(|r| format!("{}: {}", r.result, r.notes))
                .or_else(|| trace_judge(case).map(|t| t.rationale.clone()))
                .unwrap_or_default(),
            head_outcomes: None, // filled in by `compare::flaky`
            history: None,
        })
        .collect();

    let checkpoint = checkpoint_id.map(|id| CheckpointRef {
        id: id.to_owned(),
        instruction: head
            .checkpoint_catalog
            .iter()
            .find(|c| c.id == id)
            .map(|c| c.instruction.clone())
            .unwrap_or_default(),
    });
    let suite_level = !name.contains(':');
    let moved = |kind: fn(&MetricId) -> bool| -> Vec<Moved> {
        let mut v: Vec<Moved> = suite_stats
            .iter()
            .filter(|s| {
                kind(&MetricId::parse(&s.name)) && s.oriented_delta().is_some_and(|d| d < 0.0)
            })
            .filter_map(|s| {
                Some(Moved {
                    metric: s.name.clone(),
                    base_mean: s.base_mean?,
                    head_mean: s.head_mean?,
                    delta: s.head_mean? - s.base_mean?,
                })
            })
            .collect();
        v.sort_by(|a, b| {
            a.delta
                .total_cmp(&b.delta)
                .then_with(|| a.metric.cmp(&b.metric))
        });
        v.truncate(MAX_MOVED);
        v
    };
    let worse_ids: Vec<&str> = worse.iter().map(|w| w.0.as_str()).collect();
    Localization {
        checkpoint,
        checkpoints_moved: if suite_level {
            moved(|m| m.checkpoint_id().is_some())
        } else {
            Vec::new()
        },
        steps_moved: if suite_level {
            moved(MetricId::is_step)
        } else if checkpoint_id.is_some() {
            moved_within(paired, &worse_ids)
        } else {
            Vec::new()
        },
        flipped_cases,
        root_cause: new_root_cause(&worse_ids, head, base),
        carried_by_flaky: Vec::new(), // filled in by `compare::flaky`
    }
}

/// The paired cases that got worse on `name`: `(case, base, head, oriented Δ)`, worst first.
pub(crate) fn worse_cases(paired: &Paired, name: &str) -> Vec<(String, f64, f64, f64)> {
    let higher = higher_is_better(name);
    let mut worse: Vec<(String, f64, f64, f64)> = paired
        .values(name)
        .into_iter()
        .map(|(c, b, h)| (c.to_owned(), b, h, if higher { h - b } else { b - h }))
        .filter(|(.., d)| *d < 0.0)
        .collect();
    worse.sort_by(|a, b| a.3.total_cmp(&b.3).then_with(|| a.0.cmp(&b.0)));
    worse
}

/// Step types and workflow steps whose mean score dropped within `cases`
/// (the cases that got worse on a checkpoint), worst first.
fn moved_within(paired: &Paired, cases: &[&str]) -> Vec<Moved> {
    let mut out: Vec<Moved> = paired
        .metrics
        .iter()
        .filter(|n| MetricId::parse(n).is_step())
        .filter_map(|name| {
            let values: Vec<(f64, f64)> = paired
                .values(name)
                .into_iter()
                .filter(|(c, ..)| cases.contains(c))
                .map(|(_, b, h)| (b, h))
                .collect();
            if values.is_empty() {
                return None;
            }
            let n = values.len() as f64;
            let base_mean = values.iter().map(|v| v.0).sum::<f64>() / n;
            let head_mean = values.iter().map(|v| v.1).sum::<f64>() / n;
            (head_mean < base_mean).then(|| Moved {
                metric: name.clone(),
                base_mean,
                head_mean,
                delta: head_mean - base_mean,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        a.delta
            .total_cmp(&b.delta)
            .then_with(|| a.metric.cmp(&b.metric))
    });
    out.truncate(MAX_MOVED);
    out
}

/// Among `cases`, the root-cause step (`TYPE name`) that is new in head
/// (not a root cause of the same case in the baseline), by frequency.
fn new_root_cause(
    cases: &[&str],
    head: &RunReport,
    base: &RunReport,
) -> Option<crate::model::compare::RootCauseRef> {
    let mut counts: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for id in cases {
        let Some(h) = head.cases.iter().find(|c| c.id == *id) else {
            continue;
        };
        let old: Vec<String> = base
            .cases
            .iter()
            .find(|c| c.id == *id)
            .map(|b| {
                b.steps
                    .iter()
                    .filter(|s| s.root_cause)
                    .map(|s| format!("{} {}", s.step_type, s.name))
                    .collect()
            })
            .unwrap_or_default();
        let mut seen = Vec::new();
        for s in h.steps.iter().filter(|s| s.root_cause) {
            let key = format!("{} {}", s.step_type, s.name);
            if old.contains(&key) || seen.contains(&key) {
                continue;
            }
            seen.push(key.clone());
            let e = counts.entry(key).or_insert((0, (*id).to_owned()));
            e.0 += 1;
        }
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1.0.cmp(&b.1.0).then_with(|| b.0.cmp(&a.0)))
        .map(
            |(step, (cases, example_case))| crate::model::compare::RootCauseRef {
                step,
                cases,
                example_case,
            },
        )
}
