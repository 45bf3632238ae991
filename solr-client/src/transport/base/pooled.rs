//! `pooled`: HTTP/1.1 keep-alive. Idle connections wait in a per-host pool and are reused.
//!
//! The pool is this crate's own (on hyper's connection-level client), not hyper-util's
//! legacy pool, for two reasons a latency audit needs: every response must name the exact
//! connection that carried it (so reuse is a fact, not a guess), and `max_connections_per_host`
//! must be a hard cap on open connections, not only on idle ones.
//!
//! Idle timeout: connections idle longer than [`PooledConfig::idle_timeout`] (default 90 s)
//! are closed by the client. Jetty closes idle connections after its own idle timeout
//! (Solr's distribution: 120 s, `solr.jetty.http.idleTimeout`; this project's launcher uses
//! the same 120 s; Solr's embedded test runner hard-codes 260 s). Keeping the client's value
//! below the server's means the client, not the server, ends an idle connection, so a request
//! is rarely written onto a connection the server is closing at that moment.
//!
//! If it happens anyway (the server closed a pooled connection), a read is retried once on a
//! new connection; a write is retried only when the connection was found closed before the
//! request was sent. A write that was sent on a connection the server then closed is returned
//! as [`Error::Io`] with `not_sent == false`: it may or may not have been applied, and this
//! transport will not guess.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::header::{HeaderValue, CONNECTION};
use http_body_util::Full;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};

use crate::error::{Error, Result};
use crate::timing::HttpVersion;
use crate::transport::connect::client_auth::h1_explained;
use crate::transport::connect::connector::{ConnMeter, Connector, SetupTiming};
use crate::transport::connect::proxy::{self, Proxy};
use crate::transport::connect::tls::TlsOptions;
use crate::transport::http::exchange::{
    build_request, count_bytes, exchange_head, map_hyper, read_body, within, ConnTimer, Head,
    Instants, Target, Watch,
};
use crate::transport::http::incoming::IncomingBody;
use crate::transport::{
    BoxFuture, Reply, RequestKind, StreamingResponse, Transport, TransportStats, WireBytes,
    WireCount, WireRequest, WireResponse,
};

/// Settings of the [`Pooled`] transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PooledConfig {
    /// Hard cap on open connections per host (in use + idle); requests beyond it wait
    /// (the wait is the `blocked` phase). Default 64.
    pub max_connections_per_host: usize,
    /// Idle connections kept per host. Default 32.
    pub max_idle_per_host: usize,
    /// Idle connections older than this are closed. Default 90 s (below Jetty's 120 s).
    pub idle_timeout: Duration,
}

impl Default for PooledConfig {
    fn default() -> Self {
        PooledConfig {
            max_connections_per_host: 64,
            max_idle_per_host: 32,
            idle_timeout: Duration::from_secs(90),
        }
    }
}

/// Setters, for code outside this crate (the struct is `#[non_exhaustive]`: build it
/// from [`PooledConfig::default()`] and change what differs).
impl PooledConfig {
    /// Sets [`PooledConfig::max_connections_per_host`]; see there for the default.
    pub const fn max_connections_per_host(mut self, v: usize) -> Self {
        self.max_connections_per_host = v;
        self
    }
    /// Sets [`PooledConfig::max_idle_per_host`]; see there for the default.
    pub const fn max_idle_per_host(mut self, v: usize) -> Self {
        self.max_idle_per_host = v;
        self
    }
    /// Sets [`PooledConfig::idle_timeout`]; see there for the default.
    pub const fn idle_timeout(mut self, v: Duration) -> Self {
        self.idle_timeout = v;
        self
    }
}

struct Idle {
    sender: SendRequest<Full<Bytes>>,
    meter: Arc<ConnMeter>,
    timer: ConnTimer,
    since: Instant,
}

/// A connection taken from the pool or just opened: its sender, meter and timer.
type Checked = (SendRequest<Full<Bytes>>, Arc<ConnMeter>, ConnTimer);

/// The connections of one origin (scheme, host, port).
struct HostPool {
    scheme: String,
    host: String,
    port: Option<u16>,
    /// The Host header of its requests, made once.
    host_header: Option<HeaderValue>,
    idle: Mutex<Vec<Idle>>,
    slots: Arc<Semaphore>,
}

impl HostPool {
    fn serves(&self, node: &url::Url) -> bool {
        self.port == node.port()
            && self.scheme == node.scheme()
            && self.host == node.host_str().unwrap_or("localhost")
    }
}

/// The keep-alive transport.
pub struct Pooled {
    connector: Connector,
    config: PooledConfig,
    /// One pool per origin; a client talks to a handful, so a scan finds one without
    /// making a key per request.
    hosts: Mutex<Vec<Arc<HostPool>>>,
    counted: crate::transport::Counted,
}

impl std::fmt::Debug for Pooled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pooled")
            .field("config", &self.config)
            .field("connector", &self.connector)
            .finish()
    }
}

impl Pooled {
    /// Builds the transport.
    pub fn new(tls: &TlsOptions, config: PooledConfig) -> Result<Self> {
        Self::with_proxy(tls, config, None)
    }

    /// [`Self::new`], going through `proxy` when given: `http://` nodes in absolute form,
    /// `https://` nodes through a `CONNECT` tunnel (kept open and reused like any pooled
    /// connection).
    pub fn with_proxy(
        tls: &TlsOptions,
        config: PooledConfig,
        proxy: Option<&Proxy>,
    ) -> Result<Self> {
        if config.max_connections_per_host == 0 {
            return Err(Error::config("max_connections_per_host must be at least 1"));
        }
        Ok(Pooled {
            connector: Connector::new(tls, crate::transport::connect::connector::HTTP1_ALPN)?
                .via(proxy, false),
            config,
            hosts: Mutex::new(Vec::new()),
            counted: crate::transport::Counted::new("pooled", tls.is_insecure()),
        })
    }

    /// Idle connections currently pooled, over all hosts.
    pub fn idle_connections(&self) -> usize {
        let hosts = self.hosts.lock().unwrap_or_else(|e| e.into_inner());
        hosts
            .iter()
            .map(|h| h.idle.lock().unwrap_or_else(|e| e.into_inner()).len())
            .sum()
    }

    fn host(&self, req: &WireRequest) -> Arc<HostPool> {
        let mut hosts = self.hosts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = hosts.iter().find(|h| h.serves(&req.node)) {
            return h.clone();
        }
        let pool = Arc::new(HostPool {
            scheme: req.node.scheme().to_string(),
            host: req.node.host_str().unwrap_or("localhost").to_string(),
            port: req.node.port(),
            host_header: HeaderValue::from_str(&req.authority()).ok(),
            idle: Mutex::new(Vec::new()),
            slots: Arc::new(Semaphore::new(self.config.max_connections_per_host)),
        });
        hosts.push(pool.clone());
        pool
    }

    /// Takes the most recently used live idle connection, closing expired or dead ones. One
    /// that is not ready yet is waited for up to the read-idle limit (then closed, and the
    /// next one tried) or the call's deadline (then the call times out).
    async fn checkout(
        &self,
        host: &HostPool,
        req: &WireRequest,
        deadline: Instant,
    ) -> Result<Option<Checked>> {
        loop {
            let Some(idle) = host.idle.lock().unwrap_or_else(|e| e.into_inner()).pop() else {
                return Ok(None);
            };
            if idle.since.elapsed() > self.config.idle_timeout || idle.sender.is_closed() {
                continue; // dropping the sender closes the connection
            }
            let (mut sender, mut timer) = (idle.sender, idle.timer);
            if sender.is_ready() {
                return Ok(Some((sender, idle.meter, timer)));
            }
            let at = crate::transport::far_or(Instant::now(), req.timeouts.read_idle).min(deadline);
            match within(&mut timer, at, sender.ready()).await {
                Some(Ok(())) => return Ok(Some((sender, idle.meter, timer))),
                _ if Instant::now() >= deadline => return Err(req.request_timeout()),
                _ => continue,
            }
        }
    }

    async fn open(&self, req: &WireRequest, node: &str) -> Result<(Checked, SetupTiming)> {
        let conn = self
            .connector
            .connect(&req.node, req.timeouts.connect)
            .await?;
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(conn.io))
            .await
            .map_err(|e| map_hyper(node, e))?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(((sender, conn.meter, ConnTimer::new()), conn.setup))
    }

    /// One call: the exchange up to the head ([`Self::head`]), then the body, on the
    /// connection's timer and under the call's deadline (set by
    /// [`crate::transport::Counted::send_own_deadline`]).
    ///
    /// The request comes boxed: the future of this call is boxed per request, and a future
    /// of more than 1,032 bytes is a large allocation for glibc (not served from its
    /// per-thread cache; it first merges every small block freed since the last one, which
    /// after a decoded response is thousands of instructions). Boxed, the request is 8 bytes
    /// of it (an `async fn` holds an argument twice) and its own allocation is a small one.
    async fn send_inner(&self, req: Box<WireRequest>) -> Result<WireResponse> {
        // Taken apart at once: a `Headed` kept whole would be held beside the body's state.
        let Headed {
            resp,
            conn: (sender, meter, mut timer),
            setup,
            mut at,
            before,
            attempt,
            node,
            host,
            permit: _permit,
            deadline,
        } = self.head(&req).await?;
        let idle = req.timeouts.read_idle;
        let watch = Watch::new(&meter, &mut timer, idle, at.done, Some(deadline));
        let resp = read_body(&node, &req, watch, resp.0, false).await?;
        at.done = Instant::now();
        let mut timing = at.into_timing(setup, HttpVersion::Http11, node);
        count_bytes(&mut timing, &meter, before, resp.body.len());
        timing.attempts = attempt;
        self.keep(&host, &resp.headers, (sender, meter, timer));
        Ok(WireResponse {
            status: resp.status,
            headers: resp.headers,
            body: resp.body,
            timing,
        })
    }

    /// The call up to the response head, what the buffered and the streaming path share: a
    /// slot under the per-host cap, a pooled or new connection, the request written, the
    /// head read (its timing stamps with `done` at the head); once more on a new connection
    /// when a reused one turns out closed before the head came (a read, or a write that
    /// certainly was not sent). The call's deadline bounds every wait: the wait for a slot
    /// and the connect on a timer of their own (only a full pool or a new connection needs
    /// one), the exchange on the connection's timer.
    ///
    /// One flat state machine for all of it (the caller's future holds little beside it):
    /// what the call needs later (node label, slot, deadline) comes back in [`Headed`].
    async fn head(&self, req: &WireRequest) -> Result<Headed> {
        let node = crate::redact::node_label(&req.node);
        let start = Instant::now();
        let deadline = req
            .deadline
            .unwrap_or_else(|| crate::transport::far_or(start, req.timeouts.request));
        let host = self.host(req);
        let permit = slot(&host, req, deadline).await?;
        let mut attempt = 1;
        loop {
            let ((mut sender, meter, mut timer), setup) =
                self.connection(&host, req, &node, deadline).await?;
            let conn_ready = Instant::now();
            meter.reset_marks();
            let before = if setup.is_some() {
                (0, 0)
            } else {
                meter.bytes()
            };
            meter.requests.fetch_add(1, Ordering::Relaxed);
            let mut http_req = build_request(req, Target::Origin(host.host_header.as_ref()))?;
            let forwarder = self.connector.forwarder(&req.node);
            if let Some(p) = forwarder {
                proxy::absolute_form(&mut http_req, req, p)?;
            }
            let idle = req.timeouts.read_idle;
            let watch = Watch::new(&meter, &mut timer, idle, conn_ready, Some(deadline));
            let resp = match exchange_head(&node, req, watch, &mut sender, http_req).await {
                Ok(r) => r,
                Err(e) => {
                    let tls = req.node.scheme() == "https";
                    let e = h1_explained(&node, tls, meter.cert_alert(), e);
                    let stale = setup.is_none() && matches!(e, Error::Io { .. });
                    let retry_ok = req.kind != RequestKind::Write || e.is_not_sent();
                    if stale && retry_ok && attempt == 1 {
                        attempt += 1;
                        continue; // the dead connection is dropped here
                    }
                    return Err(e);
                }
            };
            if let Some(p) = forwarder {
                proxy::forwarded_status(resp.0.status(), &node, req, p)?;
            }
            let marks = meter.marks();
            let at = Instants {
                start,
                conn_ready,
                write_done: marks.last_write.unwrap_or(conn_ready),
                first_byte: marks.first_read.unwrap_or(resp.1),
                done: resp.1,
            };
            return Ok(Headed {
                resp,
                conn: (sender, meter, timer),
                setup,
                at,
                before,
                attempt,
                node,
                host,
                permit,
                deadline,
            });
        }
    }

    /// A connection for the request: a live idle one of `host`, else a new one (with its
    /// setup timing), opened before the call's `deadline`.
    async fn connection(
        &self,
        host: &HostPool,
        req: &WireRequest,
        node: &str,
        deadline: Instant,
    ) -> Result<(Checked, Option<SetupTiming>)> {
        if let Some(c) = self.checkout(host, req, deadline).await? {
            return Ok((c, None));
        }
        // Boxed: the connect and TLS handshake state is large, and only a new connection
        // needs it; the common path (a reused one) stays small.
        let open = tokio::time::timeout_at(deadline.into(), self.open(req, node));
        match Box::pin(open).await {
            Ok(opened) => opened.map(|(c, t)| (c, Some(t))),
            Err(_) => Err(req.request_timeout()),
        }
    }

    /// Puts a connection back into `host`'s idle list, unless the server said it closes it
    /// (`Connection: close`), it is closed, or the list is full (then it is dropped: closed).
    fn keep(&self, host: &HostPool, headers: &http::HeaderMap, conn: Checked) {
        keep(host, self.config.max_idle_per_host, headers, conn)
    }

    /// The streaming path: a slot and the exchange up to the response head
    /// ([`Self::head`]). The connection and its slot stay with the body, and go back to the
    /// pool when it has been read to its end (dropped before: the connection is closed);
    /// then the body's byte counts are taken (before the connection can serve another
    /// request).
    async fn stream_inner(&self, req: WireRequest) -> Result<StreamingResponse> {
        let head = self.head(&req).await?;
        let (sender, meter, timer) = head.conn;
        let (node, host, permit) = (head.node, head.host, head.permit);
        let mut timing = head.at.into_timing(head.setup, HttpVersion::Http11, &node);
        timing.connection_id = meter.id;
        timing.attempts = head.attempt;
        let (parts, body) = head.resp.0.into_parts();
        let (headers, max_idle) = (parts.headers.clone(), self.config.max_idle_per_host);
        let (back, before, wire) = (meter.clone(), head.before, WireCount::default());
        let count = wire.clone();
        let idle = req.timeouts.read_idle;
        let body =
            IncomingBody::new(body, meter, timer, idle, node).on_end(Box::new(move |timer, _| {
                count.set(wire_bytes(&back, before));
                keep(&host, max_idle, &headers, (sender, back, timer));
                drop(permit);
            }));
        Ok(StreamingResponse::counted(
            parts.status,
            parts.headers,
            Box::pin(body),
            timing,
            wire,
        ))
    }
}

/// A request's exchange up to the response head ([`Pooled::head`]).
struct Headed {
    resp: Head,
    conn: Checked,
    /// The new connection's set-up, None on a reused one.
    setup: Option<SetupTiming>,
    /// The exchange's instants, `done` at the head.
    at: Instants,
    /// The connection's byte counters when the request started (zero on a new one).
    before: (u64, u64),
    attempt: u32,
    /// The node's label.
    node: String,
    host: Arc<HostPool>,
    /// The call's slot under the host's connection cap.
    permit: OwnedSemaphorePermit,
    /// When the call must be over.
    deadline: Instant,
}

/// The socket bytes of an exchange on `meter` since its counters stood at `before`.
fn wire_bytes(meter: &ConnMeter, before: (u64, u64)) -> WireBytes {
    let (bytes_in, bytes_out) = meter.bytes();
    WireBytes {
        bytes_in: bytes_in - before.0,
        bytes_out: bytes_out - before.1,
        exact: true,
    }
}

/// Puts a connection back into `host`'s idle list, unless the server said it closes it
/// (`Connection: close`), it is closed, or the list holds `max_idle` (then it is dropped:
/// closed).
fn keep(
    host: &HostPool,
    max_idle: usize,
    headers: &http::HeaderMap,
    (sender, meter, timer): Checked,
) {
    let server_closes = headers
        .get(CONNECTION)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("close"));
    if server_closes || sender.is_closed() {
        return;
    }
    let mut idle = host.idle.lock().unwrap_or_else(|e| e.into_inner());
    if idle.len() < max_idle {
        idle.push(Idle {
            sender,
            meter,
            timer,
            since: Instant::now(),
        });
    }
}

/// A slot under `host`'s connection cap, waited for until the call's `deadline`.
async fn slot(
    host: &HostPool,
    req: &WireRequest,
    deadline: Instant,
) -> Result<OwnedSemaphorePermit> {
    let pool_closed = || Error::config("pool closed");
    match host.slots.clone().try_acquire_owned() {
        Ok(permit) => Ok(permit),
        Err(TryAcquireError::Closed) => Err(pool_closed()),
        Err(TryAcquireError::NoPermits) => {
            let wait = tokio::time::timeout_at(deadline.into(), host.slots.clone().acquire_owned());
            match Box::pin(wait).await {
                Ok(Ok(permit)) => Ok(permit),
                Ok(Err(_)) => Err(pool_closed()),
                Err(_) => Err(req.request_timeout()),
            }
        }
    }
}

impl Transport for Pooled {
    fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
        use futures::FutureExt;
        self.counted.send_either(
            req,
            true,
            |req| {
                self.send_inner(Box::new(req))
                    .map(|r| self.connector.settle(r))
            },
            |req| self.stream_inner(req).map(|r| self.connector.settle(r)),
        )
    }

    fn name(&self) -> String {
        self.counted.name()
    }

    fn stats(&self) -> TransportStats {
        self.counted.stats(self.connector.opened())
    }
}

// With the `tracing` feature the attempt span is one more wrapper around the exchange, so
// the bound below is checked without it.
#[cfg(all(test, not(feature = "tracing")))]
mod tests {
    use super::*;

    /// The boxed future `send` returns holds the exchange once (the span and scheme-hint
    /// layers add a few fields, not copies of it: they were three `async fn` layers that
    /// each held it twice, 31 KB in a debug build), and it is a small allocation: at most
    /// 1,032 bytes, the largest block glibc's per-thread cache serves. A larger one (it was
    /// 4,416 bytes in a release build) is served by `_int_malloc`, which first merges every
    /// small block freed since the last large allocation: after a decoded response, 5 to 8
    /// thousand instructions per request (callgrind). Checked in the test profile, where
    /// the layout is the same as in release.
    #[tokio::test]
    async fn the_request_future_holds_the_exchange_once() {
        let pooled = Pooled::new(&TlsOptions::default(), PooledConfig::default()).expect("pool");
        // A select as the client builds it (built here: transport does not import the client).
        let req = WireRequest {
            method: http::Method::GET,
            node: url::Url::parse("http://127.0.0.1:1/solr").expect("url"),
            path: "c/select".into(),
            query: vec![("q".into(), "*:*".into()), ("wt".into(), "json".into())],
            headers: http::HeaderMap::new(),
            body: Bytes::new(),
            kind: RequestKind::Read,
            timeouts: crate::wire::Timeouts::default(),
            max_response_bytes: 64 << 20,
            deadline: None,
            route: None,
            auth: None,
            streamed: false,
        };
        let exchange = std::mem::size_of_val(&pooled.send_inner(Box::new(req.clone())));
        let boxed = pooled.send(req);
        let sent = std::mem::size_of_val(&*boxed);
        assert!(
            sent <= exchange + 64,
            "send's future is {sent} bytes for a {exchange}-byte exchange"
        );
        assert!(
            sent <= 1032,
            "send's future is {sent} bytes: more than glibc's per-thread cache serves"
        );
    }
}
