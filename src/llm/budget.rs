//! The cost and token budget of a judge run.
//!
//! The budget is charged with an *estimate* before each uncached call, in
//! the items' order: input tokens ≈ bytes of the prompt / 4, output tokens =
//! `max_tokens`, priced at the primary judge's price. An item whose estimate
//! would cross the budget is N/A "budget exhausted", and so is every later
//! item that needs a call (cache hits are free and still answered). Deciding
//! on estimates, in order, makes the same inputs exhaust the budget at the
//! same item on every run whatever the network timing; and since answers
//! rarely reach `max_tokens`, the actual spend (reported separately) stays
//! under the budget in practice.

use std::sync::Mutex;

use super::prompts::Prompt;
use super::provider::cost_of;
use crate::spec::judge::JudgePrice;

#[derive(Debug, Default)]
pub struct Budget {
    pub max_cost_usd: Option<f64>,
    pub max_total_tokens: Option<u64>,
    state: Mutex<State>,
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

    /// Estimated tokens of one call.
    pub fn estimate_tokens(prompt: &Prompt, max_tokens: u32) -> (u64, u64) {
        let bytes = (prompt.system.len() + prompt.user.len()) as u64;
        (bytes.div_ceil(4), u64::from(max_tokens))
    }

    /// Charge one call's estimate; `false` once the budget would be crossed
    /// (and from then on).
    pub fn try_charge(&self, prompt: &Prompt, max_tokens: u32, price: Option<JudgePrice>) -> bool {
        let (input, output) = Self::estimate_tokens(prompt, max_tokens);
        let cost = cost_of(price, input, output).unwrap_or(0.0);
        let mut s = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if s.exhausted {
            return false;
        }
        let over_cost = self.max_cost_usd.is_some_and(|m| s.cost + cost > m);
        let over_tokens = self
            .max_total_tokens
            .is_some_and(|m| s.tokens + input + output > m);
        if over_cost || over_tokens {
            s.exhausted = true;
            return false;
        }
        s.cost += cost;
        s.tokens += input + output;
        true
    }

    /// Estimated spend so far (USD, tokens).
    pub fn charged(&self) -> (f64, u64) {
        let s = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        (s.cost, s.tokens)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_stops_at_the_item_that_would_cross_it_and_stays_shut() {
        let price = Some(JudgePrice {
            input_per_mtok: 1_000_000.0,
            output_per_mtok: 0.0,
        });
        // 40 bytes → 10 input tokens → $10 per call at $1 per token.
        let p = Prompt {
            system: "x".repeat(20),
            user: "y".repeat(20),
        };
        let b = Budget::new(Some(25.0), None);
        assert!(b.try_charge(&p, 16, price));
        assert!(b.try_charge(&p, 16, price));
        assert!(!b.try_charge(&p, 16, price), "$30 would cross $25");
        let small = Prompt {
            system: String::new(),
            user: "z".into(),
        };
        assert!(
            !b.try_charge(&small, 16, price),
            "exhausted stays exhausted"
        );
        assert_eq!(b.charged(), (20.0, 52));
        let t = Budget::new(None, Some(30));
        assert!(t.try_charge(&p, 16, None));
        assert!(!t.try_charge(&p, 16, None));
    }
}
