//! What the hyper-based transports share: building the HTTP request, mapping hyper errors,
//! reading a body under the read-idle timeout and size limit, and assembling the timing
//! record from the instants the connector and the metered socket recorded.

use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use http::header::{HeaderValue, CONTENT_LENGTH, HOST, USER_AGENT};
use http::{HeaderMap, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;

use super::connector::{ConnMeter, SetupTiming};
use super::WireRequest;
use crate::error::{Error, Result, TimeoutPhase};
use crate::timing::{HttpVersion, Timing};

/// The User-Agent every transport sends.
pub(crate) const USER_AGENT_VALUE: &str = concat!("solr-client-rs/", env!("CARGO_PKG_VERSION"));

/// How [`build_request`] writes the request target.
pub(crate) enum Target<'a> {
    /// HTTP/2: an absolute URI, no Host header.
    #[cfg(feature = "http2")]
    Absolute,
    /// HTTP/1.1: origin-form plus a Host header; the value when the caller has it already
    /// (the pooled transport keeps one per host), else made from the node.
    Origin(Option<&'a HeaderValue>),
}

/// Builds the hyper request. HTTP/1 uses origin-form plus Host; HTTP/2 an absolute URI.
pub(crate) fn build_request(
    req: &WireRequest,
    target: Target<'_>,
) -> Result<http::Request<Full<Bytes>>> {
    let (uri, origin_form) = match target {
        #[cfg(feature = "http2")]
        Target::Absolute => (req.url().to_string(), None),
        Target::Origin(host) => (req.path_and_query(), Some(host)),
    };
    let mut builder = http::Request::builder().method(req.method.clone()).uri(uri);
    if let Some(h) = builder.headers_mut() {
        h.extend(req.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
        if let Some(host) = origin_form {
            match host {
                Some(v) => {
                    h.insert(HOST, v.clone());
                }
                None => {
                    if let Ok(v) = HeaderValue::from_str(&req.authority()) {
                        h.insert(HOST, v);
                    }
                }
            }
        }
        h.entry(USER_AGENT)
            .or_insert(HeaderValue::from_static(USER_AGENT_VALUE));
    }
    builder
        .body(Full::new(req.body.clone()))
        .map_err(|e| Error::InvalidInput(format!("cannot build HTTP request: {e}")))
}

/// Maps a hyper error to this crate's error. `not_sent` is true when the request certainly
/// was not processed: hyper cancelled it before sending, or (HTTP/2) the server refused the
/// stream ([`proves_unprocessed`]).
pub(crate) fn map_hyper(node: &str, e: hyper::Error) -> Error {
    let not_sent = e.is_canceled() || proves_unprocessed(&e);
    let mut message = e.to_string();
    let mut src: Option<&dyn std::error::Error> = std::error::Error::source(&e);
    while let Some(s) = src {
        message.push_str(": ");
        message.push_str(&s.to_string());
        src = s.source();
    }
    Error::Io {
        node: node.to_string(),
        message,
        not_sent,
    }
}

/// True when `e` (or an error it wraps) is an HTTP/2 error that proves the server did not
/// process the stream: a GOAWAY received from the server whose last-stream-id is below the
/// stream (h2 fails exactly those streams, and every stream opened after it, with the
/// remote GOAWAY; streams at or below it that later break get an I/O error instead), or a
/// `RST_STREAM(REFUSED_STREAM)` from the server (RFC 9113, 8.7: "not processed").
pub(crate) fn proves_unprocessed(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        // Only the HTTP/2 transport and reqwest (which speaks HTTP/2 too) produce h2 errors.
        #[cfg(any(feature = "http2", feature = "reqwest"))]
        if let Some(h2) = err.downcast_ref::<h2::Error>() {
            return h2.is_remote()
                && (h2.is_go_away() || h2.reason() == Some(h2::Reason::REFUSED_STREAM));
        }
        cur = err.source();
    }
    false
}

/// True when `e` (or an error it wraps) says the server closed the connection after the
/// request was written and before a complete response arrived: hyper's "connection closed
/// before message completed", or a reset / broken pipe / early EOF on the socket. On a
/// reused connection this is the stale-connection race (the server's idle timeout closed
/// it as the request went out); an idempotent read may be resent once on a new connection.
#[cfg(feature = "reqwest")]
pub(crate) fn closed_unanswered(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(h) = err.downcast_ref::<hyper::Error>() {
            if h.is_incomplete_message() {
                return true;
            }
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind::*;
            if matches!(io.kind(), ConnectionReset | BrokenPipe | UnexpectedEof) {
                return true;
            }
        }
        cur = err.source();
    }
    false
}

/// A response head plus its whole body.
pub(crate) struct ReadResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
    /// When the response headers were decoded.
    pub headers_at: Instant,
}

/// The timer of one HTTP/1.1 connection, kept with the connection and re-armed for each of
/// its requests (the read-idle watch, the wait for a pooled connection to be ready) instead
/// of a new timer per request.
///
/// Why: a timer that is registered in tokio's timer wheel while none is pending unparks
/// the runtime's driver thread (an eventfd write, then a thread wake-up and a second
/// `epoll_wait`), and dropping it takes the wheel's lock again. A request made that round
/// trip for each of its timers, every time: the extra wake-ups were most of the pooled
/// transport's CPU above a raw hyper loop. A timer that stays registered keeps the driver's
/// next wake-up set, and moving it to a later deadline is an atomic store in tokio.
/// Between requests the timer stays armed at the last deadline; when it fires there, it
/// wakes a task that is no longer waiting on it (a spurious, harmless wake-up).
pub(crate) struct ConnTimer {
    sleep: std::pin::Pin<Box<tokio::time::Sleep>>,
    runtime: tokio::runtime::Id,
}

impl ConnTimer {
    /// A timer of the current runtime, not armed (registered when first polled).
    pub(crate) fn new() -> Self {
        let far = tokio::time::Instant::now() + Duration::from_secs(30 * 86_400);
        ConnTimer {
            sleep: Box::pin(tokio::time::sleep_until(far)),
            runtime: tokio::runtime::Handle::current().id(),
        }
    }

    /// The timer, re-armed at `at`. A timer belongs to the runtime it was made in; used
    /// from another runtime (a client shared between runtimes), it is made anew there.
    pub(crate) fn at(&mut self, at: Instant) -> std::pin::Pin<&mut tokio::time::Sleep> {
        if tokio::runtime::Handle::current().id() != self.runtime {
            *self = ConnTimer::new();
        }
        let mut sleep = self.sleep.as_mut();
        sleep.as_mut().reset(tokio::time::Instant::from_std(at));
        sleep
    }
}

/// Runs `fut` until it ends, or until `limit` has passed (then None), on `timer`.
pub(crate) async fn within<F: std::future::Future>(
    timer: &mut ConnTimer,
    limit: Duration,
    fut: F,
) -> Option<F::Output> {
    let Some(at) = Instant::now().checked_add(limit) else {
        return Some(fut.await); // a limit beyond any Instant never fires
    };
    tokio::select! {
        biased;
        out = fut => Some(out),
        _ = timer.at(at) => None,
    }
}

/// What resets the read-idle timer of [`read_response`].
pub(crate) enum IdleClock<'a> {
    /// Every byte read from (or written to) this socket: the connection carries this one
    /// request (HTTP/1.1), so a byte on it is a byte of this request, in the header phase
    /// as in the body phase. The timer starts at `since` (when the request began to be
    /// written); it runs on the connection's own timer.
    Socket(&'a ConnMeter, Instant, &'a mut ConnTimer),
    /// Every frame of this request's stream (HTTP/2, where the socket is shared by many
    /// streams and another stream's bytes must not keep a stalled one alive): the wait for
    /// the HEADERS frame, then the wait for each DATA frame.
    #[cfg(feature = "http2")]
    Frames,
}

/// Waits for the response head, then reads the body, bounded by `read_idle` as `clock`
/// says (the longest gap without a byte, never the length of a phase), the body bounded by
/// `limit` bytes.
pub(crate) async fn read_response<F>(
    node: &str,
    req: &WireRequest,
    clock: IdleClock<'_>,
    fut: F,
) -> Result<ReadResponse>
where
    F: std::future::Future<Output = std::result::Result<http::Response<Incoming>, hyper::Error>>,
{
    let idle = req.timeouts.read_idle;
    let timeout = || Error::Timeout {
        node: node.to_string(),
        phase: TimeoutPhase::ReadIdle,
        after: idle,
    };
    match clock {
        IdleClock::Socket(meter, since, timer) => {
            idle_watch(meter, idle, since, timer, read_all(node, req, None, fut))
                .await
                .unwrap_or_else(|| Err(timeout()))
        }
        #[cfg(feature = "http2")]
        IdleClock::Frames => read_all(node, req, Some(idle), fut).await,
    }
}

/// Runs `fut` until it ends, or until `idle` has passed without a byte moving on the socket
/// `meter` watches (then None). The timer starts at `since` and is pushed back by every
/// byte read or written.
pub(crate) async fn idle_watch<F: std::future::Future>(
    meter: &ConnMeter,
    idle: Duration,
    since: Instant,
    timer: &mut ConnTimer,
    fut: F,
) -> Option<F::Output> {
    let mut fut = std::pin::pin!(fut);
    let mut last = since;
    loop {
        let Some(wake) = last.checked_add(idle) else {
            return Some(fut.await); // an idle limit beyond any Instant never fires
        };
        tokio::select! {
            biased;
            out = &mut fut => return Some(out),
            _ = timer.at(wake) => {
                let active = meter.last_activity().map_or(last, |a| a.max(last));
                if active == last {
                    return None;
                }
                last = active;
            }
        }
    }
}

/// Reads head and body; with `per_await`, each wait (head, every frame) is bounded by it.
async fn read_all<F>(
    node: &str,
    req: &WireRequest,
    per_await: Option<Duration>,
    fut: F,
) -> Result<ReadResponse>
where
    F: std::future::Future<Output = std::result::Result<http::Response<Incoming>, hyper::Error>>,
{
    async fn bounded<T>(
        node: &str,
        limit: Option<Duration>,
        f: impl std::future::Future<Output = T>,
    ) -> Result<T> {
        match limit {
            None => Ok(f.await),
            Some(idle) => tokio::time::timeout(idle, f)
                .await
                .map_err(|_| Error::Timeout {
                    node: node.to_string(),
                    phase: TimeoutPhase::ReadIdle,
                    after: idle,
                }),
        }
    }
    let resp = bounded(node, per_await, fut)
        .await?
        .map_err(|e| map_hyper(node, e))?;
    let headers_at = Instant::now();
    let (parts, mut body) = resp.into_parts();
    let limit = req.max_response_bytes;
    let too_large = || Error::TooLarge {
        node: node.to_string(),
        limit,
    };
    if let Some(len) = parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
    {
        if len > limit {
            return Err(too_large());
        }
    }
    // A body that comes in one frame is kept as it is; only a second frame makes a copy.
    let mut first: Option<Bytes> = None;
    let mut buf = BytesMut::new();
    let mut len = 0u64;
    loop {
        let frame = bounded(node, per_await, body.frame()).await?;
        match frame {
            None => break,
            Some(Err(e)) => return Err(map_hyper(node, e)),
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    len += data.len() as u64;
                    if len > limit {
                        return Err(too_large());
                    }
                    if first.is_none() && buf.is_empty() {
                        first = Some(data);
                    } else {
                        if let Some(f) = first.take() {
                            buf.extend_from_slice(&f);
                        }
                        buf.extend_from_slice(&data);
                    }
                }
            }
        }
    }
    Ok(ReadResponse {
        status: parts.status,
        headers: parts.headers,
        body: first.unwrap_or_else(|| buf.freeze()),
        headers_at,
    })
}

/// The instants of one request, in order; missing or out-of-order stamps are clamped so the
/// phases never go negative and always add up to `done - start`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Instants {
    pub start: Instant,
    pub conn_ready: Instant,
    pub write_done: Instant,
    pub first_byte: Instant,
    pub done: Instant,
}

impl Instants {
    pub fn into_timing(
        self,
        setup: Option<SetupTiming>,
        version: HttpVersion,
        node: &str,
    ) -> Timing {
        let conn_ready = self.conn_ready.max(self.start);
        let write_done = self.write_done.max(conn_ready);
        let first_byte = self.first_byte.max(write_done);
        let done = self.done.max(first_byte);
        let waited = conn_ready - self.start;
        let (dns, connect, tls, setup_sum) = match setup {
            Some(s) => {
                let sum = s.dns + s.connect + s.tls.unwrap_or_default();
                (Some(s.dns), Some(s.connect), s.tls, sum)
            }
            None => (None, None, None, Duration::ZERO),
        };
        Timing {
            reused: setup.is_none(),
            blocked: waited.saturating_sub(setup_sum),
            dns,
            connect,
            tls,
            write: write_done - conn_ready,
            server_wait: first_byte - write_done,
            transfer: done - first_byte,
            http_version: version,
            attempts: 1,
            node: node.to_string(),
            bytes_exact: true,
            ..Timing::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The connection's timer is re-armed, not re-made: made far away, re-armed earlier, it
    /// fires at the new deadline; re-armed again, it serves the next wait; and a timer made
    /// in a runtime that is gone is made anew in the current one (no panic).
    #[test]
    fn a_connection_timer_rearms_and_follows_the_runtime() {
        let rt = || {
            tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .expect("runtime")
        };
        let never = || std::future::pending::<()>();
        let first = rt();
        let mut timer = first.block_on(async {
            let mut t = ConnTimer::new();
            let out = within(&mut t, Duration::from_millis(10), never()).await;
            assert!(out.is_none(), "the 10 ms limit fires");
            assert_eq!(
                within(&mut t, Duration::from_secs(5), async { 1 }).await,
                Some(1)
            );
            let out = within(&mut t, Duration::from_millis(10), never()).await;
            assert!(out.is_none(), "and fires again");
            t
        });
        drop(first);
        rt().block_on(async {
            let out = within(&mut timer, Duration::from_millis(10), never()).await;
            assert!(out.is_none(), "fires in the new runtime");
        });
    }

    #[tokio::test]
    async fn idle_watch_fires_without_bytes_and_never_with_an_endless_limit() {
        let meter = ConnMeter::new(0);
        let timer = &mut ConnTimer::new();
        let never = std::future::pending::<()>();
        let out = idle_watch(
            &meter,
            Duration::from_millis(20),
            Instant::now(),
            timer,
            never,
        )
        .await;
        assert!(out.is_none(), "no byte: the watch fires");
        let out = idle_watch(&meter, Duration::MAX, Instant::now(), timer, async { 7 }).await;
        assert_eq!(
            out,
            Some(7),
            "a limit beyond any Instant does not fire at once"
        );
    }
}
