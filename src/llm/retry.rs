//! When to call a provider again and how long to wait first.
//!
//! Retryable failures are timeouts, lost connections, 429 and 5xx. A
//! `Retry-After` is honoured as given (plus up to 10% jitter, so many
//! clients told the same time do not return at once); a wait longer than
//! `max_retry_after` ends the retries for this provider (the fallback chain
//! takes over). Without one, waits grow exponentially with "equal jitter":
//! half of `base · 2^(attempt−1)` fixed, half random, capped at `cap`.
//! Sleeping goes through an injectable [`Sleeper`] so tests see the waits
//! without waiting.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::error::CallError;
use super::provider::BoxFuture;

/// How the engine waits between attempts.
#[derive(Clone)]
pub struct Sleeper(Arc<dyn Fn(Duration) -> BoxFuture<'static, ()> + Send + Sync>);

impl Sleeper {
    pub fn new(sleep: impl Fn(Duration) -> BoxFuture<'static, ()> + Send + Sync + 'static) -> Self {
        Self(Arc::new(sleep))
    }

    /// Real sleeping on the tokio timer.
    pub fn tokio() -> Self {
        Self::new(|d| Box::pin(tokio::time::sleep(d)))
    }

    pub async fn sleep(&self, d: Duration) {
        (self.0)(d).await;
    }
}

impl fmt::Debug for Sleeper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Sleeper")
    }
}

#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// Attempts after the first.
    pub retries: u32,
    pub base: Duration,
    pub cap: Duration,
    /// Longest `Retry-After` honoured.
    pub max_retry_after: Duration,
    pub sleeper: Sleeper,
}

impl RetryPolicy {
    pub fn new(retries: u32) -> Self {
        Self {
            retries,
            base: Duration::from_millis(500),
            cap: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(120),
            sleeper: Sleeper::tokio(),
        }
    }

    #[must_use]
    pub fn with_sleeper(mut self, sleeper: Sleeper) -> Self {
        self.sleeper = sleeper;
        self
    }

    /// The wait before attempt `attempt + 1` after attempt `attempt`
    /// (1-based) failed with `error`; `None` = stop retrying.
    pub fn delay(&self, attempt: u32, error: &CallError) -> Option<Duration> {
        if !error.is_retryable() || attempt > self.retries {
            return None;
        }
        if let Some(after) = error.retry_after() {
            if after > self.max_retry_after {
                return None;
            }
            let jitter_ms =
                rand::random_range(0..=(after.as_millis() / 10).min(u128::from(u32::MAX)) as u64);
            return Some(after + Duration::from_millis(jitter_ms));
        }
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1));
        let exp = self.base.saturating_mul(factor).min(self.cap);
        let half = exp / 2;
        let jitter_ms = rand::random_range(0..=half.as_millis().min(u128::from(u64::MAX)) as u64);
        Some(half + Duration::from_millis(jitter_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_honoured_and_backoff_grows() {
        let p = RetryPolicy::new(3);
        let limited = CallError::RateLimited {
            retry_after: Some(Duration::from_secs(2)),
        };
        for _ in 0..50 {
            let d = p.delay(1, &limited).unwrap();
            assert!(
                d >= Duration::from_secs(2) && d <= Duration::from_millis(2200),
                "{d:?}"
            );
            let b = p
                .delay(
                    3,
                    &CallError::Server {
                        status: 503,
                        retry_after: None,
                    },
                )
                .unwrap();
            assert!(
                b >= Duration::from_secs(1) && b <= Duration::from_secs(2),
                "{b:?}"
            );
        }
        assert_eq!(p.delay(4, &limited), None, "retries are spent");
        assert_eq!(p.delay(1, &CallError::Truncated), None, "not retryable");
        let far = CallError::RateLimited {
            retry_after: Some(Duration::from_secs(3600)),
        };
        assert_eq!(
            p.delay(1, &far),
            None,
            "too long a wait goes to the fallback"
        );
    }
}
