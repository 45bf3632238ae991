//! `http2`: one HTTP/2 connection per host, multiplexing every request as a stream.
//!
//! Over https the connection negotiates `h2` by ALPN (Solr's Jetty offers h2 and
//! http/1.1); over plain http it speaks h2c with prior knowledge (Jetty accepts the HTTP/2
//! preface on its HTTP/1.1 port). Concurrent requests share the one connection; the first
//! request opens it while the others wait (their wait is the `blocked` phase). Each node has
//! its own connection slot and lock: a node that is slow to connect delays only its own
//! requests, never those to other nodes.
//!
//! A read lost on a reused connection the server closed is resent once on a new connection,
//! as `pooled` does. A stream the server provably did not process (a GOAWAY whose
//! last-stream-id is below it, or `REFUSED_STREAM`) is `Error::Io { not_sent: true }`, so a
//! write in that case is resent once too; any other broken write is returned.
//!
//! Read-idle: a stream's idle clock restarts on each of its frames and on every byte of a
//! frame still arriving on the connection, so a frame that arrives slowly (a 16 KB DATA
//! frame on a slow link) never trips it while bytes come; the complete frames of other
//! streams do not keep a stalled stream alive (see `h2_clock`).
//!
//! Timing: on an HTTP/2 socket the client writes control frames (SETTINGS ACK,
//! WINDOW_UPDATE, PING ACK) while responses are pending, so socket stamps cannot mark the
//! end of one request. `write` is therefore zero (the request is handed to its stream at
//! once), `server_wait` runs to the decoded response headers and `transfer` to the last body
//! byte. Byte counts are exact socket counts while the request is alone on the connection;
//! when streams overlap they are payload bytes (`Timing::bytes_exact == false`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::Full;
use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::{TokioExecutor, TokioIo};

use crate::error::{Error, Result};
use crate::timing::{HttpVersion, Timing};
use crate::transport::connect::connector::{ConnMeter, Connector, SetupTiming};
use crate::transport::connect::proxy::Proxy;
use crate::transport::connect::tls::TlsOptions;
use crate::transport::http::exchange::{
    build_request, count_bytes, map_hyper, read_body, ConnTimer, Head, Instants, Target, Watch,
};
use crate::transport::http::h2::h2_head;
use crate::transport::http::h2_clock::{FrameClock, FrameEdges};
use crate::transport::http::incoming::IncomingBody;
use crate::transport::{
    RequestKind, StreamingResponse, WireBytes, WireCount, WireRequest, WireResponse,
};

/// The connection's read buffer. hyper's h2 codec reads one frame's worth at a time (Jetty
/// sends a streamed body in 8 KB DATA frames): a syscall and a wake-up per frame. Below it
/// each read takes what the socket holds, up to this, and the codec's small reads are served
/// from memory. It sits above [`FrameEdges`], so the frame clock still sees every byte as
/// the socket delivered it.
const READ_BUF: usize = 64 * 1024;

#[derive(Clone)]
struct H2Conn {
    sender: SendRequest<Full<Bytes>>,
    meter: Arc<ConnMeter>,
    /// The frame boundaries of what the server sent, for the streams' read-idle clocks.
    clock: Arc<FrameClock>,
    inflight: Arc<AtomicU64>,
    /// How the connection's task ended, once it has: the error that closed it, if any.
    ended: tokio::sync::watch::Receiver<Option<Arc<hyper::Error>>>,
    /// h2c: HTTP/2 over plain `http://` (prior knowledge).
    plain: bool,
}

impl H2Conn {
    /// `e` as the connection's own end explains it. A request on a connection that a TLS
    /// alert closed (a TLS 1.3 server refuses a missing client certificate after the
    /// handshake) sees only "connection closed": the alert is in the connection task's
    /// error, read once the task has ended, or, when the connection failed before any
    /// stream could carry it, on the socket's meter.
    ///
    /// A node that answered the HTTP/2 preface with something other than HTTP/2 (an
    /// HTTP/1.x server that does not speak h2c, a TLS server behind an `http://` URL) is
    /// told by the first bytes it sent ([`crate::hint::not_h2`]).
    /// `e`, a read-idle timeout of a stream on an h2c connection whose server answered
    /// something other than HTTP/2 (and closed), as the broken connection it is: a stream
    /// was seen (rarely) waiting on such a connection until its read-idle limit.
    fn never_h2(&self, e: Error) -> Error {
        match e {
            Error::Timeout {
                node,
                phase: crate::error::TimeoutPhase::ReadIdle,
                after,
            } if crate::hint::not_h2(self.meter.first_bytes()).is_some() => Error::Io {
                node,
                message: format!("no HTTP/2 answer within the read-idle limit ({after:?})").into(),
                not_sent: false,
            },
            e => e,
        }
    }

    async fn explain(&self, node: &str, e: Error) -> Error {
        let e = if self.plain {
            crate::hint::h2_answer(self.never_h2(e), self.meter.first_bytes())
        } else {
            e
        };
        // A stream was seen (once in 30 tries, on a multi-threaded runtime) waiting on a
        // connection the server's alert had closed until its read-idle timeout: the alert
        // noted on the connection explains that timeout too.
        let idle = matches!(
            e,
            Error::Timeout {
                phase: crate::error::TimeoutPhase::ReadIdle,
                ..
            }
        );
        if !matches!(e, Error::Io { .. }) && !idle {
            return e;
        }
        if let Some(alert) = self.meter.cert_alert() {
            return crate::transport::connect::client_auth::refusal_named(node, alert);
        }
        if idle {
            return e;
        }
        let mut ended = self.ended.clone();
        // A closed sender: the task is ending, and this waits for its last word only, not
        // long (a connection going away may still finish other streams first). An open
        // one: on a multi-threaded runtime the stream's error can come before the task
        // has closed the connection (and read the alert), so it is given a moment.
        let ms = if self.sender.is_closed() { 250 } else { 50 };
        let wait = ended.wait_for(Option::is_some);
        let _ = tokio::time::timeout(std::time::Duration::from_millis(ms), wait).await;
        let cause = ended.borrow().clone();
        #[cfg(feature = "rustls-base")]
        if let Some(refused) = cause
            .as_deref()
            .and_then(|c| crate::transport::connect::client_auth::refusal(node, c, None))
        {
            return refused;
        }
        let _ = cause;
        match self.meter.cert_alert() {
            Some(alert) => crate::transport::connect::client_auth::refusal_named(node, alert),
            None => e,
        }
    }
}

/// One node's connection slot. Each node has its own lock, held across that node's connect
/// and handshake only: requests to the node wait for its one connection (the `blocked`
/// phase), requests to other nodes do not.
#[derive(Default)]
struct Slot {
    conn: tokio::sync::Mutex<Option<H2Conn>>,
}

/// The multiplexing HTTP/2 transport.
pub struct Http2 {
    connector: Connector,
    /// Node (`scheme://host:port`) -> its slot. This lock is only held to find the slot.
    slots: std::sync::Mutex<HashMap<String, Arc<Slot>>>,
    counted: crate::transport::Counted,
}

impl std::fmt::Debug for Http2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http2")
            .field("connector", &self.connector)
            .finish()
    }
}

impl Http2 {
    /// Builds the transport.
    pub fn new(tls: &TlsOptions) -> Result<Self> {
        Self::with_proxy(tls, None)
    }

    /// [`Self::new`], going through `proxy` when given: every node, `http://` (h2c) as well
    /// as `https://`, through a `CONNECT` tunnel (HTTP/2 cannot be forwarded in absolute form).
    pub fn with_proxy(tls: &TlsOptions, proxy: Option<&Proxy>) -> Result<Self> {
        Ok(Http2 {
            connector: Connector::new(tls, &[b"h2"])?.via(proxy, true),
            slots: std::sync::Mutex::new(HashMap::new()),
            counted: crate::transport::Counted::new("http2", tls.is_insecure()),
        })
    }

    fn slot(&self, req: &WireRequest) -> Arc<Slot> {
        let key = format!("{}://{}", req.node.scheme(), req.authority());
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.entry(key).or_default().clone()
    }

    async fn connection(
        &self,
        req: &WireRequest,
        node: &str,
    ) -> Result<(H2Conn, Option<SetupTiming>)> {
        let slot = self.slot(req);
        let mut current = slot.conn.lock().await;
        if let Some(c) = current.as_ref() {
            if !c.sender.is_closed() {
                return Ok((c.clone(), None));
            }
            *current = None;
        }
        let conn = self
            .connector
            .connect(&req.node, req.timeouts.connect)
            .await?;
        if req.node.scheme() == "https" && !conn.h2 {
            return Err(Error::Io {
                node: node.into(),
                message: "server did not negotiate h2 by ALPN".into(),
                not_sent: true,
            });
        }
        let clock = Arc::new(FrameClock::new(conn.meter.clone()));
        // Reads of up to READ_BUF bytes above the frame clock: the h2 codec asks for one
        // frame's worth at a time (8 KB: Jetty's DATA frames of an export), a syscall each.
        let edges = FrameEdges::new(conn.io, clock.clone());
        let io = TokioIo::new(tokio::io::BufReader::with_capacity(READ_BUF, edges));
        let (sender, connection) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
            .await
            .map_err(|e| map_hyper(node, e))?;
        let (ended_tx, ended) = tokio::sync::watch::channel(None);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                let _ = ended_tx.send(Some(Arc::new(e)));
            }
        });
        let c = H2Conn {
            sender,
            meter: conn.meter,
            clock,
            inflight: Arc::new(AtomicU64::new(0)),
            ended,
            plain: req.node.scheme() == "http",
        };
        *current = Some(c.clone());
        Ok((c, Some(conn.setup)))
    }

    /// Forgets `dead` (if it is still the node's connection) so the next request opens a
    /// new one.
    async fn evict(&self, req: &WireRequest, dead: &H2Conn) {
        let slot = self.slot(req);
        let mut current = slot.conn.lock().await;
        if current
            .as_ref()
            .is_some_and(|c| c.meter.id == dead.meter.id)
        {
            *current = None;
        }
    }

    /// The buffered path: the exchange up to the head ([`Self::head`]), then the body, on
    /// one timer of the request's own.
    async fn send_inner(&self, req: WireRequest) -> Result<WireResponse> {
        let node = crate::redact::node_label(&req.node);
        let start = Instant::now();
        let idle = req.timeouts.read_idle;
        let far = tokio::time::Instant::from_std(crate::transport::far_or(start, idle));
        let mut timer = std::pin::pin!(tokio::time::sleep_until(far));
        let head = self.head(&req, &node, timer.as_mut()).await?;
        let (conn, headers_at) = (&head.conn, head.resp.1);
        let watch = Watch::on(&*conn.clock, timer, idle, headers_at, None);
        let result = read_body(&node, &req, watch, head.resp.0, true).await;
        let done = Instant::now();
        let alone = head.alone_at_start && conn.inflight.load(Ordering::SeqCst) == 1;
        drop(head.inflight);
        let resp = match result {
            Ok(r) => r,
            Err(e) => return Err(self.failed(&req, conn, &node, e).await),
        };
        // Stream-level stamps: on an HTTP/2 socket the client also writes control frames
        // (SETTINGS ACK, WINDOW_UPDATE, PING ACK) while a response is pending, so socket
        // stamps cannot tell when this request's last byte left.
        let stamps = Instants {
            start,
            conn_ready: head.conn_ready,
            write_done: head.conn_ready,
            first_byte: headers_at,
            done,
        };
        let mut timing = stamps.into_timing(head.setup, HttpVersion::Http2, &node);
        if alone {
            count_bytes(&mut timing, &conn.meter, head.before, resp.body.len());
        } else {
            estimate_bytes(&mut timing, conn.meter.id, resp.body.len(), req.body.len());
        }
        timing.attempts = head.attempt;
        Ok(WireResponse {
            status: resp.status,
            headers: resp.headers,
            body: resp.body,
            timing,
        })
    }

    /// The exchange up to the response head, what the buffered and the streaming path
    /// share: the node's connection (opened if needed), the stream counted in flight, the
    /// request sent, the head read under `timer`. A request lost on a reused connection the
    /// server closed (or refused by GOAWAY/REFUSED_STREAM, `not_sent`) before the head came
    /// is resent once on a new connection if it is a read, or a write that certainly was
    /// not sent (as `pooled` does).
    async fn head(
        &self,
        req: &WireRequest,
        node: &str,
        mut timer: std::pin::Pin<&mut tokio::time::Sleep>,
    ) -> Result<Headed> {
        let mut attempt = 1;
        loop {
            let (mut conn, setup) = self.connection(req, node).await?;
            let conn_ready = Instant::now();
            let alone_at_start = conn.inflight.fetch_add(1, Ordering::SeqCst) == 0;
            let inflight = InFlight(conn.inflight.clone());
            let before = if setup.is_some() {
                (0, 0)
            } else {
                conn.meter.bytes()
            };
            conn.meter.requests.fetch_add(1, Ordering::Relaxed);
            let http_req = build_request(req, Target::Absolute)?;
            let sent = conn.sender.send_request(http_req);
            let resp = match h2_head(node, req, &conn.clock, timer.as_mut(), sent).await {
                Ok(r) => r,
                Err(e) => {
                    drop(inflight);
                    let e = self.failed(req, &conn, node, e).await;
                    let stale = setup.is_none() && matches!(e, Error::Io { .. });
                    let retry_ok = req.kind != RequestKind::Write || e.is_not_sent();
                    if stale && retry_ok && attempt == 1 {
                        attempt += 1;
                        continue;
                    }
                    return Err(e);
                }
            };
            return Ok(Headed {
                resp,
                conn,
                setup,
                conn_ready,
                inflight,
                alone_at_start,
                before,
                attempt,
            });
        }
    }

    /// `e`, an exchange on `conn` failed, as the connection's end explains it
    /// ([`H2Conn::explain`]); a broken connection is forgotten, so the next request opens a
    /// new one.
    async fn failed(&self, req: &WireRequest, conn: &H2Conn, node: &str, e: Error) -> Error {
        let e = conn.explain(node, e).await;
        if matches!(e, Error::Io { .. } | Error::ClientCertificate { .. }) {
            self.evict(req, conn).await;
        }
        e
    }

    /// The streaming path: the exchange up to the response head ([`Self::head`]), on the
    /// timer the body's reader keeps; the stream counts as in flight on its connection
    /// until its body has been read (its byte counts taken then) or dropped.
    async fn stream_inner(&self, req: WireRequest) -> Result<StreamingResponse> {
        let node = crate::redact::node_label(&req.node);
        let start = Instant::now();
        let mut timer = ConnTimer::new();
        let head = self.head(&req, &node, timer.here()).await?;
        let (resp, headers_at) = head.resp;
        let stamps = Instants {
            start,
            conn_ready: head.conn_ready,
            write_done: head.conn_ready,
            first_byte: headers_at,
            done: headers_at,
        };
        let mut timing = stamps.into_timing(head.setup, HttpVersion::Http2, &node);
        timing.connection_id = head.conn.meter.id;
        timing.bytes_exact = false;
        timing.attempts = head.attempt;
        let (parts, body) = resp.into_parts();
        let idle = req.timeouts.read_idle;
        let wire = WireCount::default();
        let count = wire.clone();
        let (meter, inflight, before) = (head.conn.meter.clone(), head.inflight, head.before);
        let (alone_at_start, sent) = (head.alone_at_start, req.body.len() as u64);
        let body = IncomingBody::new(body, head.conn.clock.clone(), timer, idle, node)
            .frames_restart()
            .on_end(Box::new(move |_, payload| {
                // As the buffered path: socket counts when the stream was alone throughout,
                // else its payload.
                let alone = alone_at_start && inflight.0.load(Ordering::SeqCst) == 1;
                count.set(if alone {
                    let (bytes_in, bytes_out) = meter.bytes();
                    WireBytes {
                        bytes_in: bytes_in - before.0,
                        bytes_out: bytes_out - before.1,
                        exact: true,
                    }
                } else {
                    WireBytes {
                        bytes_in: payload,
                        bytes_out: sent,
                        exact: false,
                    }
                });
                drop(inflight);
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

/// A request's exchange up to the response head ([`Http2::head`]).
struct Headed {
    resp: Head,
    conn: H2Conn,
    /// The new connection's set-up, None on a reused one.
    setup: Option<SetupTiming>,
    conn_ready: Instant,
    /// The stream, counted in flight until this is dropped.
    inflight: InFlight,
    /// No other stream was in flight when this one started.
    alone_at_start: bool,
    /// The connection's byte counters when the request started (zero on a new one).
    before: (u64, u64),
    attempt: u32,
}

/// Counts a stream in flight on its connection until dropped.
struct InFlight(Arc<AtomicU64>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The byte counts of a request that shared its connection with other streams: the
/// socket's counters are not its own, so the bodies' sizes stand in (`bytes_exact` false).
fn estimate_bytes(timing: &mut Timing, connection_id: u64, body_in: usize, body_out: usize) {
    timing.connection_id = connection_id;
    timing.bytes_exact = false;
    timing.bytes_in = body_in as u64;
    timing.bytes_out = body_out as u64;
    timing.decoded_bytes = body_in as u64;
}

crate::transport::connector_base!(Http2);
