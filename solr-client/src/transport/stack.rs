//! The client's stack of layers, built in one place and in one documented order.
//!
//! Outermost first, as a request meets them:
//!
//! | layer        | what it does                                                         |
//! |--------------|----------------------------------------------------------------------|
//! | `+auth`      | after a 401, renews the request's credential and re-sends once ([`AuthRenew`]) |
//! | `+redirect`  | the one place a 3xx is decided: writes refused, reads followed on opt-in ([`Redirects`]) |
//! | `+retry`     | 429/503 with `Retry-After`, when a policy is given ([`Retry`])       |
//! | the transport | a base (`fresh`, `pooled`, `http2`, `reqwest`, each optionally `+gzip`), a custom transport, or a [`Routing`](super::Routing) over a base (which retries and follows redirects per node itself) |
//!
//! Signing is no layer: the request carries its provider and the base signs each write
//! ([`WireRequest::sign`](super::WireRequest::sign)), so every layer above may send a
//! request again, now or later, and it is signed with the credential current then.

use std::sync::Arc;

use super::{AuthRenew, Redirects, Retry, RetryPolicy, Transport};

/// Wraps `transport` in the client's layers, in the order of the module docs: `+retry`
/// when `retry` is given, `+redirect` (following reads up to `max_redirects` hops; 0:
/// never), then `+auth`. The name and counters stay the transport's (`pooled+retry`).
pub fn stack(
    transport: Arc<dyn Transport>,
    retry: Option<RetryPolicy>,
    max_redirects: u32,
) -> Arc<dyn Transport> {
    let mut inner = transport;
    if let Some(policy) = retry {
        inner = Arc::new(Retry::new(inner, policy));
    }
    let redirects = Redirects::new(inner, max_redirects);
    Arc::new(AuthRenew::new(redirects))
}
