//! A Solr client whose every response says where the time went.
//!
//! Solr reports `QTime`, the time it spent on a request. An application sees more: DNS,
//! TCP connect, TLS handshake, writing the request, waiting, transferring and decoding the
//! response. This crate puts both on every response ([`Timing`]), and lets the
//! application pick how bytes travel ([`transport`]): a fresh connection per request, a
//! keep-alive pool, reqwest's default client, or one multiplexed HTTP/2 connection, each
//! optionally with gzip.
//!
//! ```no_run
//! # async fn run() -> solr_client::Result<()> {
//! use solr_client::{Select, SolrClient, TransportKind};
//! let client = SolrClient::builder("http://127.0.0.1:8983/solr")
//!     .collection("bench")
//!     .transport(TransportKind::Pooled)
//!     .gzip(true)
//!     .build()?;
//! let r = client.select(&Select::new("title:solr").rows(10)).await?;
//! // QTime is None when Solr sent no header (omitHeader=true): absent is not 0.
//! println!("QTime {:?} ms, client total {:?}, reused connection: {}",
//!     r.header.qtime, r.timing.total(), r.timing.reused);
//! # Ok(()) }
//! ```
//!
//! New here? The [`guide`] walks from a first search to typed documents, the cursor,
//! blocking use, routing, bulk indexing and timings.
//!
//! # Which transport?
//!
//! | [`TransportKind`] | what a request costs |
//! |---|---|
//! | `Pooled` (default) | keep-alive: a TCP connect (+ TLS handshake) once per connection, then one round trip per request |
//! | `Http2` | one multiplexed connection for every request (ALPN `h2`, or h2c prior knowledge) |
//! | `Fresh` | a TCP connect (+ TLS handshake) per request: 3 round trips with TLS 1.3 instead of 1 |
//! | `Reqwest` | reqwest's defaults (its own pool); connection phases not visible |
//!
//! Measured by this project with TLS 1.3 at 80 ms round trip: fresh p50 244.4 ms, pooled
//! 85.5 ms. See [`guide`] for when to pick which.
//!
//! # Watching requests
//!
//! [`SolrClientBuilder::on_response`] calls a hook once per response (for metrics); the
//! `tracing` feature adds a span per attempt with every phase ([`observe`]).
//!
//! # The search API, typed
//!
//! [`SolrClient::select_as`] decodes the hits straight from the response bytes into the
//! application's own type (`fl` subsets: make the fields `Option`s); [`SolrClient::select`]
//! returns the untyped [`Document`] form. Each query component has a builder in
//! [`request`] that adds its parameters to a [`Select`], and a typed section on
//! [`SelectResponse`] (see [`response`]); a section the crate does not model stays in
//! [`SelectResponse::extra`].
//!
//! | Solr reference name | request | response section |
//! |---|---|---|
//! | Faceting: field, query, range, pivot, interval | [`request::Facet`] | [`response::FacetCounts`] |
//! | JSON Facet API: terms, range, query, stat functions, sub-facets, domains | [`request::JsonFacet`], [`request::Domain`] | [`response::FacetNode`] |
//! | Highlighting (unified, original, fastVector) | [`request::Highlight`] | [`response::Highlighting`] |
//! | Result Grouping | [`request::Group`] | [`response::GroupResult`] |
//! | Collapse and Expand Results | [`request::Collapse`], [`request::Expand`] | [`SelectResponse::expanded`] |
//! | Stats Component | [`request::StatsField`] | [`response::Stats`] |
//! | Spell Checking | [`request::Spellcheck`] | [`response::Spellcheck`] |
//! | Suggester (`/suggest`) | [`request::Suggest`] | [`response::SuggestSection`] |
//! | MoreLikeThis | [`request::MoreLikeThis`] | [`SelectResponse::more_like_this`] |
//! | Terms Component (`/terms`) | [`request::Terms`] | [`response::TermsSection`] |
//! | Standard, DisMax and Extended DisMax query parsers | [`request::DefType`], [`request::Dismax`] | |
//! | Filter query tags and facet excludes (`{!tag}`, `{!ex}`) | [`Select::fq_tagged`], [`request::Facet::exclude`] | |
//! | Dense vector search (`{!knn}`) | [`Knn`] | |
//!
//! ```no_run
//! # async fn run(client: solr_client::SolrClient) -> solr_client::Result<()> {
//! use solr_client::request::{Facet, JsonFacet};
//! use solr_client::Select;
//! #[derive(serde::Deserialize)]
//! struct Book { id: String, price: Option<f64> }
//! let r = client
//!     .select_as::<Book>(
//!         &Select::new("*:*")
//!             .fl("id,price")
//!             .facet(Facet::field("category").mincount(1).limit(10))
//!             .json_facet("avg_price", JsonFacet::stat("avg(price)")),
//!     )
//!     .await?;
//! let categories = r.facet_counts.as_ref().and_then(|f| f.field("category"));
//! let avg = r.facets.as_ref().and_then(|f| f.stat_f64("avg_price"));
//! # let _ = (categories, avg);
//! # Ok(()) }
//! ```
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `rustls` | yes | https nodes for the fresh, pooled and http2 transports (rustls, aws-lc-rs, webpki roots) |
//! | `rustls-ring` | no | https as `rustls` with the ring crypto provider (no aws-lc-sys, no cmake) |
//! | `rustls-base` | no | https with rustls and the provider the application installs (`CryptoProvider::install_default`) |
//! | `gzip` | yes | gzip responses and request bodies (`transport::Gzip`, [`SolrClientBuilder::gzip`]) |
//! | `reqwest` | no | [`TransportKind`]`::Reqwest`: reqwest's default client (with its own TLS) |
//! | `http2` | no | [`TransportKind`]`::Http2`: one multiplexed HTTP/2 connection |
//! | `cbor` | no | `UpdateFormat::Cbor` and `ResponseFormat::Cbor` |
//! | `javabin` | no | `UpdateFormat::Javabin`, `ResponseFormat::Javabin`, `codec::javabin` |
//! | `blocking` | no | `blocking::SolrClient`, the blocking wrapper |
//! | `tracing` | no | a `solr.request` span per call, a `solr.attempt` span per HTTP exchange, `solr.retry` events ([`observe`]) |
//! | `metrics` | no | every response and every call without one recorded into the `metrics` facade, `solr_client_*` ([`observe`]) |
//! | `opentelemetry` | no | W3C `traceparent`/`tracestate` on every request from its span's OpenTelemetry context; includes `tracing` ([`observe`]) |
//! | `testing` | no | `testing::Replay` (a transport answering from a recorded run or a closure) and `testing::Recorder`, for an application's tests without Solr |
//!
//! A choice made at run time that needs a feature this build lacks (a transport or format
//! parsed from a string, an https URL without `rustls`, gzip without `gzip`) is an
//! [`Error::Config`] naming the feature, never a panic.
//!
//! Plain http compiles no C: `default-features = false, features = ["gzip"]` (aws-lc-sys,
//! ring and every `cc` build are absent). The figures: docs/client.md, "Build weight".
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(unused_crate_dependencies)]
// The public modules (the client itself is re-exported from `client` below).
pub mod admin;
pub mod auth;
pub mod batch;
#[cfg(feature = "blocking")]
#[cfg_attr(docsrs, doc(cfg(feature = "blocking")))]
pub mod blocking;
pub mod codec;
pub mod expr;
pub mod guide;
pub mod indexer;
pub mod observe;
pub mod request;
pub mod response;
pub mod stream;
#[cfg(feature = "testing")]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
pub mod testing;
pub mod timing;
pub mod transport;
pub mod wire;

// The crate's own parts: the client (re-exported below), its error, and the leaves they share.
mod client;
mod client_cert;
mod error;
mod escape;
mod failed_update;
mod features;
mod hint;
mod node_url;
mod redact;
mod redacted;
mod snippet;
mod types;
mod url_input;

#[cfg(test)]
mod tests;
// README.md beside the manifest, compiled as doctests. Its blocking example needs that feature,
// which the workspace's test run turns on (`cargo test -p solr-client --doc --features blocking`).
#[cfg(all(doctest, feature = "blocking"))]
#[doc = include_str!("../README.md")]
mod readme {}
// Dev-dependencies that only the examples and benches use (the lint also looks at the
// unit-test build), and the `metrics` feature's example exporter and test recorder.
#[cfg(test)]
use {criterion as _, hdrhistogram as _, tracing_subscriber as _};
#[cfg(test)]
use {metrics_exporter_prometheus as _, metrics_util as _};

pub use auth::Credentials;
pub use batch::BatchReport;
pub use client::{
    CloudState, Commit, NodeHealth, SolrClient, SolrClientBuilder, DEFAULT_MAX_RESPONSE_BYTES,
};
pub use codec::ResponseFormat;
pub use codec::UpdateFormat;
pub use error::{DocumentProblem, Error, FailedDoc, Result, TimeoutPhase};
pub use escape::{escape_query, quote_phrase};
/// The HTTP method of a [`WireRequest`] (what [`SolrClient::wire`] takes), re-exported so
/// callers need no `http` dependency of their own.
pub use http::Method;
pub use indexer::{Indexer, IndexerBuilder, Progress};
pub use node_url::NodeUrl;
pub use observe::{ResponseEvent, ResponseHook};
pub use redacted::Redacted;
pub use request::{AtomicOp, AtomicUpdate, Get, GetResponse, Knn, Select};
pub use response::{
    DocList, Document, NamedList, PingResponse, ResponseHeader, SelectResponse, SolrErrorBody,
    UpdateResponse,
};
pub use stream::{Export, Tuples};
pub use timing::{HttpVersion, Timing};
pub use transport::{
    ClientCertProblem, Identity, NoProxy, Proxy, ReplicaPreference, RequestKind, RouteKey,
    ShardGroup, Timeouts, TlsOptions, Transport, TransportKind, WireRequest, WireResponse,
};
