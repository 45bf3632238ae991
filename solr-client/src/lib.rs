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
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod batch;
pub mod blocking;
mod client;
pub mod codec;
mod error;
mod escape;
pub mod request;
pub mod response;
mod shard_split;
pub mod timing;
pub mod transport;

pub use batch::BatchReport;
pub use client::{Commit, Credentials, SolrClient, SolrClientBuilder, DEFAULT_MAX_RESPONSE_BYTES};
pub use codec::ResponseFormat;
pub use codec::UpdateFormat;
pub use error::{Error, FailedDoc, Result, TimeoutPhase};
pub use escape::{escape_query, quote_phrase};
pub use request::{AtomicOp, AtomicUpdate, Get, GetResponse, Knn, Select};
pub use response::{
    Document, PingResponse, ResponseHeader, SelectResponse, SolrErrorBody, UpdateResponse,
};
pub use timing::{HttpVersion, Timing};
pub use transport::{
    RequestKind, RouteKey, ShardGroup, Timeouts, TlsOptions, Transport, TransportKind, WireRequest,
    WireResponse,
};
