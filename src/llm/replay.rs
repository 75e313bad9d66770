//! `replay`: answers only from the cache. It has the identity (provider and
//! model) a cache was recorded with, so it computes the same keys; every
//! question not in the cache is N/A "not in judge cache". It never touches
//! the network, so CI runs without a key can still show judged results.

use super::error::CallError;
use super::provider::{BoxFuture, Completion, Judge, JudgeIdentity, RawAnswer};
use crate::spec::judge::JudgePrice;

pub(crate) struct ReplayJudge {
    identity: JudgeIdentity,
}

impl ReplayJudge {
    /// Replays what `identity` answered.
    pub(crate) fn new(identity: JudgeIdentity) -> Self {
        Self { identity }
    }
}

impl Judge for ReplayJudge {
    fn identity(&self) -> &JudgeIdentity {
        &self.identity
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
