//! `reqwest`: reqwest's default client as it comes (connection pool, HTTP/1.1 with h2 by
//! ALPN, rustls), the choice most Rust applications make.
//!
//! reqwest hides its connections, so this transport measures less: a tower layer on
//! reqwest's connector counts the connections it opens (the transport's own witness), and
//! the timing record has `server_wait` (send -> response headers, which here includes any
//! connection set-up and the request write) and `transfer`; the connection phases are None.
//! Its automatic gzip is off (reqwest's default), so the [`crate::transport::Gzip`] decorator applies
//! to it like to the others.
//!
//! Timeouts are reqwest's own, so that each names its true phase: `connect_timeout` (reported
//! as [`TimeoutPhase::Connect`] with the connect value) and `read_timeout`, which reqwest
//! restarts after every successful read of the body (reported as [`TimeoutPhase::ReadIdle`]
//! with the read-idle value). reqwest sets both per client, not per request, so this
//! transport keeps one client per distinct `(connect, read_idle)` pair (in practice one).
//! One limit of reqwest remains: it starts the read timer when the request is sent and
//! does not expose the bytes of the response head, so the wait for the head (a connect
//! included) is bounded by `read_idle` as a whole; a head trickled over longer than that is
//! cut, where the hyper-based transports restart the timer on every byte. Nothing in
//! reqwest's API lets this transport see those bytes: its connector layers must return
//! reqwest's own sealed connection type, so the socket cannot be wrapped; and without its
//! read timer, a node that never answers would only be cut by the request timeout. (Over
//! HTTP/2, which reqwest negotiates by ALPN, its body timer restarts per DATA frame.)
//!
//! `Timing::reused` comes from the local address of the connection that carried the
//! response (hyper's `HttpInfo`, which reqwest puts in the response's extensions): the first
//! response on an address is on a new connection, a later one on a reused connection.
//! reqwest does not expose its pool's own reuse flag; the address stands in for it, and
//! would take a new connection for a reused one only if the kernel gave a later connection
//! the local port of an earlier, closed one while this transport still remembers it (it
//! remembers the last 4,096 addresses). The connection phases stay None: reqwest does not
//! time them.
//!
//! Proxy errors and a client certificate refused under TLS 1.3 are typed as on the other
//! transports, though reqwest does not type them ([`crate::transport::base::reqwest_faults`]).
//!
//! Redirects are not followed here (`redirect::Policy::none()`; see [`crate::transport::Redirects`]). A
//! read lost because the server closed a pooled connection after reading the request is
//! resent once, as `pooled` does; a write never is.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};

use crate::error::{Error, Result, TimeoutPhase};
use crate::timing::{HttpVersion, Timing};
use crate::transport::connect::tls::TlsOptions;
use crate::transport::http::exchange::{closed_unanswered, proves_unprocessed, USER_AGENT_VALUE};
use crate::transport::{
    BoxFuture, Reply, RequestKind, Transport, TransportStats, WireBytes, WireCount, WireRequest,
    WireResponse,
};

/// Counts every connection reqwest's connector opens.
#[derive(Clone)]
struct CountLayer(Arc<AtomicU64>);

impl<S> tower_layer::Layer<S> for CountLayer {
    type Service = CountService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        CountService {
            inner,
            count: self.0.clone(),
        }
    }
}

#[derive(Clone)]
struct CountService<S> {
    inner: S,
    count: Arc<AtomicU64>,
}

impl<S, R> tower_service::Service<R> for CountService<S>
where
    S: tower_service::Service<R>,
    S::Future: Send + 'static,
    S::Response: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<'static, std::result::Result<S::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<std::result::Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: R) -> Self::Future {
        let fut = self.inner.call(req);
        let count = self.count.clone();
        Box::pin(async move {
            let r = fut.await;
            if r.is_ok() {
                count.fetch_add(1, Ordering::Relaxed);
            }
            r
        })
    }
}

/// True when a hyper error in `e`'s chain says the request was cancelled before it was sent.
fn hyper_canceled(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(h) = err.downcast_ref::<hyper::Error>() {
            return h.is_canceled();
        }
        cur = err.source();
    }
    false
}

/// reqwest's default client behind the [`Transport`] trait.
pub struct ReqwestDefault {
    /// The configured builder, before timeouts (reqwest builders cannot be cloned).
    make: Box<dyn Fn() -> reqwest::ClientBuilder + Send + Sync>,
    /// One client per `(connect, read_idle)`.
    clients: Mutex<Vec<((Duration, Duration), reqwest::Client)>>,
    opened: Arc<AtomicU64>,
    counted: crate::transport::Counted,
    /// Whether a client certificate is configured (for [`Error::ClientCertificate`]).
    has_identity: bool,
    /// What reqwest hides about proxy and client-certificate failures, found out.
    faults: crate::transport::base::reqwest_faults::Faults,
    /// The local addresses of the connections seen so far, for [`Timing::reused`].
    seen: Mutex<Seen>,
}

/// The local addresses of the last connections that carried a response, oldest first.
#[derive(Default)]
struct Seen {
    set: std::collections::HashSet<std::net::SocketAddr>,
    order: std::collections::VecDeque<std::net::SocketAddr>,
}

impl Seen {
    /// How many addresses are remembered.
    const KEEP: usize = 4096;

    /// Whether `addr` carried a response before; remembers it.
    fn reused(&mut self, addr: std::net::SocketAddr) -> bool {
        if self.set.contains(&addr) {
            return true;
        }
        if self.order.len() >= Self::KEEP {
            if let Some(old) = self.order.pop_front() {
                self.set.remove(&old);
            }
        }
        self.order.push_back(addr);
        self.set.insert(addr);
        false
    }
}

impl std::fmt::Debug for ReqwestDefault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReqwestDefault")
            .field("opened", &self.opened.load(Ordering::Relaxed))
            .field("counted", &self.counted)
            .finish_non_exhaustive()
    }
}

impl ReqwestDefault {
    /// Builds reqwest's default client, adding only the configured CAs, the client
    /// certificate (and the explicit opt-out of verification, if the caller asked for it).
    /// reqwest's own reading of the proxy environment is off, as for the other transports:
    /// [`Self::with_proxy`] and [`crate::Proxy::from_env`] opt in.
    pub fn new(tls: &TlsOptions) -> Result<Self> {
        Self::with_proxy(tls, None)
    }

    /// [`Self::new`], going through `proxy` when given (reqwest's proxy support, with this
    /// crate's [`crate::NoProxy`] rules and credentials).
    pub fn with_proxy(tls: &TlsOptions, proxy: Option<&crate::transport::Proxy>) -> Result<Self> {
        let opened = Arc::new(AtomicU64::new(0));
        let identity = tls
            .identity()
            .map(|id| reqwest::Identity::from_pem(id.pem()))
            .transpose()
            .map_err(|_| Error::config("client certificate: reqwest cannot load it"))?;
        let has_identity = identity.is_some();
        let faults = crate::transport::base::reqwest_faults::Faults::new(tls, proxy)?;
        let proxy = proxy.map(crate::transport::connect::proxy::for_reqwest);
        let version = tls.tls_version();
        let mut roots = Vec::new();
        for pem in tls.extra_roots_pem() {
            roots.push(
                reqwest::Certificate::from_pem_bundle(pem)
                    .map_err(|e| Error::config(format!("bad CA PEM: {e}")))?,
            );
        }
        let insecure = tls.is_insecure();
        let count = opened.clone();
        let make = move || {
            let mut builder = reqwest::Client::builder()
                .user_agent(USER_AGENT_VALUE)
                // A 3xx is handed back as it is: `Redirects` decides (reqwest's default policy
                // would turn a redirected POST /update into a GET with an empty body).
                .redirect(reqwest::redirect::Policy::none())
                .connector_layer(CountLayer(count.clone()));
            for certs in &roots {
                builder = builder.tls_certs_merge(certs.clone());
            }
            if insecure {
                builder = builder.tls_danger_accept_invalid_certs(true);
            }
            builder = match version {
                crate::transport::TlsVersion::Tls12 => builder
                    .tls_version_min(reqwest::tls::Version::TLS_1_2)
                    .tls_version_max(reqwest::tls::Version::TLS_1_2),
                crate::transport::TlsVersion::Tls13 => {
                    builder.tls_version_min(reqwest::tls::Version::TLS_1_3)
                }
                _ => builder,
            };
            if let Some(id) = &identity {
                builder = builder.identity(id.clone());
            }
            match &proxy {
                Some(p) => builder.no_proxy().proxy(p.clone()),
                None => builder.no_proxy(),
            }
        };
        let transport = ReqwestDefault {
            make: Box::new(make),
            clients: Mutex::new(Vec::new()),
            opened,
            counted: crate::transport::Counted::new("reqwest", insecure),
            has_identity,
            faults,
            seen: Mutex::new(Seen::default()),
        };
        transport.client(crate::transport::Timeouts::default())?;
        Ok(transport)
    }

    /// The client for these timeouts, built on first use.
    fn client(&self, t: crate::transport::Timeouts) -> Result<reqwest::Client> {
        let key = (t.connect, t.read_idle);
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, c)) = clients.iter().find(|(k, _)| *k == key) {
            return Ok(c.clone());
        }
        let client = (self.make)()
            .connect_timeout(t.connect)
            .read_timeout(t.read_idle)
            .build()
            .map_err(|e| Error::config(format!("cannot build reqwest client: {e}")))?;
        clients.push((key, client.clone()));
        Ok(client)
    }

    async fn send_inner(&self, req: WireRequest) -> Result<WireResponse> {
        let node = crate::redact::node_label(&req.node);
        let start = Instant::now();
        let (mut resp, attempts) = self.answer(&req, &node).await?;
        let headers_at = Instant::now();
        let status = resp.status();
        let version = http_version(&resp);
        let reused = self.reused(&resp);
        let headers = resp.headers().clone();
        let body = read_body(&mut resp, &req, &node).await?;
        let done = Instant::now();
        let timing = Timing {
            server_wait: headers_at - start,
            transfer: done - headers_at,
            bytes_in: body.len() as u64,
            bytes_out: req.body.len() as u64,
            bytes_exact: false,
            decoded_bytes: body.len() as u64,
            http_version: version,
            attempts,
            node,
            reused,
            ..Timing::default()
        };
        Ok(WireResponse {
            status,
            headers,
            body,
            timing,
        })
    }

    /// The streaming path: the head, then the body chunk by chunk as reqwest reads it.
    async fn stream_inner(&self, req: WireRequest) -> Result<crate::transport::StreamingResponse> {
        let node = crate::redact::node_label(&req.node);
        let start = Instant::now();
        let (resp, attempts) = self.answer(&req, &node).await?;
        let version = http_version(&resp);
        let (status, headers) = (resp.status(), resp.headers().clone());
        let timing = Timing {
            reused: self.reused(&resp),
            server_wait: start.elapsed(),
            bytes_out: req.body.len() as u64,
            bytes_exact: false,
            http_version: version,
            attempts,
            node: node.clone(),
            ..Timing::default()
        };
        // The byte counts are the buffered path's: the payload as reqwest hands it over.
        let wire = WireCount::default();
        let state = Some((resp, req, node, wire.clone(), 0u64));
        let chunks = futures::stream::unfold(state, |state| async move {
            let (mut resp, req, node, count, payload) = state?;
            match resp.chunk().await {
                Ok(Some(chunk)) => {
                    let payload = payload + chunk.len() as u64;
                    Some((Ok(chunk), Some((resp, req, node, count, payload))))
                }
                Ok(None) => {
                    count.set(WireBytes {
                        bytes_in: payload,
                        bytes_out: req.body.len() as u64,
                        exact: false,
                    });
                    None
                }
                Err(e) => Some((Err(map_reqwest(&node, &req, e, false)), None)),
            }
        });
        Ok(crate::transport::StreamingResponse::counted(
            status,
            headers,
            Box::pin(chunks),
            timing,
            wire,
        ))
    }

    /// The response head, with the number of attempts it took. The server closed the
    /// connection after reading the request, without answering (a pooled connection its idle
    /// timeout ended): an idempotent read is resent once, as `pooled` does; a write never
    /// is. reqwest's pool has dropped the dead connection.
    async fn answer(&self, req: &WireRequest, node: &str) -> Result<(reqwest::Response, u32)> {
        let mut attempt = 1;
        loop {
            let builder = self
                .client(req.timeouts)?
                .request(req.method.clone(), req.url())
                .headers(req.headers.clone())
                .body(req.body.clone());
            match builder.send().await {
                Ok(resp) => {
                    self.faults.answered(resp.status(), node, req)?;
                    return Ok((resp, attempt));
                }
                Err(e)
                    if attempt == 1
                        && req.kind != RequestKind::Write
                        && !e.is_connect()
                        && closed_unanswered(&e) =>
                {
                    attempt += 1;
                }
                Err(e) => {
                    let e = map_reqwest(node, req, e, self.has_identity);
                    // Boxed: the probe's state stays out of the request's future.
                    return Err(Box::pin(self.faults.explain(node, req, e)).await);
                }
            }
        }
    }

    /// Whether `resp` came over a connection that carried a response before (see the
    /// module docs); false when reqwest does not say which connection it was.
    fn reused(&self, resp: &reqwest::Response) -> bool {
        use hyper_util::client::legacy::connect::HttpInfo;
        let Some(info) = resp.extensions().get::<HttpInfo>() else {
            return false;
        };
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.reused(info.local_addr())
    }
}

/// The HTTP version `resp` came over.
fn http_version(resp: &reqwest::Response) -> HttpVersion {
    if resp.version() == http::Version::HTTP_2 {
        HttpVersion::Http2
    } else {
        HttpVersion::Http11
    }
}

/// The whole body of `resp`, refused as [`Error::TooLarge`] once it is over the request's
/// limit (by its Content-Length, or as it arrives).
async fn read_body(resp: &mut reqwest::Response, req: &WireRequest, node: &str) -> Result<Bytes> {
    let limit = req.max_response_bytes;
    let too_large = || Error::TooLarge {
        node: node.into(),
        limit,
    };
    if resp.content_length().is_some_and(|l| l > limit) {
        return Err(too_large());
    }
    let mut buf = BytesMut::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| map_reqwest(node, req, e, false))?
    {
        if (buf.len() + chunk.len()) as u64 > limit {
            return Err(too_large());
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf.freeze())
}

/// A reqwest error as this crate's: a timeout of the phase it names, a connect failure, or
/// a broken exchange (with its whole cause chain as the message).
fn map_reqwest(node: &str, req: &WireRequest, e: reqwest::Error, has_identity: bool) -> Error {
    // The node is in the error already; the URL (with its query) is not repeated.
    let e = e.without_url();
    let node = node.to_string();
    #[cfg(feature = "rustls-base")]
    if let Some(refused) =
        crate::transport::connect::client_auth::refusal(&node, &e, Some(has_identity))
    {
        return refused;
    }
    #[cfg(not(feature = "rustls-base"))]
    let _ = has_identity;
    let timeout = |phase, after| Error::Timeout {
        node: node.clone().into(),
        phase,
        after,
    };
    if e.is_timeout() && e.is_connect() {
        return timeout(TimeoutPhase::Connect, req.timeouts.connect);
    } else if e.is_timeout() {
        return timeout(TimeoutPhase::ReadIdle, req.timeouts.read_idle);
    }
    let mut message = e.to_string();
    let mut src = std::error::Error::source(&e);
    while let Some(s) = src {
        message.push_str(": ");
        message.push_str(&s.to_string());
        src = s.source();
    }
    if e.is_connect() {
        Error::Connect {
            node: node.into(),
            source: crate::redact::redact_io(std::io::Error::other(message)),
        }
    } else {
        Error::Io {
            node: node.into(),
            message: message.into(),
            // hyper cancelled it before writing, or an HTTP/2 server refused it.
            not_sent: hyper_canceled(&e) || proves_unprocessed(&e),
        }
    }
}

impl Transport for ReqwestDefault {
    fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
        self.counted.send_either(
            req,
            false,
            |req| self.send_inner(req),
            |req| self.stream_inner(req),
        )
    }

    fn name(&self) -> String {
        self.counted.name()
    }

    fn stats(&self) -> TransportStats {
        self.counted.stats(self.opened.load(Ordering::Relaxed))
    }
}
