//! How the judge engine answers one question ([`super::pipeline`] step 3):
//! the cache lookup, the fallback chain with strict parsing, and each
//! provider's call with retries.

use std::sync::PoisonError;
use std::time::Duration;

use super::answer::{AnswerFormat, AnswerShape};
use super::budget::Charge;
use super::cache::{self, Entry, Lookup};
use super::error::CallError;
use super::pipeline::{Answer, CacheLookup, Inner, Outcome, Request};
use super::provider::{Completion, Judge, cost_of};
use super::reask::Unparsed;
use super::stats::RunStats;

impl Inner {
    pub(super) fn stats(&self) -> std::sync::MutexGuard<'_, RunStats> {
        self.stats.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The cache of every judge of the chain, in order, for `request`: the first
    /// usable answer (by the judge that gave it), a miss, or a corrupt entry (`Err`,
    /// when no judge has a usable one). The key returned is the primary's.
    /// The cache key of `request` under `judge`.
    fn key_of<F: AnswerFormat>(&self, judge: &dyn Judge, request: &Request<F>) -> String {
        cache::key(
            judge.identity(),
            judge.base_url(),
            self.params,
            request.format.name(),
            &request.prompt,
            request.repeat,
        )
    }

    pub(super) fn look_up<F: AnswerFormat>(
        &self,
        request: &Request<F>,
    ) -> (String, CacheLookup<F::Parsed>) {
        let mut primary_key = String::new();
        let mut corrupt = false;
        for (j, judge) in self.chain.iter().enumerate() {
            let key = self.key_of(judge.as_ref(), request);
            if j == 0 {
                primary_key.clone_from(&key);
            }
            match self.cache.get(&key) {
                Lookup::Hit(entry) => {
                    if let Ok(parsed) = request.format.parse(&entry.text) {
                        let answer = Answer {
                            parsed,
                            by: judge.identity().clone(),
                            cached: true,
                        };
                        return (primary_key, Ok(Some(answer)));
                    }
                }
                Lookup::Miss => {}
                Lookup::Corrupt => corrupt = true,
            }
        }
        (primary_key, if corrupt { Err(()) } else { Ok(None) })
    }

    /// One question through the fallback chain.
    pub(super) async fn answer<F: AnswerFormat>(
        &self,
        request: &Request<F>,
        primary_key: String,
    ) -> (Outcome<F::Parsed>, Option<Unparsed>, Option<Charge>) {
        let mut used: Option<Charge> = None;
        let completion = Completion {
            prompt: request.prompt.clone(),
            format: AnswerShape::of(&request.format),
            params: self.params,
        };
        let mut first: Option<CallError> = None;
        let mut unparsed = None;
        for (j, judge) in self.chain.iter().enumerate() {
            let key = if j == 0 {
                primary_key.clone()
            } else {
                self.key_of(judge.as_ref(), request)
            };
            let error = match self.ask(j, &completion, request, &key, &mut used).await {
                Ok(answer) => return (Outcome::Answered(answer), None, used),
                Err(CallError::Invalid(why)) => {
                    unparsed = Some(Unparsed {
                        judge: j,
                        key,
                        why: why.clone(),
                    });
                    CallError::Invalid(why)
                }
                Err(e) => e,
            };
            first.get_or_insert(error);
        }
        let error = first.unwrap_or(CallError::Malformed("no judge configured".into()));
        let mut s = self.stats();
        s.errors += 1;
        *s.error_classes.entry(error.class().to_owned()).or_default() += 1;
        if error.is_unavailability() {
            s.unavailable += 1;
        }
        (Outcome::Failed(error), unparsed, used)
    }

    /// Provider `j` of the chain, asked `completion` for `request`: its answer parsed and
    /// cached under `key`, or why not (`Invalid` for an answer that did not parse). What
    /// the provider reported it used is added to `used` (for the budget).
    pub(super) async fn ask<F: AnswerFormat>(
        &self,
        j: usize,
        completion: &Completion,
        request: &Request<F>,
        key: &str,
        used: &mut Option<Charge>,
    ) -> Result<Answer<F::Parsed>, CallError> {
        let judge = &self.chain[j];
        let raw = self.call(judge.as_ref(), completion).await?;
        used.get_or_insert_with(Charge::default).add(Charge::used(
            judge.price(),
            raw.input_tokens,
            raw.output_tokens,
        ));
        let cost = cost_of(judge.price(), raw.input_tokens, raw.output_tokens);
        {
            let mut s = self.stats();
            s.input_tokens += raw.input_tokens;
            s.output_tokens += raw.output_tokens;
            // The cost is added when the question is settled, in question order
            // ([`Engine::join_and_settle`]): a float sum in finishing order would make
            // the report's last digits depend on network timing.
            if cost.is_none() {
                s.cost_incomplete = true;
            }
        }
        let parsed = request
            .format
            .parse(&raw.text)
            .map_err(CallError::Invalid)?;
        let entry = Entry::new(
            judge.identity(),
            raw.text,
            raw.input_tokens,
            raw.output_tokens,
            cost,
        );
        let wrote = self.cache.put(key, &entry);
        let mut s = self.stats();
        if wrote.is_err() {
            s.cache_write_errors += 1;
        }
        s.answered += 1;
        if j > 0 {
            s.fallbacks += 1;
        }
        Ok(Answer {
            parsed,
            by: judge.identity().clone(),
            cached: false,
        })
    }

    /// One provider, with retries.
    async fn call(
        &self,
        judge: &dyn Judge,
        completion: &Completion,
    ) -> Result<super::provider::RawAnswer, CallError> {
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            self.stats().calls += 1;
            match judge.complete(completion).await {
                Ok(raw) => return Ok(raw),
                Err(e) => match self.retry.delay(attempt, &e) {
                    Some(wait) => {
                        self.stats().retries += 1;
                        self.retry
                            .sleeper
                            .sleep(wait.min(Duration::from_secs(600)))
                            .await;
                    }
                    None => return Err(e),
                },
            }
        }
    }
}
