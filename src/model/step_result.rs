//! One scored step of a case report.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::model::ShortText;
use crate::model::step_metric::StepMetrics;
use crate::model::vocab::StepType;

/// One scored step of the evaluation DAG.
///
/// What few steps have (a root cause it was propagated from, a failure
/// label, a workflow step, a retry) is behind one pointer, [`StepExtra`]:
/// a large trace's report has a step per span or message, and those
/// fields were 64 of a step's 272 bytes (issue 25). Read and written as
/// one flat JSON object, fields in the order below.
#[derive(Debug, Clone, PartialEq)]
pub struct StepResult {
    pub id: ShortText,
    pub step_type: StepType,
    pub name: ShortText,
    pub span_id: Option<ShortText>,
    /// 1–5; `None` = not scored (N/A).
    pub score: Option<f64>,
    /// `rules`, `judge:<model>`, or `none`.
    pub scored_by: Cow<'static, str>,
    pub failed: bool,
    pub root_cause: bool,
    pub notes: Cow<'static, str>,
    /// Per-metric sub-scores (1–5) of the step type, e.g. `success`, `completeness`.
    pub metrics: StepMetrics,
    /// The (sub-)agent the step belongs to; absent for the unnamed top-level agent.
    pub agent: Option<ShortText>,
    /// `None` when every field of it would be empty ([`StepExtra::boxed`]).
    pub extra: Option<Box<StepExtra>>,
}

/// The fields of a [`StepResult`] that few steps have.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StepExtra {
    /// The root cause this step's failure was propagated from.
    pub propagated_from: Option<ShortText>,
    pub taxonomy: Option<TaxonomyLabel>,
    /// Schema workflow step this node matched.
    pub workflow_step: Option<ShortText>,
    /// An earlier failed attempt of an unrolled retry: reported, never propagated.
    pub compensated: bool,
    /// Position in an unrolled retry chain (EXEC steps retried after an error).
    pub attempt: Option<StepAttempt>,
    /// A judge was asked about this step and gave no score for some metric (a judge error,
    /// the budget, a replay miss; the reason is in `notes`): the score is not a judged one,
    /// and a compare leaves the case out of the step's judged metrics (issue 21).
    pub judge_missing: bool,
}

impl StepExtra {
    /// Boxed, or `None` when every field is empty.
    pub fn boxed(self) -> Option<Box<Self>> {
        (self != Self::default()).then(|| Box::new(self))
    }
}

/// Attempt `number` of `of` in an unrolled retry chain; the last is canonical.
/// As `u32`, as the DAG keeps them (a file under any read cap has fewer
/// steps).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepAttempt {
    pub number: u32,
    pub of: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaxonomyLabel {
    /// Level 1: Planning | Execution | Integration.
    pub l1: String,
    /// Level 2: one of the 9 categories.
    pub l2: String,
    /// Level 3: one of the 21 subcategories.
    pub l3: String,
}

impl StepResult {
    /// What few steps have.
    pub fn extra(&self) -> &StepExtra {
        static NONE: StepExtra = StepExtra {
            propagated_from: None,
            taxonomy: None,
            workflow_step: None,
            compensated: false,
            attempt: None,
            judge_missing: false,
        };
        self.extra.as_deref().unwrap_or(&NONE)
    }

    /// Change what few steps have; kept boxed only while something is set.
    pub fn edit_extra(&mut self, edit: impl FnOnce(&mut StepExtra)) {
        super::rare::edit(&mut self.extra, edit);
    }

    pub fn propagated_from(&self) -> Option<&str> {
        self.extra().propagated_from.as_deref()
    }

    pub fn taxonomy(&self) -> Option<&TaxonomyLabel> {
        self.extra().taxonomy.as_ref()
    }

    pub fn workflow_step(&self) -> Option<&str> {
        self.extra().workflow_step.as_deref()
    }

    pub fn compensated(&self) -> bool {
        self.extra().compensated
    }

    pub fn attempt(&self) -> Option<StepAttempt> {
        self.extra().attempt
    }

    pub fn judge_missing(&self) -> bool {
        self.extra().judge_missing
    }
}

/// The JSON object of a step, borrowed to write it.
#[derive(Serialize)]
struct Written<'a> {
    id: &'a ShortText,
    #[serde(rename = "type")]
    step_type: StepType,
    name: &'a ShortText,
    #[serde(skip_serializing_if = "Option::is_none")]
    span_id: Option<&'a ShortText>,
    score: Option<f64>,
    scored_by: &'a str,
    failed: bool,
    root_cause: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    propagated_from: Option<&'a ShortText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    taxonomy: Option<&'a TaxonomyLabel>,
    #[serde(skip_serializing_if = "Option::is_none")]
    workflow_step: Option<&'a ShortText>,
    #[serde(skip_serializing_if = "str::is_empty")]
    notes: &'a str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    compensated: bool,
    #[serde(skip_serializing_if = "StepMetrics::is_empty")]
    metrics: &'a StepMetrics,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<&'a ShortText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attempt: Option<StepAttempt>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    judge_missing: bool,
}

impl Serialize for StepResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let extra = self.extra();
        Written {
            id: &self.id,
            step_type: self.step_type,
            name: &self.name,
            span_id: self.span_id.as_ref(),
            score: self.score,
            scored_by: &self.scored_by,
            failed: self.failed,
            root_cause: self.root_cause,
            propagated_from: extra.propagated_from.as_ref(),
            taxonomy: extra.taxonomy.as_ref(),
            workflow_step: extra.workflow_step.as_ref(),
            notes: &self.notes,
            compensated: extra.compensated,
            metrics: &self.metrics,
            agent: self.agent.as_ref(),
            attempt: extra.attempt,
            judge_missing: extra.judge_missing,
        }
        .serialize(serializer)
    }
}

/// The JSON object of a step, as read.
#[derive(Deserialize)]
struct Read {
    id: ShortText,
    #[serde(rename = "type")]
    step_type: StepType,
    name: ShortText,
    #[serde(default)]
    span_id: Option<ShortText>,
    score: Option<f64>,
    #[serde(deserialize_with = "crate::model::notes::deserialize")]
    scored_by: Cow<'static, str>,
    failed: bool,
    root_cause: bool,
    #[serde(default)]
    propagated_from: Option<ShortText>,
    #[serde(default)]
    taxonomy: Option<TaxonomyLabel>,
    #[serde(default)]
    workflow_step: Option<ShortText>,
    #[serde(default, deserialize_with = "crate::model::notes::deserialize")]
    notes: Cow<'static, str>,
    #[serde(default)]
    compensated: bool,
    #[serde(default)]
    metrics: StepMetrics,
    #[serde(default)]
    agent: Option<ShortText>,
    #[serde(default)]
    attempt: Option<StepAttempt>,
    #[serde(default)]
    judge_missing: bool,
}

impl<'de> Deserialize<'de> for StepResult {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let r = Read::deserialize(deserializer)?;
        Ok(Self {
            id: r.id,
            step_type: r.step_type,
            name: r.name,
            span_id: r.span_id,
            score: r.score,
            scored_by: r.scored_by,
            failed: r.failed,
            root_cause: r.root_cause,
            notes: r.notes,
            metrics: r.metrics,
            agent: r.agent,
            extra: StepExtra {
                propagated_from: r.propagated_from,
                taxonomy: r.taxonomy,
                workflow_step: r.workflow_step,
                compensated: r.compensated,
                attempt: r.attempt,
                judge_missing: r.judge_missing,
            }
            .boxed(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field set, in the order the report has always written them.
    const FULL: &str = r#"{"id":"s3","type":"EXEC","name":"lookup","span_id":"m7","score":1.0,"scored_by":"rules","failed":true,"root_cause":false,"propagated_from":"s1","taxonomy":{"l1":"Execution","l2":"tool_execution","l3":"tool_error_response"},"workflow_step":"find","notes":"the tool span failed: boom","compensated":true,"metrics":{"success":1.0},"agent":"bot","attempt":{"number":1,"of":2},"judge_missing":true}"#;
    const BARE: &str = r#"{"id":"s1","type":"PLAN","name":"chat","score":null,"scored_by":"none","failed":false,"root_cause":false}"#;

    #[test]
    fn reads_and_writes_one_flat_object_in_order() {
        for json in [FULL, BARE] {
            let step: StepResult = serde_json::from_str(json).unwrap();
            assert_eq!(serde_json::to_string(&step).unwrap(), json);
        }
        let full: StepResult = serde_json::from_str(FULL).unwrap();
        assert_eq!(full.propagated_from(), Some("s1"));
        assert_eq!(full.workflow_step(), Some("find"));
        assert_eq!(
            full.taxonomy().map(|t| t.l3.as_str()),
            Some("tool_error_response")
        );
        assert!(full.compensated() && full.judge_missing());
        assert_eq!(full.attempt(), Some(StepAttempt { number: 1, of: 2 }));
        let bare: StepResult = serde_json::from_str(BARE).unwrap();
        assert!(
            bare.extra.is_none(),
            "nothing boxed for a step without them"
        );
        assert_eq!(bare.extra(), &StepExtra::default());
        assert!(serde_json::from_str::<StepResult>(r#"{"id":"s1"}"#).is_err());
    }

    #[test]
    fn the_box_is_kept_only_while_something_is_in_it() {
        let mut step: StepResult = serde_json::from_str(BARE).unwrap();
        let bare = step.clone();
        step.edit_extra(|x| x.compensated = true);
        assert!(step.compensated() && step.extra.is_some());
        step.edit_extra(|x| x.compensated = false);
        assert_eq!(step, bare);
    }
}
