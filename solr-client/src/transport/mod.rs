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

pub(crate) mod auth;
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
mod stack;
mod tls;
#[cfg(feature = "rustls-base")]
mod tls_provider;
#[cfg(feature = "opentelemetry")]
mod trace_context;
mod tunnel;

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

pub(crate) use crate::wire::{far_or, until_deadline, WireBytes, WireCount};
pub use crate::wire::{
    BodyStream, BoxFuture, ChunkStream, ReplicaAddr, Reply, RequestKind, RouteKey, ShardGroup,
    StreamingResponse, Timeouts, WireRequest, WireResponse,
};
pub use auth::AuthRenew;
pub use client_auth::ClientCertProblem;
pub use cloud::{composite_id_hash, murmurhash3_x86_32, HashRange};
pub use cloud::{CloudBuilder, CloudState, NodeHealth};
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
pub use stack::stack;
pub use tls::{TlsOptions, TlsVersion};

use crate::error::Result;

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
///
/// One method sends: [`Transport::send`], whose [`Reply`] has its body whole or streamed as
/// the request asks ([`WireRequest::streamed`]), so a decorator handles both in one place.
/// [`Transport::send_whole`] and [`Transport::send_streaming`] are the callers' shortcuts
/// over it; a transport implements `send` only.
pub trait Transport: Send + Sync + fmt::Debug {
    /// Sends one request. The reply's body is read whole (at most
    /// [`WireRequest::max_response_bytes`]) unless the request asks for it as it arrives
    /// ([`WireRequest::streamed`]; a transport that cannot stream may still answer whole).
    /// A base transport signs the request from [`WireRequest::auth`] right before writing
    /// it ([`WireRequest::sign`]).
    fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<Reply>>;

    /// Sends one request and reads the whole response: [`Transport::send`] with
    /// [`WireRequest::streamed`] off, a streamed answer read whole. Not meant to be
    /// overridden.
    fn send_whole(&self, mut req: WireRequest) -> BoxFuture<'_, Result<WireResponse>> {
        req.streamed = false;
        let limit = req.max_response_bytes;
        let sent = self.send(req);
        Box::pin(async move { sent.await?.into_whole(limit).await })
    }

    /// Sends one request and returns as soon as the response head has arrived, with the
    /// body to be read as it arrives ([`StreamingResponse`]; see there for the limits that
    /// apply to it): [`Transport::send`] with [`WireRequest::streamed`] on, a whole answer
    /// handed out as one chunk. The built-in transports read incrementally (a pooled
    /// connection goes back to its pool only once its body has been read to the end). Not
    /// meant to be overridden.
    fn send_streaming(&self, mut req: WireRequest) -> BoxFuture<'_, Result<StreamingResponse>> {
        req.streamed = true;
        let sent = self.send(req);
        Box::pin(async move { sent.await.map(Reply::into_streamed) })
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

/// The [`Transport`] impl of a base transport built on its own [`Connector`] (`fresh`,
/// `http2`): a `counted: Counted`, a `connector: Connector`, and two exchanges,
/// `send_inner` (the body whole) and `stream_inner` (the body as it arrives).
macro_rules! connector_base {
    ($ty:ty) => {
        impl $crate::transport::Transport for $ty {
            fn send(
                &self,
                req: $crate::transport::WireRequest,
            ) -> $crate::transport::BoxFuture<'_, $crate::Result<$crate::transport::Reply>> {
                use futures::FutureExt;
                self.counted.send_either(
                    req,
                    false,
                    |req| self.send_inner(req).map(|r| self.connector.settle(r)),
                    |req| self.stream_inner(req).map(|r| self.connector.settle(r)),
                )
            }

            fn name(&self) -> String {
                self.counted.name()
            }

            fn stats(&self) -> $crate::transport::TransportStats {
                self.counted.stats(self.connector.opened())
            }
        }
    };
}
pub(crate) use connector_base;

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

    /// Counts `req`, signs it ([`WireRequest::sign`], when it has a provider) and runs
    /// `inner(req)`, the exchange, in its attempt span, until the call's deadline
    /// ([`WireRequest::start_deadline`]): bounded here by a timer (for a streamed reply, up
    /// to its head), or, with `own_deadline`, by the transport itself.
    ///
    /// The exchange's future is made inside the one boxed future and moved once, into the
    /// deadline's `Timeout`: each `async fn` layer that takes a made future as an argument
    /// holds it twice (the argument and the awaited value), so three such layers here made
    /// a 31 KB future (debug build) that was copied layer by layer on every request.
    ///
    /// With `own_deadline` the transport enforces the deadline itself: no timer of its own
    /// per request, and no wrapper future around the exchange beyond the scheme hint (a
    /// `map`, which holds the exchange once). The pooled transport checks the deadline on
    /// the connection's timer, which stays registered between requests: a new timer per
    /// request takes the timer wheel's lock twice, and the wrapper made the boxed future
    /// larger than glibc's per-thread cache serves (1,032 bytes), so every request paid for
    /// a large allocation.
    pub(crate) fn send<'a, F>(
        &self,
        req: WireRequest,
        own_deadline: bool,
        inner: impl FnOnce(WireRequest) -> F + Send + 'a,
    ) -> BoxFuture<'a, Result<Reply>>
    where
        F: Future<Output = Result<Reply>> + Send + 'a,
    {
        if req.auth.is_none() {
            return self.run(req, own_deadline, inner);
        }
        let signed = move |mut req: WireRequest| async move {
            req.sign().await?;
            inner(req).await
        };
        self.run(req, own_deadline, signed)
    }

    /// [`Self::send`] for a base transport with one exchange per way of reading a body:
    /// `whole` reads it whole, `streamed` returns at the head ([`WireRequest::streamed`]
    /// chooses; `own_deadline` applies to `whole` only).
    pub(crate) fn send_either<'a, W, S>(
        &self,
        req: WireRequest,
        own_deadline: bool,
        whole: impl FnOnce(WireRequest) -> W + Send + 'a,
        streamed: impl FnOnce(WireRequest) -> S + Send + 'a,
    ) -> BoxFuture<'a, Result<Reply>>
    where
        W: Future<Output = Result<WireResponse>> + Send + 'a,
        S: Future<Output = Result<StreamingResponse>> + Send + 'a,
    {
        use futures::FutureExt;
        if req.streamed {
            return self.send(req, false, |req| {
                streamed(req).map(|r| r.map(Reply::Streamed))
            });
        }
        // A combinator, not an async block: the block would hold the request twice.
        self.send(req, own_deadline, |req| {
            whole(req).map(|r| r.map(Reply::Whole))
        })
    }

    fn run<'a, F>(
        &self,
        mut req: WireRequest,
        own_deadline: bool,
        inner: impl FnOnce(WireRequest) -> F + Send + 'a,
    ) -> BoxFuture<'a, Result<Reply>>
    where
        F: Future<Output = Result<Reply>> + Send + 'a,
    {
        use futures::FutureExt;
        let (deadline, https) = self.start(&mut req);
        let attempt = span::Attempt::new(&mut req);
        if own_deadline {
            return Box::pin(
                attempt.run(
                    inner(req).map(move |r| r.map_err(|e| crate::hint::scheme_hint(https, e))),
                ),
            );
        }
        let deadline = tokio::time::Instant::from_std(deadline);
        let timeout = req.request_timeout();
        Box::pin(attempt.run(async move {
            tokio::time::timeout_at(deadline, inner(req))
                .await
                .unwrap_or(Err(timeout))
                .map_err(|e| crate::hint::scheme_hint(https, e))
        }))
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
