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
//!   both cores are named `bench` in this project's pair mode, so only the node changes.
//! - SolrCloud ([`RoutingBuilder::cloud_seed`]): the [`ClusterView`] is discovered with
//!   `CLUSTERSTATUS` over HTTP on the first request and refreshed when stale. An update goes
//!   to the leader core of its shard (compositeId hashing, as SolrJ), chosen from the route
//!   key the client set before encoding ([`WireRequest::route`]), whatever the body format;
//!   bodies are never parsed. [`SolrClient`](crate::SolrClient) asks
//!   [`Transport::shard_groups`] first and sends a batch spanning shards as one request per
//!   shard, each straight to its leader; a request whose ids span shards anyway goes to the
//!   leader of the shard holding most of them and Solr forwards the rest. Commits and
//!   deletes by query carry no key and go to the first shard's leader (Solr distributes
//!   them). A read goes to the collection path on a replica's node, with
//!   `shards.preference=replica.location:local` (unless the request sets `shards.preference`
//!   or `distrib`) so that the chosen replica serves it.
//!
//! # When the SolrCloud view is reloaded
//! Before a request: on first use, when it is older than [`RoutingBuilder::view_max_age`], or
//! when marked stale (a node came back after being marked down, or an update was answered
//! with the `rf=2147483647` sentinel). During a request: after every failed connect (the
//! leader may have moved; needed on each retry while an election runs), and once after an
//! answer saying the view is wrong (404 core not found, 510, or 503 about a leader), followed
//! by one retry. A node that is not the leader any more still accepts updates and forwards
//! them, so a stale view costs a hop, not data.
//!
//! # Reads ([`ReadPreference`])
//! Candidates are tried tier by tier (default: non-leader replicas, then the leader); within a
//! tier the [`Policy`] orders them. A node that failed to connect is marked down and skipped;
//! after its backoff ([`HealthPolicy`], doubling per consecutive failure) the next real request
//! probes it first (one request at a time), or [`Routing::probe`] pings it with `admin/ping`.
//! Any HTTP answer brings it back. A read or admin request that fails in transport (connect,
//! I/O, timeout) fails over to the next node, within the [`RetryPolicy`].
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

use crate::error::UrlText;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use http::header::AUTHORIZATION;
use http::{HeaderMap, Method};
use url::Url;

mod attempt;
mod nodes;
mod plan;

pub use nodes::{HealthPolicy, NodeStats, Policy};

use super::cloud::ClusterView;
use super::redirect::Redirects;
use super::retry::RetryPolicy;
use super::{
    BoxFuture, RequestKind, ShardGroup, Timeouts, Transport, TransportStats, WireRequest,
    WireResponse,
};
use crate::error::{Error, Result};
use nodes::{node_key, Availability, NodePool};

/// Which replicas a read prefers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ReadPreference {
    /// Non-leader replicas first, the leader only when none is reachable. Default.
    #[default]
    NonLeader,
    /// Any replica, leader included, all in one tier.
    Any,
    /// The leader first (reads that must see the latest acknowledged write in a pair).
    Leader,
    /// This node first (a base URL), then the others as with `NonLeader`.
    Node(String),
}

/// Builder of a [`Routing`] decorator.
#[derive(Debug)]
#[must_use]
pub struct RoutingBuilder {
    inner: Arc<dyn Transport>,
    collection: String,
    leader: Option<UrlText>,
    replicas: Vec<UrlText>,
    seeds: Vec<UrlText>,
    policy: Policy,
    read_preference: ReadPreference,
    retry: RetryPolicy,
    health: HealthPolicy,
    timeouts: Timeouts,
    view_max_age: Duration,
    max_redirects: u32,
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

    /// The collection (SolrCloud) or core (standalone). Default `bench`.
    pub fn collection(mut self, name: impl Into<String>) -> Self {
        self.collection = name.into();
        self
    }

    /// Node selection policy. Default [`Policy::RoundRobin`].
    pub fn policy(mut self, p: Policy) -> Self {
        self.policy = p;
        self
    }

    /// Read preference. Default [`ReadPreference::NonLeader`].
    pub fn read_preference(mut self, r: ReadPreference) -> Self {
        self.read_preference = r;
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

    /// SolrCloud: reload the cluster view before a request when it is older than this, so a
    /// leader change that no error revealed (a restarted old leader forwards updates to the
    /// new one) is noticed. Default 30 s.
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

    /// Builds the router. An empty node list, a bad URL, or mixing standalone nodes with cloud
    /// seeds is [`Error::Config`].
    pub fn build(self) -> Result<Routing> {
        fn parse(u: &UrlText) -> Result<Url> {
            crate::error::parse_node_url(&u.0)
        }
        let standalone = self.leader.is_some() || !self.replicas.is_empty();
        if standalone && !self.seeds.is_empty() {
            return Err(Error::Config(
                "routing: give either standalone nodes (leader/replica) or cloud seeds, not both"
                    .into(),
            ));
        }
        if !standalone && self.seeds.is_empty() {
            return Err(Error::Config("routing: the node list is empty".into()));
        }
        let pool = NodePool::default();
        let (view, seeds) = if standalone {
            let replicas = self
                .replicas
                .iter()
                .map(parse)
                .collect::<Result<Vec<_>>>()?;
            let mut view = match &self.leader {
                Some(l) => ClusterView::standalone(&self.collection, parse(l)?, replicas),
                None => {
                    // Read-only set: no leader, writes get Error::NoNode.
                    let mut v = ClusterView::standalone(
                        &self.collection,
                        replicas[0].clone(),
                        replicas[1..].to_vec(),
                    );
                    v.shards[0].replicas[0].leader = false;
                    v
                }
            };
            view.live_nodes.clear();
            (view, Vec::new())
        } else {
            let seeds = self.seeds.iter().map(parse).collect::<Result<Vec<_>>>()?;
            let mut view = ClusterView::standalone(&self.collection, seeds[0].clone(), Vec::new());
            view.cloud = true;
            view.shards.clear();
            (view, seeds)
        };
        for u in view.nodes().iter().chain(&seeds) {
            pool.get(u);
        }
        let cloud = !seeds.is_empty();
        Ok(Routing {
            // Redirects are decided per node, before the router could re-route a hop.
            inner: Arc::new(Redirects::new(self.inner, self.max_redirects)),
            pool,
            view: RwLock::new(Arc::new(view)),
            seeds,
            cloud,
            stale: AtomicBool::new(cloud),
            refresh_lock: tokio::sync::Mutex::new(()),
            refreshes: AtomicU64::new(0),
            refreshed_at: std::sync::Mutex::new(None),
            view_max_age: self.view_max_age,
            policy: self.policy,
            read_preference: self.read_preference,
            retry: self.retry,
            health: self.health,
            timeouts: self.timeouts,
        })
    }
}

/// The routing decorator. See the module docs.
#[derive(Debug)]
pub struct Routing {
    inner: Arc<dyn Transport>,
    pool: NodePool,
    view: RwLock<Arc<ClusterView>>,
    seeds: Vec<Url>,
    cloud: bool,
    stale: AtomicBool,
    refresh_lock: tokio::sync::Mutex<()>,
    refreshes: AtomicU64,
    refreshed_at: std::sync::Mutex<Option<std::time::Instant>>,
    view_max_age: Duration,
    policy: Policy,
    read_preference: ReadPreference,
    retry: RetryPolicy,
    health: HealthPolicy,
    timeouts: Timeouts,
}

impl Routing {
    /// A builder over `inner` (for example `TransportKind::Pooled.build(..)`).
    pub fn builder(inner: Arc<dyn Transport>) -> RoutingBuilder {
        RoutingBuilder {
            inner,
            collection: "bench".into(),
            leader: None,
            replicas: Vec::new(),
            seeds: Vec::new(),
            policy: Policy::default(),
            read_preference: ReadPreference::default(),
            retry: RetryPolicy::default(),
            health: HealthPolicy::default(),
            timeouts: Timeouts::default(),
            view_max_age: Duration::from_secs(30),
            max_redirects: 0,
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

    /// How many times the SolrCloud view was (re)loaded.
    pub fn refreshes(&self) -> u64 {
        self.refreshes.load(Ordering::Acquire)
    }

    /// The selection policy.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Reloads the SolrCloud view with CLUSTERSTATUS from the first node that answers
    /// (known nodes that are up first, then the seeds). A no-op for a standalone set.
    pub async fn refresh(&self) -> Result<()> {
        self.refresh_with(&HeaderMap::new(), self.refreshes()).await
    }

    async fn refresh_with(&self, headers: &HeaderMap, seen: u64) -> Result<()> {
        if !self.cloud {
            return Ok(());
        }
        let _guard = self.refresh_lock.lock().await;
        if self.refreshes() != seen {
            // Someone else refreshed while this request waited for the lock.
            return Ok(());
        }
        let mut candidates: Vec<Url> = self.view().nodes();
        for s in &self.seeds {
            if !candidates.contains(s) {
                candidates.push(s.clone());
            }
        }
        let nodes = candidates.iter().map(|u| self.pool.get(u)).collect();
        let ordered = self.pool.order(nodes, Policy::RoundRobin);
        let collection = self.view().collection.clone();
        let mut last = Error::NoNode("no node to ask for the cluster state".into());
        for node in ordered {
            let mut req = self.admin_request(&node.url, "admin/collections", headers);
            req.query = vec![
                ("action".into(), "CLUSTERSTATUS".into()),
                ("collection".into(), collection.clone()),
                ("wt".into(), "json".into()),
            ];
            crate::auth::resign(&mut req).await?;
            let flight = node.begin(RequestKind::Admin);
            let res = self.inner.send(req).await;
            let took = flight.elapsed();
            drop(flight);
            match res {
                Ok(resp) => {
                    let _ = node.answered(took);
                    if !resp.status.is_success() {
                        last = Error::UnexpectedResponse {
                            node: node_key(&node.url),
                            status: resp.status.as_u16(),
                            content_type: None,
                            snippet: crate::error::snippet(&resp.body, 200),
                        };
                        continue;
                    }
                    match ClusterView::from_cluster_status(&collection, &resp.body, &node.url) {
                        Ok(view) => {
                            for u in view.nodes() {
                                self.pool.get(&u);
                            }
                            *self.view.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(view);
                            self.stale.store(false, Ordering::Release);
                            *self.refreshed_at.lock().unwrap_or_else(|e| e.into_inner()) =
                                Some(std::time::Instant::now());
                            self.refreshes.fetch_add(1, Ordering::AcqRel);
                            return Ok(());
                        }
                        Err(e) => last = e,
                    }
                }
                Err(e) => {
                    node.failed(e.is_connect(), &self.health);
                    last = e;
                }
            }
        }
        Err(last)
    }

    fn admin_request(&self, node: &Url, path: &str, headers: &HeaderMap) -> WireRequest {
        let mut h = HeaderMap::new();
        if let Some(a) = headers.get(AUTHORIZATION) {
            h.insert(AUTHORIZATION, a.clone());
        }
        WireRequest {
            method: Method::GET,
            node: node.clone(),
            path: path.to_string(),
            query: vec![("wt".into(), "json".into())],
            headers: h,
            body: bytes::Bytes::new(),
            kind: RequestKind::Admin,
            timeouts: self.timeouts,
            max_response_bytes: 64 * 1024 * 1024,
            deadline: None,
            route: None,
        }
    }

    /// Pings (`{collection}/admin/ping`) every node that is down and whose backoff has
    /// elapsed; a node that answers at all is up again. Returns how many came back.
    pub async fn probe(&self) -> usize {
        let collection = self.view().collection.clone();
        let now = std::time::Instant::now();
        let mut back = 0;
        let nodes: Vec<Url> = self.view().nodes();
        for u in nodes {
            let node = self.pool.get(&u);
            if node.availability(now) != Availability::Probe || !node.claim_probe() {
                continue;
            }
            let req =
                self.admin_request(&u, &format!("{collection}/admin/ping"), &HeaderMap::new());
            let flight = node.begin(RequestKind::Admin);
            let res = self.inner.send(req).await;
            let took = flight.elapsed();
            drop(flight);
            match res {
                Ok(_) => {
                    node.answered(took);
                    self.stale.store(self.cloud, Ordering::Release);
                    back += 1;
                }
                Err(e) => node.failed(e.is_connect(), &self.health),
            }
        }
        back
    }

    fn view_too_old(&self) -> bool {
        self.refreshed_at
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_none_or(|t| t.elapsed() > self.view_max_age)
    }
}
impl Transport for Routing {
    fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<WireResponse>> {
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
        req: &'a WireRequest,
        ids: &'a [String],
    ) -> BoxFuture<'a, Result<Option<Vec<ShardGroup>>>> {
        Box::pin(async move { Ok(self.group_ids(req, ids).await) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{composite_id_hash, RouteKey};
    use crate::TransportKind;

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
    }

    #[tokio::test]
    async fn writes_without_a_leader_are_no_node_errors() {
        let r = Routing::builder(inner())
            .replica("http://127.0.0.1:1/solr")
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
        fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<WireResponse>> {
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
                Ok(WireResponse {
                    status: http::StatusCode::OK,
                    headers: HeaderMap::new(),
                    body: bytes::Bytes::from(body),
                    timing: crate::Timing::default(),
                })
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
