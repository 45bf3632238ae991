//! Authentication: the [`AuthProvider`] seam and its providers ([`Credentials`] for HTTP
//! Basic, [`Bearer`] for a static token, [`Refreshing`] for a token an async callback
//! fetches and renews), plus custom headers per client and per request.
//!
//! # When a request is signed
//! The provider rides the request ([`WireRequest::auth`](crate::transport::WireRequest::auth)),
//! and the `Authorization` header is set when the request is written, not when it is
//! built: the base transport (fresh, pooled, http2, reqwest) asks the provider for the
//! current value right before each write. So every attempt is signed by construction,
//! whoever sends it again: the 429/503 retries of [`Retry`](crate::transport::Retry), the
//! redirects of [`Redirects`](crate::transport::Redirects), every node
//! [`Routing`](crate::transport::Routing) tries, and a custom
//! [`Decorator`](crate::transport::Decorator) that re-sends a request later. A SolrCloud
//! router's own requests (cluster-state refreshes, liveness checks of down nodes, inside a
//! client call or in the background) carry the router's provider
//! ([`RoutingBuilder::auth`](crate::transport::RoutingBuilder::auth); the cloud builder
//! gives it the client's). So a token that expires while a request waits for its next
//! attempt, or between two [`Indexer`](crate::Indexer) batches, is renewed before it is
//! sent. A redirect to another origin clears the request's provider: it is never signed
//! again. A custom base transport signs with
//! [`WireRequest::sign`](crate::transport::WireRequest::sign).
//!
//! # After a 401
//! A request answered `401 Unauthorized` is handed (by the client's auth layer,
//! `transport::layer::auth`) to
//! [`AuthProvider::on_unauthorized`]. When the provider has a new credential (the
//! [`Refreshing`] provider fetches one; static ones have none) the request is re-sent
//! once, signed with it; a second 401 is [`Error::Unauthorized`](crate::Error::Unauthorized),
//! never another round. A write is re-sent too: a 401 is refused before Solr (or the gateway
//! in front of it) processes anything.
//!
//! # Secrets
//! Passwords, tokens, the values the callback returns and header values marked sensitive
//! never appear in `Debug` output, errors, tracing events or reports; the header values are
//! marked sensitive (`***` in [`WireRequest`](crate::transport::WireRequest)'s `Debug`, never indexed by HTTP/2 HPACK).

mod basic;
mod bearer;
pub(crate) mod headers;
mod refreshing;

pub use crate::wire::AuthProvider;
pub use basic::{Basic, Credentials};
pub use bearer::Bearer;
pub use refreshing::{Refreshing, Token, TokenError, DEFAULT_REFRESH_MARGIN};
