//! `+retry`: a decorator that retries a request answered with **429 Too Many Requests** or
//! **503 Service Unavailable**, honouring `Retry-After`, and nothing else.
//!
//! Policy ([`RetryPolicy`]):
//! - the wait before attempt `n + 1` is the server's `Retry-After` in seconds when it sent
//!   one (the HTTP-date form is not used by Solr or common proxies and falls back to the
//!   backoff), else a jittered exponential backoff: `base * 2^(n-1)`, capped at `max_delay`,
//!   of which a random half is waited ("equal jitter", so many clients do not retry in step);
//! - a `Retry-After` longer than `max_delay` is not shortened (that would ignore the
//!   server) and not waited (that would block the caller longer than configured): the
//!   request ends at once with [`Error::RetriesExhausted`];
//! - after `max_attempts` attempts the answer is [`Error::RetriesExhausted`] with the last
//!   status, the attempts made and the total time waited.
//!
//! **Reads and writes alike are retried**, because a 429 or 503 means the request was not
//! processed: Solr's rate limiter answers 429 before running the request, and Solr/Jetty
//! answer 503 when the core or node is unavailable (shutting down, no live replica, updates
//! disabled), before touching the index; a proxy answers 503 when it could not reach Solr.
//! That is the only reason a write is retried here. Every other failure (connection broken,
//! timeout, 500) is returned unchanged: whether a write that failed that way was applied is
//! unknown, and this decorator does not guess. (Stale pooled connections are retried by
//! [`super::Pooled`] itself; node failover belongs to routing, not here.)
//!
//! The returned response's `timing.attempts` counts every attempt (including the inner
//! transport's own retries); its phases are those of the last attempt.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use http::header::RETRY_AFTER;
use http::StatusCode;

use super::{BoxFuture, Transport, TransportStats, WireRequest, WireResponse};
use crate::error::{Error, Result};

/// When and how often [`Retry`] retries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in total, the first included. Default 3. 1 disables retrying.
    pub max_attempts: u32,
    /// Backoff before the second attempt when the server sent no `Retry-After`
    /// (doubling each time). Default 100 ms.
    pub base_delay: Duration,
    /// Longest single wait; a `Retry-After` above it ends the retries. Default 10 s.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(10),
        }
    }
}

impl RetryPolicy {
    /// The backoff before attempt `attempt + 1` (`attempt` >= 1) without `Retry-After`:
    /// between half and all of `min(max_delay, base_delay * 2^(attempt-1))`.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let exp = self
            .base_delay
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(30));
        let cap = exp.min(self.max_delay);
        let half = cap / 2;
        half + half.mul_f64(unit_random())
    }
}

/// A number in [0, 1) from a process-wide splitmix64 sequence seeded by the clock.
fn unit_random() -> f64 {
    static STATE: AtomicU64 = AtomicU64::new(0);
    static SEED: OnceLock<u64> = OnceLock::new();
    let seed = *SEED.get_or_init(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0)
    });
    let mut z = STATE
        .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
        .wrapping_add(seed);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// `Retry-After` as whole seconds, when it is in that form.
fn retry_after(resp: &WireResponse) -> Option<Duration> {
    let v = resp.headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    v.parse::<u64>().ok().map(Duration::from_secs)
}

/// Wraps a transport with the 429/503 retry policy described in the module docs.
#[derive(Debug)]
pub struct Retry<T> {
    inner: T,
    policy: RetryPolicy,
}

impl<T: Transport> Retry<T> {
    /// Wraps `inner` with `policy`.
    pub fn new(inner: T, policy: RetryPolicy) -> Self {
        Retry { inner, policy }
    }

    async fn send_inner(&self, req: WireRequest) -> Result<WireResponse> {
        let max = self.policy.max_attempts.max(1);
        let mut waited = Duration::ZERO;
        let mut earlier_attempts = 0u32;
        let mut attempt = 1u32;
        loop {
            let mut resp = self.inner.send(req.clone()).await?;
            let status = resp.status;
            if status != StatusCode::TOO_MANY_REQUESTS && status != StatusCode::SERVICE_UNAVAILABLE
            {
                resp.timing.attempts = resp.timing.attempts.max(1) + earlier_attempts;
                return Ok(resp);
            }
            earlier_attempts += resp.timing.attempts.max(1);
            let delay = match retry_after(&resp) {
                Some(d) if d > self.policy.max_delay => None,
                Some(d) => Some(d),
                None => Some(self.policy.backoff(attempt)),
            };
            let Some(delay) = delay.filter(|_| attempt < max) else {
                return Err(Error::RetriesExhausted {
                    node: resp.timing.node,
                    status: status.as_u16(),
                    attempts: attempt,
                    waited,
                });
            };
            tokio::time::sleep(delay).await;
            waited += delay;
            attempt += 1;
        }
    }
}

impl<T: Transport> Transport for Retry<T> {
    fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<WireResponse>> {
        Box::pin(self.send_inner(req))
    }

    fn name(&self) -> String {
        format!("{}+retry", self.inner.name())
    }

    fn stats(&self) -> TransportStats {
        self.inner.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_within_jitter_and_caps() {
        let p = RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(700),
        };
        for _ in 0..100 {
            let d1 = p.backoff(1);
            assert!(d1 >= Duration::from_millis(50) && d1 <= Duration::from_millis(100));
            let d3 = p.backoff(3);
            assert!(d3 >= Duration::from_millis(200) && d3 <= Duration::from_millis(400));
            let d9 = p.backoff(9);
            assert!(d9 >= Duration::from_millis(350) && d9 <= Duration::from_millis(700));
        }
        assert!(p.backoff(u32::MAX) <= Duration::from_millis(700));
    }

    #[test]
    fn unit_random_in_range_and_varies() {
        let xs: Vec<f64> = (0..1000).map(|_| unit_random()).collect();
        assert!(xs.iter().all(|x| (0.0..1.0).contains(x)));
        let distinct: std::collections::HashSet<u64> = xs.iter().map(|x| x.to_bits()).collect();
        assert!(distinct.len() > 990);
    }
}
