//! SolrCloud write routing by route key on a real cloud of 2 shards x 2
//! replicas (`support::cloud2x2`, shard leaders spread over the nodes when Solr lets it): for every update format
//! (JSON, XML, CBOR) the client groups each batch by shard from the document ids it knows
//! before encoding, and the routing decorator sends each group straight to its shard
//! leader. Proven three ways, all exact counts:
//! - the router's own per-node write counters equal what the hash ranges predict;
//! - Solr's own `/update` request counter of every leader core (metrics API, per node)
//!   grew by exactly the requests predicted for its shard: a request sent to the wrong
//!   leader would be forwarded and counted on both, so the count also proves no
//!   leader-to-leader forwarding happened;
//! - every document is found exactly once (`numFound`), and each shard's leader core
//!   alone (`distrib=false`) holds exactly the ids the hash ranges assign to it.
//!
//! Deletes by id are checked the same way.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use solr_client::admin::MetricsQuery;
use solr_client::transport::{composite_id_hash, ClusterView, Routing};
use solr_client::{Commit, Select, SolrClient, TransportKind, UpdateFormat};
use tokio::sync::Mutex;

use crate::support;

/// The tests read per-core counters of the one shared instance: one at a time.
pub(crate) static LOCK: Mutex<()> = Mutex::const_new(());

const DOCS: usize = 60;
const BATCH: usize = 20;

pub(crate) fn key(u: &str) -> String {
    u.trim_end_matches('/').to_string()
}

pub(crate) async fn healthy_router(nodes: &[&str]) -> Arc<Routing> {
    let mut b = Routing::builder(
        TransportKind::Pooled
            .build(&Default::default(), false)
            .expect("pooled builds"),
    )
    .collection("bench");
    for n in nodes {
        b = b.cloud_seed(*n);
    }
    let router = Arc::new(b.build().expect("router builds"));
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if router.refresh().await.is_ok() {
            let v = router.view();
            if v.shards.len() == 2
                && v.shards
                    .iter()
                    .all(|s| s.leader().is_some() && s.replicas.iter().all(|r| r.usable))
            {
                return router;
            }
        }
        assert!(
            Instant::now() < deadline,
            "cloud not healthy: {:?}",
            router.view()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The shard name of `id` by the view's hash ranges.
pub(crate) fn shard_of(view: &ClusterView, id: &str) -> String {
    let h = composite_id_hash(id);
    view.shards
        .iter()
        .find(|s| s.range.expect("compositeId ranges").includes(h))
        .expect("a shard holds every hash")
        .name
        .clone()
}

/// Solr's own count of `/update` requests of every core, by core name (metrics API, asked
/// of each node for its cores; Solr 9's JSON or Solr 10's Prometheus answer, read alike).
pub(crate) async fn update_requests(view: &ClusterView) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let q = MetricsQuery::handler_requests("UPDATE", "/update");
    for node in view.nodes() {
        let c = support::client(node.as_str(), TransportKind::Pooled, false);
        let m = c.system().metrics(&q).await.expect("metrics answer");
        for shard in &view.shards {
            for r in shard.replicas.iter().filter(|r| r.base_url == node) {
                let n = m
                    .handler_requests(&r.core, "/update")
                    .unwrap_or_else(|| panic!("no /update count for {} on {node}", r.core));
                out.insert(r.core.clone(), n);
            }
        }
    }
    out
}

/// The router's write count of every node.
fn writes_per_node(router: &Routing) -> BTreeMap<String, u64> {
    router
        .node_stats()
        .into_iter()
        .map(|s| (key(&s.node), s.writes))
        .collect()
}

pub(crate) fn delta(
    after: &BTreeMap<String, u64>,
    before: &BTreeMap<String, u64>,
) -> BTreeMap<String, u64> {
    after
        .iter()
        .map(|(k, v)| (k.clone(), v - before.get(k).copied().unwrap_or(0)))
        .collect()
}

/// What one routed update must have caused: per shard, the requests its leader received
/// (one per group of ids that hold a document of that shard).
struct Expected {
    per_shard: BTreeMap<String, u64>,
}

impl Expected {
    fn of(view: &ClusterView, groups: &[Vec<String>]) -> Expected {
        let mut per_shard: BTreeMap<String, u64> =
            view.shards.iter().map(|s| (s.name.clone(), 0)).collect();
        for g in groups {
            let shards: HashSet<String> = g.iter().map(|id| shard_of(view, id)).collect();
            for s in shards {
                *per_shard.get_mut(&s).expect("known shard") += 1;
            }
        }
        Expected { per_shard }
    }

    /// Requests per leader core.
    fn per_leader_core(&self, view: &ClusterView) -> BTreeMap<String, u64> {
        view.shards
            .iter()
            .map(|s| {
                (
                    s.leader().expect("leader").core.clone(),
                    self.per_shard[&s.name],
                )
            })
            .collect()
    }

    /// Requests per node (every node of the view, 0 where no leader got any).
    fn per_node(&self, view: &ClusterView) -> BTreeMap<String, u64> {
        let mut out: BTreeMap<String, u64> =
            view.nodes().iter().map(|u| (key(u.as_str()), 0)).collect();
        for s in &view.shards {
            let node = key(s.leader().expect("leader").base_url.as_str());
            *out.get_mut(&node).expect("leader node listed") += self.per_shard[&s.name];
        }
        out
    }

    fn total(&self) -> u64 {
        self.per_shard.values().sum()
    }
}

/// Checks the counters around one update step: the router's per-node writes and every
/// leader core's `/update` count grew exactly as `want` says.
fn assert_counts(
    step: &str,
    view: &ClusterView,
    want: &Expected,
    router: (&BTreeMap<String, u64>, &BTreeMap<String, u64>),
    solr: (&BTreeMap<String, u64>, &BTreeMap<String, u64>),
) {
    let routed = delta(router.1, router.0);
    let routed: BTreeMap<String, u64> = want
        .per_node(view)
        .keys()
        .map(|n| (n.clone(), routed.get(n).copied().unwrap_or(0)))
        .collect();
    assert_eq!(
        routed,
        want.per_node(view),
        "{step}: router writes per node"
    );
    let seen = delta(solr.1, solr.0);
    let leaders = want.per_leader_core(view);
    let seen_by_leaders: BTreeMap<String, u64> =
        leaders.keys().map(|c| (c.clone(), seen[c])).collect();
    assert_eq!(
        seen_by_leaders, leaders,
        "{step}: Solr's /update requests per leader core (more would mean forwarding)"
    );
    println!(
        "{step}: {} requests; router per node {routed:?}; Solr per core {seen:?}",
        want.total()
    );
}

/// Documents found for `tag` by each shard's leader core alone, by shard name.
pub(crate) async fn held_per_shard(view: &ClusterView, tag: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for shard in &view.shards {
        let leader = shard.leader().expect("leader");
        let direct = SolrClient::builder(leader.base_url.as_str())
            .collection(&leader.core)
            .build()
            .expect("client");
        let r = direct
            .select(
                &Select::new(format!("tag_s:{tag}"))
                    .rows(100_000)
                    .fl("id")
                    .param("distrib", "false"),
            )
            .await
            .expect("core query");
        assert_eq!(r.num_found() as usize, r.docs().len());
        out.insert(shard.name.clone(), support::sorted_ids(&r));
    }
    out
}

fn predicted(view: &ClusterView, ids: &[String]) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = view
        .shards
        .iter()
        .map(|s| (s.name.clone(), Vec::new()))
        .collect();
    for id in ids {
        out.get_mut(&shard_of(view, id))
            .expect("known shard")
            .push(id.clone());
    }
    for v in out.values_mut() {
        v.sort();
    }
    out
}

async fn num_found(client: &SolrClient, tag: &str) -> u64 {
    client
        .select(&Select::new(format!("tag_s:{tag}")).rows(0))
        .await
        .expect("search")
        .num_found()
}

async fn routes_every_write_to_its_shard_leader(format: UpdateFormat) {
    // Exclusive: Solr's per-core /update counters below count every writer of the shared
    // 2x2 collection, and other tests write to it.
    let _net = support::exclusive().await;
    let _one = LOCK.lock().await;
    let s = support::cloud2x2();
    let nodes = [
        s.url(Some("node1")).expect("node1"),
        s.url(Some("node2")).expect("node2"),
    ];
    let router = healthy_router(&nodes).await;
    let view = router.view();
    assert_eq!(view.router, "compositeId");
    assert_eq!(view.shards.len(), 2, "2 shards");
    assert!(
        view.shards.iter().all(|s| s.replicas.len() == 2),
        "x 2 replicas"
    );
    let leader_nodes: HashSet<String> = view
        .shards
        .iter()
        .map(|s| key(s.leader().expect("leader").base_url.as_str()))
        .collect();
    // solr.sh spreads the leaders over the nodes when Solr lets it (best effort); the
    // counts below are exact either way: the router's per node from the actual leaders, and
    // Solr's per leader core, where a misrouted request would be counted twice.
    println!(
        "shard leaders on {} node(s): {leader_nodes:?}",
        leader_nodes.len()
    );

    let client = SolrClient::builder(nodes[0])
        .collection("bench")
        .custom_transport(router.clone())
        .update_format(format)
        .build()
        .expect("client");
    let tag = support::tag(&format!("cloud2x2_{format}"));
    // Plain ids and composite ids (`route!id`, which hash by their route prefix).
    let docs: Vec<Value> = support::docs(&tag, DOCS, 0)
        .into_iter()
        .enumerate()
        .map(|(i, mut d)| {
            if i % 4 == 0 {
                d["id"] = json!(format!("tenant{}!{tag}-{i}", i % 3));
            }
            d
        })
        .collect();
    let ids: Vec<String> = docs
        .iter()
        .map(|d| d["id"].as_str().expect("id").to_string())
        .collect();
    let batches: Vec<Vec<String>> = ids.chunks(BATCH).map(<[String]>::to_vec).collect();
    let want = Expected::of(&view, &batches);
    assert!(
        want.total() > batches.len() as u64,
        "some batch spans both shards"
    );

    // Adds: one client call per batch; each call is one request per shard of its ids.
    let (r0, s0) = (writes_per_node(&router), update_requests(&view).await);
    for batch in docs.chunks(BATCH) {
        let r = client.add(batch).await.expect("batch acknowledged");
        assert_eq!(r.docs_sent, batch.len());
        assert_eq!(r.header.rf, Some(2), "each leader reached its replica");
    }
    let (r1, s1) = (writes_per_node(&router), update_requests(&view).await);
    assert_counts(
        &format!("{format} add"),
        &view,
        &want,
        (&r0, &r1),
        (&s0, &s1),
    );
    client.commit(Commit::default()).await.expect("commit");
    assert_eq!(num_found(&client, &tag).await, DOCS as u64, "each doc once");
    let held = held_per_shard(&view, &tag).await;
    assert_eq!(
        held,
        predicted(&view, &ids),
        "{format}: each shard holds its ids"
    );
    assert_eq!(held.values().map(Vec::len).sum::<usize>(), DOCS);

    // Deletes by id: one call for ids of both shards.
    let gone: Vec<String> = ids.iter().step_by(3).cloned().collect();
    let want = Expected::of(&view, std::slice::from_ref(&gone));
    assert_eq!(want.total(), 2, "the deleted ids span both shards");
    let refs: Vec<&str> = gone.iter().map(String::as_str).collect();
    let (r2, s2) = (writes_per_node(&router), update_requests(&view).await);
    client
        .delete_by_ids(&refs)
        .await
        .expect("delete acknowledged");
    let (r3, s3) = (writes_per_node(&router), update_requests(&view).await);
    assert_counts(
        &format!("{format} delete"),
        &view,
        &want,
        (&r2, &r3),
        (&s2, &s3),
    );
    client.commit(Commit::default()).await.expect("commit");
    let left: Vec<String> = ids.iter().filter(|i| !gone.contains(i)).cloned().collect();
    assert_eq!(num_found(&client, &tag).await, left.len() as u64);
    assert_eq!(held_per_shard(&view, &tag).await, predicted(&view, &left));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cloud2x2_json_updates_go_to_their_shard_leaders() {
    routes_every_write_to_its_shard_leader(UpdateFormat::Json).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cloud2x2_xml_updates_go_to_their_shard_leaders() {
    routes_every_write_to_its_shard_leader(UpdateFormat::Xml).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cloud2x2_cbor_updates_go_to_their_shard_leaders() {
    routes_every_write_to_its_shard_leader(UpdateFormat::Cbor).await;
}
