//! [`RetryPolicy`]: how often and how long the [`Routing`](crate::transport::Routing) decorator and the
//! [`Retry`] decorator retry, `Retry-After` parsing, and jittered exponential backoff.
//!
//! `+retry` ([`Retry`]) retries a request answered with **429 Too Many Requests** or
//! **503 Service Unavailable**, honouring `Retry-After`, and nothing else:
//! - the wait before the next attempt is the jittered backoff, but never shorter than the
//!   server's `Retry-After` capped at [`RetryPolicy::max_retry_after`] ([`RetryPolicy::wait`]);
//! - a wait that does not fit in what is left of [`RetryPolicy::max_wait`], or that would
//!   end after the request's deadline ([`WireRequest::deadline`]), is not shortened (that
//!   would ignore the server) and not waited: the request ends at once with
//!   [`Error::RetriesExhausted`]; so does the last of [`RetryPolicy::max_attempts`];
//! - the whole call, every attempt and wait included, ends at the request deadline with a
//!   [`TimeoutPhase::Request`](crate::TimeoutPhase::Request) timeout naming the configured
//!   request timeout.
//!
//! # Writes after 429 and 503: one policy for `Retry` and `Routing`
//! [`retries_status`] is the single rule both decorators call. **Reads and writes alike are
//! retried after 429 and 503**, because both mean the server refused the request before
//! processing it: Solr's rate limiter answers 429 before running the request, Solr/Jetty
//! answer 503 when the core or node is unavailable (or a replica finds no leader to forward
//! to) before touching the index, and a proxy answers 503 when it could not reach Solr.
//! No other status is retried: after a 500, 502 or 504, or a connection lost or a timeout
//! after the request was sent, whether a write was applied is unknown, and neither decorator
//! guesses. (Stale pooled connections are retried by [`crate::transport::Pooled`] itself; node failover
//! on transport errors belongs to [`crate::transport::Routing`], which fails writes over only when
//! [`Error::is_not_sent`] holds.)
//!
//! The returned response's `timing.attempts` counts every attempt (including the inner
//! transport's own retries); its phases are those of the last attempt.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use http::header::RETRY_AFTER;
use http::{HeaderMap, StatusCode};

use crate::codec::ResponseFormat;
use crate::error::{Error, Result};
use crate::transport::{BoxFuture, Decorator, Reply, RequestKind, Transport, WireRequest};
use crate::types::{ErrorEnvelope, SolrErrorBody};

/// The retry budget of one request.
///
/// A request is given up after `max_attempts` attempts, or as soon as the next wait would
/// take the total time spent waiting beyond `max_wait`. Waits grow as
/// `base_backoff * 2^(attempt-1)`, capped at `max_backoff`, with "equal jitter" (a uniform
/// random half of the step is dropped) so that clients rejected together do not return
/// together. A `Retry-After` header is honoured up to `max_retry_after`: the wait is never
/// shorter than `min(Retry-After, max_retry_after)`, and a wait that does not fit in the
/// remaining budget (or before the request deadline) ends the retries at once.
///
/// Build it from [`RetryPolicy::default`] with its setters
/// (`RetryPolicy::default().max_attempts(3)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Attempts in total, the first included. Default 5.
    pub max_attempts: u32,
    /// Total time a request may spend waiting between attempts. Default 30 s.
    pub max_wait: Duration,
    /// First backoff step. Default 100 ms.
    pub base_backoff: Duration,
    /// Largest backoff step. Default 5 s.
    pub max_backoff: Duration,
    /// Longest `Retry-After` honoured: a server asking for more (an hour, a date years
    /// ahead) is waited this long at most (and then only if it fits in `max_wait`).
    /// Default 60 s.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 5,
            max_wait: Duration::from_secs(30),
            base_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// Setters, for code outside this crate (the struct is `#[non_exhaustive]`: build it
/// from [`RetryPolicy::default()`] and change what differs).
impl RetryPolicy {
    /// Sets [`RetryPolicy::max_attempts`]; see there for the default.
    pub const fn max_attempts(mut self, v: u32) -> Self {
        self.max_attempts = v;
        self
    }
    /// Sets [`RetryPolicy::max_wait`]; see there for the default.
    pub const fn max_wait(mut self, v: Duration) -> Self {
        self.max_wait = v;
        self
    }
    /// Sets [`RetryPolicy::base_backoff`]; see there for the default.
    pub const fn base_backoff(mut self, v: Duration) -> Self {
        self.base_backoff = v;
        self
    }
    /// Sets [`RetryPolicy::max_backoff`]; see there for the default.
    pub const fn max_backoff(mut self, v: Duration) -> Self {
        self.max_backoff = v;
        self
    }
    /// Sets [`RetryPolicy::max_retry_after`]; see there for the default.
    pub const fn max_retry_after(mut self, v: Duration) -> Self {
        self.max_retry_after = v;
        self
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

    /// The wait before the next attempt: the jittered backoff, but at least `retry_after`
    /// capped at [`RetryPolicy::max_retry_after`].
    pub fn wait(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let b = self.backoff(attempt);
        retry_after.map_or(b, |ra| ra.min(self.max_retry_after).max(b))
    }

    /// Whether a wait of `wait` after `waited` so far still fits: within `max_wait`, and
    /// ending before `deadline`.
    pub(crate) fn fits(&self, waited: Duration, wait: Duration, deadline: Instant) -> bool {
        waited.saturating_add(wait) <= self.max_wait
            && Instant::now()
                .checked_add(wait)
                .is_some_and(|end| end < deadline)
    }
}

/// Whether a request of `kind` answered with `status` is sent again by [`Retry`] and
/// [`Routing`](crate::transport::Routing): 429 and 503 for every kind, writes included (see the module
/// docs: both statuses mean the server refused before processing); nothing else.
pub fn retries_status(kind: RequestKind, status: http::StatusCode) -> bool {
    let _ = kind; // the same for reads, writes and admin requests, on purpose
    status == StatusCode::TOO_MANY_REQUESTS || status == StatusCode::SERVICE_UNAVAILABLE
}

/// Solr's error body in an answer it refused (`headers`, `body`: a 503 naming the shard
/// without a live replica), in whichever response format it came; None when the body holds
/// none (a proxy's page, an empty body) or is still content-encoded.
pub(crate) fn solr_error(headers: &HeaderMap, body: &[u8]) -> Option<SolrErrorBody> {
    use http::header::{CONTENT_ENCODING, CONTENT_TYPE};
    let encoded = headers
        .get(CONTENT_ENCODING)
        .is_some_and(|v| !v.as_bytes().eq_ignore_ascii_case(b"identity"));
    if encoded || body.is_empty() {
        return None;
    }
    let content_type = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json");
    ResponseFormat::ALL
        .into_iter()
        .filter(|f| f.accepts_content_type(content_type))
        .filter_map(|f| f.decode_value(body).ok())
        .find_map(|v| serde_json::from_value::<ErrorEnvelope>(v).ok())
        .map(ErrorEnvelope::into_body)
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

/// The `Retry-After` of a response: delta-seconds (`120`) or an HTTP date
/// (`Sun, 06 Nov 1994 08:49:37 GMT`, parsed by the `httpdate` crate; a date in the past
/// means zero). None when absent or unparseable. Never panics and never overflows: a
/// delta-seconds too large for a `u64` (or any number of digits) saturates to
/// `u64::MAX` seconds; callers cap it ([`RetryPolicy::max_retry_after`]).
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    parse_retry_after(headers.get(RETRY_AFTER)?.to_str().ok()?, SystemTime::now())
}

/// [`retry_after`] of one header value, relative to `now`.
fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let v = value.trim();
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        return Some(Duration::from_secs(v.parse::<u64>().unwrap_or(u64::MAX)));
    }
    let at = httpdate::parse_http_date(v).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
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

    async fn send_inner(&self, mut req: WireRequest) -> Result<Reply> {
        let deadline = req.start_deadline();
        let timeout = req.request_timeout();
        crate::transport::until_deadline(deadline, timeout, self.attempts(req, deadline)).await
    }

    /// The attempts of one request, whole or streamed alike: a streamed reply is judged on
    /// its head, and once a body has begun to stream nothing is retried.
    async fn attempts(&self, req: WireRequest, deadline: Instant) -> Result<Reply> {
        let max = self.policy.max_attempts.max(1);
        let mut waited = Duration::ZERO;
        let mut earlier_attempts = 0u32;
        let mut attempt = 1u32;
        loop {
            let mut resp = self.inner.send(req.clone()).await?;
            let status = resp.status();
            if !retries_status(req.kind, status) {
                let timing = resp.timing_mut();
                timing.attempts = timing.attempts.max(1) + earlier_attempts;
                return Ok(resp);
            }
            earlier_attempts += resp.timing().attempts.max(1);
            let node = resp.timing().node.clone();
            let delay = self.policy.wait(attempt, retry_after(resp.headers()));
            if attempt >= max || !self.policy.fits(waited, delay, deadline) {
                // The last answer's body is read for Solr's message (an error in reading
                // it only loses the message).
                let body = resp.body_bytes(req.max_response_bytes).await;
                return Err(Error::RetriesExhausted {
                    solr: body
                        .ok()
                        .and_then(|b| solr_error(resp.headers(), &b))
                        .map(|b| Box::new(b.into())),
                    node: node.into(),
                    status: status.as_u16(),
                    attempts: attempt,
                    waited,
                });
            }
            resp.discard().await;
            crate::transport::span::retrying(&node, attempt, &status, delay);
            tokio::time::sleep(delay).await;
            waited += delay;
            attempt += 1;
        }
    }
}

impl<T: Transport> Decorator for Retry<T> {
    type Inner = T;

    fn inner(&self) -> &T {
        &self.inner
    }

    fn call(&self, req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
        Box::pin(self.send_inner(req))
    }

    fn label(&self) -> String {
        format!("{}+retry", self.inner.name())
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
    }

    /// Hostile `Retry-After` values: never a panic, never an overflow, huge values saturate.
    #[test]
    fn retry_after_never_panics() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37
        let max = Some(Duration::from_secs(u64::MAX));
        let table: &[(&str, Option<Duration>)] = &[
            ("0", Some(Duration::ZERO)),
            ("  42 ", Some(Duration::from_secs(42))),
            ("18446744073709551615", max),
            ("18446744073709551616", max),
            ("99999999999999999999999999999999999999999", max),
            ("-1", None),
            ("-99999999999999999999", None),
            ("+5", None),
            ("1.5", None),
            ("1e9", None),
            ("", None),
            ("   ", None),
            ("soon", None),
            ("\u{0}", None),
            ("Sun, 06 Nov 1994 08:49:37 GMT", Some(Duration::ZERO)),
            (
                "Sun, 06 Nov 1994 08:50:37 GMT",
                Some(Duration::from_secs(60)),
            ),
            (
                "Sunday, 06-Nov-94 08:50:37 GMT",
                Some(Duration::from_secs(60)),
            ),
            ("Sun Nov  6 08:50:37 1994", Some(Duration::from_secs(60))),
            ("Thu, 01 Jan 1970 00:00:00 GMT", Some(Duration::ZERO)),
            (
                "Fri, 31 Dec 9999 23:59:59 GMT",
                Some(Duration::from_secs(253_402_300_799 - 784_111_777)),
            ),
            ("Sun, 06 Nov 99999999999 08:49:37 GMT", None),
            ("Sun, 06 Nov 9223372036854775807 08:49:37 GMT", None),
            ("Sun, 06 Nov -2000 08:49:37 GMT", None),
            ("Sun, 06 Nov 1969 08:49:37 GMT", None),
            ("Sun, 32 Nov 1994 08:49:37 GMT", None),
            ("Sun, 06 Foo 1994 08:49:37 GMT", None),
            ("Sun, 06 Nov 1994 99:49:37 GMT", None),
            ("Sun, 06 Nov 1994 08:49:37 UTC", None),
            ("Sun, 06 Nov 1994", None),
        ];
        for (value, want) in table {
            assert_eq!(parse_retry_after(value, now), *want, "{value:?}");
        }
    }

    #[test]
    fn retry_after_is_capped_by_the_policy() {
        let p = RetryPolicy {
            base_backoff: Duration::from_millis(1),
            max_backoff: Duration::from_millis(1),
            ..RetryPolicy::default()
        };
        assert_eq!(p.max_retry_after, Duration::from_secs(60));
        assert_eq!(
            p.wait(1, Some(Duration::from_secs(u64::MAX))),
            Duration::from_secs(60)
        );
        assert_eq!(
            p.wait(1, Some(Duration::from_secs(2))),
            Duration::from_secs(2)
        );
        let far = Instant::now() + Duration::from_secs(3600);
        assert!(!p.fits(Duration::MAX, Duration::MAX, far), "saturates");
        assert!(!p.fits(Duration::ZERO, Duration::from_secs(2), Instant::now()));
        assert!(p.fits(Duration::ZERO, Duration::from_secs(2), far));
    }

    #[test]
    fn one_status_policy_for_every_kind() {
        for kind in [RequestKind::Read, RequestKind::Write, RequestKind::Admin] {
            for code in [429u16, 503] {
                let s = StatusCode::from_u16(code).expect("status");
                assert!(retries_status(kind, s), "{kind:?} {code}");
            }
            for code in [200u16, 400, 404, 500, 502, 504] {
                let s = StatusCode::from_u16(code).expect("status");
                assert!(!retries_status(kind, s), "{kind:?} {code}");
            }
        }
    }

    /// Solr's error is found in a 503's body in JSON and XML; a proxy's HTML page, an
    /// empty body and a gzip-encoded one have none.
    #[test]
    fn the_last_answers_solr_error_is_kept() {
        let with = |ct: &str| {
            let mut h = HeaderMap::new();
            h.insert(
                http::header::CONTENT_TYPE,
                HeaderValue::from_str(ct).unwrap(),
            );
            h
        };
        let json = br#"{"responseHeader":{"status":503,"QTime":1},
            "error":{"msg":"no active servers hosting shard: shard2","code":503}}"#;
        let body = solr_error(&with("application/json;charset=utf-8"), json).expect("json");
        assert_eq!(body.msg, "no active servers hosting shard: shard2");
        assert_eq!((body.code, body.qtime_ms), (503, Some(1)));
        let xml = br#"<response><lst name="error"><str name="msg">no servers</str><int name="code">503</int></lst></response>"#;
        let body = solr_error(&with("application/xml"), xml).expect("xml");
        assert_eq!((body.msg.as_str(), body.code), ("no servers", 503));
        assert!(solr_error(&with("text/html"), b"<html>503</html>").is_none());
        assert!(solr_error(&with("application/json"), b"").is_none());
        let mut gz = with("application/json");
        gz.insert(
            http::header::CONTENT_ENCODING,
            HeaderValue::from_static("gzip"),
        );
        assert!(solr_error(&gz, json).is_none());
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

    /// Answers 503 to every other request (the first of each pair), 200 to the rest; whole
    /// or streamed as the request asks.
    #[derive(Debug, Default)]
    struct BusyThenOk(std::sync::atomic::AtomicU32);

    impl Transport for BusyThenOk {
        fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
            let n = self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let status = if n.is_multiple_of(2) { 503 } else { 200 };
            let resp = crate::transport::WireResponse {
                status: StatusCode::from_u16(status).expect("status"),
                headers: HeaderMap::new(),
                body: bytes::Bytes::from_static(b"{}"),
                timing: crate::Timing {
                    node: "busy".into(),
                    attempts: 1,
                    ..crate::Timing::default()
                },
            };
            Box::pin(async move {
                Ok(if req.streamed {
                    Reply::Streamed(crate::transport::StreamingResponse::buffered(resp))
                } else {
                    Reply::Whole(resp)
                })
            })
        }
        fn name(&self) -> String {
            "busy".into()
        }
        fn stats(&self) -> crate::transport::TransportStats {
            crate::transport::TransportStats::default()
        }
    }

    /// One retry loop for both bodies: a request retried once after a 503 reports two
    /// attempts, read whole or streamed.
    #[tokio::test]
    async fn a_streamed_retry_counts_its_attempts_as_a_whole_one_does() {
        let policy = RetryPolicy::default()
            .base_backoff(Duration::from_millis(1))
            .max_backoff(Duration::from_millis(1));
        let t = Retry::new(BusyThenOk::default(), policy);
        let req = WireRequest::test_get("http://127.0.0.1:1/solr", "c/select");
        let whole = t.send_whole(req.clone()).await.expect("whole");
        let streamed = t.send_streaming(req).await.expect("streamed");
        assert_eq!(whole.status, StatusCode::OK);
        assert_eq!(streamed.status, StatusCode::OK);
        assert_eq!(whole.timing.attempts, 2);
        assert_eq!(streamed.timing().attempts, whole.timing.attempts);
        assert_eq!(t.inner.0.load(std::sync::atomic::Ordering::SeqCst), 4);
    }
}
