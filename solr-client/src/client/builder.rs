//! [`SolrClientBuilder`]: every option of a client, standalone or SolrCloud, and the one
//! place that assembles its transport stack.

use std::sync::Arc;

use url::Url;

use super::cloud::CloudOptions;
use super::{SolrClient, DEFAULT_MAX_RESPONSE_BYTES};
use crate::auth::headers::{header_map, CustomHeader};
use crate::auth::{AuthProvider, Credentials};
use crate::codec::{ResponseFormat, UpdateFormat};
use crate::error::{Error, Result};
use crate::transport::{
    Identity, PooledConfig, Proxy, RetryPolicy, Routing, Timeouts, TlsOptions, Transport,
    TransportKind,
};

/// Builder of a [`SolrClient`], of one node ([`SolrClient::builder`]) or of a SolrCloud
/// cluster ([`SolrClient::cloud`]): the same setters for both, the cloud options
/// ([`Self::replica_preference`], [`Self::policy`], [`Self::liveness_interval`],
/// [`Self::refresh_interval`]) for a cloud client only.
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
    /// The 429/503 retry policy ([`Self::retry`]).
    retry: Option<RetryPolicy>,
    pooled: PooledConfig,
    observer: crate::observe::Observer,
    update_params: Vec<(String, String)>,
    unique_key: String,
    /// The seeds and router options of a SolrCloud client ([`SolrClient::cloud`]).
    pub(super) cloud: CloudOptions,
}

impl SolrClientBuilder {
    /// The collection or core name. Required for a client of one node: there is no
    /// default, and the base URL names the node (`http://127.0.0.1:8983/solr`), never the
    /// core, so [`Self::build`] fails with [`Error::Config`] when this was not called (or was
    /// given an empty name or one containing `/`). On a cloud client ([`SolrClient::cloud`])
    /// the collection or alias every data call goes to; without one the client is
    /// admin-only (Collections, Configsets, system APIs), and a data call (search, update,
    /// ping, schema) is [`Error::Config`], never sent.
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
    /// [`Self::transport`], [`Self::gzip`], [`Self::tls`], [`Self::client_identity`] and
    /// [`Self::proxy`]. On a cloud client it is the transport under the router.
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

    /// Timeouts of every request (on a cloud client, the router's own requests too).
    /// Default: connect 10 s, read idle 30 s, whole request 60 s.
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
    /// recorded in [`Timing::redirects`](crate::Timing::redirects) and
    /// [`Timing::final_url`](crate::Timing::final_url). A write is never redirected. Default 0: every 3xx answer is an [`Error::Redirect`]. Applies to every
    /// transport, custom ones included ([`crate::transport::Redirects`]); a
    /// [`crate::transport::Routing`] decides per node instead (its own `follow_redirects`),
    /// since it re-routes every request it is given (on a cloud client this setting applies
    /// over the router).
    pub fn follow_redirects(mut self, max_hops: u32) -> Self {
        self.max_redirects = max_hops;
        self
    }

    /// Retries a request Solr (or a proxy) answered with 429 or 503, honouring
    /// `Retry-After`, within `policy`'s budget and the request timeout
    /// ([`crate::transport::Retry`]). Writes are retried too (both statuses mean the request
    /// was refused before it was processed); nothing else is. When the budget runs out the
    /// call is [`Error::RetriesExhausted`], keeping the last answer's status. On a cloud
    /// client ([`SolrClient::cloud`]) it is the budget of the router, which also spends it
    /// on failover to another node (one retry layer, never two). Default: none on a client
    /// of one node (a 429 or 503 is the call's answer); [`RetryPolicy::default`] on a cloud
    /// client.
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

    /// Builds the client. Nothing is sent. A standalone builder without a collection, a
    /// cloud builder without a seed, a bad URL or name, or a SolrCloud option on a builder
    /// of one node is [`Error::Config`].
    pub fn build(self) -> Result<SolrClient> {
        self.cloud.check()?;
        let node = crate::url_input::parse_node_url(&self.node.0)?;
        let collection = match (&self.collection, self.cloud.is_cloud()) {
            // A cloud client without a collection is admin-only: its collection paths have
            // an empty name, which its router refuses with Error::Config.
            (None, true) => String::new(),
            _ => check_collection(self.collection.clone(), &node)?,
        };
        check_update_params(&self.update_params)?;
        let named = Some(collection.as_str()).filter(|c| !c.is_empty());
        let (transport, cloud) = self.transport_stack(named)?;
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
            cloud,
        })
    }

    /// The transport stack, in its documented order ([`crate::transport::stack`]): the base
    /// transport (the custom one, else the kind with its TLS, client identity, proxy, pool
    /// and gzip settings); over it the SolrCloud router of a cloud client (which retries
    /// itself, with the policy of [`Self::retry`]) or the 429/503 retry of a standalone one;
    /// then the redirect decorator and the 401 renewal. Also returns the router, for
    /// [`SolrClient::cloud_router`].
    fn transport_stack(&self, collection: Option<&str>) -> Result<Stack> {
        let base = match &self.transport {
            Some(t) => t.clone(),
            None => {
                let tls = match &self.identity {
                    Some(id) => self.tls.clone().client_identity(id.clone()),
                    None => self.tls.clone(),
                };
                let proxy = self.proxy.as_ref();
                self.kind.build_via(&tls, self.gzip, self.pooled, proxy)?
            }
        };
        if !self.cloud.is_cloud() {
            let stack = crate::transport::stack(base, self.retry, self.max_redirects);
            return Ok((stack, None));
        }
        let auth = self.auth.as_ref();
        let r = (self.cloud).router(base, collection, self.retry, self.timeouts, auth)?;
        // The router retries per node itself: no retry layer over it.
        let stack = crate::transport::stack(r.clone(), None, self.max_redirects);
        Ok((stack, Some(r)))
    }
}

/// The transport a client sends through, and the SolrCloud router in it (cloud clients).
type Stack = (Arc<dyn Transport>, Option<Arc<Routing>>);

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
            cloud: CloudOptions::default(),
        }
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
pub(super) fn check_unique_key(field: String) -> Result<Arc<str>> {
    if field.is_empty() {
        return Err(Error::config("the uniqueKey field name is empty"));
    }
    Ok(field.into())
}

/// Refuses update parameters the client sets itself, and empty names or values.
fn check_update_params(params: &[(String, String)]) -> Result<()> {
    for (k, v) in params {
        if k.is_empty() || v.is_empty() {
            return Err(Error::config(format!(
                "update parameter {k:?}={v:?}: neither the name nor the value may be empty"
            )));
        }
        if k == "wt" || k == "commitWithin" {
            return Err(Error::config(format!(
                "update parameter {k:?} is set by the client itself (the response format it \
                 decodes, or the commit_within argument of the call): do not set it as an \
                 update parameter"
            )));
        }
    }
    Ok(())
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
        Error::config(format!(
            "{what}: call .collection(\"name\") on SolrClient::builder({node}); there is no \
             default collection{core_in_url}"
        ))
    };
    match name {
        None => Err(hint("no collection")),
        Some(n) if n.is_empty() => Err(hint("empty collection name")),
        Some(n) if n.contains('/') => Err(Error::config(format!(
            "collection name {n:?} contains '/': name one collection or core, without path"
        ))),
        Some(n) => Ok(n),
    }
}
