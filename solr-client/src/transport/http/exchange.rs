//! What the hyper-based transports share: building the HTTP request, mapping hyper errors,
//! reading a body under the read-idle timeout and size limit, and assembling the timing
//! record from the instants the connector and the metered socket recorded.

use std::future::Future;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use http::header::{HeaderValue, CONTENT_LENGTH, HOST, USER_AGENT};
use http::{HeaderMap, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;

use crate::error::{Error, Result, TimeoutPhase};
use crate::timing::{HttpVersion, Timing};
use crate::transport::connect::connector::{Activity, ConnMeter, SetupTiming};
use crate::transport::WireRequest;

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
        .map_err(|e| Error::invalid_input(format!("cannot build HTTP request: {e}")))
}

/// Maps a hyper error to this crate's error. `not_sent` is true when the request certainly
/// was not processed: hyper cancelled it before sending, or (HTTP/2) the server refused the
/// stream ([`proves_unprocessed`]).
pub(crate) fn map_hyper(node: &str, e: hyper::Error) -> Error {
    #[cfg(feature = "rustls-base")]
    if let Some(refused) = crate::transport::connect::client_auth::refusal(node, &e, None) {
        return refused;
    }
    let not_sent = e.is_canceled() || proves_unprocessed(&e);
    let mut message = e.to_string();
    let mut src: Option<&dyn std::error::Error> = std::error::Error::source(&e);
    while let Some(s) = src {
        message.push_str(": ");
        message.push_str(&s.to_string());
        src = s.source();
    }
    Error::Io {
        node: node.into(),
        message: message.into(),
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

    /// The timer as it is armed. A timer belongs to the runtime it was made in; used from
    /// another runtime (a client shared between runtimes), it is made anew there.
    pub(crate) fn here(&mut self) -> std::pin::Pin<&mut tokio::time::Sleep> {
        if tokio::runtime::Handle::current().id() != self.runtime {
            *self = ConnTimer::new();
        }
        self.sleep.as_mut()
    }

    /// The timer, re-armed at `at`.
    pub(crate) fn at(&mut self, at: Instant) -> std::pin::Pin<&mut tokio::time::Sleep> {
        let mut sleep = self.here();
        sleep.as_mut().reset(tokio::time::Instant::from_std(at));
        sleep
    }
}

/// Runs `fut` until it ends, or until `at` (then None), on `timer`.
pub(crate) async fn within<F: std::future::Future>(
    timer: &mut ConnTimer,
    at: Instant,
    fut: F,
) -> Option<F::Output> {
    tokio::select! {
        biased;
        out = fut => Some(out),
        _ = timer.at(at) => None,
    }
}

/// Why a [`Watch`] ended a wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expired {
    /// No byte moved on the socket for the read-idle limit.
    ReadIdle,
    /// The call's deadline passed.
    Deadline,
}

impl Expired {
    /// The timeout error of `req` this stands for (`node`: the request's node label).
    pub(crate) fn error(self, node: &str, req: &WireRequest) -> Error {
        match self {
            Expired::ReadIdle => Error::Timeout {
                node: node.into(),
                phase: TimeoutPhase::ReadIdle,
                after: req.timeouts.read_idle,
            },
            Expired::Deadline => req.request_timeout(),
        }
    }
}

/// The bounds of one exchange, checked on one timer: the read-idle limit (the longest gap
/// without a byte, never the length of a phase: every byte `A` reports pushes it back, in
/// the header phase as in the body phase) and, when the transport enforces it itself, the
/// call's deadline. HTTP/1.1 watches the socket meter (on the connection's own timer);
/// HTTP/2 a stream's [`crate::transport::http::h2_clock::FrameClock`] plus the frames of the stream
/// ([`Watch::restart`]).
///
/// The timer is re-armed only when its instant changes, so a wait that is polled many times
/// (one poll per body frame) costs no timer work.
pub(crate) struct Watch<'a, A: ?Sized = ConnMeter> {
    activity: &'a A,
    timer: std::pin::Pin<&'a mut tokio::time::Sleep>,
    idle: Duration,
    /// The last activity the idle limit counts from.
    last: Instant,
    deadline: Option<Instant>,
    /// Where the timer is armed, once this watch armed it.
    armed: Option<Instant>,
}

impl<'a> Watch<'a> {
    /// A watch of an HTTP/1.1 exchange on its connection's `timer`, whose idle limit starts
    /// at `since` (when the request began to be written).
    pub(crate) fn new(
        meter: &'a ConnMeter,
        timer: &'a mut ConnTimer,
        idle: Duration,
        since: Instant,
        deadline: Option<Instant>,
    ) -> Self {
        Watch::on(meter, timer.here(), idle, since, deadline)
    }
}

impl<'a, A: Activity + ?Sized> Watch<'a, A> {
    /// A watch of the bytes `activity` reports, on `timer`, whose idle limit starts at
    /// `since`.
    pub(crate) fn on(
        activity: &'a A,
        timer: std::pin::Pin<&'a mut tokio::time::Sleep>,
        idle: Duration,
        since: Instant,
        deadline: Option<Instant>,
    ) -> Self {
        Watch {
            activity,
            timer,
            idle,
            last: since,
            deadline,
            armed: None,
        }
    }

    /// The last activity the idle limit counts from now.
    pub(crate) fn last(&self) -> Instant {
        self.last
    }

    /// A byte of the request arrived at `at` (seen by the caller, not by `activity`).
    pub(crate) fn restart(&mut self, at: Instant) {
        self.last = self.last.max(at);
    }

    /// The next instant a bound can expire at (None: neither can).
    fn next_check(&self) -> Option<Instant> {
        match (self.last.checked_add(self.idle), self.deadline) {
            (Some(idle), Some(deadline)) => Some(idle.min(deadline)),
            (idle, deadline) => idle.or(deadline),
        }
    }

    /// Polls `f`; while it is pending, keeps the timer armed at the next bound and says
    /// which bound expired when one does.
    pub(crate) fn poll<T>(
        &mut self,
        cx: &mut std::task::Context<'_>,
        f: impl FnOnce(&mut std::task::Context<'_>) -> std::task::Poll<T>,
    ) -> std::task::Poll<std::result::Result<T, Expired>> {
        use std::task::Poll;
        if let Poll::Ready(v) = f(cx) {
            return Poll::Ready(Ok(v));
        }
        loop {
            let Some(at) = self.next_check() else {
                return Poll::Pending; // no bound fits in an Instant: wait for `f` alone
            };
            if self.armed != Some(at) {
                self.armed = Some(at);
                let at = tokio::time::Instant::from_std(at);
                self.timer.as_mut().reset(at);
            }
            if self.timer.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                return Poll::Ready(Err(Expired::Deadline));
            }
            let active = self
                .activity
                .last_activity()
                .map_or(self.last, |a| a.max(self.last));
            if active == self.last {
                return Poll::Ready(Err(Expired::ReadIdle));
            }
            self.last = active;
        }
    }
}

/// The response head of an HTTP/1.1 exchange, and when it was decoded.
pub(crate) type Head = (http::Response<Incoming>, Instant);

/// Sends `http_req` on an HTTP/1.1 connection and waits for the response head, under
/// `watch`: the step the buffered path ([`read_body`] next) and the streaming path
/// ([`crate::transport::IncomingBody`] next) share.
///
/// Kept small, because a transport boxes it (inside its request future) per request: the
/// response future is boxed on its own and the rest is one flat state machine whose
/// captures are not copied into locals (an `async fn` holds each argument twice).
pub(crate) fn exchange_head<'a>(
    node: &'a str,
    req: &'a WireRequest,
    mut watch: Watch<'a>,
    sender: &mut SendRequest<Full<Bytes>>,
    http_req: http::Request<Full<Bytes>>,
) -> impl Future<Output = Result<Head>> + 'a {
    let head = Box::pin(sender.send_request(http_req));
    async move { head_under(node, req, &mut watch, head).await }
}

/// Waits for the response head `head` under `watch` (HTTP/1.1 and HTTP/2 alike).
pub(crate) async fn head_under<A, F>(
    node: &str,
    req: &WireRequest,
    watch: &mut Watch<'_, A>,
    head: F,
) -> Result<Head>
where
    A: Activity + ?Sized,
    F: Future<Output = std::result::Result<http::Response<Incoming>, hyper::Error>>,
{
    let mut head = std::pin::pin!(head);
    let resp = std::future::poll_fn(|cx| watch.poll(cx, |cx| head.as_mut().poll(cx)))
        .await
        .map_err(|e| e.error(node, req))?
        .map_err(|e| map_hyper(node, e))?;
    Ok((resp, Instant::now()))
}

/// Reads the whole body of `resp` (bounded by the request's size limit), every wait bounded
/// by `watch`; with `frames_restart` (HTTP/2) each frame of the stream restarts its idle
/// clock.
pub(crate) fn read_body<'a, A: Activity + ?Sized>(
    node: &'a str,
    req: &'a WireRequest,
    mut watch: Watch<'a, A>,
    resp: http::Response<Incoming>,
    frames_restart: bool,
) -> impl Future<Output = Result<ReadResponse>> + 'a {
    // Split here, not in the future: it holds the parts once, not the response too.
    let (parts, mut body) = resp.into_parts();
    async move {
        let mut buf = BodyBuf::new(node, req.max_response_bytes, &parts.headers)?;
        loop {
            let frame = std::future::poll_fn(|cx| {
                watch.poll(cx, |cx| {
                    hyper::body::Body::poll_frame(std::pin::Pin::new(&mut body), cx)
                })
            })
            .await
            .map_err(|e| e.error(node, req))?;
            if frames_restart {
                watch.restart(Instant::now());
            }
            if buf.take(node, frame)? {
                return Ok(buf.finish(parts));
            }
        }
    }
}

/// A response body being read: the size limit checked frame by frame; a body that comes in
/// one frame is kept as it is, only a second frame makes a copy.
struct BodyBuf {
    first: Option<Bytes>,
    rest: BytesMut,
    len: u64,
    limit: u64,
}

impl BodyBuf {
    /// Refuses at once a body whose Content-Length is over `limit`.
    fn new(node: &str, limit: u64, headers: &HeaderMap) -> Result<Self> {
        let declared = headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        if declared.is_some_and(|len| len > limit) {
            return Err(too_large(node, limit));
        }
        Ok(BodyBuf {
            first: None,
            rest: BytesMut::new(),
            len: 0,
            limit,
        })
    }

    /// Takes what the body gave: true at its end; an error frame is the error.
    fn take(
        &mut self,
        node: &str,
        frame: Option<std::result::Result<hyper::body::Frame<Bytes>, hyper::Error>>,
    ) -> Result<bool> {
        match frame {
            None => Ok(true),
            Some(Err(e)) => Err(map_hyper(node, e)),
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    self.push(node, data)?;
                }
                Ok(false)
            }
        }
    }

    fn push(&mut self, node: &str, data: Bytes) -> Result<()> {
        self.len += data.len() as u64;
        if self.len > self.limit {
            return Err(too_large(node, self.limit));
        }
        if self.first.is_none() && self.rest.is_empty() {
            self.first = Some(data);
        } else {
            if let Some(f) = self.first.take() {
                self.rest.extend_from_slice(&f);
            }
            self.rest.extend_from_slice(&data);
        }
        Ok(())
    }

    /// The whole response: `parts` (its head) and this body.
    fn finish(self, parts: http::response::Parts) -> ReadResponse {
        ReadResponse {
            status: parts.status,
            headers: parts.headers,
            body: self.first.unwrap_or_else(|| self.rest.freeze()),
        }
    }
}

fn too_large(node: &str, limit: u64) -> Error {
    Error::TooLarge {
        node: node.into(),
        limit,
    }
}

/// The exchange's byte counts and decoded size: the connection's counters less `before`
/// (their values when the request started on a reused connection; zero on a new one).
pub(crate) fn count_bytes(
    timing: &mut Timing,
    meter: &ConnMeter,
    before: (u64, u64),
    body_len: usize,
) {
    let (bin, bout) = meter.bytes();
    timing.connection_id = meter.id;
    timing.bytes_in = bin - before.0;
    timing.bytes_out = bout - before.1;
    timing.decoded_bytes = body_len as u64;
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
    /// The timing record of these instants; `node` (the node's label) is moved into it when
    /// the caller gives it up, copied when it lends it.
    pub fn into_timing(
        self,
        setup: Option<SetupTiming>,
        version: HttpVersion,
        node: impl Into<String>,
    ) -> Timing {
        let conn_ready = self.conn_ready.max(self.start);
        let write_done = self.write_done.max(conn_ready);
        let first_byte = self.first_byte.max(write_done);
        let done = self.done.max(first_byte);
        let waited = conn_ready - self.start;
        let (dns, connect, tunnel, tls, setup_sum) = match setup {
            Some(s) => (Some(s.dns), Some(s.connect), s.tunnel, s.tls, s.sum()),
            None => (None, None, None, None, Duration::ZERO),
        };
        Timing {
            reused: setup.is_none(),
            blocked: waited.saturating_sub(setup_sum),
            dns,
            connect,
            tunnel,
            tls,
            write: write_done - conn_ready,
            server_wait: first_byte - write_done,
            transfer: done - first_byte,
            http_version: version,
            attempts: 1,
            node: node.into(),
            bytes_exact: true,
            ..Timing::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn soon(ms: u64) -> Instant {
        Instant::now() + Duration::from_millis(ms)
    }

    /// Waits for `fut` under `watch`.
    async fn under<F: std::future::Future>(
        watch: &mut Watch<'_>,
        fut: F,
    ) -> std::result::Result<F::Output, Expired> {
        let mut fut = std::pin::pin!(fut);
        std::future::poll_fn(|cx| watch.poll(cx, |cx| fut.as_mut().poll(cx))).await
    }

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
            let out = within(&mut t, soon(10), never()).await;
            assert!(out.is_none(), "the 10 ms limit fires");
            assert_eq!(within(&mut t, soon(5_000), async { 1 }).await, Some(1));
            let out = within(&mut t, soon(10), never()).await;
            assert!(out.is_none(), "and fires again");
            t
        });
        drop(first);
        rt().block_on(async {
            let out = within(&mut timer, soon(10), never()).await;
            assert!(out.is_none(), "fires in the new runtime");
        });
    }

    /// A watch ends a wait on the bound that expires first, says which, and never ends a
    /// wait with no bound that fits in an `Instant`.
    #[tokio::test]
    async fn a_watch_ends_the_wait_on_the_first_bound_and_names_it() {
        let meter = ConnMeter::new(0);
        let timer = &mut ConnTimer::new();
        let never = std::future::pending::<()>;
        let ms = Duration::from_millis;
        let now = Instant::now;

        let mut idle_only = Watch::new(&meter, timer, ms(20), now(), None);
        assert_eq!(under(&mut idle_only, never()).await, Err(Expired::ReadIdle));

        let mut deadline_first = Watch::new(&meter, timer, ms(60_000), now(), Some(soon(20)));
        assert_eq!(
            under(&mut deadline_first, never()).await,
            Err(Expired::Deadline)
        );

        let mut idle_first = Watch::new(&meter, timer, ms(20), now(), Some(soon(60_000)));
        assert_eq!(
            under(&mut idle_first, never()).await,
            Err(Expired::ReadIdle)
        );

        let mut endless = Watch::new(&meter, timer, Duration::MAX, now(), None);
        assert_eq!(under(&mut endless, async { 7 }).await, Ok(7));
        let mut endless = Watch::new(&meter, timer, Duration::MAX, now(), None);
        let out = tokio::time::timeout(ms(50), under(&mut endless, never())).await;
        assert!(
            out.is_err(),
            "no bound: the wait is never ended by the watch"
        );
    }
}
