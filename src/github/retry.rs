//! When a GitHub request is worth retrying, and GitHub's own rules for how
//! long to wait. The retry loop, the exponential backoff and its jitter are
//! backon's (`transport`); what is here is only what backon cannot know.
//!
//! GitHub's rules (<https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api>):
//! on a 403/429 rate limit, honour `Retry-After`; if `x-ratelimit-remaining`
//! is 0, wait until `x-ratelimit-reset`; otherwise wait at least a minute and
//! back off exponentially. 5xx answers honour `Retry-After` too, else take
//! backon's backoff. The rules are a pure function of the answer, the attempt
//! number and the current time, so they are unit-tested here; the sleeping
//! goes through an injectable [`Sleeper`].

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use backon::BackoffBuilder;

/// A boxed sleep, as returned by a [`Sleeper`].
pub type SleepFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// How the client waits between attempts: tokio's timer by default; tests
/// inject one that records the requested waits and returns at once.
#[derive(Clone)]
pub struct Sleeper(Arc<dyn Fn(Duration) -> SleepFuture + Send + Sync>);

impl Sleeper {
    pub fn new(sleep: impl Fn(Duration) -> SleepFuture + Send + Sync + 'static) -> Self {
        Self(Arc::new(sleep))
    }

    /// Real sleeping on the tokio timer.
    pub fn tokio() -> Self {
        Self::new(|d| Box::pin(tokio::time::sleep(d)))
    }

    pub async fn sleep(&self, duration: Duration) {
        (self.0)(duration).await;
    }
}

impl fmt::Debug for Sleeper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Sleeper")
    }
}

/// Retry settings for every GitHub request.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// Attempts per request, the first one included (0 is treated as 1).
    pub max_attempts: u32,
    /// First backoff after a 5xx or a lost connection; doubles per attempt, with jitter.
    pub base_delay: Duration,
    /// First wait after a secondary rate limit without `Retry-After`; doubles per attempt.
    pub rate_limit_delay: Duration,
    /// Longest single wait. A `Retry-After` or rate-limit reset beyond it
    /// ends the retries at once instead of stalling the job.
    pub max_delay: Duration,
    pub sleeper: Sleeper,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            base_delay: Duration::from_secs(1),
            rate_limit_delay: Duration::from_secs(60),
            max_delay: Duration::from_secs(120),
            sleeper: Sleeper::tokio(),
        }
    }
}

impl RetryPolicy {
    #[must_use]
    pub fn with_sleeper(mut self, sleeper: Sleeper) -> Self {
        self.sleeper = sleeper;
        self
    }

    pub(crate) fn attempts(&self) -> u32 {
        self.max_attempts.max(1)
    }

    /// backon's exponential backoff with "equal jitter": before retry `n`,
    /// `base · 2^(n−1)` capped at `max_delay`, of which the lower half is
    /// fixed and the upper half random (backon adds up to 100% to a start of
    /// half the base). At most `max_attempts − 1` retries.
    pub(crate) fn backoff_builder(&self) -> backon::ExponentialBuilder {
        self.exponential()
            .with_max_times(self.attempts() as usize - 1)
    }

    /// The same backoff's wait before retry `attempt` (1-based), for loops
    /// that retry whole operations (`upsert_sticky_comment`).
    pub(crate) fn backoff(&self, attempt: u32) -> Duration {
        self.exponential()
            .without_max_times()
            .build()
            .nth(attempt.saturating_sub(1) as usize)
            .unwrap_or(self.max_delay)
    }

    fn exponential(&self) -> backon::ExponentialBuilder {
        backon::ExponentialBuilder::default()
            .with_min_delay(self.base_delay / 2)
            .with_max_delay(self.max_delay / 2)
            .with_factor(2.0)
            .with_jitter()
    }
}

/// `base · 2^(attempt−1)`, saturating.
fn doubled(base: Duration, attempt: u32) -> Duration {
    let factor = 2u32.saturating_pow(attempt.saturating_sub(1));
    base.saturating_mul(factor)
}

/// The parts of a non-success answer that decide a retry.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Answer<'a> {
    pub(crate) status: u16,
    pub(crate) retry_after: Option<&'a str>,
    pub(crate) ratelimit_remaining: Option<&'a str>,
    pub(crate) ratelimit_reset: Option<&'a str>,
    /// The `message` of GitHub's error body (or the raw body).
    pub(crate) message: &'a str,
}

/// What kind of failure an answer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    /// 429, or a 403 that is a primary or secondary rate limit.
    RateLimit,
    /// 5xx.
    Server,
    /// Anything else (401, a permission 403, 404, 422…): retrying cannot help.
    Fatal,
}

pub(crate) fn classify(answer: &Answer<'_>) -> Failure {
    match answer.status {
        429 => Failure::RateLimit,
        403 if answer.retry_after.is_some()
            || answer.ratelimit_remaining.map(str::trim) == Some("0")
            || answer.message.to_ascii_lowercase().contains("rate limit") =>
        {
            Failure::RateLimit
        }
        500..=599 => Failure::Server,
        _ => Failure::Fatal,
    }
}

/// Seconds of a `Retry-After` header. GitHub sends whole seconds; an HTTP
/// date (allowed by RFC 9110) is not parsed and falls back to backoff.
pub(crate) fn retry_after_secs(answer: &Answer<'_>) -> Option<Duration> {
    answer
        .retry_after?
        .trim()
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
}

/// The wait GitHub asks for before attempt `attempt + 1`, given that attempt
/// `attempt` (1-based) failed with `answer`; `None` when GitHub says nothing
/// and backon's backoff applies. `now_epoch_secs` is the current Unix time,
/// for `x-ratelimit-reset`.
pub(crate) fn github_wait(
    policy: &RetryPolicy,
    answer: &Answer<'_>,
    attempt: u32,
    now_epoch_secs: u64,
) -> Option<Duration> {
    match classify(answer) {
        Failure::Fatal => None,
        Failure::Server => retry_after_secs(answer),
        Failure::RateLimit => Some(if let Some(d) = retry_after_secs(answer) {
            d
        } else if let Some(reset) = primary_reset(answer) {
            // One extra second: the reset time is rounded down.
            Duration::from_secs(reset.saturating_sub(now_epoch_secs) + 1)
        } else {
            doubled(policy.rate_limit_delay, attempt).min(policy.max_delay)
        }),
    }
}

/// The reset time of an exhausted primary rate limit.
fn primary_reset(answer: &Answer<'_>) -> Option<u64> {
    if answer.ratelimit_remaining.map(str::trim) != Some("0") {
        return None;
    }
    answer.ratelimit_reset?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16) -> Answer<'static> {
        Answer {
            status,
            retry_after: None,
            ratelimit_remaining: None,
            ratelimit_reset: None,
            message: "",
        }
    }

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 5,
            base_delay: Duration::from_millis(100),
            rate_limit_delay: Duration::from_secs(60),
            max_delay: Duration::from_secs(120),
            sleeper: Sleeper::tokio(),
        }
    }

    #[test]
    fn permission_403_is_fatal_but_rate_limit_403_is_not() {
        let denied = Answer {
            message: "Resource not accessible by integration",
            ..answer(403)
        };
        assert_eq!(classify(&denied), Failure::Fatal);
        assert_eq!(github_wait(&policy(), &denied, 1, 0), None);

        let secondary = Answer {
            message: "You have exceeded a secondary rate limit.",
            ..answer(403)
        };
        assert_eq!(classify(&secondary), Failure::RateLimit);
        assert_eq!(
            classify(&Answer {
                retry_after: Some("3"),
                ..answer(403)
            }),
            Failure::RateLimit
        );
        assert_eq!(classify(&answer(429)), Failure::RateLimit);
        assert_eq!(classify(&answer(502)), Failure::Server);
        assert_eq!(classify(&answer(404)), Failure::Fatal);
        assert_eq!(classify(&answer(422)), Failure::Fatal);
    }

    #[test]
    fn retry_after_is_honoured_exactly() {
        let a = Answer {
            retry_after: Some(" 7 "),
            ..answer(429)
        };
        assert_eq!(
            github_wait(&policy(), &a, 1, 0),
            Some(Duration::from_secs(7))
        );
        // Beyond `max_delay`: the transport gives up rather than stall.
        let long = Answer {
            retry_after: Some("3600"),
            ..answer(403)
        };
        assert_eq!(
            github_wait(&policy(), &long, 1, 0),
            Some(Duration::from_secs(3600))
        );
        // A 503 with Retry-After uses it; without, backon's backoff applies.
        let a = Answer {
            retry_after: Some("2"),
            ..answer(503)
        };
        assert_eq!(
            github_wait(&policy(), &a, 1, 0),
            Some(Duration::from_secs(2))
        );
        assert_eq!(github_wait(&policy(), &answer(503), 1, 0), None);
    }

    #[test]
    fn primary_limit_waits_until_reset() {
        let a = Answer {
            ratelimit_remaining: Some("0"),
            ratelimit_reset: Some("1000030"),
            ..answer(403)
        };
        assert_eq!(classify(&a), Failure::RateLimit);
        assert_eq!(
            github_wait(&policy(), &a, 1, 1_000_000),
            Some(Duration::from_secs(31))
        );
        // A reset in the past still waits a second rather than hammering.
        assert_eq!(
            github_wait(&policy(), &a, 1, 2_000_000),
            Some(Duration::from_secs(1))
        );
    }

    #[test]
    fn secondary_limit_without_headers_doubles_from_a_minute() {
        let a = Answer {
            message: "secondary rate limit",
            ..answer(403)
        };
        let waits: Vec<_> = (1..=3).map(|n| github_wait(&policy(), &a, n, 0)).collect();
        assert_eq!(waits, [60, 120, 120].map(|s| Some(Duration::from_secs(s))));
    }

    #[test]
    fn backoff_doubles_with_equal_jitter_capped_and_counted() {
        let p = policy();
        for _ in 0..50 {
            let waits: Vec<Duration> = p.backoff_builder().build().collect();
            assert_eq!(waits.len(), 4, "max_attempts 5 = 4 retries");
            for (i, d) in waits.iter().enumerate() {
                let full = Duration::from_millis(100) * 2u32.pow(i as u32);
                assert!(
                    *d >= full / 2 && *d <= full,
                    "retry {}: {d:?} outside [{:?}, {full:?}]",
                    i + 1,
                    full / 2
                );
            }
        }
        let capped = RetryPolicy {
            max_attempts: 40,
            max_delay: Duration::from_secs(5),
            ..policy()
        };
        let last = capped.backoff_builder().build().last().unwrap();
        assert_eq!(
            capped.backoff(400),
            capped.backoff(400).min(Duration::from_secs(5))
        );
        let third = policy().backoff(3);
        assert!(
            third >= Duration::from_millis(200) && third <= Duration::from_millis(400),
            "{third:?}"
        );
        assert!(
            last >= Duration::from_millis(2500) && last <= Duration::from_secs(5),
            "{last:?}"
        );
        let once = RetryPolicy {
            max_attempts: 0,
            ..policy()
        };
        assert_eq!(once.attempts(), 1);
        assert_eq!(once.backoff_builder().build().count(), 0);
    }
}
