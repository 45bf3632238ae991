//! The [`Indexer`] in SolrCloud batches by shard as documents are pushed. On the
//! local cloud of 2 shards x 2 replicas (`support::cloud2x2`), N documents go through an
//! indexer over the routing transport, with a recorder under the router that sees every
//! request as it leaves (node, core, documents). Exact, three ways:
//! - every request went to the node and core of its shard's leader, and all its documents
//!   belong to that shard; per shard, the requests are full batches but the last;
//! - Solr's own `/update` request counter of each leader core grew by exactly its shard's
//!   requests (a request sent to the wrong leader would be forwarded and counted twice);
//! - the report acknowledges N, and each shard's leader core alone holds exactly the ids the
//!   hash ranges give it (filtered on the test's own tag).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use solr_client::transport::{Reply, Transport, TransportStats, WireRequest};
use solr_client::{Commit, Indexer, SolrClient, TransportKind};

use crate::cloud_routing::{
    delta, healthy_router, held_per_shard, key, shard_of, update_requests, LOCK,
};
use crate::support;

/// What the recorder saw of one request: node, path and the ids in its (JSON) body.
#[derive(Debug, Clone)]
struct Seen {
    node: String,
    path: String,
    ids: Vec<String>,
}

/// A transport under the router that records every update it sends.
#[derive(Debug)]
struct Recorder {
    inner: Arc<dyn Transport>,
    seen: Mutex<Vec<Seen>>,
}

impl Transport for Recorder {
    fn send(&self, req: WireRequest) -> BoxFuture<'_, solr_client::Result<Reply>> {
        // Adds only (a commit is a JSON object).
        if req.path.ends_with("/update") && req.body.first() == Some(&b'[') {
            let docs: Vec<serde_json::Value> =
                serde_json::from_slice(&req.body).expect("a JSON array of documents");
            let ids = docs
                .iter()
                .map(|d| d["id"].as_str().expect("string id").to_string())
                .collect();
            self.seen.lock().expect("lock").push(Seen {
                node: key(req.node.as_str()),
                path: req.path.clone(),
                ids,
            });
        }
        self.inner.send(req)
    }
    fn name(&self) -> String {
        format!("recorder+{}", self.inner.name())
    }
    fn stats(&self) -> TransportStats {
        self.inner.stats()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cloud2x2_indexer_sends_full_batches_of_one_shard_to_its_leader() {
    const N: usize = 500;
    const BATCH: usize = 40;
    // Exclusive: Solr's per-core /update counters count every writer of the shared 2x2
    // collection, and other tests write to it.
    let _net = support::exclusive().await;
    let _one = LOCK.lock().await;
    let s = support::cloud2x2();
    let nodes = [
        s.url(Some("node1")).expect("node1"),
        s.url(Some("node2")).expect("node2"),
    ];
    // A healthy view first (leaders elected, replicas usable), then the router under test
    // over the recorder.
    let view = healthy_router(&nodes).await.view();
    let recorder = Arc::new(Recorder {
        inner: TransportKind::Pooled
            .build(&Default::default(), false)
            .expect("pooled builds"),
        seen: Mutex::new(Vec::new()),
    });
    let mut b = solr_client::transport::Routing::builder(recorder.clone()).collection("bench");
    for n in nodes {
        b = b.cloud_seed(n);
    }
    let router = Arc::new(b.build().expect("router builds"));
    router.refresh().await.expect("cluster state");
    let client = SolrClient::builder(nodes[0])
        .collection("bench")
        .custom_transport(router.clone())
        .build()
        .expect("client");

    let tag = support::tag("idx_cloud");
    let docs = support::docs(&tag, N, 0);
    let ids: Vec<String> = docs
        .iter()
        .map(|d| d["id"].as_str().expect("id").to_string())
        .collect();
    let mut per_shard: BTreeMap<String, Vec<String>> = view
        .shards
        .iter()
        .map(|s| (s.name.clone(), Vec::new()))
        .collect();
    for id in &ids {
        per_shard
            .get_mut(&shard_of(&view, id))
            .expect("known shard")
            .push(id.clone());
    }
    assert!(
        per_shard.values().all(|v| v.len() > BATCH),
        "both shards get more than a batch: {:?}",
        per_shard.values().map(Vec::len).collect::<Vec<_>>()
    );

    let before = update_requests(&view).await;
    let mut indexer = Indexer::builder(client.clone())
        .batch_docs(BATCH)
        .in_flight(3)
        .build()
        .expect("indexer builds");
    indexer.index_iter(&docs).await.expect("pushed");
    let r = indexer.finish().await;
    let after = update_requests(&view).await;
    assert_eq!(r.sent, N, "{r:?}");
    assert_eq!(r.acknowledged, N, "{r:?}");
    assert!(r.is_balanced());

    // Every request: one shard's documents, sent to that shard's leader node and core.
    let seen = recorder.seen.lock().expect("lock").clone();
    let mut sizes: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for req in &seen {
        let shard = shard_of(&view, &req.ids[0]);
        assert!(
            req.ids.iter().all(|id| shard_of(&view, id) == shard),
            "a request mixes shards: {:?}",
            req.ids
        );
        let leader = view
            .shards
            .iter()
            .find(|s| s.name == shard)
            .and_then(|s| s.leader())
            .expect("leader");
        assert_eq!(
            req.node,
            key(leader.base_url.as_str()),
            "{shard}: leader node"
        );
        assert_eq!(
            req.path,
            format!("{}/update", leader.core),
            "{shard}: leader core"
        );
        sizes.entry(shard).or_default().push(req.ids.len());
    }
    // Full batches but the last, per shard: ceil(n / BATCH) requests in all.
    for (shard, shard_ids) in &per_shard {
        let mut got = sizes.get(shard).cloned().unwrap_or_default();
        got.sort_unstable_by(|a, b| b.cmp(a));
        let n = shard_ids.len();
        let mut want = vec![BATCH; n / BATCH];
        if n % BATCH > 0 {
            want.push(n % BATCH);
        }
        assert_eq!(got, want, "{shard}: batch sizes");
    }
    let requests: usize = sizes.values().map(Vec::len).sum();
    assert_eq!(r.requests, requests, "one request per batch");
    let mut sent: Vec<&String> = seen.iter().flat_map(|s| &s.ids).collect();
    sent.sort();
    assert_eq!(sent.len(), N, "every document sent once");

    // Solr's count: each leader core received exactly its shard's requests.
    let grew = delta(&after, &before);
    for shard in &view.shards {
        let core = &shard.leader().expect("leader").core;
        assert_eq!(
            grew[core] as usize,
            sizes[&shard.name].len(),
            "{}: /update requests Solr counted on leader core {core}",
            shard.name
        );
    }

    // Solr holds exactly the pushed ids, each on its own shard.
    client.commit(Commit::default()).await.expect("commit");
    let held = held_per_shard(&view, &tag).await;
    for shard in &view.shards {
        let mut want = per_shard[&shard.name].clone();
        want.sort();
        assert_eq!(held[&shard.name], want, "{}: exactly its ids", shard.name);
    }
}
