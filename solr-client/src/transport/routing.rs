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
//! A request (read or write: the one policy of [`retries_status`], shared with
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
//! - it was answered 429 or 503 (refused before processing; see above and [`retries_status`]).
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

use super::cloud::{ClusterView, ShardInfo};
use super::node_pool::{
    node_key, Availability, HealthPolicy, NodePool, NodeState, NodeStats, Policy,
};
use super::redirect::Redirects;
use super::retry::{retries_status, retry_after, RetryPolicy};
use super::{
    BoxFuture, RequestKind, RouteKey, ShardGroup, Timeouts, Transport, TransportStats, WireRequest,
    WireResponse,
};
use crate::error::{Error, Result};
use crate::types::Document;

/// Which replicas a read prefers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
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

/// Where one attempt goes.
#[derive(Debug, Clone)]
struct Target {
    node: Arc<NodeState>,
    /// Core to put in the path instead of the collection (SolrCloud updates).
    core: Option<String>,
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

    /// The shard name of `doc` in the current view (SolrCloud compositeId hashing).
    pub fn shard_of(&self, doc: &Document) -> Result<String> {
        Ok(self.view().shard_for(doc)?.name.clone())
    }

    /// Splits a batch into one batch per shard (in shard order), so that each can be sent
    /// straight to its shard leader, as SolrJ's `CloudSolrClient` does.
    pub fn split_by_shard(&self, docs: Vec<Document>) -> Result<Vec<(String, Vec<Document>)>> {
        let view = self.view();
        let mut out: Vec<(String, Vec<Document>)> = Vec::new();
        for d in docs {
            let name = view.shard_for(&d)?.name.clone();
            match out.iter_mut().find(|(n, _)| *n == name) {
                Some((_, v)) => v.push(d),
                None => out.push((name, vec![d])),
            }
        }
        let order = |n: &str| view.shards.iter().position(|s| s.name == n);
        out.sort_by_key(|(n, _)| order(n));
        Ok(out)
    }

    /// The shard a write goes to, from its route key alone (the body is never read):
    /// [`RouteKey::Shard`] names it; [`RouteKey::Ids`] picks the shard holding most of the
    /// ids (compositeId hashing); without a key (commit, delete-by-query: Solr distributes
    /// them), or when the key names no active shard, the first active shard.
    fn write_shard<'a>(&self, view: &'a ClusterView, req: &WireRequest) -> Result<&'a ShardInfo> {
        let active: Vec<&ShardInfo> = view.shards.iter().filter(|s| s.active).collect();
        let first = *active
            .first()
            .ok_or_else(|| Error::NoNode(format!("{} has no active shard", view.collection)))?;
        if active.len() == 1 {
            return Ok(first);
        }
        let chosen = match &req.route {
            Some(RouteKey::Shard(name)) => active.iter().copied().find(|s| &s.name == name),
            Some(RouteKey::Ids(ids)) if hashes_ids(view) => {
                let mut counts: Vec<(usize, &ShardInfo)> = Vec::new();
                for id in ids {
                    if let Ok(s) = view.shard_for_key(id) {
                        match counts.iter_mut().find(|(_, x)| x.name == s.name) {
                            Some((c, _)) => *c += 1,
                            None => counts.push((1, s)),
                        }
                    }
                }
                // The first of the most-held shards (max_by_key would take the last).
                let most = counts.iter().map(|(c, _)| *c).max().unwrap_or(0);
                counts.into_iter().find(|(c, _)| *c == most).map(|(_, s)| s)
            }
            _ => None,
        };
        Ok(chosen.unwrap_or(first))
    }

    /// Groups route ids by shard in the current view (refreshed first when stale); `None`
    /// when the ids do not decide the shard (standalone, implicit router, `router.field`,
    /// a hash no active shard serves) or the view cannot be loaded: the request then goes
    /// as one, and Solr forwards what is not the receiving leader's.
    async fn group_ids(&self, req: &WireRequest, ids: &[String]) -> Option<Vec<ShardGroup>> {
        if !self.cloud || ids.is_empty() {
            return None;
        }
        if self.view_too_old() || self.stale.load(Ordering::Acquire) {
            let seen = self.refreshes();
            let _ = self.refresh_with(&req.headers, seen).await;
        }
        let view = self.view();
        if !hashes_ids(&view) {
            return None;
        }
        let mut groups: Vec<ShardGroup> = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let name = &view.shard_for_key(id).ok()?.name;
            match groups.iter_mut().find(|g| &g.shard == name) {
                Some(g) => g.members.push(i),
                None => groups.push(ShardGroup {
                    shard: name.clone(),
                    members: vec![i],
                }),
            }
        }
        let order = |n: &str| view.shards.iter().position(|s| s.name == n);
        groups.sort_by_key(|g| order(&g.shard));
        Some(groups)
    }

    /// The ordered attempts for `req`.
    fn plan(&self, req: &WireRequest) -> Result<Vec<Target>> {
        let view = self.view();
        if req.kind == RequestKind::Write {
            let shard = self.write_shard(&view, req)?;
            let leader = shard.leader().ok_or_else(|| {
                Error::NoNode(format!(
                    "shard {} of {} has no live leader",
                    shard.name, view.collection
                ))
            })?;
            return Ok(vec![Target {
                node: self.pool.get(&leader.base_url),
                core: view.cloud.then(|| leader.core.clone()),
            }]);
        }
        let replicas: Vec<_> = view
            .shards
            .iter()
            .filter(|s| s.active)
            .flat_map(|s| &s.replicas)
            .collect();
        let usable: Vec<_> = if replicas.iter().any(|r| r.usable) {
            replicas.iter().filter(|r| r.usable).copied().collect()
        } else {
            replicas
        };
        let urls = |pred: &dyn Fn(&super::cloud::ReplicaInfo) -> bool| -> Vec<Url> {
            let mut v: Vec<Url> = Vec::new();
            for r in usable.iter().filter(|r| pred(r)) {
                if !v.contains(&r.base_url) {
                    v.push(r.base_url.clone());
                }
            }
            v
        };
        let tiers: Vec<Vec<Url>> = match &self.read_preference {
            ReadPreference::NonLeader => vec![urls(&|r| !r.leader), urls(&|_| true)],
            ReadPreference::Any => vec![urls(&|_| true)],
            ReadPreference::Leader => vec![urls(&|r| r.leader), urls(&|_| true)],
            ReadPreference::Node(n) => {
                let key = n.trim_end_matches('/');
                vec![
                    urls(&|r| node_key(&r.base_url) == key),
                    urls(&|r| !r.leader),
                    urls(&|_| true),
                ]
            }
        };
        let mut seen: Vec<Url> = Vec::new();
        let mut out = Vec::new();
        for tier in tiers {
            let mut fresh: Vec<Arc<NodeState>> = Vec::new();
            for u in tier {
                if !seen.contains(&u) {
                    fresh.push(self.pool.get(&u));
                    seen.push(u);
                }
            }
            out.extend(
                self.pool
                    .order(fresh, self.policy)
                    .into_iter()
                    .map(|node| Target { node, core: None }),
            );
        }
        if out.is_empty() {
            return Err(Error::NoNode(format!("{} has no replica", view.collection)));
        }
        Ok(out)
    }

    fn view_too_old(&self) -> bool {
        self.refreshed_at
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_none_or(|t| t.elapsed() > self.view_max_age)
    }

    fn prepare(&self, req: &WireRequest, target: &Target) -> WireRequest {
        let mut r = req.clone();
        r.node = target.node.url.clone();
        let collection = &self.view().collection;
        if let Some(core) = &target.core {
            if let Some(rest) = r.path.strip_prefix(&format!("{collection}/")) {
                r.path = format!("{core}/{rest}");
            }
        }
        if self.cloud
            && req.kind == RequestKind::Read
            && !r
                .query
                .iter()
                .any(|(k, _)| k == "shards.preference" || k == "distrib")
        {
            r.query
                .push(("shards.preference".into(), "replica.location:local".into()));
        }
        r
    }

    async fn route(&self, mut req: WireRequest) -> Result<WireResponse> {
        let deadline = req.start_deadline();
        let timeout = req.request_timeout();
        super::until_deadline(deadline, timeout, self.route_until(req, deadline)).await
    }

    async fn route_until(
        &self,
        req: WireRequest,
        deadline: std::time::Instant,
    ) -> Result<WireResponse> {
        if self.cloud && self.view_too_old() {
            self.stale.store(true, Ordering::Release);
        }
        if self.cloud && self.stale.load(Ordering::Acquire) {
            let seen = self.refreshes();
            if let Err(e) = self.refresh_with(&req.headers, seen).await {
                if self.view().shards.is_empty() {
                    return Err(e);
                }
            }
        }
        let max = self.retry.max_attempts.max(1);
        let mut attempts = 0u32;
        let mut waited = Duration::ZERO;
        let mut refreshed = false;
        let mut pos = 0usize;
        let mut plan = Vec::new();
        loop {
            if plan.is_empty() {
                match self.plan(&req) {
                    Ok(p) => plan = p,
                    Err(e) => {
                        // No node for it: nothing was sent. Wait, refresh, try again.
                        attempts += 1;
                        let wait = self.retry.wait(attempts, None);
                        if !self.cloud
                            || attempts >= max
                            || !self.retry.fits(waited, wait, deadline)
                        {
                            return Err(e);
                        }
                        tokio::time::sleep(wait).await;
                        waited += wait;
                        let seen = self.refreshes();
                        let _ = self.refresh_with(&req.headers, seen).await;
                        continue;
                    }
                }
                pos = 0;
            }
            let target = plan[pos % plan.len()].clone();
            let now = std::time::Instant::now();
            if target.node.availability(now) == Availability::Probe {
                // Claim the probe; when another request holds it, this one still goes (it is
                // the first candidate left), which is harmless.
                let _ = target.node.claim_probe();
            }
            attempts += 1;
            let attempt = self.prepare(&req, &target);
            let flight = target.node.begin(req.kind);
            let res = self.inner.send(attempt).await;
            let took = flight.elapsed();
            drop(flight);
            let node_name = node_key(&target.node.url);
            match res {
                Ok(mut resp) => {
                    if target.node.answered(took) && self.cloud {
                        // A node came back: it restarted, and leadership may have moved.
                        self.stale.store(true, Ordering::Release);
                    }
                    let status = resp.status.as_u16();
                    if self.cloud && !refreshed && is_stale_answer(status, &resp.body) {
                        refreshed = true;
                        let seen = self.refreshes();
                        self.stale.store(true, Ordering::Release);
                        let _ = self.refresh_with(&req.headers, seen).await;
                        let safe = req.kind != RequestKind::Write || status == 404;
                        if safe && attempts < max && std::time::Instant::now() < deadline {
                            plan.clear();
                            continue;
                        }
                    }
                    if retries_status(req.kind, resp.status) {
                        let exhausted = |waited| Error::RetriesExhausted {
                            node: node_name.clone(),
                            status,
                            attempts,
                            waited,
                        };
                        if attempts >= max {
                            return Err(exhausted(waited));
                        }
                        let wait = self.retry.wait(attempts, retry_after(&resp.headers));
                        if !self.retry.fits(waited, wait, deadline) {
                            return Err(exhausted(waited));
                        }
                        tokio::time::sleep(wait).await;
                        waited += wait;
                        pos += 1;
                        continue;
                    }
                    if self.cloud && req.kind == RequestKind::Write && has_rf_sentinel(&resp.body) {
                        self.stale.store(true, Ordering::Release);
                    }
                    resp.timing.attempts = attempts;
                    resp.timing.node = node_name;
                    return Ok(resp);
                }
                Err(e @ Error::Redirect { .. }) => {
                    // The node answered, with a redirect that is not followed: it is up, and
                    // another node would not change the answer.
                    let _ = target.node.answered(took);
                    return Err(e);
                }
                Err(e) => {
                    let connect = e.is_connect();
                    target.node.failed(connect, &self.health);
                    let retryable = match req.kind {
                        RequestKind::Write => e.is_not_sent(),
                        RequestKind::Read | RequestKind::Admin => is_transport_error(&e),
                    };
                    if !retryable || attempts >= max || std::time::Instant::now() >= deadline {
                        return Err(e);
                    }
                    if self.cloud && connect {
                        // The node is gone: the leader may have moved. Cheap (one
                        // CLUSTERSTATUS), and needed on every retry while an election runs.
                        let seen = self.refreshes();
                        let _ = self.refresh_with(&req.headers, seen).await;
                        plan.clear();
                        if let Ok(p) = self.plan(&req) {
                            plan = p;
                        }
                        // The new plan puts the node that just failed last.
                        pos = 0;
                    } else {
                        pos += 1;
                    }
                    // Back off when the next attempt goes to the same node (a write to its
                    // leader, or a single candidate); fail over at once otherwise.
                    let same = plan
                        .get(pos % plan.len().max(1))
                        .is_none_or(|t| Arc::ptr_eq(&t.node, &target.node));
                    if same {
                        let wait = self.retry.wait(attempts, None);
                        if !self.retry.fits(waited, wait, deadline) {
                            return Err(e);
                        }
                        tokio::time::sleep(wait).await;
                        waited += wait;
                    }
                }
            }
        }
    }
}

/// True when a document's shard follows from its id: a compositeId collection hashing the
/// uniqueKey (no `router.field`).
fn hashes_ids(view: &ClusterView) -> bool {
    view.cloud && view.router == "compositeId" && view.route_field.is_none()
}

/// Transport failures a read may fail over on.
fn is_transport_error(e: &Error) -> bool {
    matches!(
        e,
        Error::Dns { .. }
            | Error::Connect { .. }
            | Error::Tls { .. }
            | Error::Timeout { .. }
            | Error::Io { .. }
            | Error::NoNode(_)
    )
}

/// An answer that says the cluster view is stale: the core is not on that node (404), the
/// cluster state moved on (510), or the node is not/has no leader (503 mentioning a leader).
fn is_stale_answer(status: u16, body: &[u8]) -> bool {
    match status {
        404 | 510 => true,
        503 => contains(body, b"leader"),
        _ => false,
    }
}

/// The tolerant chain's "leader unreachable" sentinel `rf=2147483647`.
fn has_rf_sentinel(body: &[u8]) -> bool {
    contains(body, b"\"rf\":2147483647")
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
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
    use crate::transport::composite_id_hash;
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

    #[test]
    fn stale_and_sentinel_detection() {
        assert!(is_stale_answer(404, b"Can not find"));
        assert!(is_stale_answer(503, b"No registered leader was found"));
        assert!(!is_stale_answer(503, b"overloaded"));
        assert!(has_rf_sentinel(
            br#"{"responseHeader":{"rf":2147483647,"status":0}}"#
        ));
        assert!(!has_rf_sentinel(
            br#"{"responseHeader":{"rf":2,"status":0}}"#
        ));
    }
}
