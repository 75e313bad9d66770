//! Evaluate every checkpoint of a suite for one case.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::model::run::{CheckpointResult, CheckpointState, NaKind};
use crate::spec::model::PartialMode;
use crate::spec::suite::{Case, Check, Suite};
use crate::trace::Trace;

use super::scope::applies;
use super::tier1::holds;
use super::tier3;
use super::{EventLog, Verdict, eval_sequence, eval_state};

/// Tier-3 verdicts computed before evaluation (the judge runs async, this
/// code does not). Empty with `provider: None` when no judge is configured.
#[derive(Debug, Clone, Default)]
pub struct JudgeVerdicts {
    pub provider: Option<String>,
    /// Checkpoint id → verdict.
    pub verdicts: BTreeMap<String, Verdict>,
}

pub(crate) struct CheckpointInputs<'a> {
    pub suite: &'a Suite,
    /// The case, for `applies_to` (tags and ids).
    pub case: &'a Case,
    /// The trace, when the case produced one.
    pub trace: Option<&'a Trace>,
    /// Set when the case did not complete (status ≠ ok): every checkpoint
    /// that is not BLOCKED fails with this reason.
    pub failure: Option<&'a str>,
    pub evidence: Option<&'a Value>,
    pub judge: &'a JudgeVerdicts,
}

pub(crate) fn evaluate_checkpoints(inputs: &CheckpointInputs<'_>) -> Vec<CheckpointResult> {
    let suite = inputs.suite;
    // The event log is only needed by tier-2 checkpoints.
    let sequences = suite
        .checkpoints
        .iter()
        .any(|c| matches!(c.check, Check::Sequence(_)));
    let log = inputs
        .trace
        .filter(|_| sequences)
        .map(|t| EventLog::from_trace(t).with_case(inputs.evidence, &inputs.case.metadata));
    // Constraints that are active for this case: no `active_when`, or it holds on the evidence.
    let active: Vec<_> = suite
        .constraints
        .iter()
        .filter(|c| match (&c.active_when, inputs.evidence) {
            (None, _) => true,
            (Some(cond), Some(ev)) => holds(cond, ev),
            (Some(_), None) => false,
        })
        .collect();

    suite
        .checkpoints
        .iter()
        .map(|cp| {
            let blocked = active.iter().find(|c| c.affects.contains(&cp.id));
            let scoped_out = cp
                .applies_to
                .as_ref()
                .and_then(|scope| applies(scope, inputs.case, inputs.evidence).err());
            let verdict = if let Some((kind, reason)) = scoped_out {
                Verdict::not_applicable_because(kind, reason, "applies_to")
            } else if let Some(c) = blocked {
                Verdict::blocked(&c.id, &c.constraint)
            } else if let Some(reason) = inputs.failure {
                Verdict::fail(format!("the case did not complete: {reason}"), "none")
            } else {
                match &cp.check {
                    Check::State(assert) => match inputs.evidence {
                        Some(ev) => eval_state(assert, ev),
                        None => Verdict::not_applicable_because(
                            NaKind::NoEvidence,
                            "no evidence file for this case",
                            "tier1",
                        ),
                    },
                    Check::Sequence(seq) => match &log {
                        Some(log) => eval_sequence(seq, log).vacuous_if_na(),
                        None => Verdict::not_applicable_because(
                            NaKind::NoTrace,
                            "no trace for this case",
                            "tier2",
                        ),
                    },
                    Check::Semantic { .. } => tier3::eval_semantic(&cp.id, inputs.judge),
                }
            };
            let verdict = apply_partial_mode(verdict, suite.partial_mode);
            CheckpointResult {
                id: cp.id.clone(),
                position_index: cp.position_index,
                tier: cp.tier,
                severity: cp.severity,
                result: verdict.state,
                earned_weight: verdict.weight,
                notes: verdict.notes,
                evaluated_by: verdict.evaluated_by,
                matched_criterion: verdict.matched_criterion,
                cited_spans: verdict.cited_spans,
                blocked_by: verdict.blocked_by,
                confidence: verdict.confidence,
                na_kind: verdict.na_kind,
            }
        })
        .collect()
}

/// Mode A (strict): PARTIAL counts as FAIL.
fn apply_partial_mode(v: Verdict, mode: PartialMode) -> Verdict {
    if mode == PartialMode::A && v.state == CheckpointState::Partial {
        let mut failed = Verdict::fail(
            format!(
                "partial credit does not count in strict mode A ({})",
                v.notes
            ),
            &v.evaluated_by,
        );
        failed.cited_spans = v.cited_spans;
        failed.matched_criterion = v.matched_criterion;
        failed.confidence = v.confidence;
        return failed;
    }
    v
}
