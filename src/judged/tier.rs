//! Judging the cases of one tier of a suite: ask every question of every
//! case through one [`Engine`] run, then sort the answers back into what
//! evaluation consumes: tier-3 verdicts, step-metric scores and the
//! semantic task outcome of each case.
//!
//! A question without an answer becomes N/A with its reason (`judge_error:
//! <class>`, `budget exhausted`, `not in judge cache`), counted in the
//! report's `judge` section. When questions needed a provider and every
//! one failed to reach it, the verdict cannot be reached: exit 69.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, PoisonError};

use rayon::prelude::*;

use super::answer::{JudgedState, Parsed};
use super::questions::{CaseQuestions, CaseView, SuiteContext, Target, case_questions};
use crate::eval::checkpoint::JudgeVerdicts;
use crate::eval::checkpoint::tier3::{JudgedRun, judged_verdict};
use crate::eval::metrics::SemanticJudgment;
use crate::eval::steps::{MetricJudgment, StepJudgments, StepSettings, ToolCatalog};
use crate::judged::answer::Outcome;
use crate::llm::budget::Budget;
use crate::llm::config::{JudgeMode, JudgeOptions, JudgeSettings};
use crate::llm::error::JudgeError;
use crate::llm::pipeline::Engine;
use crate::model::run::{CheckpointState, JudgeSummary};
use crate::spec::suite::{Check, Suite};

/// Per-case warnings kept about judge errors (the rest are counted).
const MAX_ERROR_WARNINGS: usize = 3;

/// The judge settings of one command, shared by its suites and tiers
/// (the cost budget of a suite spans its smoke and full tiers).
#[derive(Debug, Clone, Default)]
pub struct JudgeRun {
    pub options: Arc<JudgeOptions>,
    budgets: Arc<Mutex<BTreeMap<String, Arc<Budget>>>>,
}

impl JudgeRun {
    pub fn new(options: JudgeOptions) -> Self {
        Self {
            options: Arc::new(options),
            budgets: Arc::default(),
        }
    }

    pub fn mode(&self) -> JudgeMode {
        self.options.mode
    }

    /// The judge of `suite`, or `None` without one.
    pub fn for_suite(&self, suite: &Suite) -> Result<Option<SuiteJudge>, JudgeError> {
        let env = |k: &str| std::env::var(k).ok();
        let Some(settings) = JudgeSettings::for_suite(&self.options, suite, &env)? else {
            return Ok(None);
        };
        let budget = Arc::clone(
            self.budgets
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(suite.name.clone())
                .or_insert_with(|| {
                    Arc::new(Budget::new(
                        settings.max_cost_usd,
                        settings.max_total_tokens,
                    ))
                }),
        );
        Ok(Some(SuiteJudge { settings, budget }))
    }
}

/// What evaluation gets from the judge for one case.
#[derive(Debug, Clone, Default)]
pub struct CaseJudgments {
    pub checkpoints: JudgeVerdicts,
    pub steps: StepJudgments,
    pub task: Option<SemanticJudgment>,
    pub warnings: Vec<String>,
    pub invalid_citations: u64,
    /// Trace-judge dimensions (every dimension of every judge asked, scored or N/A).
    pub trace_judges: Vec<crate::model::trace_judges::TraceJudgeScore>,
}

/// One suite's judge.
pub struct SuiteJudge {
    pub settings: JudgeSettings,
    budget: Arc<Budget>,
}

impl SuiteJudge {
    /// An engine on this suite's settings and budget (for questions asked
    /// after evaluation, such as judged root causes).
    pub fn engine(&self) -> Result<Engine, JudgeError> {
        Engine::from_settings(&self.settings, Arc::clone(&self.budget))
    }

    /// Judge `views` (the cases that have a trace); answers in the same order.
    pub fn judge(
        &self,
        suite: &Suite,
        catalog: &ToolCatalog,
        step_settings: &StepSettings,
        views: &[CaseView<'_>],
    ) -> Result<(Vec<CaseJudgments>, JudgeSummary), JudgeError> {
        let cx = SuiteContext {
            suite,
            settings: &self.settings,
            catalog,
            step_settings,
        };
        let questions: Vec<CaseQuestions> = views
            .par_iter()
            .map(|v| case_questions(&cx, v))
            .collect::<Result<_, _>>()?;
        let requests: Vec<_> = questions
            .iter()
            .flat_map(|q| q.requests.iter().cloned())
            .collect();
        let engine = Engine::from_settings(&self.settings, Arc::clone(&self.budget))?;
        let (outcomes, stats) = engine.run_blocking(&requests)?;
        let label = self.settings.identity.label();
        if stats.judge_unavailable() {
            return Err(JudgeError::Unavailable {
                judge: self.settings.identity.to_string(),
                attempted: stats.errors,
                failed: stats.errors,
                first_error: stats.first_error.clone().unwrap_or_default(),
            });
        }
        let mut out = Vec::with_capacity(views.len());
        let mut offset = 0;
        let mut invalid = 0;
        for q in &questions {
            let slice = &outcomes[offset..offset + q.requests.len()];
            offset += q.requests.len();
            let j = sort_answers(suite, q, slice, &label);
            invalid += j.invalid_citations;
            out.push(j);
        }
        let summary = super::summary::from_stats(
            self.settings.mode,
            &self.settings.identity,
            &stats,
            invalid,
        );
        Ok((out, summary))
    }
}

impl SuiteJudge {
    /// Ask `requests` that are not about one case (rubric drafts) through the
    /// suite's engine, budget and cache; outcomes in request order. Exit 69
    /// when the judge could not be reached at all.
    pub fn ask(
        &self,
        requests: &[crate::judged::answer::Request],
    ) -> Result<(Vec<Outcome>, JudgeSummary), JudgeError> {
        let engine = Engine::from_settings(&self.settings, Arc::clone(&self.budget))?;
        let (outcomes, stats) = engine.run_blocking(requests)?;
        if stats.judge_unavailable() {
            return Err(JudgeError::Unavailable {
                judge: self.settings.identity.to_string(),
                attempted: stats.errors,
                failed: stats.errors,
                first_error: stats.first_error.clone().unwrap_or_default(),
            });
        }
        let summary =
            super::summary::from_stats(self.settings.mode, &self.settings.identity, &stats, 0);
        Ok((outcomes, summary))
    }
}

/// Why a question has no answer, as an N/A reason.
pub(crate) fn reason(outcome: &Outcome) -> Option<String> {
    match outcome {
        Outcome::Answered(_) => None,
        Outcome::Failed(e) => Some(format!("judge_error: {}", e.class())),
        Outcome::BudgetExhausted => Some("budget exhausted".to_owned()),
        Outcome::NotInCache => Some("not in judge cache".to_owned()),
    }
}

fn sort_answers(
    suite: &Suite,
    q: &CaseQuestions,
    outcomes: &[Outcome],
    label: &str,
) -> CaseJudgments {
    let mut j = CaseJudgments {
        checkpoints: JudgeVerdicts {
            provider: Some(label.to_owned()),
            ..JudgeVerdicts::default()
        },
        steps: StepJudgments {
            by: label.to_owned(),
            ..StepJudgments::default()
        },
        ..CaseJudgments::default()
    };
    let mut runs: BTreeMap<&str, Vec<Result<JudgedRun, String>>> = BTreeMap::new();
    let mut errors = Vec::new();
    for (target, outcome) in q.targets.iter().zip(outcomes) {
        if let Outcome::Failed(e) = outcome {
            errors.push(format!("judge error on {}: {e}", describe(target)));
        }
        let missing = reason(outcome);
        let answer = match outcome {
            Outcome::Answered(a) => Some(a),
            _ => None,
        };
        match target {
            Target::Checkpoint { id, .. } => {
                let run = match (answer, missing) {
                    (Some(a), _) => match &a.parsed {
                        Parsed::Checkpoint {
                            state,
                            criterion,
                            notes,
                            cited_spans,
                        } => Ok(JudgedRun {
                            state: match state {
                                JudgedState::Pass => CheckpointState::Pass,
                                JudgedState::Partial => CheckpointState::Partial,
                                JudgedState::Fail => CheckpointState::Fail,
                            },
                            criterion: *criterion,
                            notes: notes.clone(),
                            cited_spans: cited_spans.clone(),
                            by: a.by.label(),
                        }),
                        _ => Err("judge_error: invalid answer".to_owned()),
                    },
                    (None, why) => Err(why.unwrap_or_default()),
                };
                runs.entry(id.as_str()).or_default().push(run);
            }
            Target::Step { node, metric } => {
                let value = match (answer.map(|a| (&a.parsed, &a.by)), missing) {
                    (Some((Parsed::Score { score, reasoning }, by)), _) => MetricJudgment::Score {
                        value: f64::from(*score),
                        notes: reasoning.clone(),
                        by: by.label(),
                    },
                    (_, Some(why)) => MetricJudgment::NotAvailable(why),
                    _ => MetricJudgment::NotAvailable("judge_error: invalid answer".to_owned()),
                };
                j.steps.metrics.insert((node.clone(), *metric), value);
            }
            Target::TraceJudge(name) => match name {
                crate::spec::judge::TraceJudgeName::Gpa => {
                    match (answer.map(|a| (&a.parsed, a.by.label())), missing) {
                        (Some((Parsed::Gpa(dims), by)), _) => {
                            let (scores, invalid) = super::gpa::scored(dims, &q.span_ids, &by);
                            if invalid > 0 {
                                j.invalid_citations += invalid;
                                let ids: Vec<&str> = scores
                                    .iter()
                                    .flat_map(|s| s.invalid_citations.iter().map(String::as_str))
                                    .collect();
                                j.warnings.push(format!(
                                    "gpa: the judge cited span ids that are not in the trace: {}",
                                    ids.join(", ")
                                ));
                            }
                            j.trace_judges.extend(scores);
                        }
                        (_, Some(why)) => j.trace_judges.extend(super::gpa::not_available(&why)),
                        _ => j
                            .trace_judges
                            .extend(super::gpa::not_available("judge_error: invalid answer")),
                    }
                }
            },
            Target::Task => {
                j.task = Some(match (answer, missing) {
                    (Some(a), _) => match &a.parsed {
                        Parsed::Semantic { equivalent, notes } => SemanticJudgment::Decided {
                            equivalent: *equivalent,
                            notes: notes.clone(),
                            by: a.by.label(),
                        },
                        _ => {
                            SemanticJudgment::NotAvailable("judge_error: invalid answer".to_owned())
                        }
                    },
                    (None, why) => SemanticJudgment::NotAvailable(why.unwrap_or_default()),
                });
            }
        }
    }
    let span_ids: &BTreeSet<String> = &q.span_ids;
    for (id, answers) in runs {
        let criteria = match suite.checkpoint(id).map(|c| &c.check) {
            Some(Check::Semantic { partial_criteria }) => partial_criteria.clone(),
            _ => Vec::new(),
        };
        let (verdict, invalid) = judged_verdict(&answers, &criteria, span_ids);
        if !invalid.is_empty() {
            j.invalid_citations += invalid.len() as u64;
            j.warnings.push(format!(
                "checkpoint {id}: the judge cited span ids that are not in the trace: {}",
                invalid.join(", ")
            ));
        }
        j.checkpoints.verdicts.insert(id.to_owned(), verdict);
    }
    let more = errors.len().saturating_sub(MAX_ERROR_WARNINGS);
    j.warnings
        .extend(errors.into_iter().take(MAX_ERROR_WARNINGS));
    if more > 0 {
        j.warnings
            .push(format!("and {more} more judge errors in this case"));
    }
    j
}

fn describe(target: &Target) -> String {
    match target {
        Target::Checkpoint { id, repeat } => format!("checkpoint {id} (run {})", repeat + 1),
        Target::Step { node, metric } => format!("step {node} {}", metric.as_str()),
        Target::Task => "semantic task success".to_owned(),
        Target::TraceJudge(_) => "the GPA trace judges".to_owned(),
    }
}
