//! [`SolrClient`]: the typed Solr API over any [`Transport`], and its one builder
//! ([`SolrClientBuilder`], standalone or SolrCloud).

mod auth_setters;
mod builder;
mod cloud;
mod cloud_state;
mod cursor;
mod query_json;
mod search;
mod send;
mod shard_split;
#[cfg(test)]
mod tests;
mod update;

pub(crate) use builder::set_param;
pub use builder::SolrClientBuilder;
pub use cloud_state::{CloudState, NodeHealth};
#[cfg(all(test, feature = "cbor", feature = "javabin"))]
pub(crate) use update::to_documents;
pub use update::Commit;

use std::sync::Arc;

use bytes::Bytes;
use http::header::AUTHORIZATION;
use http::{HeaderMap, Method};
use url::Url;

use crate::auth::AuthProvider;
use crate::codec::{ResponseFormat, UpdateFormat};
use crate::error::Result;
use crate::transport::{RequestKind, Timeouts, Transport, WireRequest, WireResponse};
use builder::check_unique_key;

/// Default response size limit: 64 MiB, applied to the body as it arrives and again to the
/// body after gzip decompression.
///
/// Why 64 MiB: the limit bounds the memory one response can take before the client refuses
/// it. A whole body is held in memory, and the decoded documents (a JSON tree) take several
/// times its size again, so a 64 MiB body already means a few hundred MiB of documents;
/// pages larger than that belong in a cursor ([`SolrClient::cursor`]), which holds one page
/// at a time. A gzip body is inflated in 64 KiB steps and refused as soon as it passes the
/// limit, so a decompression bomb (1 MB on the wire inflating to 1 GiB) costs at most the
/// limit plus the compressed body plus a constant (measured by the e2e test
/// `memory::gzip_bomb_peak_memory_stays_within_the_limit`). Raise it with
/// [`SolrClientBuilder::max_response_bytes`] for larger pages.
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 64 * 1024 * 1024;

/// A Solr client for one collection (or core), over any transport. Cheap to clone.
#[derive(Clone, Debug)]
pub struct SolrClient {
    pub(crate) transport: Arc<dyn Transport>,
    node: Url,
    collection: String,
    timeouts: Timeouts,
    max_response_bytes: u64,
    update_format: UpdateFormat,
    pub(crate) response_format: ResponseFormat,
    /// Where each request's `Authorization` comes from ([`SolrClientBuilder::auth`]).
    pub(crate) auth: Option<Arc<dyn AuthProvider>>,
    /// Headers of every request ([`SolrClientBuilder::header`], [`SolrClient::with_header`]).
    pub(crate) headers: Arc<HeaderMap>,
    pub(crate) observer: crate::observe::Observer,
    /// Parameters of every update request ([`SolrClientBuilder::update_param`]).
    update_params: Arc<[(String, String)]>,
    /// The schema's uniqueKey field ([`SolrClientBuilder::unique_key`]).
    pub(crate) unique_key: Arc<str>,
    /// The SolrCloud router of a client built by [`SolrClient::cloud`].
    pub(crate) cloud: Option<Arc<crate::transport::Routing>>,
}

impl SolrClient {
    /// The transport under this client (inside the redirect decorator the builder adds;
    /// name and stats are the transport's own).
    pub fn transport(&self) -> &Arc<dyn Transport> {
        &self.transport
    }

    /// The node base URL.
    pub fn node(&self) -> &Url {
        &self.node
    }

    /// The collection name; empty for an admin-only SolrCloud client
    /// ([`SolrClient::cloud`] without a collection).
    pub fn collection(&self) -> &str {
        &self.collection
    }

    /// A copy of this client with other timeouts (per-request override).
    pub fn with_timeouts(&self, t: Timeouts) -> SolrClient {
        SolrClient {
            timeouts: t,
            ..self.clone()
        }
    }

    /// A copy of this client that sends updates in `f`.
    pub fn with_update_format(&self, f: UpdateFormat) -> SolrClient {
        SolrClient {
            update_format: f,
            ..self.clone()
        }
    }

    /// A copy of this client that asks for (and decodes) responses in `f`.
    pub fn with_response_format(&self, f: ResponseFormat) -> SolrClient {
        SolrClient {
            response_format: f,
            ..self.clone()
        }
    }

    /// A copy of this client whose updates name the update processor chain `name`
    /// (Solr's `update.chain`; see [`SolrClientBuilder::update_chain`]).
    pub fn with_update_chain(&self, name: impl Into<String>) -> SolrClient {
        let mut params = self.update_params.to_vec();
        set_param(&mut params, "update.chain".into(), name.into());
        SolrClient {
            update_params: params.into(),
            ..self.clone()
        }
    }

    /// The uniqueKey field the client reads ids from ([`SolrClientBuilder::unique_key`]).
    pub fn unique_key(&self) -> &str {
        &self.unique_key
    }

    /// A copy of this client whose uniqueKey field is the one the schema declares, asked
    /// once now (`GET schema/uniquekey`; see [`SolrClientBuilder::unique_key`]).
    pub async fn with_schema_unique_key(&self) -> Result<SolrClient> {
        let key = self.schema().unique_key().await?.unique_key;
        Ok(SolrClient {
            unique_key: check_unique_key(key)?,
            ..self.clone()
        })
    }

    /// The parameters sent with every update request, `update.chain` included
    /// ([`SolrClientBuilder::update_param`]).
    pub fn update_params(&self) -> &[(String, String)] {
        &self.update_params
    }

    /// The query of an update request: `wt=json`, `commitWithin` when given, then the
    /// client's update parameters.
    pub(crate) fn update_query(&self, commit_within_ms: Option<u64>) -> Vec<(String, String)> {
        let mut query = Vec::with_capacity(2 + self.update_params.len());
        query.push(("wt".to_string(), "json".to_string()));
        if let Some(ms) = commit_within_ms {
            query.push(("commitWithin".into(), ms.to_string()));
        }
        query.extend(self.update_params.iter().cloned());
        query
    }

    /// The update format of adds.
    pub(crate) fn update_format(&self) -> UpdateFormat {
        self.update_format
    }

    /// The response format of searches and real-time gets.
    pub fn response_format(&self) -> ResponseFormat {
        self.response_format
    }

    /// A wire request to `path` under the collection, with the client's headers and the
    /// `Authorization` value its provider has now (signed again when sent; see
    /// [`crate::auth`]).
    pub fn wire(
        &self,
        method: Method,
        path: &str,
        query: Vec<(String, String)>,
        kind: RequestKind,
    ) -> WireRequest {
        let mut headers = HeaderMap::clone(&self.headers);
        if let Some(v) = self.auth.as_ref().and_then(|a| a.cached()) {
            headers.insert(AUTHORIZATION, v);
        }
        // `collection/path`, written without the formatter (every call makes one).
        let path = path.trim_start_matches('/');
        let mut full = String::with_capacity(self.collection.len() + 1 + path.len());
        full.push_str(&self.collection);
        full.push('/');
        full.push_str(path);
        WireRequest {
            method,
            node: self.node.clone(),
            path: full,
            query,
            headers,
            body: Bytes::new(),
            kind,
            timeouts: self.timeouts,
            max_response_bytes: self.max_response_bytes,
            deadline: None,
            route: None,
            auth: self.auth.clone(),
            streamed: false,
        }
    }

    /// Sends a wire request through the transport as it is.
    pub async fn send_raw(&self, req: WireRequest) -> Result<WireResponse> {
        self.exchange_raw(req).await
    }
}
