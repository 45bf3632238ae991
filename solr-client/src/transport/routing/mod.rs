//! `routing`: a decorator over ONE inner transport and a set of nodes. It picks the node of
//! every request by rewriting [`WireRequest::node`] (and, in SolrCloud, the core in the
//! path of an update): writes go to the leader, reads to replicas.
//!
//! Like tower's `Steer`, a picker chooses per request; like elasticsearch-rs, node selection
//! (the [`NodeStats`]-keeping pool, [`Policy`]) is kept apart from sending (the inner
//! transport, shared by all nodes, keeps one connection pool per host).
//!
//! # Layouts
//! - Standalone leader/follower ([`RoutingBuilder::leader`], [`RoutingBuilder::replica`]):
//!   both hold the core given to [`RoutingBuilder::collection`] (required), so only the node
//!   changes.
//! - SolrCloud ([`RoutingBuilder::cloud_seed`]): the [`ClusterView`] is discovered with
//!   `CLUSTERSTATUS` over HTTP on the first request and refreshed when stale. The name given
//!   to [`RoutingBuilder::collection`] may be a collection or an alias; without one the
//!   router is admin-only (node-level admin requests go to any live node; a request for a
//!   collection is [`Error::Config`]). [`SolrClient::cloud`](crate::SolrClient::cloud)
//!   builds all of it in one line. An update goes
//!   to the leader core of its shard (compositeId hashing, as SolrJ), chosen from the route
//!   key the client set before encoding ([`WireRequest::route`]), whatever the body format;
//!   bodies are never parsed. [`SolrClient`](crate::SolrClient) asks
//!   [`Transport::shard_groups`] first and sends a batch spanning shards as one request per
//!   shard, each straight to its leader; a request whose ids span shards anyway goes to the
//!   leader of the shard holding most of them and Solr forwards the rest. Commits and
//!   deletes by query carry no key and go to the first shard's leader (Solr distributes
//!   them). A read goes to the collection (or alias) path on a replica's node, with the
//!   `shards.preference` of the [`ReplicaPreference`] (default `replica.location:local`;
//!   not when the request sets `shards.preference` or `distrib`) so that the chosen replica
//!   serves it; Solr resolves an alias there and fans out to its collections.
//! - Aliases: writes to an alias go to the leaders of its first collection (where Solr
//!   writes them); the alias is resolved again at every refresh of the view.
//!
//! # When the SolrCloud view is reloaded
//! In the background every [`RoutingBuilder::view_max_age`] (with a router built by
//! [`RoutingBuilder::build_shared`]). Before a request: on first use, when it is older than
//! [`RoutingBuilder::view_max_age`], or when marked stale (a node came back after being marked down, or an update was answered
//! with the `rf=2147483647` sentinel). During a request: after every failed connect (the
//! leader may have moved; needed on each retry while an election runs), and once after an
//! answer saying the view is wrong (404 core not found, 510, or 503 about a leader), followed
//! by one retry. A node that is not the leader any more still accepts updates and forwards
//! them, so a stale view costs a hop, not data.
//!
//! # Reads ([`ReplicaPreference`], [`ReadPreference`])
//! Candidates are tried tier by tier (default: non-leader replicas, then the leader); within a
//! tier the [`Policy`] orders them. A read or admin request that fails in transport (connect,
//! I/O, timeout) fails over to the next node, within the [`RetryPolicy`].
//!
//! # Liveness
//! A node that failed to connect, or that a refreshed SolrCloud view no longer lists as
//! live, is marked down and skipped; after its backoff ([`HealthPolicy`], doubling per
//! consecutive failure; fixed with [`RoutingBuilder::liveness_interval`]) the next real
//! request probes it first (one request at a time), or [`Routing::probe`] checks it (SolrCloud:
//! `admin/info/health`, which a node answers with success only while it is live in
//! ZooKeeper; standalone: `{core}/admin/ping`). With a liveness interval and
//! [`RoutingBuilder::build_shared`], a background task runs [`Routing::probe`] at that
//! interval, as SolrJ's alive check does: a down node returns to rotation when it answers,
//! with no request spent on it.
//!
//! # 429 and 503
//! A request (read or write: the one policy of [`retries_status`](super::retries_status), shared with
//! [`Retry`](super::Retry), whose module docs give the reasons) answered 429 or 503 is
//! retried after `max(min(Retry-After, max_retry_after), jittered exponential backoff)`, on
//! the next candidate, until the budget ([`RetryPolicy::max_attempts`],
//! [`RetryPolicy::max_wait`]) is spent; then the error is [`Error::RetriesExhausted`]. A
//! wait longer than the budget left, or ending after the request deadline, ends the retries
//! at once.
//!
//! # The request deadline
//! [`Timeouts::request`] bounds the whole call: the deadline ([`WireRequest::deadline`]) is
//! set once when the request enters, every attempt carries it, no failover or retry starts
//! after it, no backoff wait is begun that would end after it, and when it passes the call
//! ends with a [`TimeoutPhase::Request`](crate::TimeoutPhase::Request) timeout naming the
//! configured value.
//!
//! # Streamed answers ([`Transport::send_streaming`])
//! `export_as`, `stream_as` and `sql_as` through a router go the same way as a whole
//! request: one attempt loop serves both (`attempt`, over one [`Reply`]),
//! so the plan, liveness, failover, the 429/503 backoff, the view refreshes and the counters
//! are the same. A streamed attempt is judged on its head; its body is read by the router
//! only where a rule looks into it (a SolrCloud 503, a SolrCloud write) and otherwise
//! streams from the chosen node as it arrives. Once the head is accepted nothing is retried:
//! an error in the body is the reader's. The request deadline bounds the call up to the
//! head, the attempt stays outstanding on its node until the body ends (or is dropped), and
//! its service time (the EWMA) is the time to the head.
//!
//! # Writes: exactly when they are retried
//! A write is retried only when Solr cannot have processed it: [`Error::is_not_sent`] is
//! true (Solr cannot have seen it), or Solr refused it before processing:
//! - the TCP connect (or DNS, or the TLS handshake, or the connect timeout) failed;
//! - the keep-alive connection was found closed before the request was written
//!   (`Error::Io { not_sent: true }`);
//! - in SolrCloud, no node could take it ([`Error::NoNode`], e.g. no live shard leader during an election):
//!   the view is refreshed and the write retried after a backoff;
//! - in SolrCloud, an answer `404` (the leader core is not on that node any more): Solr
//!   rejected the request before any update processor ran; the view is refreshed once and the
//!   write sent once more to the new leader;
//! - it was answered 429 or 503 (refused before processing; see above and [`retries_status`](super::retries_status)).
//!
//! Everything else is returned to the caller, never retried and never dropped: a write that
//! was sent and then lost its connection or timed out may have been applied (Solr indexes
//! while the client waits), and a write answered with another error status (500, 502, 504)
//! may have been applied in part (a leader indexes locally before it forwards to replicas).
//! [`SolrClient::add`](crate::SolrClient::add) turns any such failure into
//! [`Error::Update`] listing every id of the batch: as failed when nothing can have been
//! indexed (not sent, or refused as a whole: a 4xx or a 503), otherwise as unknown. A tolerant-chain answer with the
//! `rf=2147483647` sentinel (leader unreachable, nothing indexed) marks the view stale, so the
//! next batch goes to the new leader.
//!
//! # Counters
//! [`Routing::node_stats`] gives per-node counts of attempts by kind, answers, transport
//! failures, times marked down, in-flight requests and the service-time EWMA. Each response's
//! [`Timing`](crate::Timing) records `attempts` and the final `node`.

use crate::url_input::UrlText;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::{Duration, Instant};

use url::Url;

mod answer;
mod attempt;
mod liveness;
mod nodes;
mod plan;
mod preference;
mod refresh;

pub(crate) use nodes::node_key;
pub use nodes::{HealthPolicy, NodeStats, Policy};
pub use preference::{ReadPreference, ReplicaPreference};

use super::cloud::ClusterView;
use super::layer::redirect::Redirects;
use super::layer::retry::RetryPolicy;
use super::{BoxFuture, Reply, ShardGroup, Timeouts, Transport, TransportStats, WireRequest};
use crate::auth::AuthProvider;
use crate::error::{Error, Result};
use nodes::NodePool;

/// Builder of a [`Routing`] decorator.
#[derive(Debug)]
#[must_use]
pub struct RoutingBuilder {
    inner: Arc<dyn Transport>,
    collection: Option<String>,
    leader: Option<UrlText>,
    replicas: Vec<UrlText>,
    seeds: Vec<UrlText>,
    policy: Policy,
    preference: ReplicaPreference,
    retry: RetryPolicy,
    health: HealthPolicy,
    timeouts: Timeouts,
    view_max_age: Duration,
    liveness_interval: Option<Duration>,
    max_redirects: u32,
    auth: Option<Arc<dyn AuthProvider>>,
}

impl RoutingBuilder {
    /// The standalone leader (primary), which takes every write. Default none.
    pub fn leader(mut self, base_url: impl Into<String>) -> Self {
        self.leader = Some(UrlText(base_url.into()));
        self
    }

    /// A standalone replica (follower), which takes reads. Call once per replica.
    pub fn replica(mut self, base_url: impl Into<String>) -> Self {
        self.replicas.push(UrlText(base_url.into()));
        self
    }

    /// A SolrCloud node to ask for the cluster state (any node; give several in case one is
    /// down). Makes this a SolrCloud router; cannot be mixed with `leader`/`replica`.
    pub fn cloud_seed(mut self, base_url: impl Into<String>) -> Self {
        self.seeds.push(UrlText(base_url.into()));
        self
    }

    /// The collection or alias (SolrCloud) or core (standalone). No default: a standalone
    /// router without one is [`Error::Config`]; a SolrCloud router without one is
    /// admin-only. The client over the router must name the same collection.
    pub fn collection(mut self, name: impl Into<String>) -> Self {
        self.collection = Some(name.into());
        self
    }

    /// Node selection policy. Default [`Policy::RoundRobin`].
    pub fn policy(mut self, p: Policy) -> Self {
        self.policy = p;
        self
    }

    /// Read preference by leadership or node. Default [`ReadPreference::NonLeader`].
    pub fn read_preference(mut self, r: ReadPreference) -> Self {
        self.preference.order = r;
        self
    }

    /// The whole read preference (leadership or node, replica types, `shards.preference`).
    /// Default [`ReplicaPreference::default`].
    pub fn replica_preference(mut self, p: ReplicaPreference) -> Self {
        self.preference = p;
        self
    }

    /// Retry budget. Default [`RetryPolicy::default`] (5 attempts, 30 s of waiting).
    pub fn retry(mut self, r: RetryPolicy) -> Self {
        self.retry = r;
        self
    }

    /// Down-node backoff. Default [`HealthPolicy::default`] (500 ms doubling to 30 s).
    pub fn health(mut self, h: HealthPolicy) -> Self {
        self.health = h;
        self
    }

    /// Checks every down node at this interval: the backoff becomes this fixed interval,
    /// and a router built with [`Self::build_shared`] runs [`Routing::probe`] (and the
    /// timed view refresh) in a background task, started on its first request inside a
    /// Tokio runtime and ended when the router is dropped. Default none: down nodes are
    /// probed by the next request after their backoff.
    pub fn liveness_interval(mut self, every: Duration) -> Self {
        self.liveness_interval = Some(every);
        self.health = HealthPolicy::default()
            .initial_backoff(every)
            .max_backoff(every);
        self
    }

    /// Signs the router's own requests (`CLUSTERSTATUS`, the liveness checks of down
    /// nodes), those of its background task included, with `provider`: asked at each
    /// request, renewed once after a 401, as for a client call. Give it the client's
    /// provider when the server wants credentials;
    /// [`SolrClient::cloud`](crate::SolrClient::cloud) does. Default none: the router's own
    /// requests go unsigned (a client call's requests carry their own provider,
    /// [`WireRequest::auth`]).
    pub fn auth(mut self, provider: Arc<dyn AuthProvider>) -> Self {
        self.auth = Some(provider);
        self
    }

    /// SolrCloud: reload the cluster view when it is older than this (before a request, and
    /// in the background task of [`Self::build_shared`]), so a leader change that no error
    /// revealed (a restarted old leader forwards updates to the new one) or an alias swap
    /// is noticed. Default 30 s.
    pub fn view_max_age(mut self, age: Duration) -> Self {
        self.view_max_age = age;
        self
    }

    /// Timeouts of the router's own requests (cluster status, probes). Default
    /// [`Timeouts::default`].
    pub fn timeouts(mut self, t: Timeouts) -> Self {
        self.timeouts = t;
        self
    }

    /// Lets reads follow up to `max_hops` redirects from a node, with the rules of
    /// [`super::Redirects`] (a write is never redirected). The router picks the node of
    /// every request it is given, so it decides redirects itself, per node, on its inner
    /// transport: a client's `follow_redirects` does not reach through a router. Default 0:
    /// a 3xx from any node is an [`Error::Redirect`].
    pub fn follow_redirects(mut self, max_hops: u32) -> Self {
        self.max_redirects = max_hops;
        self
    }

    /// Builds the router. An empty node list, a bad URL, mixing standalone nodes with cloud
    /// seeds, or standalone nodes without a collection is [`Error::Config`].
    pub fn build(self) -> Result<Routing> {
        let standalone = self.leader.is_some() || !self.replicas.is_empty();
        if standalone && !self.seeds.is_empty() {
            return Err(Error::config(
                "routing: give either standalone nodes (leader/replica) or cloud seeds, not both",
            ));
        }
        if !standalone && self.seeds.is_empty() {
            return Err(Error::config("routing: the node list is empty"));
        }
        let (view, seeds) = if standalone {
            (self.standalone_view()?, Vec::new())
        } else {
            self.cloud_view()?
        };
        Ok(self.assemble(view, seeds))
    }

    /// Builds the router behind an [`Arc`] that knows itself, so that it can run the
    /// background liveness and refresh task of [`Self::liveness_interval`].
    pub fn build_shared(self) -> Result<Arc<Routing>> {
        let mut routing = self.build()?;
        Ok(Arc::new_cyclic(|me| {
            routing.me = me.clone();
            routing
        }))
    }

    fn standalone_view(&self) -> Result<ClusterView> {
        let replicas = self
            .replicas
            .iter()
            .map(parse)
            .collect::<Result<Vec<_>>>()?;
        let leader = self.leader.as_ref().map(parse).transpose()?;
        let Some(core) = &self.collection else {
            return Err(Error::config(
                "routing: standalone nodes need the core: call .collection(\"name\"); there \
                 is no default",
            ));
        };
        let mut view = match leader {
            Some(l) => ClusterView::standalone(core, l, replicas),
            None => {
                // Read-only set: no leader, writes get Error::NoNode.
                let mut v =
                    ClusterView::standalone(core, replicas[0].clone(), replicas[1..].to_vec());
                v.shards[0].replicas[0].leader = false;
                v
            }
        };
        view.live_nodes.clear();
        Ok(view)
    }

    fn cloud_view(&self) -> Result<(ClusterView, Vec<Url>)> {
        let seeds = self.seeds.iter().map(parse).collect::<Result<Vec<_>>>()?;
        let name = self.collection.as_deref().unwrap_or_default();
        let mut view = ClusterView::standalone(name, seeds[0].clone(), Vec::new());
        view.cloud = true;
        view.shards.clear();
        Ok((view, seeds))
    }

    fn assemble(self, view: ClusterView, seeds: Vec<Url>) -> Routing {
        let pool = NodePool::default();
        for u in view.nodes().iter().chain(&seeds) {
            pool.get(u);
        }
        let cloud = !seeds.is_empty();
        Routing {
            // Redirects are decided per node, before the router could re-route a hop.
            inner: Arc::new(Redirects::new(self.inner, self.max_redirects)),
            pool,
            view: RwLock::new(Arc::new(view)),
            seeds,
            cloud,
            collection: self.collection,
            stale: AtomicBool::new(cloud),
            refresh_lock: tokio::sync::Mutex::new(()),
            refreshes: AtomicU64::new(0),
            refreshed_at: Mutex::new(None),
            view_max_age: self.view_max_age,
            liveness_interval: self.liveness_interval,
            policy: self.policy,
            preference: self.preference,
            retry: self.retry,
            health: self.health,
            timeouts: self.timeouts,
            auth: self.auth,
            me: Weak::new(),
            ticking: AtomicBool::new(false),
        }
    }
}

fn parse(u: &UrlText) -> Result<Url> {
    crate::url_input::parse_node_url(&u.0)
}

/// The routing decorator. See the module docs.
#[derive(Debug)]
pub struct Routing {
    inner: Arc<dyn Transport>,
    pool: NodePool,
    view: RwLock<Arc<ClusterView>>,
    seeds: Vec<Url>,
    cloud: bool,
    /// The collection, alias or core; None: an admin-only SolrCloud router.
    collection: Option<String>,
    stale: AtomicBool,
    refresh_lock: tokio::sync::Mutex<()>,
    refreshes: AtomicU64,
    refreshed_at: Mutex<Option<Instant>>,
    view_max_age: Duration,
    liveness_interval: Option<Duration>,
    policy: Policy,
    preference: ReplicaPreference,
    retry: RetryPolicy,
    health: HealthPolicy,
    timeouts: Timeouts,
    /// The provider the router's own requests carry (cluster state, liveness checks).
    auth: Option<Arc<dyn AuthProvider>>,
    /// Itself, when built by [`RoutingBuilder::build_shared`] (for the background task).
    me: Weak<Routing>,
    ticking: AtomicBool,
}

impl Routing {
    /// A builder over `inner` (for example `TransportKind::Pooled.build(..)`).
    pub fn builder(inner: Arc<dyn Transport>) -> RoutingBuilder {
        RoutingBuilder {
            inner,
            collection: None,
            leader: None,
            replicas: Vec::new(),
            seeds: Vec::new(),
            policy: Policy::default(),
            preference: ReplicaPreference::default(),
            retry: RetryPolicy::default(),
            health: HealthPolicy::default(),
            timeouts: Timeouts::default(),
            view_max_age: Duration::from_secs(30),
            liveness_interval: None,
            max_redirects: 0,
            auth: None,
        }
    }

    /// Counters and state of every node seen, in the order first seen.
    pub fn node_stats(&self) -> Vec<NodeStats> {
        self.pool.stats()
    }

    /// Counters of one node (base URL, trailing slash optional).
    pub fn stats_of(&self, base_url: &str) -> Option<NodeStats> {
        let key = base_url.trim_end_matches('/');
        self.node_stats()
            .into_iter()
            .find(|s| s.node.trim_end_matches('/') == key)
    }

    /// The current cluster view.
    pub fn view(&self) -> Arc<ClusterView> {
        Arc::clone(&self.view.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// The collection, alias or core the router serves; None for an admin-only router.
    pub fn collection(&self) -> Option<&str> {
        self.collection.as_deref()
    }

    /// How many times the SolrCloud view was (re)loaded.
    pub fn refreshes(&self) -> u64 {
        self.refreshes.load(Ordering::Acquire)
    }

    /// When the SolrCloud view was last loaded; None before the first load.
    pub fn refreshed_at(&self) -> Option<Instant> {
        *self.refreshed_at.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The selection policy.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// The read preference (replica order of per-shard reads such as a cloud export).
    pub(crate) fn replica_preference(&self) -> &ReplicaPreference {
        &self.preference
    }

    fn view_too_old(&self) -> bool {
        self.refreshed_at()
            .is_none_or(|t| t.elapsed() > self.view_max_age)
    }
}

impl Transport for Routing {
    /// Chooses the node (plan, liveness, failover, 429/503 backoff, counters) alike for a
    /// whole and a streamed reply; a streamed one is judged on its head, and once the head
    /// has been accepted nothing is retried: an error in the body is the reader's.
    fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
        Box::pin(self.route(req))
    }

    fn name(&self) -> String {
        format!("{}+routing({})", self.inner.name(), self.policy)
    }

    fn stats(&self) -> TransportStats {
        self.inner.stats()
    }

    fn shard_groups<'a>(
        &'a self,
        _req: &'a WireRequest,
        ids: &'a [String],
    ) -> BoxFuture<'a, Result<Option<Vec<ShardGroup>>>> {
        Box::pin(async move { Ok(self.group_ids(ids).await) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{composite_id_hash, RequestKind, RouteKey};
    use crate::TransportKind;
    use http::{HeaderMap, Method};
    use nodes::node_key;

    fn inner() -> Arc<dyn Transport> {
        TransportKind::Pooled
            .build(&crate::TlsOptions::default(), false)
            .expect("builds")
    }

    #[test]
    fn empty_or_mixed_node_lists_are_errors() {
        assert!(matches!(
            Routing::builder(inner()).build(),
            Err(Error::Config(_))
        ));
        assert!(matches!(
            Routing::builder(inner())
                .leader("http://127.0.0.1:1/solr")
                .cloud_seed("http://127.0.0.1:2/solr")
                .build(),
            Err(Error::Config(_))
        ));
        assert!(matches!(
            Routing::builder(inner()).leader("ftp://x").build(),
            Err(Error::Config(_))
        ));
        // A standalone router has no default core.
        let no_core = Routing::builder(inner())
            .leader("http://127.0.0.1:1/solr")
            .build();
        assert!(matches!(no_core, Err(Error::Config(m)) if m.contains(".collection(")));
    }

    #[tokio::test]
    async fn an_admin_only_router_refuses_collection_requests_unsent() {
        let inner = Arc::new(TwoShards::default());
        let r = Routing::builder(inner.clone())
            .cloud_seed("http://127.0.0.1:1/solr")
            .build()
            .expect("builds");
        let req = |kind, path: &str| WireRequest {
            method: Method::GET,
            node: Url::parse("http://127.0.0.1:1/solr").expect("url"),
            path: path.into(),
            query: Vec::new(),
            headers: HeaderMap::new(),
            body: bytes::Bytes::new(),
            kind,
            timeouts: Timeouts::default(),
            max_response_bytes: 1 << 20,
            deadline: None,
            route: None,
            auth: None,
            streamed: false,
        };
        for (kind, path) in [
            (RequestKind::Read, "/select"),
            (RequestKind::Write, "/update"),
            (RequestKind::Admin, "/admin/ping"),
        ] {
            let e = r.send(req(kind, path)).await.expect_err("no collection");
            assert!(
                matches!(&e, Error::Config(m) if m.contains("admin-only")),
                "{e}"
            );
        }
        assert_eq!(inner.sent.lock().expect("lock").len(), 0);
        let ok = r
            .send_whole(req(RequestKind::Admin, "admin/info/system"))
            .await;
        assert_eq!(ok.expect("node-level admin").status, http::StatusCode::OK);
        // One request, to one of the live nodes CLUSTERSTATUS listed.
        let sent = inner.sent.lock().expect("lock").clone();
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].1, "admin/info/system");
        let live = ["http://127.0.0.1:1/solr", "http://127.0.0.1:2/solr"];
        assert!(live.contains(&sent[0].0.as_str()), "{sent:?}");
    }

    #[tokio::test]
    async fn writes_without_a_leader_are_no_node_errors() {
        let r = Routing::builder(inner())
            .replica("http://127.0.0.1:1/solr")
            .collection("bench")
            .build()
            .expect("builds");
        let req = WireRequest {
            method: Method::POST,
            node: Url::parse("http://127.0.0.1:1/solr").expect("url"),
            path: "bench/update".into(),
            query: Vec::new(),
            headers: HeaderMap::new(),
            body: bytes::Bytes::from_static(b"[]"),
            kind: RequestKind::Write,
            timeouts: Timeouts::default(),
            max_response_bytes: 1024,
            deadline: None,
            route: None,
            auth: None,
            streamed: false,
        };
        let e = r.send(req).await.expect_err("no leader");
        assert!(matches!(e, Error::NoNode(_)) && e.is_not_sent());
        assert_eq!(r.node_stats()[0].writes, 0);
    }

    /// An inner transport that answers CLUSTERSTATUS with a 2-shard view (shard1 led on
    /// node 1, shard2 on node 2) and every other request with 200, recording where it went.
    #[derive(Debug, Default)]
    struct TwoShards {
        sent: std::sync::Mutex<Vec<(String, String)>>,
    }

    impl Transport for TwoShards {
        fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
            Box::pin(async move {
                let body = if req.path == "admin/collections" {
                    serde_json::json!({"cluster":{
                        "live_nodes":["127.0.0.1:1_solr","127.0.0.1:2_solr"],
                        "collections":{"bench":{"router":{"name":"compositeId"},"shards":{
                            "shard1":{"range":"80000000-ffffffff","state":"active","replicas":{
                                "r1":{"core":"bench_shard1_replica_n1","node_name":"127.0.0.1:1_solr","state":"active","leader":"true"},
                                "r2":{"core":"bench_shard1_replica_n2","node_name":"127.0.0.1:2_solr","state":"active"}}},
                            "shard2":{"range":"0-7fffffff","state":"active","replicas":{
                                "r3":{"core":"bench_shard2_replica_n3","node_name":"127.0.0.1:1_solr","state":"active"},
                                "r4":{"core":"bench_shard2_replica_n4","node_name":"127.0.0.1:2_solr","state":"active","leader":"true"}}}}}}}})
                    .to_string()
                } else {
                    self.sent
                        .lock()
                        .expect("lock")
                        .push((node_key(&req.node), req.path.clone()));
                    r#"{"responseHeader":{"status":0,"QTime":0}}"#.to_string()
                };
                Ok(Reply::Whole(crate::transport::WireResponse {
                    status: http::StatusCode::OK,
                    headers: HeaderMap::new(),
                    body: bytes::Bytes::from(body),
                    timing: crate::Timing::default(),
                }))
            })
        }
        fn name(&self) -> String {
            "two-shards".into()
        }
        fn stats(&self) -> TransportStats {
            TransportStats::default()
        }
    }

    #[tokio::test]
    async fn writes_follow_the_route_key_never_the_body() {
        let inner = Arc::new(TwoShards::default());
        let r = Routing::builder(inner.clone())
            .cloud_seed("http://127.0.0.1:1/solr")
            .collection("bench")
            .build()
            .expect("builds");
        // Ids of each shard, by the hash ranges above (negative hashes are shard1's).
        let (mut one, mut two) = (Vec::new(), Vec::new());
        for i in 0..40 {
            let id = format!("doc-{i}");
            if composite_id_hash(&id) < 0 {
                one.push(id);
            } else {
                two.push(id);
            }
        }
        let mut ids: Vec<String> = one[..3].to_vec();
        ids.extend(two[..2].iter().cloned());
        let template = |route: Option<RouteKey>, body: &'static [u8]| WireRequest {
            method: Method::POST,
            node: Url::parse("http://127.0.0.1:1/solr").expect("url"),
            path: "bench/update".into(),
            query: Vec::new(),
            headers: HeaderMap::new(),
            body: bytes::Bytes::from_static(body),
            kind: RequestKind::Write,
            timeouts: Timeouts::default(),
            max_response_bytes: 1024,
            deadline: None,
            route,
            auth: None,
            streamed: false,
        };
        let groups = r
            .shard_groups(&template(None, b""), &ids)
            .await
            .expect("groups")
            .expect("a cloud router has an opinion");
        assert_eq!(
            groups,
            vec![
                ShardGroup {
                    shard: "shard1".into(),
                    members: vec![0, 1, 2]
                },
                ShardGroup {
                    shard: "shard2".into(),
                    members: vec![3, 4]
                },
            ]
        );
        // An XML body naming shard1's ids, routed to shard2 by its key: the key wins.
        r.send(template(
            Some(RouteKey::Shard("shard2".into())),
            b"<add><doc><field name=\"id\">doc-x</field></doc></add>",
        ))
        .await
        .expect("sent");
        // Ids of both shards, most of shard1: shard1's leader; no key: the first shard.
        r.send(template(Some(RouteKey::Ids(ids.clone())), b"\xa0"))
            .await
            .expect("sent");
        r.send(template(None, br#"{"commit":{}}"#))
            .await
            .expect("sent");
        let sent = inner.sent.lock().expect("lock").clone();
        assert_eq!(
            sent,
            vec![
                (
                    "http://127.0.0.1:2/solr".to_string(),
                    "bench_shard2_replica_n4/update".to_string()
                ),
                (
                    "http://127.0.0.1:1/solr".to_string(),
                    "bench_shard1_replica_n1/update".to_string()
                ),
                (
                    "http://127.0.0.1:1/solr".to_string(),
                    "bench_shard1_replica_n1/update".to_string()
                ),
            ]
        );
    }
}
