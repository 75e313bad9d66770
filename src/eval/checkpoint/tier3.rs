//! Tier 3: checkpoints decided by an LLM judge (DESIGN §6).
//!
//! The judge runs before evaluation (it is async and cached); this module
//! turns its answers into a verdict. Each run answers PASS, PARTIAL with the
//! number of a partial criterion, or FAIL, with notes and cited span ids.
//!
//! - Any run that got no answer (a judge error, the budget, the cache) makes
//!   the checkpoint N/A with that reason: a failure is never a pass, and a
//!   partial set of repeats is not a verdict.
//! - With several runs (`judge.runs > 1`) each scores PASS 1, PARTIAL its
//!   criterion's weight, FAIL 0. The verdict is the most frequent state
//!   (ties go to the lower score: fail closed), and confidence reports the
//!   runs, the range, the mean, the sample variance and HIGH when every run
//!   gave the same state and criterion, LOW otherwise.
//! - Cited span ids are checked against the trace: ids that do not exist
//!   are dropped from `cited_spans` and flagged in the notes.
//! - Mode A (strict) turns PARTIAL into FAIL afterwards, in `evaluate`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::tier1::holds;
use super::{JudgeVerdicts, Verdict};
use crate::model::run::{CheckpointState, Confidence, NaKind};
use crate::spec::suite::Suite;

/// One run's answer, as the judge gave it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JudgedRun {
    /// PASS, PARTIAL or FAIL.
    pub state: CheckpointState,
    /// 1-based partial criterion (PARTIAL only).
    pub criterion: Option<usize>,
    pub notes: String,
    pub cited_spans: Vec<String>,
    /// `judge:<provider>/<model>`.
    pub by: String,
}

/// The tier-3 verdict of a checkpoint under `judge` (the dispatch hook of
/// `evaluate_checkpoints`).
pub(crate) fn eval_semantic(id: &str, judge: &JudgeVerdicts) -> Verdict {
    match (&judge.provider, judge.verdicts.get(id)) {
        (None, _) => {
            Verdict::not_applicable_because(NaKind::NoJudge, "no judge configured", "none")
        }
        (Some(_), Some(v)) => v.clone(),
        (Some(p), None) => Verdict::not_applicable_because(
            NaKind::JudgeError,
            format!("judge `{p}` returned no verdict"),
            "none",
        ),
    }
}

/// Checkpoints BLOCKED for a case by an active environment constraint: the
/// judge is not asked about them.
pub(crate) fn blocked_ids(suite: &Suite, evidence: Option<&Value>) -> BTreeSet<String> {
    suite
        .constraints
        .iter()
        .filter(|c| match (&c.active_when, evidence) {
            (None, _) => true,
            (Some(cond), Some(ev)) => holds(cond, ev),
            (Some(_), None) => false,
        })
        .flat_map(|c| c.affects.iter().cloned())
        .collect()
}

/// Combine the runs of one checkpoint into its verdict. `runs` holds each
/// run's answer or the reason it has none; `criteria` are the checkpoint's
/// partial criteria with their weights; `span_ids` are the trace's spans.
/// Also returns the cited ids that are not in the trace.
pub(crate) fn judged_verdict(
    runs: &[Result<JudgedRun, String>],
    criteria: &[(String, f64)],
    span_ids: &BTreeSet<String>,
) -> (Verdict, Vec<String>) {
    if let Some(Err(reason)) = runs.iter().find(|r| r.is_err()) {
        return (
            Verdict::not_applicable_because(NaKind::JudgeError, reason.clone(), "none"),
            Vec::new(),
        );
    }
    let answers: Vec<&JudgedRun> = runs.iter().filter_map(|r| r.as_ref().ok()).collect();
    let Some(first) = answers.first() else {
        return (
            Verdict::not_applicable_because(NaKind::JudgeError, "the judge was not asked", "none"),
            Vec::new(),
        );
    };
    let weight = |a: &JudgedRun| match a.state {
        CheckpointState::Pass => 1.0,
        CheckpointState::Partial => a
            .criterion
            .and_then(|c| criteria.get(c.wrapping_sub(1)))
            .map_or(0.0, |(_, w)| *w),
        _ => 0.0,
    };
    // The most frequent (state, criterion); ties go to the lowest score.
    let mut votes: BTreeMap<(CheckpointState, Option<usize>), usize> = BTreeMap::new();
    for a in &answers {
        *votes.entry((a.state, a.criterion)).or_default() += 1;
    }
    let scored = |key: &(CheckpointState, Option<usize>)| {
        answers
            .iter()
            .find(|a| (a.state, a.criterion) == *key)
            .map_or(0.0, |a| weight(a))
    };
    let best = votes
        .iter()
        .max_by(|(ka, na), (kb, nb)| {
            na.cmp(nb)
                .then_with(|| scored(kb).total_cmp(&scored(ka)))
                .then_with(|| kb.cmp(ka))
        })
        .map(|(k, n)| (*k, *n));
    let Some(((state, criterion), agreeing)) = best else {
        return (
            Verdict::not_applicable_because(
                NaKind::JudgeError,
                "the judge gave no verdict",
                "none",
            ),
            Vec::new(),
        );
    };
    let chosen: Vec<&&JudgedRun> = answers
        .iter()
        .filter(|a| (a.state, a.criterion) == (state, criterion))
        .collect();
    let lead = chosen.first().map_or(*first, |a| **a);
    let mut notes = lead.notes.clone();
    if answers.len() > 1 {
        notes.push_str(&format!(" ({agreeing} of {} runs agree)", answers.len()));
    }
    let mut valid = Vec::new();
    let mut invalid = Vec::new();
    for id in chosen.iter().flat_map(|a| a.cited_spans.iter()) {
        let list = if span_ids.contains(id) {
            &mut valid
        } else {
            &mut invalid
        };
        if !list.contains(id) {
            list.push(id.clone());
        }
    }
    if !invalid.is_empty() {
        notes.push_str(&format!(
            " [the judge cited span{} not in the trace: {}]",
            if invalid.len() == 1 { "" } else { "s" },
            invalid
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let by = lead.by.as_str();
    let mut verdict = match state {
        CheckpointState::Pass => Verdict::pass(notes, by),
        CheckpointState::Partial => match criterion.and_then(|c| criteria.get(c.wrapping_sub(1))) {
            Some((condition, w)) => Verdict::partial(*w, condition.clone(), notes, by),
            None => Verdict::not_applicable_because(
                NaKind::JudgeError,
                "judge_error: invalid answer",
                "none",
            ),
        },
        _ => Verdict::fail(notes, by),
    }
    .citing(valid);
    if answers.len() > 1 {
        verdict.confidence = Some(confidence(
            &answers.iter().map(|a| weight(a)).collect::<Vec<_>>(),
            votes.len() == 1,
        ));
    }
    (verdict, invalid)
}

fn confidence(scores: &[f64], unanimous: bool) -> Confidence {
    let n = scores.len() as f64;
    let mean = scores.iter().sum::<f64>() / n;
    let variance = if scores.len() > 1 {
        scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    Confidence {
        runs: scores.len() as u32,
        min: scores.iter().copied().fold(f64::INFINITY, f64::min),
        max: scores.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        mean,
        variance,
        level: if unanimous { "HIGH" } else { "LOW" }.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[expect(clippy::unnecessary_wraps, reason = "the shape `judged_verdict` takes")]
    fn run(
        state: CheckpointState,
        criterion: Option<usize>,
        cited: &[&str],
    ) -> Result<JudgedRun, String> {
        Ok(JudgedRun {
            state,
            criterion,
            notes: format!("{state}"),
            cited_spans: cited.iter().map(|s| (*s).to_owned()).collect(),
            by: "judge:openai/m".into(),
        })
    }

    fn criteria() -> Vec<(String, f64)> {
        vec![("half".into(), 0.5), ("most".into(), 0.75)]
    }

    fn spans() -> BTreeSet<String> {
        ["a", "b"].iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn one_run_decides_and_bad_citations_are_flagged() {
        let (v, invalid) = judged_verdict(
            &[run(CheckpointState::Pass, None, &["a", "zz"])],
            &criteria(),
            &spans(),
        );
        assert_eq!(v.state, CheckpointState::Pass);
        assert_eq!(v.weight, Some(1.0));
        assert_eq!(v.cited_spans, ["a"]);
        assert_eq!(invalid, ["zz"]);
        assert!(v.notes.contains("not in the trace: `zz`"), "{}", v.notes);
        assert_eq!(v.evaluated_by, "judge:openai/m");
        assert!(v.confidence.is_none());
        let (p, _) = judged_verdict(
            &[run(CheckpointState::Partial, Some(2), &[])],
            &criteria(),
            &spans(),
        );
        assert_eq!(
            (p.state, p.weight, p.matched_criterion.as_deref()),
            (CheckpointState::Partial, Some(0.75), Some("most"))
        );
    }

    #[test]
    fn any_missing_run_is_na_never_a_pass() {
        let (v, _) = judged_verdict(
            &[
                run(CheckpointState::Pass, None, &[]),
                Err("judge_error: timeout".into()),
                run(CheckpointState::Pass, None, &[]),
            ],
            &criteria(),
            &spans(),
        );
        assert_eq!(v.state, CheckpointState::NotApplicable);
        assert_eq!(v.notes, "judge_error: timeout");
        assert_eq!(v.weight, None);
        assert_eq!(
            v.na_kind,
            Some(NaKind::JudgeError),
            "a judge failure is never vacuous"
        );
    }

    #[test]
    fn repeats_vote_fail_closed_and_report_confidence() {
        let (v, _) = judged_verdict(
            &[
                run(CheckpointState::Pass, None, &[]),
                run(CheckpointState::Fail, None, &[]),
                run(CheckpointState::Pass, None, &[]),
            ],
            &criteria(),
            &spans(),
        );
        assert_eq!(v.state, CheckpointState::Pass);
        assert!(v.notes.ends_with("(2 of 3 runs agree)"));
        let c = v.confidence.unwrap();
        assert_eq!(
            (c.runs, c.min, c.max, c.level.as_str()),
            (3, 0.0, 1.0, "LOW")
        );
        assert!((c.mean - 2.0 / 3.0).abs() < 1e-12);
        assert!(
            (c.variance - 1.0 / 3.0).abs() < 1e-12,
            "sample variance of 1, 0, 1"
        );
        // A tie goes to the lower score.
        let (t, _) = judged_verdict(
            &[
                run(CheckpointState::Pass, None, &[]),
                run(CheckpointState::Partial, Some(1), &[]),
            ],
            &criteria(),
            &spans(),
        );
        assert_eq!((t.state, t.weight), (CheckpointState::Partial, Some(0.5)));
        let (h, _) = judged_verdict(
            &[
                run(CheckpointState::Fail, None, &[]),
                run(CheckpointState::Fail, None, &[]),
            ],
            &criteria(),
            &spans(),
        );
        let c = h.confidence.unwrap();
        assert_eq!((c.level.as_str(), c.variance, c.mean), ("HIGH", 0.0, 0.0));
    }
}
