//! The judge engine: every question goes through the same pipeline,
//! whatever asks it (tier-3 checkpoints, step metrics, semantic task
//! success today; trace-level judges and judged root causes later).
//!
//! 1. Keys and cache lookups for every question, in parallel (rayon), under
//!    each judge of the chain in order (primary, then fallbacks): a hit whose
//!    answer still parses is answered at once, by the judge that gave it, and
//!    costs nothing.
//! 2. `replay`: every miss is N/A "not in judge cache". Live: misses are
//!    charged an estimate in question order (see [`super::budget`]); one
//!    that does not fit waits for every earlier call to answer and be
//!    settled at what it used, and past the budget then, they are N/A
//!    "budget exhausted".
//! 3. The rest are sent, at most `concurrency` at a time, each through the
//!    fallback chain: per provider, the call with retries
//!    ([`super::retry`]), then strict parsing. The first provider whose
//!    answer parses wins, and its answer is cached under its own key. A
//!    question whose answers did not parse is asked once more of the provider
//!    that gave the last one, after all first answers ([`super::reask`]).
//! 4. A question no provider answered is `Failed` with the first error: the
//!    caller makes it N/A `judge_error`, never a pass.
//!
//! Outcomes come back in question order, so results never depend on which
//! call finished first.

use std::sync::{Arc, Mutex, PoisonError};

use rayon::prelude::*;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::answer::AnswerFormat;
use super::anthropic::AnthropicJudge;
use super::budget::Budget;
use super::cache::Cache;
use super::config::{JudgeMode, JudgeSettings};
use super::error::{CallError, JudgeError};
use super::openai::OpenAiJudge;
use super::prompts::Prompt;
use super::provider::{Judge, JudgeIdentity, Params};
use super::replay::ReplayJudge;
use super::retry::RetryPolicy;
pub use super::stats::RunStats;
use crate::spec::judge::ProviderName;

/// One question, whose answer must have the format `F`.
#[derive(Debug, Clone, PartialEq)]
pub struct Request<F> {
    pub prompt: Prompt,
    pub format: F,
    /// 0-based repeat index (`judge.runs > 1` asks the same question again).
    pub repeat: u32,
}

/// A parsed answer and who gave it.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer<P> {
    pub parsed: P,
    pub by: JudgeIdentity,
    pub cached: bool,
}

/// What became of one question.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome<P> {
    Answered(Answer<P>),
    /// No provider answered usably: N/A `judge_error`.
    Failed(CallError),
    BudgetExhausted,
    NotInCache,
}

/// The outcomes of a run, in request order, and its accounting.
pub(crate) type Answers<P> = (Vec<Outcome<P>>, RunStats);

/// A cache lookup: a usable answer, a miss, or a corrupt entry (`Err`).
pub(super) type CacheLookup<P> = Result<Option<Answer<P>>, ()>;

/// The engine of one suite's judge run.
#[derive(Clone)]
pub struct Engine {
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    pub(super) chain: Vec<Arc<dyn Judge>>,
    pub(super) mode: JudgeMode,
    pub(super) cache: Cache,
    pub(super) retry: RetryPolicy,
    pub(super) concurrency: usize,
    pub(super) budget: Arc<Budget>,
    pub(super) params: Params,
    pub(super) stats: Mutex<RunStats>,
}

impl Engine {
    /// An engine over `chain` (primary first). `replay` engines never call.
    pub fn new(
        chain: Vec<Arc<dyn Judge>>,
        mode: JudgeMode,
        cache: Cache,
        retry: RetryPolicy,
        concurrency: usize,
        budget: Arc<Budget>,
        params: Params,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                chain,
                mode,
                cache,
                retry,
                concurrency: concurrency.max(1),
                budget,
                params,
                stats: Mutex::default(),
            }),
        }
    }

    /// The engine `settings` describe, with its HTTP clients.
    pub fn from_settings(
        settings: &JudgeSettings,
        budget: Arc<Budget>,
    ) -> Result<Self, JudgeError> {
        let chain: Vec<Arc<dyn Judge>> = match settings.mode {
            JudgeMode::Replay | JudgeMode::None => settings
                .replay_chain
                .iter()
                .map(|(identity, url)| -> Arc<dyn Judge> {
                    Arc::new(ReplayJudge::new(identity.clone(), url.clone()))
                })
                .collect(),
            JudgeMode::Live(_) => settings
                .chain
                .iter()
                .map(|p| -> Result<Arc<dyn Judge>, JudgeError> {
                    Ok(match p.provider {
                        ProviderName::Openai => Arc::new(OpenAiJudge::new(p, settings.timeout)?),
                        ProviderName::Anthropic => {
                            Arc::new(AnthropicJudge::new(p, settings.timeout)?)
                        }
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        Ok(Self::new(
            chain,
            settings.mode,
            Cache::new(
                &settings.cache_dir,
                matches!(settings.mode, JudgeMode::Live(_)),
            ),
            RetryPolicy::new(settings.retries),
            settings.concurrency,
            budget,
            settings.params,
        ))
    }

    /// The identity answers are looked up under.
    pub fn identity(&self) -> &JudgeIdentity {
        self.inner.chain[0].identity()
    }

    /// Run `requests` on a private runtime (the engine's own tokio).
    pub fn run_blocking<F: AnswerFormat>(
        &self,
        requests: &[Request<F>],
    ) -> Result<Answers<F::Parsed>, JudgeError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| JudgeError::Client(format!("cannot start the async runtime: {e}")))?;
        Ok(runtime.block_on(self.run(requests)))
    }

    /// Answer `requests`; outcomes in request order.
    pub async fn run<F: AnswerFormat>(
        &self,
        requests: &[Request<F>],
    ) -> (Vec<Outcome<F::Parsed>>, RunStats) {
        let inner = &self.inner;
        *inner.stats.lock().unwrap_or_else(PoisonError::into_inner) = RunStats {
            items: requests.len() as u64,
            ..RunStats::default()
        };
        let primary = inner.chain[0].identity().clone();
        let params = inner.params;
        // The cache of the whole chain before any call: an answer a fallback gave (the
        // primary was down) is found under the fallback's key, so a rerun neither asks
        // the dead primary again nor misses it in replay.
        let looked_up: Vec<(String, CacheLookup<F::Parsed>)> =
            requests.par_iter().map(|r| inner.look_up(r)).collect();

        let mut outcomes: Vec<Option<Outcome<F::Parsed>>> = vec![None; requests.len()];
        let mut misses = Vec::new();
        {
            let mut s = inner.stats.lock().unwrap_or_else(PoisonError::into_inner);
            for (i, (key, found)) in looked_up.into_iter().enumerate() {
                match found {
                    Ok(Some(answer)) => {
                        s.cache_hits += 1;
                        s.answered += 1;
                        if answer.by != primary {
                            s.fallbacks += 1;
                        }
                        outcomes[i] = Some(Outcome::Answered(answer));
                    }
                    Ok(None) => misses.push((i, key)),
                    Err(()) => {
                        s.corrupt_entries += 1;
                        misses.push((i, key));
                    }
                }
            }
        }

        let semaphore = Arc::new(Semaphore::new(inner.concurrency));
        let mut tasks = JoinSet::new();
        let price = inner.chain[0].price();
        let mut unparsed = Vec::new();
        for (i, key) in misses {
            let request = &requests[i];
            if inner.mode == JudgeMode::Replay || inner.mode == JudgeMode::None {
                inner
                    .stats
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .not_in_cache += 1;
                outcomes[i] = Some(Outcome::NotInCache);
                continue;
            }
            let estimate = Budget::estimate(
                &request.prompt,
                super::budget::output_estimate(&primary, params, &request.format),
                price,
            );
            let mut fits = inner.budget.charge(estimate);
            if !fits && !tasks.is_empty() {
                // Settle every call before this one at what it used, then try again.
                self.join_and_settle(&mut tasks, &mut outcomes, &mut unparsed)
                    .await;
                fits = inner.budget.charge(estimate);
            }
            if !fits {
                inner.budget.shut();
                inner
                    .stats
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .budget_exhausted += 1;
                outcomes[i] = Some(Outcome::BudgetExhausted);
                continue;
            }
            let Ok(permit) = Arc::clone(&semaphore).acquire_owned().await else {
                break;
            };
            let engine = Arc::clone(&self.inner);
            let request = request.clone();
            tasks.spawn(async move {
                let (outcome, unparsed, used) = engine.answer(&request, key).await;
                drop(permit);
                (i, outcome, unparsed, estimate, used)
            });
        }
        self.join_and_settle(&mut tasks, &mut outcomes, &mut unparsed)
            .await;
        self.reask_all(requests, unparsed, &mut outcomes).await;
        let outcomes = outcomes
            .into_iter()
            .map(|o| {
                o.unwrap_or(Outcome::Failed(CallError::Malformed(
                    "the call did not finish".into(),
                )))
            })
            .collect::<Vec<_>>();
        let mut stats = inner
            .stats
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        // The first error in question order, whatever finished first.
        if let Some((i, Outcome::Failed(e))) = outcomes
            .iter()
            .enumerate()
            .find(|(_, o)| matches!(o, Outcome::Failed(_)))
        {
            stats.first_error = Some(format!("question {}: {e}", i + 1));
        }
        stats.notes = inner.chain.iter().flat_map(|j| j.notes()).collect();
        (outcomes, stats)
    }
}
