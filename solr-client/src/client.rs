//! [`SolrClient`]: the typed Solr API over any [`Transport`].

mod auth_setters;

use std::sync::Arc;

use bytes::Bytes;
use http::header::{HeaderValue, AUTHORIZATION, CONTENT_TYPE};

use crate::auth::headers::{header_map, CustomHeader};
use crate::auth::{AuthProvider, Credentials};
use http::{HeaderMap, Method};
use serde::de::DeserializeOwned;
use serde::Serialize;
use url::Url;

use crate::batch::BatchReport;
use crate::codec::{doc_ids, ResponseFormat, UpdateFormat};
use crate::error::{Error, Result};
use crate::observe::Outcome;
use crate::request::{Knn, Select};
use crate::response::{decode, decode_as, Document, PingResponse, SelectResponse, UpdateResponse};
use crate::shard_split;
use crate::timing::Timing;
use crate::transport::{
    Identity, PooledConfig, Proxy, RequestKind, RetryPolicy, RouteKey, Timeouts, TlsOptions,
    Transport, TransportKind, WireRequest, WireResponse,
};

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

/// Options of a commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Commit {
    /// Soft commit (visibility without fsync). Default false (hard commit).
    pub soft: bool,
    /// Wait until the new searcher is open. Default true.
    pub wait_searcher: bool,
}

impl Default for Commit {
    fn default() -> Self {
        Commit {
            soft: false,
            wait_searcher: true,
        }
    }
}

/// Setters, for code outside this crate (the struct is `#[non_exhaustive]`: build it
/// from [`Commit::default()`] and change what differs).
impl Commit {
    /// Sets [`Commit::soft`]; see there for the default.
    pub const fn soft(mut self, v: bool) -> Self {
        self.soft = v;
        self
    }
    /// Sets [`Commit::wait_searcher`]; see there for the default.
    pub const fn wait_searcher(mut self, v: bool) -> Self {
        self.wait_searcher = v;
        self
    }
}

/// Builder of a [`SolrClient`].
#[derive(Debug)]
#[must_use]
pub struct SolrClientBuilder {
    node: crate::url_input::UrlText,
    collection: Option<String>,
    transport: Option<Arc<dyn Transport>>,
    kind: TransportKind,
    gzip: bool,
    tls: TlsOptions,
    identity: Option<Identity>,
    proxy: Option<Proxy>,
    timeouts: Timeouts,
    max_response_bytes: u64,
    update_format: UpdateFormat,
    response_format: ResponseFormat,
    /// Where each request's `Authorization` comes from ([`Self::auth`]).
    pub(crate) auth: Option<Arc<dyn AuthProvider>>,
    /// Headers of every request ([`Self::header`]).
    pub(crate) headers: Vec<CustomHeader>,
    max_redirects: u32,
    /// The 429/503 retry policy of a standalone client ([`Self::retry`]).
    pub(crate) retry: Option<RetryPolicy>,
    pooled: PooledConfig,
    observer: crate::observe::Observer,
    update_params: Vec<(String, String)>,
    unique_key: String,
}

impl SolrClientBuilder {
    /// The collection or core name. Required: there is no default, and the base URL names
    /// the node (`http://127.0.0.1:8983/solr`), never the core, so [`Self::build`] fails
    /// with [`Error::Config`] when this was not called (or was given an empty name or one
    /// containing `/`).
    pub fn collection(mut self, name: impl Into<String>) -> Self {
        self.collection = Some(name.into());
        self
    }

    /// Which built-in transport. Default: [`TransportKind::Pooled`].
    pub fn transport(mut self, kind: TransportKind) -> Self {
        self.kind = kind;
        self
    }

    /// Uses a ready-made transport (for example a routing decorator); overrides
    /// [`Self::transport`], [`Self::gzip`] and [`Self::tls`].
    pub fn custom_transport(mut self, t: Arc<dyn Transport>) -> Self {
        self.transport = Some(t);
        self
    }

    /// Settings of the pooled transport ([`TransportKind::Pooled`], the default kind):
    /// connection cap and idle connections per host, idle timeout. Default
    /// [`PooledConfig::default`] (64 connections, 32 idle, 90 s). Other kinds, and a
    /// [`Self::custom_transport`], ignore it.
    pub fn pooled(mut self, config: PooledConfig) -> Self {
        self.pooled = config;
        self
    }

    /// Wraps the transport in the gzip decorator. Default false.
    pub fn gzip(mut self, yes: bool) -> Self {
        self.gzip = yes;
        self
    }

    /// TLS options (extra CA, versions). Default: built-in roots, verification on.
    pub fn tls(mut self, tls: TlsOptions) -> Self {
        self.tls = tls;
        self
    }

    /// A client certificate offered when the server asks for one (mutual TLS), on every
    /// built-in transport; kept whatever [`Self::tls`] is given. Default none.
    pub fn client_identity(mut self, identity: Identity) -> Self {
        self.identity = Some(identity);
        self
    }

    /// Sends every request through a proxy, HTTP or SOCKS5 ([`Proxy`]; [`Proxy::from_env`]
    /// reads `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` and `NO_PROXY`). Default none: the
    /// environment is not read unless asked.
    pub fn proxy(mut self, proxy: Proxy) -> Self {
        self.proxy = Some(proxy);
        self
    }

    /// Timeouts. Default: connect 10 s, read idle 30 s, whole request 60 s.
    pub fn timeouts(mut self, t: Timeouts) -> Self {
        self.timeouts = t;
        self
    }

    /// Largest response accepted (wire and decoded). Default
    /// [`DEFAULT_MAX_RESPONSE_BYTES`] (64 MiB; see there why).
    pub fn max_response_bytes(mut self, n: u64) -> Self {
        self.max_response_bytes = n;
        self
    }

    /// Body format of updates. Default JSON.
    pub fn update_format(mut self, f: UpdateFormat) -> Self {
        self.update_format = f;
        self
    }

    /// Response format (`wt`) of searches and real-time gets; every format is decoded into
    /// the same response types ([`ResponseFormat`]). Default JSON.
    pub fn response_format(mut self, f: ResponseFormat) -> Self {
        self.response_format = f;
        self
    }

    /// HTTP basic credentials sent with every request (the same as `.auth(c)`; see
    /// [`Self::auth`]). Default none.
    pub fn credentials(self, c: Credentials) -> Self {
        self.auth(c)
    }

    /// Lets reads (searches, pings) follow up to `max_hops` redirects: same scheme only, the
    /// `Authorization` header dropped when the redirect leaves the node's origin, the hops
    /// recorded in [`Timing::redirects`] and [`Timing::final_url`]. A write is never
    /// redirected. Default 0: every 3xx answer is an [`Error::Redirect`]. Applies to every
    /// transport, custom ones included ([`crate::transport::Redirects`]); a
    /// [`crate::transport::Routing`] decides per node instead (its own `follow_redirects`),
    /// since it re-routes every request it is given.
    pub fn follow_redirects(mut self, max_hops: u32) -> Self {
        self.max_redirects = max_hops;
        self
    }

    /// Retries a request Solr (or a proxy) answered with 429 or 503, honouring
    /// `Retry-After`, within `policy`'s budget and the request timeout: the rule and the
    /// policy of a SolrCloud client's router ([`crate::transport::Retry`]), for a
    /// standalone client. Writes are retried too (both statuses mean the request was
    /// refused before it was processed); nothing else is. When the budget runs out the call
    /// is [`Error::RetriesExhausted`], keeping the last answer's status. Default none: a 429
    /// or 503 is the call's answer. On a cloud client ([`SolrClient::cloud`]) this policy
    /// replaces the router's ([`crate::CloudBuilder::retry`]).
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = Some(policy);
        self
    }

    /// A metrics hook, called once per response a call receives, after decoding, with the
    /// path, node, status, QTime and phases ([`crate::ResponseEvent`]): the final attempt
    /// of each call, not each retried one (see [`crate::observe`] for the exact rule).
    /// Default none.
    pub fn on_response(mut self, hook: crate::ResponseHook) -> Self {
        self.observer.hook = Some(hook);
        self
    }

    /// The schema's uniqueKey field: the client reads each document's id from it (for the
    /// account of every update and for shard routing) and refuses, before sending, a
    /// document that has no value for it ([`Error::InvalidDocument`]): Solr would refuse
    /// such a document without naming it. Default `"id"` ([`crate::codec::DEFAULT_UNIQUE_KEY`],
    /// the uniqueKey of Solr's default configsets); [`SolrClient::with_schema_unique_key`]
    /// asks the schema instead.
    pub fn unique_key(mut self, field: impl Into<String>) -> Self {
        self.unique_key = field.into();
        self
    }

    /// Solr's `update.chain`: every update request (adds, deletes, commits, the
    /// [`crate::Indexer`]'s batches) names this update processor chain instead of the
    /// core's default one. Default none (the chain marked `default="true"` in
    /// `solrconfig.xml`, else Solr's stock chain). Per call: [`SolrClient::with_update_chain`].
    pub fn update_chain(self, name: impl Into<String>) -> Self {
        self.update_param("update.chain", name)
    }

    /// A request parameter sent with every update request (e.g. a parameter a custom update
    /// processor reads); set again, the same name is replaced. `wt` and `commitWithin` are
    /// the client's own and refused by [`Self::build`]. Default none.
    pub fn update_param(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        set_param(&mut self.update_params, name.into(), value.into());
        self
    }

    /// The transport these settings give (the custom one, else the kind with its TLS, gzip
    /// and pool settings), before the redirect decorator.
    pub(crate) fn build_transport(&self) -> Result<Arc<dyn Transport>> {
        match &self.transport {
            Some(t) => Ok(t.clone()),
            None => {
                let tls = match &self.identity {
                    Some(id) => self.tls.clone().client_identity(id.clone()),
                    None => self.tls.clone(),
                };
                let proxy = self.proxy.as_ref();
                self.kind.build_via(&tls, self.gzip, self.pooled, proxy)
            }
        }
    }

    /// Builds the client.
    pub fn build(self) -> Result<SolrClient> {
        let node = crate::url_input::parse_node_url(&self.node.0)?;
        // The layers in their one order (transport::stack): +auth, +redirect, +retry.
        let transport =
            crate::transport::stack(self.build_transport()?, self.retry, self.max_redirects);
        let collection = check_collection(self.collection, &node)?;
        check_update_params(&self.update_params)?;
        let mut observer = self.observer;
        observer.meter = crate::observe::ClientMeter::new(transport.name());
        Ok(SolrClient {
            transport,
            node,
            collection,
            timeouts: self.timeouts,
            max_response_bytes: self.max_response_bytes,
            update_format: self.update_format,
            response_format: self.response_format,
            auth: self.auth,
            headers: Arc::new(header_map(&self.headers)?),
            observer,
            update_params: self.update_params.into(),
            unique_key: check_unique_key(self.unique_key)?,
            cloud: None,
        })
    }

    /// Builds a client without a collection (an admin-only SolrCloud client): its
    /// collection paths have an empty name, which its router refuses with
    /// [`Error::Config`].
    pub(crate) fn build_admin_only(self) -> Result<SolrClient> {
        let mut client = self.collection("admin-only").build()?;
        client.collection = String::new();
        Ok(client)
    }
}

/// Sets `name` to `value` in `params`, replacing an earlier value of the same name.
pub(crate) fn set_param(params: &mut Vec<(String, String)>, name: String, value: String) {
    match params.iter_mut().find(|(k, _)| *k == name) {
        Some(p) => p.1 = value,
        None => params.push((name, value)),
    }
}

/// Refuses an empty uniqueKey field name.
fn check_unique_key(field: String) -> Result<Arc<str>> {
    if field.is_empty() {
        return Err(Error::Config("the uniqueKey field name is empty".into()));
    }
    Ok(field.into())
}

/// Refuses update parameters the client sets itself, and empty names or values.
fn check_update_params(params: &[(String, String)]) -> Result<()> {
    for (k, v) in params {
        if k.is_empty() || v.is_empty() {
            return Err(Error::Config(format!(
                "update parameter {k:?}={v:?}: neither the name nor the value may be empty"
            )));
        }
        if k == "wt" || k == "commitWithin" {
            return Err(Error::Config(format!(
                "update parameter {k:?} is set by the client itself (the response format it \
                 decodes, or the commit_within argument of the call): do not set it as an \
                 update parameter"
            )));
        }
    }
    Ok(())
}

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
    /// A builder for the node at `base_url` (e.g. `http://127.0.0.1:8983/solr`, the URL
    /// Solr's admin UI lives under, without the core). The collection is required:
    /// [`SolrClientBuilder::collection`].
    pub fn builder(base_url: impl Into<String>) -> SolrClientBuilder {
        SolrClientBuilder {
            node: crate::url_input::UrlText(base_url.into()),
            collection: None,
            transport: None,
            kind: TransportKind::Pooled,
            gzip: false,
            tls: TlsOptions::default(),
            identity: None,
            proxy: None,
            timeouts: Timeouts::default(),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            update_format: UpdateFormat::Json,
            response_format: ResponseFormat::Json,
            auth: None,
            headers: Vec::new(),
            max_redirects: 0,
            retry: None,
            pooled: PooledConfig::default(),
            observer: Default::default(),
            update_params: Vec::new(),
            unique_key: crate::codec::DEFAULT_UNIQUE_KEY.to_string(),
        }
    }

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
        WireRequest {
            method,
            node: self.node.clone(),
            path: format!("{}/{}", self.collection, path.trim_start_matches('/')),
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

    /// `admin/ping`: Solr's health check for the collection.
    pub async fn ping(&self) -> Result<PingResponse> {
        let req = self.wire(
            Method::GET,
            "admin/ping",
            vec![("wt".into(), "json".into())],
            RequestKind::Admin,
        );
        let (mut r, timing): (PingResponse, Timing) = self
            .exchange(
                req,
                |w| decode(w, "ping response"),
                |r: &PingResponse| r.header.qtime,
            )
            .await?;
        r.timing = with_qtime(timing, r.header.qtime);
        Ok(r)
    }

    /// Runs a search; the hits come back as untyped [`Document`]s. See [`Self::select_as`].
    pub async fn select(&self, s: &Select) -> Result<SelectResponse> {
        self.select_as::<Document>(s).await
    }

    /// Runs a search and decodes the hits (and the documents of grouped, expanded and
    /// MoreLikeThis sections) straight from the response bytes into `T`, with no
    /// intermediate JSON tree per document (with `wt=json`, the default
    /// [`ResponseFormat`], and with `wt=javabin`; XML and CBOR are read into a tree first). With an `fl` subset, make the fields not
    /// selected `Option`s (or `#[serde(default)]`).
    ///
    /// ```no_run
    /// # async fn run(client: solr_client::SolrClient) -> solr_client::Result<()> {
    /// #[derive(serde::Deserialize)]
    /// struct Book { id: String, title: Option<String>, price: Option<f64> }
    /// let r = client
    ///     .select_as::<Book>(&solr_client::Select::new("*:*").fl("id,price"))
    ///     .await?;
    /// for b in r.docs() {
    ///     println!("{} {:?}", b.id, b.price);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn select_as<T: DeserializeOwned>(&self, s: &Select) -> Result<SelectResponse<T>> {
        self.search_as(self.select_request(s), "select response")
            .await
    }

    /// Sends a search and decodes its answer into a [`SelectResponse`] of `T` (named `what`
    /// in errors), its timing carrying Solr's QTime: [`Self::select_as`] and
    /// [`Self::query_json`].
    pub(crate) async fn search_as<T: DeserializeOwned>(
        &self,
        req: WireRequest,
        what: &'static str,
    ) -> Result<SelectResponse<T>> {
        let format = self.response_format;
        let (mut r, timing): (SelectResponse<T>, Timing) = self
            .exchange(
                req,
                |w| decode_as(w, what, format),
                |r: &SelectResponse<T>| r.header.qtime,
            )
            .await?;
        r.timing = with_qtime(timing, r.header.qtime);
        Ok(r)
    }

    /// The wire request [`Self::select`] sends for `s` (its handler, collection, GET or
    /// POST), for callers that want the raw answer ([`Self::send_raw`]).
    pub fn select_request(&self, s: &Select) -> WireRequest {
        let mut params = s.params();
        if self.response_format != ResponseFormat::Json {
            params.retain(|(k, _)| k != "wt");
            params.push(("wt".into(), self.response_format.as_str().into()));
        }
        let handler = s.handler_path();
        let mut req = if s.post || encoded_len(&params) > crate::request::MAX_GET_QUERY_BYTES {
            let body = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(params.iter())
                .finish();
            let mut req = self.wire(Method::POST, handler, Vec::new(), RequestKind::Read);
            req.headers.insert(
                CONTENT_TYPE,
                HeaderValue::from_static("application/x-www-form-urlencoded"),
            );
            req.body = Bytes::from(body);
            req
        } else {
            self.wire(Method::GET, handler, params, RequestKind::Read)
        };
        if let Some(c) = &s.more.collection {
            req.path = format!("{c}/{}", handler.trim_start_matches('/'));
        }
        req
    }

    /// Runs a kNN search.
    pub async fn knn(&self, k: &Knn) -> Result<SelectResponse> {
        self.select(&k.to_select()).await
    }

    /// Runs a kNN search and decodes the hits straight into `T`, as [`Self::select_as`].
    pub async fn knn_as<T: DeserializeOwned>(&self, k: &Knn) -> Result<SelectResponse<T>> {
        self.select_as::<T>(&k.to_select()).await
    }

    /// Adds documents in one request, in the client's update format. Nothing is committed.
    /// When the transport knows the shards ([`Transport::shard_groups`], e.g. the SolrCloud
    /// router), documents of different shards go in one request per shard, each to its
    /// shard leader, and the results are combined. An empty `docs` sends nothing and
    /// returns a response with `docs_sent` 0.
    ///
    /// On success every document was acknowledged. Otherwise the error is
    /// [`Error::Update`], whose [`BatchReport`] accounts for every document (the rule is in
    /// [`crate::batch`]): the ones Solr rejected (reported per document by the project's
    /// tolerant update chain, or named by the stock chain's refusal) are `failed`; when a
    /// request failed as a whole, its documents are `failed` if nothing can have been
    /// indexed (not sent, or a 4xx answer) and `unknown` otherwise (sent, then the
    /// connection broke, a timeout fired or Solr answered 5xx). A call of one document whose
    /// `_version_` check failed is [`Error::VersionConflict`]; in a larger call that document
    /// is a failed one ([`FailedDoc::is_version_conflict`](crate::FailedDoc::is_version_conflict)).
    ///
    /// A document without a value for the uniqueKey field
    /// ([`SolrClientBuilder::unique_key`]), or with NaN or an infinity in a field, fails the
    /// whole call before anything is sent, with [`Error::InvalidDocument`] naming its
    /// position and field.
    pub async fn add<T: Serialize>(&self, docs: &[T]) -> Result<UpdateResponse> {
        self.add_with(docs, None).await
    }

    /// Like [`Self::add`], with Solr's `commitWithin` in milliseconds.
    pub async fn add_with<T: Serialize>(
        &self,
        docs: &[T],
        commit_within_ms: Option<u64>,
    ) -> Result<UpdateResponse> {
        let ids = doc_ids(docs, &self.unique_key)?;
        let alone = ids.len() == 1;
        self.add_ids(docs, ids, commit_within_ms, alone).await
    }

    /// [`Self::add_with`] of `docs` whose ids are `ids`. `alone`: the call is one document
    /// (a version conflict is then [`Error::VersionConflict`]; in any other case it is a
    /// failed document of [`Error::Update`], whatever the size of its shard's part).
    async fn add_ids<T: Serialize>(
        &self,
        docs: &[T],
        ids: Vec<String>,
        commit_within_ms: Option<u64>,
        alone: bool,
    ) -> Result<UpdateResponse> {
        if ids.is_empty() {
            // Nothing to index: nothing is sent (Solr would answer an empty batch anyway).
            return Ok(UpdateResponse {
                header: Default::default(),
                docs_sent: 0,
                timing: Timing::default(),
            });
        }
        let query = self.update_query(commit_within_ms);
        let template = self.wire(Method::POST, "update", query.clone(), RequestKind::Write);
        let parts = shard_split::parts(self.transport.as_ref(), &template, &ids).await?;
        // Every part is encoded before any is sent: a document the format cannot carry
        // fails the whole call with nothing sent.
        let mut bodies = Vec::with_capacity(parts.len());
        for part in &parts {
            bodies.push(if parts.len() == 1 {
                self.update_format.encode_docs_with_ids(docs, &ids)?
            } else {
                let sub: Vec<&T> = part.members.iter().map(|&i| &docs[i]).collect();
                let sub_ids: Vec<&str> = part.members.iter().map(|&i| ids[i].as_str()).collect();
                self.update_format.encode_docs_with_ids(&sub, &sub_ids)?
            });
        }
        let alone = alone && parts.len() == 1;
        let sends = parts.into_iter().zip(bodies).map(|(part, body)| {
            let part_ids: Vec<String> = part.members.iter().map(|&i| ids[i].clone()).collect();
            let req = self.update_wire(body, self.update_format.content_type(), &query, part.route);
            async move {
                (
                    part_ids.clone(),
                    self.update_request(req, part_ids, alone).await,
                )
            }
        });
        shard_split::combine(futures::future::join_all(sends).await)
    }

    /// Adds documents in batches of `batch_size`, one request per batch, and accounts for
    /// every document (see [`Self::add`] and [`BatchReport`]): the result lists how many were
    /// acknowledged, every one that was not indexed (by id, with the reason), every one whose
    /// outcome is unknown, and Solr's errors that named no document of a batch. Nothing is
    /// committed. `acknowledged + failed.len() + unknown.len() + not_attempted.len() ==
    /// docs.len()` always holds; an empty `docs` sends nothing.
    ///
    /// A document the client refuses ([`Error::InvalidDocument`]: no uniqueKey, NaN or an
    /// infinity) is never sent: as everywhere ([`crate::batch`]), it is `failed`, with its
    /// position in `docs` in
    /// [`FailedDoc::index`](crate::FailedDoc::index), and the rest of its batch goes
    /// without it. A batch that cannot be sent at all (it cannot be encoded, no node for
    /// it) is `failed` as a whole with the reason, and the next batches still go.
    pub async fn add_batched<T: Serialize>(
        &self,
        docs: &[T],
        batch_size: usize,
    ) -> Result<BatchReport> {
        let size = batch_size.max(1);
        let mut report = BatchReport::default();
        for (n, chunk) in docs.chunks(size).enumerate() {
            let (ids, keep, refused) = self.screen(chunk, n * size);
            report.merge(refused);
            let kept: Vec<&T> = keep.iter().map(|&i| &chunk[i]).collect();
            if kept.is_empty() {
                continue;
            }
            match self.add_ids(&kept, ids.clone(), None, false).await {
                Ok(r) => report.merge(BatchReport::all_acknowledged(r.docs_sent)),
                Err(Error::Update { report: r, .. }) => report.merge(*r),
                Err(e) => report.merge(BatchReport::all_failed(ids, &e.to_string())),
            }
        }
        Ok(report)
    }

    /// Reads the ids of `chunk` (whose first document is number `offset` of the call):
    /// the ids and positions of the documents to send, and the account of the ones the
    /// client refuses.
    fn screen<T: Serialize>(
        &self,
        chunk: &[T],
        offset: usize,
    ) -> (Vec<String>, Vec<usize>, BatchReport) {
        let (mut ids, mut keep) = (Vec::with_capacity(chunk.len()), Vec::new());
        let mut refused = BatchReport::default();
        for (i, doc) in chunk.iter().enumerate() {
            match crate::codec::doc_id_at(doc, offset + i, &self.unique_key) {
                Ok(id) => {
                    ids.push(id);
                    keep.push(i);
                }
                Err(e) => refused.merge(BatchReport::refused(offset + i, &e)),
            }
        }
        refused.requests = 0;
        (ids, keep, refused)
    }

    /// Encodes documents in the client's update format without sending them (for size
    /// comparisons).
    pub fn encode_add<T: Serialize>(&self, docs: &[T]) -> Result<Bytes> {
        self.update_format.encode_docs(docs)
    }

    /// Deletes documents by id. Like [`Self::add`], ids of different shards go in one
    /// request per shard when the transport knows the shards; an error of any part is
    /// returned (the other parts may have been applied).
    pub async fn delete_by_ids(&self, ids: &[&str]) -> Result<UpdateResponse> {
        self.delete_by_ids_with(ids, None).await
    }

    /// Like [`Self::delete_by_ids`], with Solr's `commitWithin` in milliseconds (the
    /// deletes become visible within that time; nothing is committed by the client).
    pub async fn delete_by_ids_with(
        &self,
        ids: &[&str],
        commit_within_ms: Option<u64>,
    ) -> Result<UpdateResponse> {
        let query = self.update_query(commit_within_ms);
        let owned: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        let template = self.wire(Method::POST, "update", query.clone(), RequestKind::Write);
        let parts = shard_split::parts(self.transport.as_ref(), &template, &owned).await?;
        let mut bodies = Vec::with_capacity(parts.len());
        for part in &parts {
            let part_ids: Vec<&str> = part.members.iter().map(|&i| ids[i]).collect();
            let body = serde_json::to_vec(&serde_json::json!({ "delete": part_ids }))
                .map_err(|e| Error::InvalidInput(e.to_string()))?;
            bodies.push(Bytes::from(body));
        }
        let sends = parts.into_iter().zip(bodies).map(|(part, body)| {
            let req = self.update_wire(body, "application/json", &query, part.route);
            async move {
                (
                    Vec::new(),
                    self.update_request(req, Vec::new(), false).await,
                )
            }
        });
        shard_split::combine(futures::future::join_all(sends).await)
    }

    /// Deletes every document matching `query` (JSON-encoded, never concatenated markup).
    pub async fn delete_by_query(&self, query: &str) -> Result<UpdateResponse> {
        self.delete_by_query_with(query, None).await
    }

    /// Like [`Self::delete_by_query`], with Solr's `commitWithin` in milliseconds.
    pub async fn delete_by_query_with(
        &self,
        query: &str,
        commit_within_ms: Option<u64>,
    ) -> Result<UpdateResponse> {
        let body = serde_json::to_vec(&serde_json::json!({ "delete": { "query": query } }))
            .map_err(|e| Error::InvalidInput(e.to_string()))?;
        let params = self.update_query(commit_within_ms);
        let req = self.update_wire(Bytes::from(body), "application/json", &params, None);
        self.update_request(req, Vec::new(), false).await
    }

    /// Commits (hard or soft). Only ever sent when asked.
    pub async fn commit(&self, c: Commit) -> Result<UpdateResponse> {
        let body = serde_json::json!({ "commit": { "softCommit": c.soft, "waitSearcher": c.wait_searcher } });
        let mut req = self.wire(
            Method::POST,
            "update",
            self.update_query(None),
            RequestKind::Write,
        );
        req.headers
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        req.body = Bytes::from(body.to_string());
        let (mut r, timing): (UpdateResponse, Timing) = self
            .exchange(
                req,
                |w| decode(w, "commit response"),
                |r: &UpdateResponse| r.header.qtime,
            )
            .await?;
        r.timing = with_qtime(timing, r.header.qtime);
        Ok(r)
    }

    /// The update request carrying `body` to `route`.
    fn update_wire(
        &self,
        body: Bytes,
        content_type: &'static str,
        query: &[(String, String)],
        route: Option<RouteKey>,
    ) -> WireRequest {
        let mut req = self.wire(Method::POST, "update", query.to_vec(), RequestKind::Write);
        req.route = route;
        req.headers
            .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        req.body = body;
        req
    }

    /// Sends an update request whose body carries the documents `ids` (in order) and
    /// accounts for them (see [`crate::batch`]): any failure of a request with documents is
    /// [`Error::Update`], except a version conflict of a call that is one document in all
    /// (`alone`), which is [`Error::VersionConflict`]. A one-document request that is a
    /// part of a larger call (its shard's share, an [`Indexer`](crate::Indexer) batch) is
    /// never `alone`: the other documents of the call may have been indexed.
    pub(crate) async fn update_request(
        &self,
        req: WireRequest,
        ids: Vec<String>,
        alone: bool,
    ) -> Result<UpdateResponse> {
        let outcome = self
            .exchange(
                req,
                |w| decode::<UpdateResponse>(w, "update response"),
                |r| r.header.qtime,
            )
            .await;
        match outcome {
            Ok((mut r, timing)) => {
                r.timing = with_qtime(timing, r.header.qtime);
                r.docs_sent = ids.len();
                let report = if r.header.rf == Some(i64::from(i32::MAX)) && !ids.is_empty() {
                    // The leader was unreachable and the tolerant chain hid it: nothing of
                    // this batch is known to be indexed.
                    BatchReport::all_failed(
                        ids,
                        "SolrCloud could not forward the update to the shard leader (rf=2147483647)",
                    )
                } else {
                    BatchReport::account(&ids, r.header.errors.as_deref().unwrap_or_default())
                };
                let conflict = || crate::request::single_conflict(&report, &r.timing.node);
                if report.is_clean() {
                    Ok(r)
                } else if let Some(c) = conflict().filter(|_| alone) {
                    Err(c)
                } else {
                    Err(Error::Update {
                        report: Box::new(report),
                        cause: None,
                    })
                }
            }
            Err(e @ Error::Solr { status: 409, .. }) if alone && ids.len() == 1 => {
                Err(crate::request::conflict_error(e))
            }
            Err(e) if !ids.is_empty() => Err(Error::Update {
                report: Box::new(BatchReport::lost(ids, &e)),
                cause: Some(Box::new(e)),
            }),
            Err(e) => Err(e),
        }
    }
}

/// The collection the builder was given, or a [`Error::Config`] saying how to name one.
fn check_collection(name: Option<String>, node: &Url) -> Result<String> {
    let hint = |what: &str| {
        // The node URL is printed without user info (parse_node_url refused any).
        let last = node
            .path_segments()
            .and_then(|mut s| s.next_back())
            .unwrap_or("");
        let core_in_url = if !last.is_empty() && last != "solr" {
            format!(
                " (the base URL ends in {last:?}: if that is the core, pass it to \
                 .collection({last:?}) and end the base URL at the node, e.g. .../solr)"
            )
        } else {
            String::new()
        };
        Error::Config(format!(
            "{what}: call .collection(\"name\") on SolrClient::builder({node}); there is no \
             default collection{core_in_url}"
        ))
    };
    match name {
        None => Err(hint("no collection")),
        Some(n) if n.is_empty() => Err(hint("empty collection name")),
        Some(n) if n.contains('/') => Err(Error::Config(format!(
            "collection name {n:?} contains '/': name one collection or core, without path"
        ))),
        Some(n) => Ok(n),
    }
}

/// The length of `params` as a form-encoded query string, without building it.
fn encoded_len(params: &[(String, String)]) -> usize {
    let len = |s: &str| {
        url::form_urlencoded::byte_serialize(s.as_bytes())
            .map(str::len)
            .sum::<usize>()
    };
    params
        .iter()
        .map(|(k, v)| len(k) + len(v) + 2)
        .sum::<usize>()
        .saturating_sub(1)
}

fn with_qtime(mut t: Timing, qtime: Option<u32>) -> Timing {
    t.qtime_ms = qtime;
    t
}

/// Serializes each doc into a JSON object (Solr document): the path before the direct
/// encoders, kept as their test oracle.
#[cfg_attr(
    not(all(test, feature = "cbor", feature = "javabin")),
    allow(dead_code)
)]
pub(crate) fn to_documents<T: Serialize>(docs: &[T]) -> Result<Vec<Document>> {
    docs.iter()
        .enumerate()
        .map(|(i, d)| match serde_json::to_value(d) {
            Ok(serde_json::Value::Object(m)) => Ok(m),
            Ok(other) => Err(Error::InvalidInput(format!(
                "document #{i} is not an object: {other}"
            ))),
            Err(e) => Err(Error::InvalidInput(format!(
                "document #{i} cannot be serialized: {e}"
            ))),
        })
        .collect()
}

/// Real-time get (`/get`), built by [`Get`](crate::request::Get).
impl SolrClient {
    /// Real-time get of documents by id, decoded into `T` (in the client's response
    /// format). An empty id list sends nothing.
    pub async fn get<T: DeserializeOwned>(
        &self,
        get: &crate::request::Get,
    ) -> Result<crate::request::GetResponse<T>> {
        if get.ids.is_empty() {
            return Ok(crate::request::GetResponse {
                docs: Vec::new(),
                num_found: 0,
                timing: Timing::default(),
            });
        }
        let mut params = get.params();
        params.push(("wt".into(), self.response_format.as_str().into()));
        let req = self.wire(Method::GET, "get", params, RequestKind::Read);
        let format = self.response_format;
        let (raw, timing): (crate::request::GetRaw<T>, Timing) = self
            .exchange(
                req,
                |w| decode_as(w, "real-time get response", format),
                |_| None,
            )
            .await?;
        Ok(crate::request::GetResponse {
            docs: raw.response.docs,
            num_found: raw.response.num_found,
            timing,
        })
    }
}

/// The exchange every call makes: the metrics hook, the call span, the not-found hint
/// ([`crate::observe`]).
impl SolrClient {
    /// Sends `req`, decodes the response with `decode`, sets QTime from `qtime`, calls the
    /// hook, records the spans, and turns a 404 that is not Solr's into [`Error::NotFound`].
    pub(crate) async fn exchange<T>(
        &self,
        req: WireRequest,
        decode: impl FnOnce(WireResponse) -> Result<(T, Timing)>,
        qtime: impl FnOnce(&T) -> Option<u32>,
    ) -> Result<(T, Timing)> {
        let method = req.method.clone();
        let path = req.path.clone();
        let node = req.node.clone();
        let pending = self.observer.meter.request(&req);
        let (resp, trace) = self.traced_send(req).await;
        if let Err(e) = &resp {
            pending.no_response(&path, e);
        }
        let (resp, trace) = trace.answered(resp, &method, &path)?;
        let status = resp.status.as_u16();
        let keep = self.observer.wants_timing();
        let mut kept = keep.then(|| resp.timing.clone());
        let scheme = self.auth.as_ref().map(|a| a.scheme());
        let decoded = if status == 401 {
            Err(crate::transport::auth::unauthorized(
                &resp.headers,
                &resp.timing.node,
                scheme,
                false,
            ))
        } else {
            decode(resp)
        };
        let out = match decoded {
            Ok((v, mut timing)) => {
                timing.qtime_ms = qtime(&v);
                Ok((v, timing))
            }
            Err(e) => Err(crate::hint::not_found(e, &node, &path)),
        };
        let timing = match &out {
            Ok((_, t)) => Some(t),
            Err(e) => kept.as_mut().map(|t| {
                // Solr's error answers carry a QTime too.
                t.qtime_ms = crate::observe::error_qtime(e);
                &*t
            }),
        };
        if let Some(timing) = timing {
            let event = crate::observe::ResponseEvent {
                method: &method,
                path: &path,
                node: &timing.node,
                status,
                qtime_ms: timing.qtime_ms,
                timing,
                error: out.as_ref().err(),
            };
            self.observer.response(&pending, &event);
        }
        trace.finish(Outcome {
            method: &method,
            path: &path,
            status: Some(status),
            timing,
            error: out.as_ref().err(),
        });
        out
    }

    /// Sends `req` for an answer whose body is read as it arrives, signed when the client
    /// has credentials. After a 401 head the request (whole until then) is re-sent once when
    /// the provider has a new credential, as a buffered call is
    /// ([`crate::transport::auth::send_signed_streaming`]); a 401 that stands is
    /// [`Error::Unauthorized`].
    pub(crate) async fn send_streaming(
        &self,
        req: WireRequest,
    ) -> Result<crate::transport::StreamingResponse> {
        let resp =
            crate::transport::auth::send_signed_streaming(&self.transport, self.auth.as_ref(), req)
                .await?;
        if resp.status == http::StatusCode::UNAUTHORIZED {
            let scheme = self.auth.as_ref().map(|a| a.scheme());
            return Err(crate::transport::auth::unauthorized(
                &resp.headers,
                &resp.timing().node,
                scheme,
                false,
            ));
        }
        Ok(resp)
    }

    /// [`SolrClient::send_raw`]: sends `req` as it is, reporting the response to the hook.
    pub(crate) async fn exchange_raw(&self, req: WireRequest) -> Result<WireResponse> {
        let method = req.method.clone();
        let path = req.path.clone();
        let pending = self.observer.meter.request(&req);
        let (resp, trace) = self.traced_send(req).await;
        if let Err(e) = &resp {
            pending.no_response(&path, e);
        }
        let (resp, trace) = trace.answered(resp, &method, &path)?;
        let event = crate::observe::ResponseEvent {
            method: &method,
            path: &path,
            node: &resp.timing.node,
            status: resp.status.as_u16(),
            qtime_ms: None,
            timing: &resp.timing,
            error: None,
        };
        self.observer.response(&pending, &event);
        trace.finish(Outcome {
            method: &method,
            path: &path,
            status: Some(resp.status.as_u16()),
            timing: Some(&resp.timing),
            error: None,
        });
        Ok(resp)
    }

    #[cfg(not(feature = "tracing"))]
    async fn traced_send(
        &self,
        req: WireRequest,
    ) -> (Result<WireResponse>, crate::observe::CallTrace) {
        let sent =
            crate::transport::auth::send_signed(&self.transport, self.auth.as_ref(), req).await;
        (sent, crate::observe::CallTrace)
    }

    #[cfg(feature = "tracing")]
    async fn traced_send(
        &self,
        req: WireRequest,
    ) -> (Result<WireResponse>, crate::observe::CallTrace) {
        use tracing::Instrument;
        let span = tracing::debug_span!(
            target: "solr_client",
            "solr.request",
            method = %req.method,
            path = %req.path,
            db.system.name = "solr",
            db.collection.name = crate::transport::span::collection(&req.path),
            http.request.method = %req.method,
            http.response.status_code = tracing::field::Empty,
            status = tracing::field::Empty,
            attempts = tracing::field::Empty,
            qtime_ms = tracing::field::Empty,
            total_ms = tracing::field::Empty,
            error_kind = tracing::field::Empty,
            error = tracing::field::Empty,
        );
        let (transport, auth) = (self.transport.clone(), self.auth.clone());
        let state = std::cell::RefCell::new(crate::transport::span::CallState::default());
        let (resp, last) = crate::transport::span::CALL
            .scope(state, async move {
                let resp =
                    crate::transport::auth::send_signed(&transport, auth.as_ref(), req).await;
                let last = crate::transport::span::CALL
                    .try_with(|c| c.borrow_mut().last.take())
                    .ok()
                    .flatten();
                (resp, last)
            })
            .instrument(span.clone())
            .await;
        (resp, crate::observe::CallTrace { span, last })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASSWORD: &str = "s3cret-P4ss";
    const TOKEN: &str = "c29scjpzM2NyZXQtUDRzcw==";
    const URL: &str = "http://solr:s3cret-P4ss@solr.example:8983/solr";

    #[test]
    fn no_default_collection_build_fails_with_a_hint() {
        // A node URL without .collection(): refused, saying what to call.
        let err = SolrClient::builder("http://127.0.0.1:8983/solr")
            .build()
            .expect_err("no collection");
        let msg = err.to_string();
        assert!(matches!(err, Error::Config(_)), "{err:?}");
        assert!(msg.contains(".collection(\"name\")"), "{msg}");
        // A URL ending in the core is not split: refused too, naming the core it saw.
        let err = SolrClient::builder("http://127.0.0.1:8983/solr/mycore")
            .build()
            .expect_err("core in the URL, no collection");
        let msg = err.to_string();
        assert!(matches!(err, Error::Config(_)), "{err:?}");
        assert!(msg.contains(".collection(\"mycore\")"), "{msg}");
        for bad in ["", "a/b"] {
            let err = SolrClient::builder("http://127.0.0.1:8983/solr")
                .collection(bad)
                .build()
                .expect_err("bad name");
            assert!(matches!(err, Error::Config(_)), "{bad:?}: {err:?}");
        }
        // Named explicitly: every request goes under it.
        let c = SolrClient::builder("http://127.0.0.1:8983/solr")
            .collection("mycore")
            .build()
            .expect("client");
        assert_eq!(c.collection(), "mycore");
        let req = c.wire(http::Method::GET, "select", Vec::new(), RequestKind::Read);
        assert_eq!(req.path, "mycore/select");
    }

    #[test]
    fn update_params_go_on_every_update_and_the_clients_own_are_refused() {
        let b = || SolrClient::builder("http://127.0.0.1:8983/solr").collection("c");
        let c = b().build().expect("client");
        assert_eq!(
            c.update_query(Some(500)),
            [("wt", "json"), ("commitWithin", "500")].map(|(k, v)| (k.into(), v.into()))
        );
        let c = b()
            .update_chain("dedupe")
            .update_param("my.param", "1")
            .update_chain("strict")
            .build()
            .expect("client");
        // Set twice: replaced, not repeated (Solr would read the first).
        assert_eq!(
            c.update_query(None),
            [
                ("wt", "json"),
                ("update.chain", "strict"),
                ("my.param", "1")
            ]
            .map(|(k, v)| (k.into(), v.into()))
        );
        // Per call: a copy with another chain; the original is unchanged.
        let other = c.with_update_chain("tolerant");
        assert_eq!(
            other.update_params()[0],
            ("update.chain".into(), "tolerant".into())
        );
        assert_eq!(c.update_params()[0].1, "strict");
        for (k, v) in [
            ("wt", "xml"),
            ("commitWithin", "1"),
            ("", "x"),
            ("update.chain", ""),
        ] {
            let err = b().update_param(k, v).build().expect_err("refused");
            assert!(matches!(err, Error::Config(_)), "{k}={v}: {err:?}");
        }
    }

    #[test]
    fn builders_credentials_and_wire_requests_never_show_secrets() {
        use crate::transport::{RequestKind, Routing, TransportKind};

        let b = SolrClient::builder(URL);
        let shown = format!("{b:?}");
        assert!(!shown.contains(PASSWORD), "{shown}");
        assert!(matches!(b.build(), Err(Error::Config(_))));

        let inner = TransportKind::Fresh
            .build(&Default::default(), false)
            .expect("transport");
        for rb in [
            Routing::builder(inner.clone())
                .collection("bench")
                .leader(URL),
            Routing::builder(inner.clone())
                .collection("bench")
                .replica(URL),
            Routing::builder(inner.clone())
                .collection("bench")
                .cloud_seed(URL),
        ] {
            let shown = format!("{rb:?}");
            assert!(!shown.contains(PASSWORD), "{shown}");
            let err = rb.build().expect_err("userinfo refused by Routing too");
            assert!(!format!("{err} {err:?}").contains(PASSWORD), "{err}");
        }

        let creds = Credentials::basic("solr", PASSWORD);
        assert_eq!(
            format!("{creds:?}"),
            r#"Credentials { user: "solr", password: "***" }"#
        );
        let c = SolrClient::builder("http://solr.example:8983/solr")
            .collection("bench")
            .credentials(creds)
            .build()
            .expect("client");
        let mut req = c.wire(http::Method::GET, "select", Vec::new(), RequestKind::Read);
        assert_eq!(
            req.headers[http::header::AUTHORIZATION]
                .to_str()
                .expect("ascii"),
            format!("Basic {TOKEN}")
        );
        // A hand-built request: user info in its node, a non-sensitive Authorization value.
        req.node = url::Url::parse(URL).expect("url");
        req.headers.insert(
            http::header::PROXY_AUTHORIZATION,
            http::HeaderValue::from_static("Basic c29scjpzM2NyZXQtUDRzcw=="),
        );
        for shown in [format!("{req:?}"), format!("{c:?}")] {
            assert!(
                !shown.contains(PASSWORD) && !shown.contains(TOKEN),
                "{shown}"
            );
        }
        assert!(format!("{req:?}").contains("\"authorization\": \"***\""));
    }
}
