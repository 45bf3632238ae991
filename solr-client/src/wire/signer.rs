//! The [`AuthProvider`] seam: where a request's `Authorization` value comes from. It lives
//! with the wire types because a [`WireRequest`](super::WireRequest) carries its provider
//! ([`WireRequest::auth`](super::WireRequest::auth)); the providers themselves are in
//! [`crate::auth`].

use std::fmt;

use http::HeaderValue;

use super::BoxFuture;
use crate::error::Result;

/// Where a request gets its `Authorization` header, asked right before each write.
///
/// Object-safe: a client holds it as `Arc<dyn AuthProvider>`, shared by its clones, by an
/// [`Indexer`](crate::Indexer)'s tasks and by every [`WireRequest`](super::WireRequest) it
/// sends. Implementations must never show a secret in their `Debug` output.
pub trait AuthProvider: Send + Sync + fmt::Debug {
    /// The `Authorization` value for a request about to be written (fetched or renewed
    /// first when needed), or `None` to send none. Called once per write: every attempt,
    /// retry, redirect hop and failover asks again.
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
    /// actually sent is asked for again at each write). Default none.
    fn cached(&self) -> Option<HeaderValue> {
        None
    }

    /// The scheme's name (`"Basic"`, `"Bearer"`), for error messages.
    fn scheme(&self) -> &'static str;
}
