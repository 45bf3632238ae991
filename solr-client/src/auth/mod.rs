//! Authentication: the [`AuthProvider`] seam and its providers ([`Credentials`] for HTTP
//! Basic, [`Bearer`] for a static token, [`Refreshing`] for a token an async callback
//! fetches and renews), plus custom headers per client and per request.
//!
//! # When a request is signed
//! The `Authorization` header is set when the request is sent, not when it is built: the
//! client asks its provider for the current value right before handing the request to the
//! transport, and the decorators that send a request again (the 429/503 retries of
//! [`Retry`](crate::transport::Retry), the redirects of
//! [`Redirects`](crate::transport::Redirects), every node
//! [`Routing`](crate::transport::Routing) tries and the cluster-state requests it makes) ask
//! again before each attempt. A SolrCloud router's own background requests (its liveness
//! checks of down nodes and its timed cluster-state refresh, which run outside any client
//! call) are signed by the same provider, asked at each request and renewed once after a
//! 401 as a client call's are ([`RoutingBuilder::auth`](crate::transport::RoutingBuilder::auth)). So a token that expires while a request waits for its next
//! attempt, or between two [`Indexer`](crate::Indexer) batches, is renewed before it is
//! sent. A decorator that dropped the header (a redirect to another origin) never gets it
//! back.
//!
//! # After a 401
//! A request answered `401 Unauthorized` is handed to
//! [`AuthProvider::on_unauthorized`]. When the provider has a new credential (the
//! [`Refreshing`] provider fetches one; static ones have none) the request is re-sent
//! once, signed with it; a second 401 is [`Error::Unauthorized`](crate::Error::Unauthorized),
//! never another round. A write is re-sent too: a 401 is refused before Solr (or the gateway
//! in front of it) processes anything.
//!
//! # Secrets
//! Passwords, tokens, the values the callback returns and header values marked sensitive
//! never appear in `Debug` output, errors, tracing events or reports; the header values are
//! marked sensitive (`***` in [`WireRequest`]'s `Debug`, never indexed by HTTP/2 HPACK).

use std::fmt;
use std::sync::Arc;

use http::header::AUTHORIZATION;
use http::HeaderValue;

use crate::error::Result;
use crate::transport::{BoxFuture, WireRequest};

mod basic;
mod bearer;
pub(crate) mod headers;
mod refreshing;
pub(crate) mod send;

pub use basic::{Basic, Credentials};
pub use bearer::Bearer;
pub use refreshing::{Refreshing, Token, TokenError, DEFAULT_REFRESH_MARGIN};

/// Where a client gets the `Authorization` header of each request.
///
/// Object-safe: the client holds it as `Arc<dyn AuthProvider>`, shared by its clones and by
/// an [`Indexer`](crate::Indexer)'s tasks. Implementations must never show a secret in
/// their `Debug` output.
pub trait AuthProvider: Send + Sync + fmt::Debug {
    /// The `Authorization` value for a request about to be sent (fetched or renewed first
    /// when needed), or `None` to send none. Called once per attempt.
    fn authorization(&self) -> BoxFuture<'_, Result<Option<HeaderValue>>>;

    /// A request signed with `rejected` was answered 401: true when a new credential is now
    /// available, so that re-sending the request once may succeed. Called at most once per
    /// request. Default: false (a static credential cannot change).
    fn on_unauthorized<'a>(
        &'a self,
        rejected: Option<&'a HeaderValue>,
    ) -> BoxFuture<'a, Result<bool>> {
        let _ = rejected;
        Box::pin(async { Ok(false) })
    }

    /// The value available now without waiting, if any (what
    /// [`SolrClient::wire`](crate::SolrClient::wire) puts in a request it builds; the value
    /// actually sent is asked for again at send time). Default none.
    fn cached(&self) -> Option<HeaderValue> {
        None
    }

    /// The scheme's name (`"Basic"`, `"Bearer"`), for error messages.
    fn scheme(&self) -> &'static str;
}

tokio::task_local! {
    /// The provider of the client call this task is running, for the decorators that send a
    /// request again ([`resign`]).
    static SIGNER: Arc<dyn AuthProvider>;
}

/// Runs `fut` (one send of a client call) with `provider` as the signer [`resign`] uses.
pub(crate) async fn with_signer<T>(
    provider: Arc<dyn AuthProvider>,
    fut: impl std::future::Future<Output = T>,
) -> T {
    SIGNER.scope(provider, fut).await
}

/// The provider of the client call this task is running, if any (outside a client call,
/// e.g. in a router's background task: none).
pub(crate) fn current_signer() -> Option<Arc<dyn AuthProvider>> {
    SIGNER.try_with(Arc::clone).ok()
}

/// Sets the `Authorization` header of `req` from `provider`, now.
pub(crate) async fn sign(provider: &dyn AuthProvider, req: &mut WireRequest) -> Result<()> {
    match provider.authorization().await? {
        Some(v) => req.headers.insert(AUTHORIZATION, v),
        None => req.headers.remove(AUTHORIZATION),
    };
    Ok(())
}

/// Signs `req` again right before a decorator sends it once more (a retry, a redirect hop,
/// another node): the current value of the provider of the client call, when there is one
/// and the request still carries an `Authorization` header (a decorator that removed it,
/// leaving the origin, keeps it removed).
pub(crate) async fn resign(req: &mut WireRequest) -> Result<()> {
    if !req.headers.contains_key(AUTHORIZATION) {
        return Ok(());
    }
    let Ok(provider) = SIGNER.try_with(Arc::clone) else {
        return Ok(());
    };
    sign(provider.as_ref(), req).await
}
