//! The cost and token budget of a judge run.
//!
//! The budget is charged with an *estimate* before each uncached call, in
//! the items' order: input tokens ≈ bytes of the prompt / 4, output tokens =
//! the answer format's expected size capped at `max_tokens` (`max_tokens`
//! itself for reasoning models; see [`output_estimate`]), priced at
//! the primary judge's price. When a call has answered, its estimate is
//! *settled*: replaced by what the provider reported it used (the difference
//! refunded, or charged when the answer was larger). An item whose estimate
//! would cross the budget waits until every call before it has answered and
//! been settled, and is asked when it fits then; otherwise it is N/A "budget
//! exhausted", and so is every later item that needs a call (cache hits are
//! free and still answered). Settling only at that point, every earlier call
//! at once and in item order, makes the same inputs and answers exhaust the
//! budget at the same item on every run whatever the network timing; the
//! actual spend is reported separately. (Charging `max_tokens` for every
//! answer stopped a $0.10 support-bot run after 138 of 404 questions having
//! spent $0.016; charging the estimate without settling it, after 389: issue
//! 21.)

use std::sync::Mutex;

use super::answer::AnswerFormat;
use super::prompts::Prompt;
use super::provider::{JudgeIdentity, Params, cost_of};
use crate::spec::judge::JudgePrice;

#[derive(Debug, Default)]
pub struct Budget {
    pub max_cost_usd: Option<f64>,
    pub max_total_tokens: Option<u64>,
    state: Mutex<State>,
}

/// An amount charged to (or actually used of) the budget.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Charge {
    pub cost: f64,
    pub tokens: u64,
}

impl Charge {
    /// `input` + `output` tokens at `price` (no price: tokens only): a provider
    /// answer's usage, or an estimate.
    pub fn used(price: Option<JudgePrice>, input: u64, output: u64) -> Self {
        Self {
            cost: cost_of(price, input, output).unwrap_or(0.0),
            tokens: input + output,
        }
    }

    pub fn add(&mut self, other: Self) {
        self.cost += other.cost;
        self.tokens += other.tokens;
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct State {
    cost: f64,
    tokens: u64,
    exhausted: bool,
}

impl Budget {
    pub fn new(max_cost_usd: Option<f64>, max_total_tokens: Option<u64>) -> Self {
        Self {
            max_cost_usd,
            max_total_tokens,
            state: Mutex::default(),
        }
    }

    /// Estimated tokens of one call: the prompt's, and `output` for the answer.
    pub fn estimate_tokens(prompt: &Prompt, output: u32) -> (u64, u64) {
        let bytes = (prompt.system.len() + prompt.user.len()) as u64;
        (bytes.div_ceil(4), u64::from(output))
    }

    /// The estimate of one call: its prompt, `output` tokens of answer, at `price`.
    pub fn estimate(prompt: &Prompt, output: u32, price: Option<JudgePrice>) -> Charge {
        let (input, output) = Self::estimate_tokens(prompt, output);
        Charge::used(price, input, output)
    }

    /// Charge `estimate` if it fits; `false` (and nothing charged) if it would cross
    /// the budget or the budget is shut. Does not shut it: see [`Self::shut`].
    pub fn charge(&self, estimate: Charge) -> bool {
        let mut s = self.lock();
        if s.exhausted {
            return false;
        }
        let over_cost = self
            .max_cost_usd
            .is_some_and(|m| s.cost + estimate.cost > m);
        let over_tokens = self
            .max_total_tokens
            .is_some_and(|m| s.tokens + estimate.tokens > m);
        if over_cost || over_tokens {
            return false;
        }
        s.cost += estimate.cost;
        s.tokens += estimate.tokens;
        true
    }

    /// From now on every charge is refused (the item that did not fit, and every later one).
    pub fn shut(&self) {
        self.lock().exhausted = true;
    }

    /// Replace a call's `charged` estimate by what it `actually` used.
    pub fn settle(&self, charged: Charge, actually: Charge) {
        let mut s = self.lock();
        s.cost = (s.cost - charged.cost + actually.cost).max(0.0);
        s.tokens = (s.tokens + actually.tokens).saturating_sub(charged.tokens);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Estimated spend so far (USD, tokens).
    pub fn charged(&self) -> (f64, u64) {
        let s = self.lock();
        (s.cost, s.tokens)
    }
}

/// Output tokens the budget charges for one uncached question: the format's expected
/// answer size, capped at `max_tokens`; `max_tokens` itself for reasoning models, whose
/// hidden reasoning tokens are billed as output and cannot be foreseen.
pub(crate) fn output_estimate<F: AnswerFormat>(
    primary: &JudgeIdentity,
    params: Params,
    format: &F,
) -> u32 {
    let cap = params
        .max_tokens
        .unwrap_or(crate::spec::judge::limits::DEFAULT_MAX_TOKENS);
    if primary.provider == "openai" && super::profile::openai_reasoning(&primary.model) {
        cap
    } else {
        format.expected_output_tokens().min(cap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_refuses_the_item_that_would_cross_it_and_stays_shut_once_shut() {
        let price = Some(JudgePrice {
            input_per_mtok: 1_000_000.0,
            output_per_mtok: 0.0,
        });
        // 40 bytes → 10 input tokens → $10 per call at $1 per token.
        let p = Prompt {
            system: "x".repeat(20),
            user: "y".repeat(20),
        };
        let ten = Budget::estimate(&p, 16, price);
        assert_eq!(
            ten,
            Charge {
                cost: 10.0,
                tokens: 26
            }
        );
        let b = Budget::new(Some(25.0), None);
        assert!(b.charge(ten));
        assert!(b.charge(ten));
        assert!(!b.charge(ten), "$30 would cross $25");
        assert_eq!(b.charged(), (20.0, 52), "a refused charge charges nothing");
        let small = Prompt {
            system: String::new(),
            user: "z".into(),
        };
        assert!(b.charge(Budget::estimate(&small, 16, price)), "$1 fits");
        b.shut();
        assert!(
            !b.charge(Budget::estimate(&small, 16, price)),
            "shut stays shut"
        );
        let t = Budget::new(None, Some(30));
        assert!(t.charge(ten));
        assert!(!t.charge(ten));
    }

    #[test]
    fn settling_replaces_the_estimate_by_what_the_call_used() {
        let b = Budget::new(Some(25.0), None);
        let estimate = Charge {
            cost: 10.0,
            tokens: 300,
        };
        assert!(b.charge(estimate));
        assert!(b.charge(estimate));
        assert!(!b.charge(estimate), "$30 would cross $25");
        // Both answers were short: $1 and 40 tokens each.
        let used = Charge {
            cost: 1.0,
            tokens: 40,
        };
        b.settle(estimate, used);
        b.settle(estimate, used);
        assert_eq!(b.charged(), (2.0, 80));
        assert!(
            b.charge(estimate),
            "$12 fits once the first two are settled"
        );
        // A longer answer than estimated is charged the difference.
        b.settle(
            estimate,
            Charge {
                cost: 20.0,
                tokens: 900,
            },
        );
        assert_eq!(b.charged(), (22.0, 980));
        assert!(!b.charge(estimate));
    }

    #[derive(Clone)]
    struct Sized(u32);

    impl AnswerFormat for Sized {
        type Parsed = ();
        fn name(&self) -> &'static str {
            "sized"
        }
        fn json_schema(&self) -> Option<serde_json::Value> {
            None
        }
        fn parse(&self, _: &str) -> Result<(), String> {
            Ok(())
        }
        fn expected_output_tokens(&self) -> u32 {
            self.0
        }
    }

    #[test]
    fn the_output_estimate_is_the_answer_size_not_max_tokens_except_for_reasoning_models() {
        let p = Params::default();
        let chat = JudgeIdentity::new("openai", "gpt-4o-mini");
        assert_eq!(output_estimate(&chat, p, &Sized(250)), 250);
        assert_eq!(
            output_estimate(&chat, p, &Sized(5000)),
            1024,
            "capped at max_tokens"
        );
        let claude = JudgeIdentity::new("anthropic", "claude-haiku-4-5");
        assert_eq!(output_estimate(&claude, p, &Sized(150)), 150);
        // Reasoning tokens are billed as output and cannot be foreseen.
        let o3 = JudgeIdentity::new("openai", "o3-mini");
        assert_eq!(output_estimate(&o3, p, &Sized(250)), 1024);
        let unset = Params {
            max_tokens: None,
            ..p
        };
        assert_eq!(output_estimate(&o3, unset, &Sized(250)), 1024);
    }
}
