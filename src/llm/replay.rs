//! `replay`: answers only from the cache. It has the identity (provider and
//! model) and base URL a cache was recorded with, so it computes the same
//! keys; a replay engine has one per judge of the recorded chain (the primary
//! and its fallbacks), so answers a fallback gave are found too. Every
//! question in none of them is N/A "not in judge cache". It never touches the
//! network, so CI runs without a key can still show judged results.

use super::error::CallError;
use super::provider::{BoxFuture, Completion, Judge, JudgeIdentity, RawAnswer};
use crate::spec::judge::JudgePrice;

pub(crate) struct ReplayJudge {
    identity: JudgeIdentity,
    base_url: String,
}

impl ReplayJudge {
    /// Replays what `identity` answered at `base_url`.
    pub(crate) fn new(identity: JudgeIdentity, base_url: String) -> Self {
        Self { identity, base_url }
    }
}

impl Judge for ReplayJudge {
    fn identity(&self) -> &JudgeIdentity {
        &self.identity
    }

    fn base_url(&self) -> &str {
        &self.base_url
    }

    fn price(&self) -> Option<JudgePrice> {
        None
    }

    fn complete<'a>(
        &'a self,
        _call: &'a Completion,
    ) -> BoxFuture<'a, Result<RawAnswer, CallError>> {
        Box::pin(async { Err(CallError::NotInCache) })
    }
}
