//! One more try for an answer that did not parse (issue 21 item 5): the same question,
//! with a line saying what was wrong, asked once of the provider that gave it. Re-asks run
//! after every first answer, charged to the budget in question order and settled at what
//! they used, so where a budget stops never depends on which call finished first. The previous answer itself is not
//! sent back (it may echo the untrusted evidence); only the parse error, which the gate
//! wrote, capped.

use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::answer::{AnswerFormat, AnswerShape};
use super::budget::Budget;
use super::pipeline::{Engine, Outcome, Request};
use super::prompts::Prompt;
use super::provider::Completion;

/// An answer that did not parse: which provider of the chain gave it (and the cache key it
/// answers under), and why it was refused.
#[derive(Debug, Clone)]
pub(crate) struct Unparsed {
    pub judge: usize,
    pub key: String,
    pub why: String,
}

/// Longest parse error repeated to the model.
const WHY_CHARS: usize = 300;

/// `prompt` with the note that the last answer could not be used, and why.
pub(crate) fn prompt(prompt: &Prompt, why: &str) -> Prompt {
    Prompt {
        system: prompt.system.clone(),
        user: format!(
            "{}\n\nYour previous answer to this could not be used: {}. Answer again, in exactly the format asked for above, with nothing before or after it.",
            prompt.user,
            crate::output::cap_chars(why, WHY_CHARS)
        ),
    }
}

impl Engine {
    /// Asks each question in `unparsed` once more of the provider whose answer did not
    /// parse ([`super::reask`]), charged to the budget in question order; an answer that
    /// parses replaces the failure.
    pub(super) async fn reask_all<F: AnswerFormat>(
        &self,
        requests: &[Request<F>],
        mut unparsed: Vec<(usize, Unparsed)>,
        outcomes: &mut [Option<Outcome<F::Parsed>>],
    ) {
        let inner = &self.inner;
        unparsed.sort_by_key(|(i, _)| *i);
        let semaphore = Arc::new(Semaphore::new(inner.concurrency));
        let mut tasks = JoinSet::new();
        for (i, u) in unparsed {
            let request = &requests[i];
            let completion = Completion {
                prompt: prompt(&request.prompt, &u.why),
                format: AnswerShape::of(&request.format),
                params: inner.params,
            };
            let judge = &inner.chain[u.judge];
            let estimate = Budget::estimate(
                &completion.prompt,
                super::budget::output_estimate(judge.identity(), inner.params, &request.format),
                judge.price(),
            );
            if !inner.budget.charge(estimate) {
                inner.budget.shut();
                break;
            }
            inner.stats().reasked += 1;
            let Ok(permit) = Arc::clone(&semaphore).acquire_owned().await else {
                break;
            };
            let engine = Arc::clone(inner);
            let request = request.clone();
            tasks.spawn(async move {
                let mut used = None;
                let answer = engine
                    .ask(u.judge, &completion, &request, &u.key, &mut used)
                    .await;
                drop(permit);
                (i, answer, estimate, used)
            });
        }
        let mut settled = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            let Ok((i, answer, charged, used)) = joined else {
                continue;
            };
            if let Some(used) = used {
                settled.push((i, charged, used));
            }
            let Ok(answer) = answer else {
                continue;
            };
            // The question counted as failed with its first error: undo that.
            if let Some(Outcome::Failed(first)) = &outcomes[i] {
                let mut s = inner.stats();
                s.errors = s.errors.saturating_sub(1);
                if let Some(n) = s.error_classes.get_mut(first.class()) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        s.error_classes.remove(first.class());
                    }
                }
                if first.is_unavailability() {
                    s.unavailable = s.unavailable.saturating_sub(1);
                }
            }
            outcomes[i] = Some(Outcome::Answered(answer));
        }
        // Settled in question order, like the first answers ([`super::budget`]).
        settled.sort_by_key(|(i, _, _)| *i);
        for (_, charged, used) in settled {
            inner.budget.settle(charged, used);
            inner.stats().cost_usd += used.cost;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_stays_and_the_error_is_capped() {
        let p = Prompt {
            system: "sys".into(),
            user: "question".into(),
        };
        let again = prompt(&p, &"x".repeat(1_000));
        assert_eq!(again.system, "sys");
        assert!(again.user.starts_with("question\n\nYour previous answer"));
        assert!(!again.user.contains(&"x".repeat(WHY_CHARS + 1)));
    }
}
