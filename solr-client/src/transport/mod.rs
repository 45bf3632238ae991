//! How bytes travel: the [`Transport`] trait and one file per transport or decorator.
//!
//! | name      | what it does                                                         |
//! |-----------|----------------------------------------------------------------------|
//! | `fresh`   | a new TCP (+TLS) connection per request, closed afterwards (baseline) |
//! | `pooled`  | HTTP/1.1 keep-alive pool: idle connections are reused               |
//! | `http2`   | one HTTP/2 connection (ALPN h2, or h2c prior knowledge) multiplexing all requests |
//! | `reqwest` | reqwest's default client as it comes                                 |
//! | `+gzip`   | decorator: `Accept-Encoding: gzip`, timed decompression, optional gzip request bodies |
//! | `+routing` | decorator over one transport and many nodes: writes to the leader, reads to replicas, failover, Retry-After, SolrCloud shard leaders ([`Routing`]) |
//! | `+redirect` | decorator the client always applies at the edge: a 3xx on a write is an error, reads follow only on opt-in ([`Redirects`]) |
//! | `+retry`  | decorator: retries 429/503 honouring `Retry-After` (jittered backoff, attempt budget) ([`Retry`]) |
//!
//! Transports know nothing about Solr except whether a request is a read or a write
//! ([`RequestKind`]). All of them measure the phases documented in [`crate::timing`].

mod body;
mod client_auth;
mod cloud;
mod connector;
mod decorator;
mod fresh;
#[cfg(feature = "gzip")]
mod gzip;
mod h1;
#[cfg(feature = "http2")]
mod h2_clock;
#[cfg(feature = "http2")]
mod http2;
mod identity;
mod incoming;
mod no_proxy;
mod pooled;
mod proxy;
mod redirect;
#[cfg(feature = "reqwest")]
mod reqwest_default;
#[cfg(feature = "reqwest")]
mod reqwest_faults;
mod retry;
mod routing;
mod socks;
pub(crate) mod span;
mod tls;
#[cfg(feature = "rustls-base")]
mod tls_provider;
#[cfg(feature = "opentelemetry")]
mod trace_context;
mod tunnel;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode};
use url::Url;

pub use body::{BodyStream, ChunkStream, StreamingResponse};
pub(crate) use body::{WireBytes, WireCount};
pub use client_auth::ClientCertProblem;
pub use cloud::{composite_id_hash, murmurhash3_x86_32, HashRange};
pub use cloud::{ClusterView, ReplicaInfo, ReplicaType, ShardInfo};
pub use connector::Connector;
pub use decorator::Decorator;
pub use fresh::Fresh;
#[cfg(feature = "gzip")]
pub use gzip::{gunzip_bytes, gzip_bytes, Gzip};
#[cfg(feature = "http2")]
#[cfg_attr(docsrs, doc(cfg(feature = "http2")))]
pub use http2::Http2;
pub use identity::Identity;
pub use no_proxy::NoProxy;
pub use pooled::{Pooled, PooledConfig};
pub use proxy::Proxy;
pub use redirect::Redirects;
#[cfg(feature = "reqwest")]
#[cfg_attr(docsrs, doc(cfg(feature = "reqwest")))]
pub use reqwest_default::ReqwestDefault;
pub use retry::{retries_status, retry_after, Retry, RetryPolicy};
pub(crate) use routing::node_key as routing_key;
pub use routing::{
    HealthPolicy, NodeStats, Policy, ReadPreference, ReplicaPreference, Routing, RoutingBuilder,
};
pub use tls::{TlsOptions, TlsVersion};

use crate::error::Result;
use crate::timing::Timing;

/// A boxed, sendable future, as returned by [`Transport::send`].
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Whether a request reads or changes the index; routing and retry policies use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequestKind {
    /// A search or any other request that does not change state: safe to retry anywhere.
    Read,
    /// An update: sent to the leader, retried only when it certainly was not sent.
    Write,
    /// Admin requests (ping, cluster status): idempotent, any node.
    Admin,
}

/// Timeouts of a request. Every transport honours all three, and every
/// [`Error::Timeout`](crate::Error::Timeout) names the phase that fired and the value
/// configured here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Timeouts {
    /// DNS + TCP connect + TLS handshake, per connection opened. Default 10 s.
    pub connect: Duration,
    /// Longest gap without a byte while waiting for the response: the timer restarts on
    /// every byte received, in the header phase as in the body phase, so a slow but
    /// steady response is never cut by it, only by [`Timeouts::request`]. (HTTP/2: every
    /// byte of the request's stream, and every byte of a frame still arriving on the
    /// shared connection, but not the complete frames of other streams; reqwest: every
    /// body read, the head as a whole, see `ReqwestDefault`.) Default 30 s.
    pub read_idle: Duration,
    /// A deadline for the whole call, from the moment the outermost transport or decorator
    /// sees the request to the last body byte, every retry, backoff wait and failover of
    /// [`Retry`] and [`Routing`] included ([`WireRequest::deadline`]). Default 60 s.
    pub request: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts::DEFAULT
    }
}

/// Setters, for code outside this crate (the struct is `#[non_exhaustive]`: build it
/// from [`Timeouts::default()`] and change what differs).
impl Timeouts {
    /// The defaults (connect 10 s, read idle 30 s, request 60 s), usable in a `const`.
    pub const DEFAULT: Timeouts = Timeouts {
        connect: Duration::from_secs(10),
        read_idle: Duration::from_secs(30),
        request: Duration::from_secs(60),
    };

    /// Sets [`Timeouts::connect`]; see there for the default.
    pub const fn connect(mut self, v: Duration) -> Self {
        self.connect = v;
        self
    }
    /// Sets [`Timeouts::read_idle`]; see there for the default.
    pub const fn read_idle(mut self, v: Duration) -> Self {
        self.read_idle = v;
        self
    }
    /// Sets [`Timeouts::request`]; see there for the default.
    pub const fn request(mut self, v: Duration) -> Self {
        self.request = v;
        self
    }
}

/// A request on the wire, before any transport touches it.
///
/// Its `Debug` output never shows a credential: the node URL is printed without user info,
/// and the values of `Authorization`, `Proxy-Authorization` and `Cookie` headers (and of any
/// header marked sensitive) as `***`.
#[derive(Clone)]
pub struct WireRequest {
    /// HTTP method.
    pub method: Method,
    /// The node's base URL, e.g. `http://127.0.0.1:8983/solr`.
    pub node: Url,
    /// Path below the node, e.g. `bench/select`.
    pub path: String,
    /// Query parameters, in order (repeats allowed).
    pub query: Vec<(String, String)>,
    /// Extra headers (Content-Type for bodies, Accept-Encoding from the gzip decorator...).
    pub headers: HeaderMap,
    /// The body (empty for GET).
    pub body: Bytes,
    /// Read, write or admin.
    pub kind: RequestKind,
    /// Timeouts for this request.
    pub timeouts: Timeouts,
    /// Largest response body accepted, wire or decoded, in bytes.
    pub max_response_bytes: u64,
    /// When the whole call must be over. `None` until the outermost transport or decorator
    /// sees the request and sets it to `now + timeouts.request`; every layer below (and every
    /// retry or failover attempt, which clones the request) keeps it, so the request timeout
    /// bounds the whole call, not each attempt.
    pub deadline: Option<Instant>,
    /// Which shard an update belongs to, set by the client from the document ids it knew
    /// before encoding the body (any format). Routing decorators read this, never the body.
    /// None for requests Solr distributes itself (reads, commits, delete-by-query); a
    /// per-shard read names its replicas ([`RouteKey::Replicas`]).
    pub route: Option<RouteKey>,
}

impl fmt::Debug for WireRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Headers<'a>(&'a HeaderMap);
        impl fmt::Debug for Headers<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let secret = |name: &http::HeaderName, v: &http::HeaderValue| {
                    v.is_sensitive()
                        || name == http::header::AUTHORIZATION
                        || name == http::header::PROXY_AUTHORIZATION
                        || name == http::header::COOKIE
                };
                f.debug_map()
                    .entries(self.0.iter().map(|(k, v)| {
                        let shown: &dyn fmt::Debug = if secret(k, v) { &"***" } else { v };
                        (k, shown)
                    }))
                    .finish()
            }
        }
        f.debug_struct("WireRequest")
            .field("method", &self.method)
            .field("node", &crate::redact::node_label(&self.node))
            .field("path", &self.path)
            .field("query", &self.query)
            .field("headers", &Headers(&self.headers))
            .field("body", &self.body)
            .field("kind", &self.kind)
            .field("timeouts", &self.timeouts)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("deadline", &self.deadline)
            .field("route", &self.route)
            .finish()
    }
}

/// The route of an update, known before its body was encoded (see [`WireRequest::route`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RouteKey {
    /// The route ids (the uniqueKey `id`, composite ids `a!b` included) of the documents
    /// the request adds or deletes, in order. A router sends the request to the leader of
    /// the shard holding most of them; Solr forwards the rest.
    Ids(Vec<String>),
    /// A shard by name, as grouped by [`Transport::shard_groups`]: every document of the
    /// request belongs to it.
    Shard(String),
    /// A read pinned to these replicas of one shard (a per-shard `distrib=false` read such
    /// as one part of a cloud `/export`): a router tries them in this order (those of nodes
    /// marked down last), each on its node with its core in place of the path's first
    /// segment, failing over to the next as for any read. A transport without a router
    /// ignores it.
    Replicas(Vec<ReplicaAddr>),
}

/// One replica a [`RouteKey::Replicas`] read may go to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaAddr {
    /// The base URL of the node holding it (`http://host:8983/solr`).
    pub base_url: url::Url,
    /// Its core name (`bench_shard1_replica_n1`).
    pub core: String,
}

/// The documents of one update that belong to one shard (see [`Transport::shard_groups`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardGroup {
    /// The shard name, e.g. `shard1`.
    pub shard: String,
    /// Positions of its documents in the ids given to [`Transport::shard_groups`],
    /// ascending.
    pub members: Vec<usize>,
}

impl WireRequest {
    /// Sets [`WireRequest::deadline`] to `now + timeouts.request` unless it is set already,
    /// and returns it.
    pub fn start_deadline(&mut self) -> Instant {
        let request = self.timeouts.request;
        *self
            .deadline
            .get_or_insert_with(|| far_or(Instant::now(), request))
    }

    /// The request timeout error for this request: phase `Request`, the configured value.
    pub(crate) fn request_timeout(&self) -> crate::Error {
        crate::Error::Timeout {
            node: crate::redact::node_label(&self.node),
            phase: crate::TimeoutPhase::Request,
            after: self.timeouts.request,
        }
    }

    /// The full URL of the request on its node.
    pub fn url(&self) -> Url {
        let mut url = self.node.clone();
        {
            let base = url.path().trim_end_matches('/').to_string();
            url.set_path(&format!("{}/{}", base, self.path.trim_start_matches('/')));
        }
        if !self.query.is_empty() {
            url.query_pairs_mut().extend_pairs(self.query.iter());
        }
        url
    }

    /// Origin-form request target (`/solr/bench/select?q=...`): the path and query of
    /// [`Self::url`].
    pub fn path_and_query(&self) -> String {
        // The common case (a node URL without a query, a path of plain segments) is written
        // straight into one string: the same bytes `url()` gives, without a copy of the node
        // URL, a re-parse of its path and a second copy of the query.
        if self.node.query().is_none() && plain_path(&self.path) {
            let base = self.node.path().trim_end_matches('/');
            let path = self.path.trim_start_matches('/');
            // Room for the query as encoded, a quarter over its raw length (escapes), so
            // the string is not grown while it is written.
            let raw: usize = self.query.iter().map(|(k, v)| k.len() + v.len() + 2).sum();
            let mut out = String::with_capacity(base.len() + path.len() + 2 + raw + raw / 4);
            out.push_str(base);
            out.push('/');
            out.push_str(path);
            if !self.query.is_empty() {
                out.push('?');
                let start = out.len();
                out = url::form_urlencoded::Serializer::for_suffix(out, start)
                    .extend_pairs(self.query.iter())
                    .finish();
            }
            return out;
        }
        let url = self.url();
        match url.query() {
            Some(q) => format!("{}?{}", url.path(), q),
            None => url.path().to_string(),
        }
    }

    /// `host:port` for the Host header.
    pub(crate) fn authority(&self) -> String {
        let host = self.node.host_str().unwrap_or("localhost");
        match self.node.port() {
            Some(p) => format!("{host}:{p}"),
            None => host.to_string(),
        }
    }
}

/// True when `path` is made of characters a URL path keeps as they are and has no `.` or
/// `..` segment (which [`Url::set_path`] would resolve): appending it to a node's path gives
/// the bytes `set_path` would.
fn plain_path(path: &str) -> bool {
    path.bytes().all(|b| {
        b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'/' | b'-'
                    | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'@'
            )
    }) && path.split('/').all(|seg| seg != "." && seg != "..")
}

/// A response as the transport delivered it: status, headers, the whole body (decompressed
/// when a decorator did so) and the timing record.
#[derive(Debug, Clone)]
pub struct WireResponse {
    /// HTTP status.
    pub status: StatusCode,
    /// Response headers.
    pub headers: HeaderMap,
    /// The body.
    pub body: Bytes,
    /// Phase timings, bytes, connection identity.
    pub timing: Timing,
}

/// Counters every transport keeps about itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TransportStats {
    /// Connections this transport opened (its own connector count).
    pub connections_opened: u64,
    /// Requests sent.
    pub requests: u64,
}

/// The seam between "what Solr request" and "how bytes travel". Object-safe: the client
/// holds an `Arc<dyn Transport>`, so a transport can be picked at run time by name.
pub trait Transport: Send + Sync + fmt::Debug {
    /// Sends one request and reads the whole response.
    fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<WireResponse>>;
    /// Sends one request and returns as soon as the response head has arrived, with the
    /// body to be read as it arrives ([`StreamingResponse`]; see there for the limits that
    /// apply to it). The default reads the whole body with [`Self::send`] and hands it out
    /// as one chunk, so a custom transport keeps working; the built-in transports read
    /// incrementally (a pooled connection goes back to its pool only once its body has been
    /// read to the end).
    fn send_streaming(&self, req: WireRequest) -> BoxFuture<'_, Result<StreamingResponse>> {
        let sent = self.send(req);
        Box::pin(async move { sent.await.map(StreamingResponse::buffered) })
    }
    /// A short name for reports, e.g. `pooled+gzip`.
    fn name(&self) -> String;
    /// This transport's own counters.
    fn stats(&self) -> TransportStats;
    /// Groups the documents of an update by the shard they belong to, given their route ids
    /// in order, so that the client sends one request per shard, each marked
    /// [`RouteKey::Shard`]. `req` is the update about to be sent (its headers are used if the
    /// transport must first load the cluster state). `Ok(None)`, the default, means no
    /// opinion: the client sends one request. Decorators forward it to their inner transport
    /// (every [`Decorator`] does, through its blanket impl).
    fn shard_groups<'a>(
        &'a self,
        req: &'a WireRequest,
        ids: &'a [String],
    ) -> BoxFuture<'a, Result<Option<Vec<ShardGroup>>>> {
        let _ = (req, ids);
        Box::pin(async { Ok(None) })
    }
}

/// What the four base transports share: their name, whether certificate checks are off (it
/// shows in the name, so no report hides it), and the count of requests sent.
#[derive(Debug)]
pub(crate) struct Counted {
    label: &'static str,
    insecure: bool,
    requests: std::sync::atomic::AtomicU64,
}

impl Counted {
    pub(crate) fn new(label: &'static str, insecure: bool) -> Self {
        Self {
            label,
            insecure,
            requests: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// What every request starts with: it is counted and its deadline set
    /// ([`WireRequest::start_deadline`]); with whether it goes over https (for the scheme
    /// hint).
    fn start(&self, req: &mut WireRequest) -> (Instant, bool) {
        self.requests
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let deadline = req.start_deadline();
        (deadline, req.node.scheme() == "https")
    }

    /// Counts `req` and runs `inner(req)` until its deadline ([`WireRequest::start_deadline`]).
    ///
    /// The exchange's future is made inside the one boxed future and moved once, into the
    /// deadline's `Timeout`: each `async fn` layer that takes a made future as an argument
    /// holds it twice (the argument and the awaited value), so three such layers here made
    /// a 31 KB future (debug build) that was copied layer by layer on every request.
    pub(crate) fn send<'a, F>(
        &self,
        mut req: WireRequest,
        inner: impl FnOnce(WireRequest) -> F + Send + 'a,
    ) -> BoxFuture<'a, Result<WireResponse>>
    where
        F: Future<Output = Result<WireResponse>> + Send + 'a,
    {
        let (deadline, https) = self.start(&mut req);
        let attempt = span::Attempt::new(&mut req);
        let deadline = tokio::time::Instant::from_std(deadline);
        let timeout = req.request_timeout();
        Box::pin(attempt.run(async move {
            tokio::time::timeout_at(deadline, inner(req))
                .await
                .unwrap_or(Err(timeout))
                .map_err(|e| crate::hint::scheme_hint(https, e))
        }))
    }

    /// Like [`Self::send`], for a transport that enforces the call's deadline itself
    /// ([`WireRequest::deadline`], set here): no timer of its own per request, and no
    /// wrapper future around the exchange beyond the scheme hint (a `map`, which holds the
    /// exchange once). The pooled transport checks the deadline on the connection's timer,
    /// which stays registered between requests: a new timer per request takes the timer
    /// wheel's lock twice, and the wrapper made the boxed future larger than glibc's
    /// per-thread cache serves (1,032 bytes), so every request paid for a large allocation.
    pub(crate) fn send_own_deadline<'a, F>(
        &self,
        mut req: WireRequest,
        inner: impl FnOnce(WireRequest) -> F + Send + 'a,
    ) -> BoxFuture<'a, Result<WireResponse>>
    where
        F: Future<Output = Result<WireResponse>> + Send + 'a,
    {
        use futures::FutureExt;
        let (_, https) = self.start(&mut req);
        let attempt = span::Attempt::new(&mut req);
        Box::pin(
            attempt.run(inner(req).map(move |r| r.map_err(|e| crate::hint::scheme_hint(https, e)))),
        )
    }

    /// Like [`Self::send`], for the streaming path: the deadline bounds the call up to the
    /// response head (the body is read at its reader's pace, see [`StreamingResponse`]).
    pub(crate) fn send_streaming<'a, F>(
        &self,
        mut req: WireRequest,
        inner: impl FnOnce(WireRequest) -> F + Send + 'a,
    ) -> BoxFuture<'a, Result<StreamingResponse>>
    where
        F: Future<Output = Result<StreamingResponse>> + Send + 'a,
    {
        let (deadline, https) = self.start(&mut req);
        // No attempt span on this path: the trace context is the current span's.
        #[cfg(feature = "opentelemetry")]
        trace_context::inject(&tracing::Span::current(), &mut req.headers);
        let timeout = req.request_timeout();
        Box::pin(async move {
            until_deadline(deadline, timeout, inner(req))
                .await
                .map_err(|e| crate::hint::scheme_hint(https, e))
        })
    }

    /// `label`, or `label(insecure-tls)`.
    pub(crate) fn name(&self) -> String {
        if self.insecure {
            format!("{}(insecure-tls)", self.label)
        } else {
            self.label.to_string()
        }
    }

    /// The stats, given how many connections the transport opened.
    pub(crate) fn stats(&self, connections_opened: u64) -> TransportStats {
        TransportStats {
            connections_opened,
            requests: self.requests.load(std::sync::atomic::Ordering::Relaxed),
        }
    }
}

/// Runs `fut` until `deadline`; then it is dropped and the result is `timeout`.
pub(crate) async fn until_deadline<T, F>(
    deadline: Instant,
    timeout: crate::Error,
    fut: F,
) -> Result<T>
where
    F: Future<Output = Result<T>>,
{
    tokio::time::timeout_at(tokio::time::Instant::from_std(deadline), fut)
        .await
        .unwrap_or(Err(timeout))
}

/// `start + d`, or a point about thirty years on when that does not fit in an `Instant`.
pub(crate) fn far_or(start: Instant, d: Duration) -> Instant {
    start
        .checked_add(d)
        .or_else(|| start.checked_add(Duration::from_secs(30 * 365 * 86_400)))
        .unwrap_or(start)
}

/// The transports this crate ships, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransportKind {
    /// See [`Fresh`].
    Fresh,
    /// See [`Pooled`].
    Pooled,
    /// See `ReqwestDefault`. Needs the `reqwest` feature.
    #[cfg(feature = "reqwest")]
    #[cfg_attr(docsrs, doc(cfg(feature = "reqwest")))]
    Reqwest,
    /// See `Http2`. Needs the `http2` feature.
    #[cfg(feature = "http2")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http2")))]
    Http2,
}

impl TransportKind {
    /// All kinds this build has (fresh and pooled always; reqwest and http2 with their
    /// features), in report order.
    pub const ALL: [TransportKind;
        2 + cfg!(feature = "reqwest") as usize + cfg!(feature = "http2") as usize] = [
        TransportKind::Fresh,
        TransportKind::Pooled,
        #[cfg(feature = "reqwest")]
        TransportKind::Reqwest,
        #[cfg(feature = "http2")]
        TransportKind::Http2,
    ];

    /// The name used on the command line and in reports.
    pub fn as_str(&self) -> &'static str {
        match self {
            TransportKind::Fresh => "fresh",
            TransportKind::Pooled => "pooled",
            #[cfg(feature = "reqwest")]
            TransportKind::Reqwest => "reqwest",
            #[cfg(feature = "http2")]
            TransportKind::Http2 => "http2",
        }
    }

    /// Builds the transport, optionally wrapped in the gzip decorator.
    pub fn build(&self, tls: &TlsOptions, gzip: bool) -> Result<Arc<dyn Transport>> {
        self.build_with(tls, gzip, PooledConfig::default())
    }

    /// Like [`Self::build`], with the settings the pooled transport uses (the other kinds
    /// ignore them).
    pub fn build_with(
        &self,
        tls: &TlsOptions,
        gzip: bool,
        pooled: PooledConfig,
    ) -> Result<Arc<dyn Transport>> {
        self.build_via(tls, gzip, pooled, None)
    }

    /// Like [`Self::build_with`], going through `proxy` when given (see [`Proxy`]).
    pub fn build_via(
        &self,
        tls: &TlsOptions,
        gzip: bool,
        pooled: PooledConfig,
        proxy: Option<&Proxy>,
    ) -> Result<Arc<dyn Transport>> {
        let inner: Arc<dyn Transport> = match self {
            TransportKind::Fresh => Arc::new(Fresh::with_proxy(tls, proxy)?),
            TransportKind::Pooled => Arc::new(Pooled::with_proxy(tls, pooled, proxy)?),
            #[cfg(feature = "reqwest")]
            TransportKind::Reqwest => Arc::new(ReqwestDefault::with_proxy(tls, proxy)?),
            #[cfg(feature = "http2")]
            TransportKind::Http2 => Arc::new(Http2::with_proxy(tls, proxy)?),
        };
        if gzip {
            #[cfg(feature = "gzip")]
            return Ok(Arc::new(Gzip::new(inner)));
            #[cfg(not(feature = "gzip"))]
            return Err(crate::Error::Config(
                "gzip needs solr-client's `gzip` feature, which this build does not have".into(),
            ));
        }
        Ok(inner)
    }
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for TransportKind {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self> {
        if let Some(k) = TransportKind::ALL.into_iter().find(|k| k.as_str() == s) {
            return Ok(k);
        }
        Err(crate::Error::Config(match crate::features::missing(s) {
            Some(feature) => format!(
                "transport {s:?} needs solr-client's `{feature}` feature, which this build \
                 does not have"
            ),
            None => {
                format!("unknown transport {s:?}; expected one of fresh, pooled, reqwest, http2")
            }
        }))
    }
}

#[cfg(test)]
impl WireRequest {
    /// A read: GET `path` on `node`, default timeouts, a 1 MiB response limit.
    pub(crate) fn test_get(node: &str, path: &str) -> WireRequest {
        WireRequest {
            method: Method::GET,
            node: Url::parse(node).expect("node"),
            path: path.into(),
            query: Vec::new(),
            headers: HeaderMap::new(),
            body: Bytes::new(),
            kind: RequestKind::Read,
            timeouts: Timeouts::default(),
            max_response_bytes: 1 << 20,
            deadline: None,
            route: None,
        }
    }
}

#[cfg(test)]
mod path_and_query_tests {
    use super::*;

    fn req(node: &str, path: &str, query: &[(&str, &str)]) -> WireRequest {
        let mut r = WireRequest::test_get(node, path);
        r.query = query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        r
    }

    /// The direct writer gives exactly the path and query of `url()`, for plain paths and
    /// for every path it hands to `url()` instead (dot segments, spaces, `?`, `#`, `%`,
    /// non-ASCII, backslashes), under nodes with and without a path.
    #[test]
    fn path_and_query_is_the_path_and_query_of_url() {
        let paths = [
            "bench/select",
            "/bench/select",
            "my.coll/select",
            "c/../x",
            "./c/select",
            "c/sel ect",
            "c/a?b",
            "c/a#b",
            "c/100%",
            "c/é",
            "c\\x",
            "",
            "c//select",
            "c/select/",
        ];
        let queries: [&[(&str, &str)]; 3] = [
            &[],
            &[
                ("q", "title:\"a b\" AND é&x=1"),
                ("fq", "+x:[1 TO *]"),
                ("wt", "json"),
            ],
            &[("", ""), ("a", "%/?#")],
        ];
        for node in [
            "http://127.0.0.1:8983/solr",
            "http://h/solr/",
            "http://h",
            "https://h:1/a/b",
        ] {
            for path in paths {
                for q in queries {
                    let r = req(node, path, q);
                    let url = r.url();
                    let expected = match url.query() {
                        Some(q) => format!("{}?{}", url.path(), q),
                        None => url.path().to_string(),
                    };
                    assert_eq!(r.path_and_query(), expected, "{node} {path:?} {q:?}");
                }
            }
        }
    }
}
