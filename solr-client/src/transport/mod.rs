//! How bytes travel: the [`Transport`] trait (one send, returning a [`Reply`] whose body is
//! whole or streamed) and one file per transport or layer: `base/` (the transports below),
//! `http/` (the exchange on a connection), `connect/` (connections, TLS, proxies), `layer/`
//! (the decorators, each written once over [`Reply`]), `routing/` and `cloud/`, and
//! [`stack`], the one function that puts the client's layers in their documented order.
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
//! | `+auth`   | decorator the client applies at the edge: after a 401, the request's credential renewed and the request re-sent once ([`AuthRenew`]) |
//!
//! No layer signs: a request carries its provider ([`WireRequest::auth`]) and the base
//! transport sets `Authorization` from it right before each write ([`WireRequest::sign`]).
//!
//! Transports know nothing about Solr except whether a request is a read or a write
//! ([`RequestKind`]). All of them measure the phases documented in [`crate::timing`].

mod base;
mod cloud;
mod connect;
mod http;
mod layer;
mod routing;
pub(crate) mod span;
mod stack;
#[cfg(feature = "opentelemetry")]
mod trace_context;

use std::fmt;
use std::sync::Arc;

pub(crate) use crate::wire::{far_or, until_deadline, WireBytes, WireCount};
pub use crate::wire::{
    BodyStream, BoxFuture, ChunkStream, ReplicaAddr, Reply, RequestKind, RouteKey, ShardGroup,
    StreamingResponse, Timeouts, WireRequest, WireResponse,
};
pub use base::fresh::Fresh;
#[cfg(feature = "http2")]
#[cfg_attr(docsrs, doc(cfg(feature = "http2")))]
pub use base::http2::Http2;
pub use base::pooled::{Pooled, PooledConfig};
#[cfg(feature = "reqwest")]
#[cfg_attr(docsrs, doc(cfg(feature = "reqwest")))]
pub use base::reqwest_default::ReqwestDefault;
pub use cloud::{composite_id_hash, murmurhash3_x86_32, HashRange};
pub use cloud::{ClusterView, ReplicaInfo, ReplicaType, ShardInfo};
pub use connect::client_auth::ClientCertProblem;
pub use connect::connector::Connector;
pub use connect::identity::Identity;
pub use connect::no_proxy::NoProxy;
pub use connect::proxy::Proxy;
pub use connect::tls::{TlsOptions, TlsVersion};
pub(crate) use layer::auth;
pub use layer::auth::AuthRenew;
pub(crate) use layer::counting::{connector_base, Counted};
pub use layer::decorator::Decorator;
#[cfg(feature = "gzip")]
pub use layer::gzip::{gunzip_bytes, gzip_bytes, Gzip};
pub use layer::redirect::Redirects;
pub use layer::retry::{retries_status, retry_after, Retry, RetryPolicy};
pub(crate) use routing::node_key as routing_key;
pub use routing::{
    HealthPolicy, NodeStats, Policy, ReadPreference, ReplicaPreference, Routing, RoutingBuilder,
};
pub use stack::stack;

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
            return Err(crate::Error::config(
                "gzip needs solr-client's `gzip` feature, which this build does not have",
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
            )
            .into(),
            None => {
                format!("unknown transport {s:?}; expected one of fresh, pooled, reqwest, http2")
                    .into()
            }
        }))
    }
}
