//! The golden set: human labels for tier-3 checkpoints, judged step metrics
//! and GPA dimensions of recorded cases (`suites/<suite>/golden.yaml` by
//! default).
//!
//! ```yaml
//! source: Two support leads labelled 40 cases independently, disagreements resolved, 2025-06
//! labels:
//!   - {case: sb-001, checkpoint: P3-01, label: PASS}          # PASS | PARTIAL | FAIL
//!   - {case: sb-001, step: s8, metric: faithfulness, label: 4} # 1–5
//!   - {case: sb-003, step: s1, label: 3}                      # the step's score (lowest metric)
//!   - {case: sb-003, gpa: goal_fulfillment, label: 1}         # a GPA dimension, 0–3
//! ```
//!
//! `source` is required and printed with every result: who labelled, so
//! nobody mistakes the labels for more than they are. Unknown keys, a
//! label outside its scale, an unknown case or checkpoint, and the same
//! item twice are errors located in the file (exit 78).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::diagnostic::{FileDiagnostic, named_source};
use crate::eval::steps::Metric;
use crate::spec::suite::{Check, Suite};

use crate::llm::error::JudgeError;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GoldenFile {
    source: String,
    labels: Vec<LabelEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LabelEntry {
    case: Spanned<String>,
    #[serde(default)]
    checkpoint: Option<String>,
    #[serde(default)]
    step: Option<String>,
    #[serde(default)]
    metric: Option<String>,
    /// A GPA dimension (`goal_fulfillment`, …).
    #[serde(default)]
    gpa: Option<String>,
    label: serde_json::Value,
}

/// What a label is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Item {
    Checkpoint(String),
    /// A step's metric, or (`None`) its overall score.
    Step {
        step: String,
        metric: Option<Metric>,
    },
    /// A GPA dimension of the whole run.
    Gpa(String),
}

/// One human label.
#[derive(Debug, Clone, PartialEq)]
pub struct GoldenLabel {
    pub case: String,
    pub item: Item,
    /// `PASS`/`PARTIAL`/`FAIL`, `1`…`5` (steps), or `0`…`3` (GPA).
    pub label: String,
    pub line: usize,
}

#[derive(Debug, Clone)]
pub struct Golden {
    pub path: PathBuf,
    pub source: String,
    pub labels: Vec<GoldenLabel>,
}

fn metric_named(name: &str) -> Option<Metric> {
    [
        Metric::Completeness,
        Metric::Feasibility,
        Metric::SelectionAccuracy,
        Metric::Relevance,
        Metric::Correctness,
        Metric::Faithfulness,
        Metric::Coherence,
    ]
    .into_iter()
    .find(|m| m.as_str() == name)
}

/// Read and check `path` against `suite`.
pub fn load_golden(path: &Path, suite: &Suite) -> Result<Golden, JudgeError> {
    let text = std::fs::read_to_string(path).map_err(|source| JudgeError::Io {
        action: "read the golden set",
        path: path.to_path_buf(),
        source,
    })?;
    let named = named_source(path, text);
    let bad = |line: usize, message: String, help: &str| -> JudgeError {
        let d = FileDiagnostic::error(path, message)
            .at(&named, line, 1)
            .with_help(help);
        JudgeError::Golden(Box::new(d))
    };
    let file: GoldenFile =
        serde_saphyr::from_str_with_options(named.inner(), crate::spec::load::yaml_options()).map_err(|e| {
            JudgeError::Golden(Box::new(
                crate::spec::load::yaml_error(path, &named, &e).with_help(
                    "a golden set is `source: <who labelled>` and `labels: [{case, checkpoint | step (+ metric) | gpa, label}]`",
                ),
            ))
        })?;
    if file.source.trim().is_empty() {
        return Err(bad(
            1,
            "`source` is empty".into(),
            "say who labelled the items and how",
        ));
    }
    let mut seen: BTreeMap<(String, Item), usize> = BTreeMap::new();
    let mut labels = Vec::with_capacity(file.labels.len());
    for e in file.labels {
        let line = e.case.referenced.line() as usize;
        let case = e.case.value.clone();
        if !suite.cases.iter().any(|c| c.id == case) {
            return Err(bad(
                line,
                format!("case `{case}` is not in suite `{}`", suite.name),
                "label cases of this suite",
            ));
        }
        let label = match &e.label {
            serde_json::Value::String(s) => s.trim().to_owned(),
            serde_json::Value::Number(n) => n.to_string(),
            other => other.to_string(),
        };
        let item = match (&e.checkpoint, &e.step, &e.gpa) {
            (None, None, Some(dim)) => {
                let dims = crate::model::trace_judges::GPA_DIMENSIONS;
                if !dims.iter().any(|(d, _)| d == dim) {
                    let names: Vec<&str> = dims.iter().map(|(d, _)| *d).collect();
                    return Err(bad(
                        line,
                        format!("`{dim}` is not a GPA dimension"),
                        &format!("GPA dimensions: {}", names.join(", ")),
                    ));
                }
                if !matches!(label.as_str(), "0" | "1" | "2" | "3") {
                    return Err(bad(
                        line,
                        format!("label `{label}` of GPA `{dim}` is not a whole number from 0 to 3"),
                        "GPA labels are scores 0–3",
                    ));
                }
                if e.metric.is_some() {
                    return Err(bad(
                        line,
                        "`metric` is for step labels".into(),
                        "remove `metric`",
                    ));
                }
                Item::Gpa(dim.clone())
            }
            (Some(cp), None, None) => {
                match suite.checkpoint(cp).map(|c| &c.check) {
                    Some(Check::Semantic { .. }) => {}
                    Some(_) => {
                        return Err(bad(
                            line,
                            format!("checkpoint `{cp}` is not tier 3: it is not judged"),
                            "label tier-3 checkpoints",
                        ));
                    }
                    None => {
                        return Err(bad(
                            line,
                            format!("checkpoint `{cp}` is not in suite `{}`", suite.name),
                            "use the suite's checkpoint ids",
                        ));
                    }
                }
                if !matches!(label.as_str(), "PASS" | "PARTIAL" | "FAIL") {
                    return Err(bad(
                        line,
                        format!(
                            "label `{label}` of checkpoint `{cp}` is not PASS, PARTIAL or FAIL"
                        ),
                        "write PASS, PARTIAL or FAIL",
                    ));
                }
                if e.metric.is_some() {
                    return Err(bad(
                        line,
                        "`metric` is for step labels".into(),
                        "remove `metric`",
                    ));
                }
                Item::Checkpoint(cp.clone())
            }
            (None, Some(step), None) => {
                let metric = match &e.metric {
                    None => None,
                    Some(m) => Some(metric_named(m).ok_or_else(|| {
                        bad(line, format!("`{m}` is not a judged metric"), "metrics: completeness, feasibility, selection_accuracy, relevance, correctness, faithfulness, coherence")
                    })?),
                };
                if !matches!(label.as_str(), "1" | "2" | "3" | "4" | "5") {
                    return Err(bad(
                        line,
                        format!(
                            "label `{label}` of step `{step}` is not a whole number from 1 to 5"
                        ),
                        "step labels are scores 1–5",
                    ));
                }
                Item::Step {
                    step: step.clone(),
                    metric,
                }
            }
            _ => {
                return Err(bad(
                    line,
                    "a label names one of `checkpoint`, `step` or `gpa`".into(),
                    "e.g. `{case: c1, checkpoint: P3-01, label: PASS}` or `{case: c1, gpa: goal_fulfillment, label: 2}`",
                ));
            }
        };
        if let Some(first) = seen.insert((case.clone(), item.clone()), line) {
            return Err(bad(
                line,
                format!("case `{case}` labels the same item twice (first at line {first})"),
                "keep one label per item",
            ));
        }
        labels.push(GoldenLabel {
            case,
            item,
            label,
            line,
        });
    }
    if labels.is_empty() {
        return Err(bad(
            1,
            "the golden set has no labels".into(),
            "add `labels:`",
        ));
    }
    Ok(Golden {
        path: path.to_path_buf(),
        source: file.source,
        labels,
    })
}
