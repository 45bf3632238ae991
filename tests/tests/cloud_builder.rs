//! The one builder on a SolrCloud client: what a client of one node can set, a client from
//! `SolrClient::cloud(seeds)` takes with the same setter and honours, on the real 2-shard x
//! 2-replica cloud (`support::cloud2x2`). Exact counts, no absolute times:
//! - proxy: every request (the router's own `CLUSTERSTATUS` included) goes through tinyproxy,
//!   whose log counts exactly the attempts the router counted;
//! - timeouts: a read whose only seed is blackholed (a full accept queue on loopback) is a
//!   typed connect timeout naming the configured value, on every transport, after one
//!   attempt;
//! - retry: a read Solr answers 503 (a collection whose `shard2` has no replica) is sent
//!   exactly as many times as the policy allows, then `RetriesExhausted` with that count.
//!
//! Auth on a cloud client is `cloud_basic_auth` (its own cloud with Solr's BasicAuthPlugin,
//! the provider given to the same builder); a client certificate is `cloud_mtls` (its own
//! https cloud whose Jetty requires one, `solr.sh start cloud --tls --client-auth`).

use std::time::Duration;

use solr_client::admin::CreateCollection;
use solr_client::transport::RetryPolicy;
use solr_client::{Error, Proxy, Select, SolrClient, TimeoutPhase, Timeouts, TransportKind};
use solr_harness::local_solr::LocalSolr;

use crate::support;
use crate::support::cloud_nodes::seeds;
use crate::support::tinyproxy::{ProxyRules, TinyProxy};

/// Searches each test sends.
const SEARCHES: u64 = 5;

fn s() -> &'static LocalSolr {
    support::cloud2x2()
}

/// Waits until every shard of `bench` has a leader and every replica is usable.
async fn healthy() {
    let nodes = seeds(s());
    let nodes: Vec<&str> = nodes.iter().map(String::as_str).collect();
    crate::cloud_routing::healthy_router(&nodes).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cloud_client_sends_every_request_through_the_proxy_it_was_given() {
    let _g = support::shared().await;
    healthy().await;
    let node1 = url::Url::parse(s().url(Some("node1")).expect("node1")).expect("url");
    let tp = TinyProxy::start(&ProxyRules {
        connect_port: node1.port().expect("port"),
        basic_auth: None,
    });
    // Pooled over http: absolute-form requests, one request line each in the proxy's log.
    let client = SolrClient::cloud(seeds(s()))
        .collection("bench")
        .transport(TransportKind::Pooled)
        .proxy(Proxy::new(&tp.url).expect("proxy"))
        .refresh_interval(Duration::from_secs(3600))
        .build()
        .expect("builds");
    for _ in 0..SEARCHES {
        let r = client
            .select(&Select::new("*:*").rows(0))
            .await
            .expect("search through the proxy");
        assert!(r.timing.node.contains("/solr"), "{}", r.timing.node);
    }
    let router = client.cloud_router().expect("a cloud client");
    let stats = router.node_stats();
    let reads: u64 = stats.iter().map(|n| n.reads).sum();
    let admin: u64 = stats.iter().map(|n| n.admin).sum();
    let lines = tp.requests();
    let selects = lines
        .iter()
        .filter(|l| l.contains("/bench/select?"))
        .count() as u64;
    let states = lines
        .iter()
        .filter(|l| l.contains("admin/collections?action=CLUSTERSTATUS"))
        .count() as u64;
    assert_eq!((reads, selects), (SEARCHES, SEARCHES), "{lines:?}");
    assert_eq!(states, admin, "the router's own requests: {lines:?}");
    assert!(
        admin >= 1,
        "the view was loaded through the proxy: {stats:?}"
    );
    assert_eq!(lines.len() as u64, reads + admin, "nothing else: {lines:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cloud_read_whose_seed_is_blackholed_is_a_typed_connect_timeout() {
    let _g = support::shared().await;
    let hole = support::blackhole::start().await;
    let t = Timeouts::DEFAULT
        .connect(Duration::from_millis(300))
        .read_idle(Duration::from_secs(5))
        .request(Duration::from_secs(20));
    for kind in TransportKind::ALL {
        let client = SolrClient::cloud([hole.url.as_str()])
            .collection("bench")
            .transport(kind)
            .timeouts(t)
            .build()
            .expect("builds");
        let e = client
            .select(&Select::new("*:*").rows(0))
            .await
            .expect_err("no node answers");
        assert!(
            matches!(
                &e,
                Error::Timeout { phase: TimeoutPhase::Connect, after, .. } if *after == t.connect
            ),
            "{kind}: {e:?}"
        );
        let seed = client
            .cloud_router()
            .expect("a cloud client")
            .stats_of(&hole.url)
            .expect("the seed is known");
        assert_eq!(
            (seed.admin, seed.failed, seed.answered, seed.reads),
            (1, 1, 0, 0),
            "{kind}: one CLUSTERSTATUS attempt, timed out: {seed:?}"
        );
    }
}

/// Creates `name` (2 shards x 1 replica) and deletes `shard2`'s replica: a search of it is
/// a real Solr 503 ("no servers hosting shard: shard2"); waits until the node says so.
async fn collection_without_shard2(admin: &SolrClient, name: &str) {
    let create = CreateCollection::new(name)
        .configset("bench")
        .shards(2)
        .replicas(1)
        .wait_for_final_state(true);
    admin.collections().create(&create).await.expect("created");
    let status = admin
        .collections()
        .cluster_status(Some(name))
        .await
        .expect("cluster status");
    let shard2 = &status.cluster.collections[name].shards["shard2"];
    let replica = shard2.replicas.keys().next().expect("shard2 has a replica");
    admin
        .collections()
        .delete_replica(name, "shard2", replica)
        .await
        .expect("replica deleted");
    let plain = SolrClient::builder(s().url(Some("node1")).expect("node1"))
        .collection(name)
        .build()
        .expect("client");
    let until = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let err = plain.select(&Select::new("*:*").rows(0)).await.err();
        if err.as_ref().and_then(Error::status) == Some(503) {
            return;
        }
        assert!(std::time::Instant::now() < until, "never 503: {err:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cloud_read_answered_503_is_sent_exactly_as_often_as_the_retry_policy_allows() {
    let _g = support::shared().await;
    healthy().await;
    let admin = SolrClient::cloud(seeds(s())).build().expect("admin client");
    let name = support::tag("no_shard2");
    collection_without_shard2(&admin, &name).await;
    for attempts in [2u32, 4] {
        let client = SolrClient::cloud(seeds(s()))
            .collection(&name)
            .retry(
                RetryPolicy::default()
                    .max_attempts(attempts)
                    .base_backoff(Duration::from_millis(10)),
            )
            .build()
            .expect("builds");
        let e = client
            .select(&Select::new("*:*").rows(0))
            .await
            .expect_err("503");
        assert!(
            matches!(&e, Error::RetriesExhausted { status: 503, attempts: a, .. } if *a == attempts),
            "{attempts}: {e:?}"
        );
        let reads: u64 = (client.cloud_router().expect("router").node_stats())
            .iter()
            .map(|n| n.reads)
            .sum();
        assert_eq!(reads, u64::from(attempts), "attempts sent");
    }
    admin
        .collections()
        .delete(&name)
        .await
        .expect("collection deleted");
}
