//! [`RetryPolicy`]: how often and how long the [`Routing`](super::Routing) decorator and the
//! [`Retry`] decorator retry, `Retry-After` parsing, and jittered exponential backoff.
//!
//! `+retry` ([`Retry`]) retries a request answered with **429 Too Many Requests** or
//! **503 Service Unavailable**, honouring `Retry-After`, and nothing else:
//! - the wait before the next attempt is the jittered backoff, but never shorter than the
//!   server's `Retry-After` ([`RetryPolicy::wait`]);
//! - a wait that does not fit in what is left of [`RetryPolicy::max_wait`] is not shortened
//!   (that would ignore the server) and not waited: the request ends at once with
//!   [`Error::RetriesExhausted`]; so does the last of [`RetryPolicy::max_attempts`].
//!
//! **Reads and writes alike are retried by [`Retry`]**, because a 429 or 503 means the
//! request was not processed: Solr's rate limiter answers 429 before running the request,
//! and Solr/Jetty answer 503 when the core or node is unavailable, before touching the
//! index; a proxy answers 503 when it could not reach Solr. That is the only reason a write
//! is retried here. Every other failure (connection broken, timeout, 500) is returned
//! unchanged: whether a write that failed that way was applied is unknown, and this
//! decorator does not guess. (Stale pooled connections are retried by [`super::Pooled`]
//! itself; node failover belongs to [`super::Routing`], whose write rules are stricter.)
//!
//! The returned response's `timing.attempts` counts every attempt (including the inner
//! transport's own retries); its phases are those of the last attempt.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http::header::RETRY_AFTER;
use http::{HeaderMap, StatusCode};

use super::{BoxFuture, ShardGroup, Transport, TransportStats, WireRequest, WireResponse};
use crate::error::{Error, Result};

/// The retry budget of one request.
///
/// A request is given up after `max_attempts` attempts, or as soon as the next wait would
/// take the total time spent waiting beyond `max_wait`. Waits grow as
/// `base_backoff * 2^(attempt-1)`, capped at `max_backoff`, with "equal jitter" (a uniform
/// random half of the step is dropped) so that clients rejected together do not return
/// together. A `Retry-After` header is honoured: the wait is never shorter than it, and a
/// `Retry-After` that does not fit in the remaining budget ends the retries at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in total, the first included. Default 5.
    pub max_attempts: u32,
    /// Total time a request may spend waiting between attempts. Default 30 s.
    pub max_wait: Duration,
    /// First backoff step. Default 100 ms.
    pub base_backoff: Duration,
    /// Largest backoff step. Default 5 s.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 5,
            max_wait: Duration::from_secs(30),
            base_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
        }
    }
}

impl RetryPolicy {
    /// No retries at all: one attempt.
    pub fn none() -> Self {
        RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::default()
        }
    }

    /// The jittered backoff after attempt number `attempt` (1-based).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let exp = attempt.saturating_sub(1).min(30);
        let step = self
            .base_backoff
            .saturating_mul(1u32 << exp)
            .min(self.max_backoff);
        let half = step / 2;
        half + half.mul_f64(random_unit())
    }

    /// The wait before the next attempt: the jittered backoff, but at least `retry_after`.
    pub fn wait(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let b = self.backoff(attempt);
        retry_after.map_or(b, |ra| ra.max(b))
    }
}

/// A uniform random number in [0, 1) from the standard library's per-process random keys.
fn random_unit() -> f64 {
    let mut h = RandomState::new().build_hasher();
    h.write_u64(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0),
    );
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// The `Retry-After` of a response: delta-seconds (`120`) or an IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`, a date in the past meaning zero). None when absent or
/// unparseable.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let v = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = parse_imf_fixdate(v)?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(at.saturating_sub(now)))
}

/// Seconds since the Unix epoch of an IMF-fixdate (RFC 9110 section 5.6.7).
fn parse_imf_fixdate(s: &str) -> Option<u64> {
    // "Sun, 06 Nov 1994 08:49:37 GMT"
    let rest = s.split_once(", ")?.1;
    let f: Vec<&str> = rest.split(' ').collect();
    if f.len() != 5 || f[4] != "GMT" {
        return None;
    }
    let day: u64 = f[0].parse().ok()?;
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| *m == f[1])? as u64 + 1;
    let year: i64 = f[2].parse().ok()?;
    let t: Vec<u64> = f[3]
        .split(':')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    if t.len() != 3 || !(1..=31).contains(&day) || t[0] > 23 || t[1] > 59 || t[2] > 60 {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    if days < 0 {
        return Some(0);
    }
    Some(days as u64 * 86_400 + t[0] * 3600 + t[1] * 60 + t[2])
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
            let delay = self.policy.wait(attempt, retry_after(&resp.headers));
            if attempt >= max || waited + delay > self.policy.max_wait {
                return Err(Error::RetriesExhausted {
                    node: resp.timing.node,
                    status: status.as_u16(),
                    attempts: attempt,
                    waited,
                });
            }
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

    fn shard_groups<'a>(
        &'a self,
        req: &'a WireRequest,
        ids: &'a [String],
    ) -> BoxFuture<'a, Result<Option<Vec<ShardGroup>>>> {
        self.inner.shard_groups(req, ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    #[test]
    fn retry_after_forms() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert(RETRY_AFTER, HeaderValue::from_static("3"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(3)));
        h.insert(
            RETRY_AFTER,
            HeaderValue::from_static("Sun, 06 Nov 1994 08:49:37 GMT"),
        );
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
        h.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h), None);
        assert_eq!(
            parse_imf_fixdate("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
    }

    #[test]
    fn backoff_grows_is_jittered_and_capped() {
        let p = RetryPolicy::default();
        for attempt in 1..10 {
            let step = p
                .base_backoff
                .saturating_mul(1 << (attempt - 1))
                .min(p.max_backoff);
            let b = p.backoff(attempt);
            assert!(b >= step / 2 && b <= step, "attempt {attempt}: {b:?}");
        }
        let ra = Duration::from_secs(2);
        assert!(p.wait(1, Some(ra)) >= ra);
    }
}
