//! Judge coverage in a compare (issue 21). A judge can only lower a rules score, and a
//! judged item without an answer (a replay miss, a budget stop, a judge error, no judge, or
//! another judge) is left out or falls back to the rules: compared with a fully judged
//! baseline, missing answers look like improvements. So every metric a judge feeds is
//! compared only over the paired cases that stand on the same footing on both sides: no
//! judge answer missing on either side, and either the same judge on both sides or no judge
//! answer on either (rules against rules). What that leaves out is counted per metric; when
//! fewer than `min_cases` pairs remain the metric is `not_comparable`, and one that can fail
//! the gate fails it like an unevaluated checkpoint ([`gate`]).
//!
//! `compliance_percent` mixes deterministic checkpoints with tier-3 ones, so it is
//! recomputed rather than dropped: over the checkpoints both sides decided on the same
//! footing, the tier-3 checkpoints without a like judge verdict on both sides left out of
//! both. Where every tier-3 verdict is there on both sides nothing changes.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::compare::pairing::Paired;
use crate::model::compare::{MetricComparison, MetricStatus};
use crate::model::metric_id::{MetricId, SuiteMetric};
use crate::model::run::{
    CaseReport, CheckpointResult, CheckpointState, NaKind, RunReport, StepResult,
};
use crate::output::plural;

/// What judge coverage took out of one metric's comparison.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct JudgeGap {
    /// Paired cases with a value on some side, left out because the sides' judge footing
    /// differs.
    pub dropped: usize,
    /// Why, per dropped case (one reason each): reason → cases.
    pub why: BTreeMap<&'static str, usize>,
    /// `compliance_percent`: cases compared over fewer checkpoints (tier-3 ones without a
    /// like judge verdict on both sides left out of both).
    pub narrowed: usize,
}

/// One side's footing for one metric in one case, over its trials.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Footing {
    /// Some value of the metric came from a judge answer.
    judged: bool,
    /// A judge was (or would have been) asked and gave no answer.
    gap: bool,
}

impl Footing {
    fn merge(self, other: Self) -> Self {
        Self {
            judged: self.judged || other.judged,
            gap: self.gap || other.gap,
        }
    }
}

/// Whether the sides stand on the same footing, and if not why.
fn compare_footing(base: Footing, head: Footing, same_judge: bool) -> Result<(), &'static str> {
    if head.gap {
        Err("a judge answer missing in the head run")
    } else if base.gap {
        Err("a judge answer missing in the baseline")
    } else if !same_judge && (base.judged || head.judged) {
        Err("judged by another judge on one side")
    } else {
        Ok(())
    }
}

fn step_footing(s: &StepResult) -> Footing {
    let judged = s.scored_by.contains("judge:");
    // Reports written before `judge_missing` say it in the notes only.
    let legacy =
        s.notes.contains(" gave no score (") || (judged && s.notes.contains("no score for "));
    Footing {
        judged,
        gap: s.judge_missing() || legacy,
    }
}

/// One trial of a case with its checkpoint results by id (file order), so that a
/// checkpoint metric finds its result without a scan: a scan per metric and case made a
/// suite of 10,000 checkpoints quadratic (issue 25).
struct Trial<'a> {
    case: &'a CaseReport,
    checkpoints: HashMap<&'a str, Vec<&'a CheckpointResult>>,
}

impl<'a> Trial<'a> {
    fn new(case: &'a CaseReport) -> Self {
        let mut checkpoints: HashMap<&str, Vec<&CheckpointResult>> = HashMap::new();
        for cp in &case.checkpoints {
            checkpoints.entry(cp.id.as_str()).or_default().push(cp);
        }
        Self { case, checkpoints }
    }

    /// Every result of checkpoint `id`, in file order.
    fn results(&self, id: &str) -> &[&'a CheckpointResult] {
        self.checkpoints.get(id).map_or(&[], Vec::as_slice)
    }
}

/// The footing of `metric` in one trial of a case; `None` for metrics no judge feeds.
fn footing(trial: &Trial<'_>, metric: &MetricId) -> Option<Footing> {
    let case = trial.case;
    let steps = |keep: &dyn Fn(&StepResult) -> bool| {
        case.steps
            .iter()
            .filter(|s| keep(s))
            .map(step_footing)
            .fold(Footing::default(), Footing::merge)
    };
    match metric {
        MetricId::Suite(SuiteMetric::WorkflowQuality) => Some(steps(&|_| true)),
        MetricId::StepType(t) => Some(steps(&|s| s.step_type.to_string() == *t)),
        MetricId::Step(wf) => Some(steps(&|s| s.workflow_step() == Some(wf))),
        MetricId::Checkpoint(id) => {
            let cp = trial.results(id).first()?;
            (cp.tier == 3).then(|| tier3_footing(cp))
        }
        MetricId::Suite(SuiteMetric::TaskSuccess) => {
            let task = case.task.as_ref()?;
            task.matcher.contains("semantic").then(|| Footing {
                judged: task.detail.contains("reference (judge:"),
                gap: task.detail.contains("semantic match undecided")
                    || task.detail.contains("semantic match needs a judge"),
            })
        }
        MetricId::Gpa(dim) => {
            let score = case
                .trace_judges
                .iter()
                .find(|t| t.judge == "gpa" && t.dimension == *dim)
                .and_then(|t| t.score);
            Some(Footing {
                judged: score.is_some(),
                gap: score.is_none(),
            })
        }
        _ => None,
    }
}

fn tier3_footing(cp: &CheckpointResult) -> Footing {
    match cp.result {
        CheckpointState::Pass | CheckpointState::Partial | CheckpointState::Fail => Footing {
            judged: cp.evaluated_by.starts_with("judge:"),
            gap: false,
        },
        CheckpointState::NotApplicable => Footing {
            judged: false,
            // Not triggered / scoped out: nothing to ask. Anything else (no judge, a judge
            // error, a kind not recorded) is a verdict that is not there.
            gap: !cp.na_kind.is_some_and(NaKind::is_vacuous),
        },
        CheckpointState::Blocked => Footing::default(),
    }
}

/// A case's trials (in trial order) by case id.
fn by_case(report: &RunReport) -> BTreeMap<&str, Vec<Trial<'_>>> {
    let mut out: BTreeMap<&str, Vec<&CaseReport>> = BTreeMap::new();
    for c in &report.cases {
        out.entry(c.id.as_str()).or_default().push(c);
    }
    out.into_iter()
        .map(|(id, mut trials)| {
            trials.sort_by_key(|c| c.trial);
            (id, trials.into_iter().map(Trial::new).collect())
        })
        .collect()
}

fn merged(trials: &[Trial<'_>], metric: &MetricId) -> Option<Footing> {
    trials
        .iter()
        .filter_map(|c| footing(c, metric))
        .reduce(Footing::merge)
}

/// Align the paired values of every judge-fed metric of `paired` (built from `head` and
/// `base`): drop the cases not on the same footing, recompute `compliance_percent`, and
/// record what was taken out in `paired.judge_gaps`.
pub(crate) fn align(paired: &mut Paired, head: &RunReport, base: &RunReport) {
    let same_judge = crate::judged::summary::judged_by(&base.judge)
        == crate::judged::summary::judged_by(&head.judge);
    let (base_cases, head_cases) = (by_case(base), by_case(head));
    let mut gaps: BTreeMap<String, JudgeGap> = BTreeMap::new();
    let metrics: Vec<(String, MetricId)> = paired
        .metrics
        .iter()
        .map(|name| (name.clone(), MetricId::parse(name)))
        .collect();
    let cases = paired.cases.clone();
    let compliance = SuiteMetric::CompliancePercent.as_str();
    for (c, case) in cases.iter().enumerate() {
        let (Some(b), Some(h)) = (base_cases.get(case.as_str()), head_cases.get(case.as_str()))
        else {
            continue;
        };
        for (name, id) in &metrics {
            if matches!(id, MetricId::Suite(SuiteMetric::CompliancePercent)) {
                continue;
            }
            let (Some(fb), Some(fh)) = (merged(b, id), merged(h, id)) else {
                continue;
            };
            let Err(why) = compare_footing(fb, fh, same_judge) else {
                continue;
            };
            let had_base = paired.replace_trials(true, name, c, &[]);
            let had_head = paired.replace_trials(false, name, c, &[]);
            if had_base || had_head {
                let g = gaps.entry(name.clone()).or_default();
                g.dropped += 1;
                *g.why.entry(why).or_default() += 1;
            }
        }
        if paired.metric_index(compliance).is_some()
            && narrow_compliance(paired, c, b, h, same_judge)
        {
            gaps.entry(compliance.to_owned()).or_default().narrowed += 1;
        }
    }
    paired.judge_gaps = gaps;
}

/// Recompute one case's `compliance_percent` on both sides without the tier-3 checkpoints
/// that are not on the same footing; false when there are none (the values stand).
fn narrow_compliance(
    paired: &mut Paired,
    case: usize,
    base: &[Trial<'_>],
    head: &[Trial<'_>],
    same_judge: bool,
) -> bool {
    let ids: BTreeSet<&str> = base
        .iter()
        .chain(head)
        .flat_map(|t| t.case.checkpoints.iter().filter(|cp| cp.tier == 3))
        .map(|cp| cp.id.as_str())
        .collect();
    let footing_of = |trials: &[Trial<'_>], id: &str| {
        trials
            .iter()
            .flat_map(|t| t.results(id))
            .map(|cp| tier3_footing(cp))
            .fold(Footing::default(), Footing::merge)
    };
    // Only checkpoints some side decided change a compliance value.
    let decided = |id: &str| {
        base.iter()
            .chain(head)
            .any(|t| t.results(id).iter().any(|cp| cp.earned_weight.is_some()))
    };
    let left_out: BTreeSet<&str> = ids
        .into_iter()
        .filter(|id| {
            decided(id)
                && compare_footing(footing_of(base, id), footing_of(head, id), same_judge).is_err()
        })
        .collect();
    if left_out.is_empty() {
        return false;
    }
    let name = SuiteMetric::CompliancePercent.as_str();
    for (is_base, trials) in [(true, base), (false, head)] {
        let values: Vec<f64> = trials
            .iter()
            .filter_map(|t| {
                let (earned, possible) = t
                    .case
                    .checkpoints
                    .iter()
                    .filter(|cp| !left_out.contains(cp.id.as_str()))
                    .filter_map(|cp| cp.earned_weight)
                    .fold((0.0, 0.0), |(e, p), w| (e + w, p + 1.0));
                (possible > 0.0).then(|| 100.0 * earned / possible)
            })
            .collect();
        paired.replace_trials(is_base, name, case, &values);
    }
    true
}

/// Note on a metric whose comparison judge coverage narrowed, and `not_comparable` when
/// fewer than `min_cases` pairs remain because of it.
pub(crate) fn annotate(m: &mut MetricComparison, paired: &Paired, min_cases: usize) {
    let Some(g) = paired.judge_gaps.get(&m.name) else {
        return;
    };
    // The 2σ limit reads the head's suite mean over every case, judged or not, while the
    // paired values were narrowed to the cases judged alike: a regression the test finds
    // could come out `suspected` (missing judged scores raise rules-only means). The
    // test decides alone.
    if g.dropped + g.narrowed > 0 && m.sigma_band.take().is_some() {
        m.sigma_note.clear();
        m.sigma_note.push_str(
            "not used: judge coverage differs between baseline and head, and the \
            history holds means over every case; the paired test decides alone",
        );
    }
    if g.dropped == 0 {
        m.judge_note = format!(
            "compared without the tier-3 checkpoints that lack a like judge verdict on both sides in {}",
            plural(g.narrowed, "case", "cases")
        );
        return;
    }
    let why = g
        .why
        .iter()
        .map(|(w, n)| format!("{w}: {n}"))
        .collect::<Vec<_>>()
        .join("; ");
    if m.n < min_cases {
        m.status = MetricStatus::NotComparable;
        m.judge_note = format!(
            "judge coverage differs in {} ({why}): {} judged alike on both sides, fewer than min_cases {min_cases}",
            plural(g.dropped, "paired case", "paired cases"),
            m.n
        );
    } else {
        m.judge_note = format!(
            "compared over the {} judged alike on both sides; {} left out ({why})",
            m.n,
            plural(g.dropped, "case", "cases")
        );
    }
}
