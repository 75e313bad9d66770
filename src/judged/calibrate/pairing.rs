//! Pair the golden set's human labels with the judge's own answers (before
//! any merge with the rules) and compute agreement per scale.
//!
//! A checkpoint pairs with the judge's tier-3 verdict (majority over
//! repeats); a step metric with the judge's score for it; a step's overall
//! label with the lowest of the judge's scores for that step; a GPA
//! dimension with the judge's 0–3 score for it. Items the
//! judge has no answer for (an error, the budget, the cache, or not asked
//! because the rules were certain) are listed with the reason, never paired.

use std::collections::BTreeMap;

use serde::Serialize;

use super::agreement::{Agreement, Scale, agreement};
use super::golden::{Golden, Item};
use crate::diagnostic::FileDiagnostic;
use crate::eval::steps::judged::judged_metrics;
use crate::eval::steps::{MetricJudgment, StepJudgments};
use crate::judged::tier::CaseJudgments;
use crate::llm::error::JudgeError;
use crate::model::run::CheckpointState;
use crate::spec::model::StepType;

/// Agreement on one scale, overall and per item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    pub scale: String,
    pub stats: Option<Agreement>,
    /// Item (checkpoint id, or step metric) → (labels, agreeing).
    pub by_item: BTreeMap<String, (usize, usize)>,
    /// Cohen's κ is below the threshold (or undefined with labels present).
    pub below_threshold: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unpaired {
    pub case: String,
    pub item: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CalibrationReport {
    pub suite: String,
    /// `provider/model (mode)`.
    pub judge: String,
    pub golden: String,
    /// Who labelled (the golden set's `source`).
    pub source: String,
    pub labels: usize,
    pub kappa_threshold: f64,
    pub checkpoints: Group,
    pub steps: Group,
    /// GPA dimensions (0–3), when the golden set labels any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpa: Option<Group>,
    pub unpaired: Vec<Unpaired>,
    pub warnings: Vec<String>,
}

/// One labelled case as the judge saw it: its answers and its DAG's steps.
pub struct JudgedCase {
    pub judgments: CaseJudgments,
    /// (step id, type) of every DAG node.
    pub steps: Vec<(String, StepType)>,
}

fn describe(item: &Item) -> String {
    match item {
        Item::Checkpoint(cp) => cp.clone(),
        Item::Step {
            step,
            metric: Some(m),
        } => format!("{step}.{}", m.as_str()),
        Item::Step { step, metric: None } => format!("{step} (score)"),
        Item::Gpa(dim) => format!("gpa:{dim}"),
    }
}

/// Pair every label of `golden`; `cases` maps case id → what the judge said.
pub fn pair(
    golden: &Golden,
    cases: &BTreeMap<String, JudgedCase>,
    suite: &str,
    judge: &str,
    kappa_threshold: f64,
) -> Result<CalibrationReport, JudgeError> {
    let verdicts = Scale::verdicts();
    let scores = Scale::integers("step scores (1–5)", 1, 5);
    let gpa_scale = Scale::integers("GPA scores (0–3)", 0, 3);
    let mut gpa_pairs = Vec::new();
    let mut gpa_items: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut cp_pairs = Vec::new();
    let mut step_pairs = Vec::new();
    let mut cp_items: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut step_items: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut unpaired = Vec::new();
    for l in &golden.labels {
        let skip = |reason: String| Unpaired {
            case: l.case.clone(),
            item: describe(&l.item),
            reason,
        };
        let Some(case) = cases.get(&l.case) else {
            unpaired.push(skip("the case has no trace to judge".into()));
            continue;
        };
        match &l.item {
            Item::Gpa(dim) => {
                let Some(score) = case
                    .judgments
                    .trace_judges
                    .iter()
                    .find(|t| t.judge == crate::judged::gpa::GPA && t.dimension == *dim)
                else {
                    unpaired.push(skip("the judge was not asked for GPA".into()));
                    continue;
                };
                let Some(value) = score.score else {
                    unpaired.push(skip(score.na_reason.clone().unwrap_or_default()));
                    continue;
                };
                let judged = format!("{}", value.round() as u8);
                if let (Some(h), Some(j)) = (gpa_scale.index(&l.label), gpa_scale.index(&judged)) {
                    gpa_pairs.push((h, j));
                    let e = gpa_items.entry(dim.clone()).or_default();
                    e.0 += 1;
                    e.1 += usize::from(h == j);
                }
            }
            Item::Checkpoint(cp) => {
                let Some(v) = case.judgments.checkpoints.verdicts.get(cp) else {
                    unpaired.push(skip(
                        "the judge was not asked (blocked by an environment constraint)".into(),
                    ));
                    continue;
                };
                let label = match v.state {
                    CheckpointState::Pass => "PASS",
                    CheckpointState::Partial => "PARTIAL",
                    CheckpointState::Fail => "FAIL",
                    _ => {
                        unpaired.push(skip(v.notes.clone()));
                        continue;
                    }
                };
                let (h, j) = (verdicts.index(&l.label), verdicts.index(label));
                if let (Some(h), Some(j)) = (h, j) {
                    cp_pairs.push((h, j));
                    let e = cp_items.entry(cp.clone()).or_default();
                    e.0 += 1;
                    e.1 += usize::from(h == j);
                }
            }
            Item::Step { step, metric } => {
                let Some((_, step_type)) = case.steps.iter().find(|(id, _)| id == step) else {
                    return Err(located(
                        golden,
                        l.line,
                        format!(
                            "step `{step}` is not in the DAG of case `{}` (it has {} steps)",
                            l.case,
                            case.steps.len()
                        ),
                    ));
                };
                let judged = judged_metrics(*step_type);
                if let Some(m) = metric
                    && !judged.contains(m)
                {
                    return Err(located(
                        golden,
                        l.line,
                        format!(
                            "`{}` is not a judged metric of {step_type} step `{step}`",
                            m.as_str()
                        ),
                    ));
                }
                if judged.is_empty() {
                    return Err(located(
                        golden,
                        l.line,
                        format!(
                            "step `{step}` is an {step_type}: the rules score it, never the judge"
                        ),
                    ));
                }
                let wanted: Vec<_> = metric.map_or_else(|| judged.to_vec(), |m| vec![m]);
                match judge_score(&case.judgments.steps, step, &wanted) {
                    Ok(score) => {
                        let (h, j) = (scores.index(&l.label), scores.index(&score.to_string()));
                        if let (Some(h), Some(j)) = (h, j) {
                            step_pairs.push((h, j));
                            let key = metric.map_or_else(
                                || "score".to_owned(),
                                |m| format!("{step_type} {}", m.as_str()),
                            );
                            let e = step_items.entry(key).or_default();
                            e.0 += 1;
                            e.1 += usize::from(h == j);
                        }
                    }
                    Err(reason) => unpaired.push(skip(reason)),
                }
            }
        }
    }
    let group = |scale: &Scale, pairs: &[(usize, usize)], by_item| {
        let stats = agreement(pairs, scale);
        let below = stats
            .as_ref()
            .is_some_and(|s| s.cohen_kappa.is_none_or(|k| k < kappa_threshold));
        Group {
            scale: scale.name.to_owned(),
            stats,
            by_item,
            below_threshold: below,
        }
    };
    let checkpoints = group(&verdicts, &cp_pairs, cp_items);
    let steps = group(&scores, &step_pairs, step_items);
    let gpa = golden
        .labels
        .iter()
        .any(|l| matches!(l.item, Item::Gpa(_)))
        .then(|| group(&gpa_scale, &gpa_pairs, gpa_items));
    let mut warnings = Vec::new();
    for g in [Some(&checkpoints), Some(&steps), gpa.as_ref()]
        .into_iter()
        .flatten()
    {
        if g.below_threshold
            && let Some(s) = &g.stats
        {
            warnings.push(match s.cohen_kappa {
                Some(k) => format!(
                    "{}: Cohen's κ {k:.2} is below the threshold {kappa_threshold:.2} (`judge.kappa_threshold`): the judge disagrees with the labels too often to be trusted on these items; refine the prompts (`judge.prompts`), try another model, or move the checks to tier 1/2",
                    g.scale
                ),
                None => format!(
                    "{}: Cohen's κ is undefined (one label throughout): these labels cannot show the judge is reliable; label items with different outcomes",
                    g.scale
                ),
            });
        }
    }
    if !unpaired.is_empty() {
        warnings.push(format!(
            "{} could not be paired with a judge answer (listed in the report)",
            crate::output::plural(unpaired.len(), "label", "labels")
        ));
    }
    Ok(CalibrationReport {
        suite: suite.to_owned(),
        judge: judge.to_owned(),
        golden: golden.path.display().to_string(),
        source: golden.source.clone(),
        labels: golden.labels.len(),
        kappa_threshold,
        checkpoints,
        steps,
        gpa,
        unpaired,
        warnings,
    })
}

/// The judge's score for `metrics` of `step`: their lowest, when the judge scored all.
fn judge_score(
    steps: &StepJudgments,
    step: &str,
    metrics: &[crate::eval::steps::Metric],
) -> Result<u8, String> {
    let mut lowest: Option<f64> = None;
    for m in metrics {
        match steps.metrics.get(&(step.to_owned(), *m)) {
            Some(MetricJudgment::Score { value, .. }) => {
                lowest = Some(lowest.map_or(*value, |l: f64| l.min(*value)));
            }
            Some(MetricJudgment::NotAvailable(why)) => return Err(why.clone()),
            None => {
                return Err(
                    "the judge was not asked: the rules found a certain defect in this step".into(),
                );
            }
        }
    }
    lowest
        .map(|v| v.round() as u8)
        .ok_or_else(|| "no judged metric".to_owned())
}

fn located(golden: &Golden, line: usize, message: String) -> JudgeError {
    JudgeError::Golden(Box::new(
        FileDiagnostic::error(&golden.path, message)
            .at_line(line, 1)
            .with_help("step ids are the DAG's (`agenteval-gate trace FILE` lists them); judged metrics: PLAN completeness/feasibility, TOOLSEL selection_accuracy/relevance, PARAMGEN correctness/completeness, SYNTH faithfulness/completeness/coherence"),
    ))
}
