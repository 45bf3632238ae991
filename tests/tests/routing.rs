//! The routing decorator against the real local pair and cloud: writes to the leader, reads
//! to replicas (counted per node), failover when a follower dies, no acknowledged document
//! lost when the cloud leader dies, 429/503 with Retry-After from a tiny fault server (real
//! Solr does not send Retry-After), and the replication lag of a 5 s poll interval.
//!
//! These tests kill nodes, so they use their own instances (`e2e-route-pair` with a 5 s poll
//! interval, `e2e-route-cloud`), each behind its own lock.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use serde_json::{json, Value};
use solr_client::transport::{HealthPolicy, Policy, ReadPreference, RetryPolicy, Routing};
use solr_client::{Commit, Error, Select, SolrClient, TransportKind};
use solr_harness::local_solr::{LocalSolr, Mode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::Mutex;

use crate::support;

static PAIR_LOCK: Mutex<()> = Mutex::const_new(());
static CLOUD_LOCK: Mutex<()> = Mutex::const_new(());

/// Leader + follower polling every 5 s (the default poll interval of the hosted leader/follower
/// set-up the read-routing headers come from).
fn pair() -> &'static LocalSolr {
    static S: OnceLock<LocalSolr> = OnceLock::new();
    S.get_or_init(|| {
        LocalSolr::start(Mode::Pair, "e2e-route-pair", &["--poll-interval", "5"])
            .unwrap_or_else(|e| panic!("cannot start e2e-route-pair: {e:#}"))
    })
}

/// Two-node cloud, collection `bench` 1 shard x 2 replicas.
fn cloud() -> &'static LocalSolr {
    static S: OnceLock<LocalSolr> = OnceLock::new();
    S.get_or_init(|| {
        LocalSolr::start(Mode::Cloud, "e2e-route-cloud", &[])
            .unwrap_or_else(|e| panic!("cannot start e2e-route-cloud: {e:#}"))
    })
}

fn pooled() -> Arc<dyn solr_client::Transport> {
    TransportKind::Pooled
        .build(&Default::default(), false)
        .expect("pooled builds")
}

fn client_over(router: &Arc<Routing>) -> SolrClient {
    SolrClient::builder("http://127.0.0.1:9/solr")
        .collection("bench")
        .custom_transport(router.clone())
        .build()
        .expect("client builds")
}

fn pair_router(s: &LocalSolr, policy: Policy) -> Arc<Routing> {
    Arc::new(
        Routing::builder(pooled())
            .collection("bench")
            .leader(s.url(Some("leader")).expect("leader"))
            .replica(s.url(Some("follower")).expect("follower"))
            .policy(policy)
            .build()
            .expect("router builds"),
    )
}

fn key(u: &str) -> String {
    u.trim_end_matches('/').to_string()
}

/// Runs a blocking `solr.sh` action off the runtime.
async fn blocking<F>(f: F)
where
    F: FnOnce() -> anyhow::Result<()> + Send + 'static,
{
    tokio::task::spawn_blocking(f)
        .await
        .expect("task joins")
        .expect("solr.sh action succeeds");
}

/// Waits (up to 90 s) until every replica of the collection is active on a live node, as
/// CLUSTERSTATUS says (a restarted node recovers for a while after it answers).
async fn wait_healthy(router: &Routing) {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if router.refresh().await.is_ok() {
            let view = router.view();
            if !view.shards.is_empty()
                && view
                    .shards
                    .iter()
                    .all(|s| s.leader().is_some() && s.replicas.iter().all(|r| r.usable))
            {
                return;
            }
        }
        assert!(
            Instant::now() < deadline,
            "cluster not healthy: {:?}",
            router.view()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pair_writes_hit_only_the_leader_and_reads_only_the_follower() {
    let _net = support::shared().await;
    let _pair = PAIR_LOCK.lock().await;
    let s = pair();
    let (leader, follower) = (
        key(s.url(Some("leader")).expect("leader")),
        key(s.url(Some("follower")).expect("follower")),
    );
    const N: u64 = 25;
    for policy in Policy::ALL {
        let router = pair_router(s, policy);
        let client = client_over(&router);
        let tag = support::tag(&format!("route_a_{policy}"));
        for d in support::docs(&tag, N as usize, 0) {
            let r = client.add(&[d]).await.expect("add acknowledged");
            assert_eq!(key(&r.timing.node), leader);
            assert_eq!(r.timing.attempts, 1);
        }
        for _ in 0..N {
            let r = client
                .select(&Select::new("*:*").rows(0))
                .await
                .expect("read succeeds");
            assert_eq!(key(&r.timing.node), follower);
        }
        let l = router.stats_of(&leader).expect("leader counted");
        let f = router.stats_of(&follower).expect("follower counted");
        println!("{policy}: leader {l:?}\n{policy}: follower {f:?}");
        assert_eq!((l.writes, l.reads), (N, 0), "{policy}: leader");
        assert_eq!((f.writes, f.reads), (0, N), "{policy}: follower");
        assert_eq!((l.failed, f.failed), (0, 0));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cloud_writes_hit_only_the_shard_leader_and_reads_only_the_other_replica() {
    let _net = support::shared().await;
    let _cloud = CLOUD_LOCK.lock().await;
    let s = cloud();
    let router = Arc::new(
        Routing::builder(pooled())
            .collection("bench")
            .cloud_seed(s.url(Some("node1")).expect("node1"))
            .cloud_seed(s.url(Some("node2")).expect("node2"))
            .build()
            .expect("router builds"),
    );
    wait_healthy(&router).await;
    let view = router.view();
    assert_eq!(view.router, "compositeId");
    assert_eq!(view.shards.len(), 1);
    let shard = &view.shards[0];
    let leader = key(shard.leader().expect("a leader").base_url.as_str());
    let others: Vec<String> = shard
        .replicas
        .iter()
        .filter(|r| !r.leader)
        .map(|r| key(r.base_url.as_str()))
        .collect();
    assert_eq!(others.len(), 1, "1 shard x 2 replicas");
    let replica = others[0].clone();
    let client = client_over(&router);
    const N: u64 = 25;
    let tag = support::tag("route_a_cloud");
    for d in support::docs(&tag, N as usize, 0) {
        let r = client.add(&[d]).await.expect("add acknowledged");
        assert_eq!(key(&r.timing.node), leader);
        assert_eq!(r.header.rf, Some(2), "leader forwarded to the replica");
    }
    for _ in 0..N {
        let r = client
            .select(&Select::new("*:*").rows(0))
            .await
            .expect("read succeeds");
        assert_eq!(key(&r.timing.node), replica);
    }
    let l = router.stats_of(&leader).expect("leader counted");
    let f = router.stats_of(&replica).expect("replica counted");
    println!("cloud: leader {l:?}\ncloud: replica {f:?}");
    assert_eq!((l.writes, l.reads), (N, 0));
    assert_eq!((f.writes, f.reads), (0, N));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cloud_compositeid_routing_matches_solr_placement_on_two_shards() {
    let _net = support::shared().await;
    let _cloud = CLOUD_LOCK.lock().await;
    let s = cloud();
    let node1 = s.url(Some("node1")).expect("node1").to_string();
    // A two-shard collection, one replica per shard, on the same cluster.
    let coll = "route2";
    let admin = support::client(&node1, TransportKind::Pooled, false);
    let mut req = admin.wire(
        http::Method::GET,
        "admin/collections",
        vec![
            ("action".into(), "CREATE".into()),
            ("name".into(), coll.into()),
            ("numShards".into(), "2".into()),
            ("replicationFactor".into(), "1".into()),
            ("collection.configName".into(), "bench".into()),
            ("wt".into(), "json".into()),
        ],
        solr_client::RequestKind::Admin,
    );
    req.path = "admin/collections".into();
    let created = admin.send_raw(req).await.expect("CREATE answers");
    let body = String::from_utf8_lossy(&created.body).to_string();
    assert!(
        created.status.is_success() || body.contains("already exists"),
        "CREATE failed: {body}"
    );
    let router = Arc::new(
        Routing::builder(pooled())
            .cloud_seed(&node1)
            .collection(coll)
            .build()
            .expect("router builds"),
    );
    wait_healthy(&router).await;
    let view = router.view();
    assert_eq!(view.shards.len(), 2);
    let client = SolrClient::builder(&node1)
        .collection(coll)
        .custom_transport(router.clone())
        .build()
        .expect("client");
    let tag = support::tag("route_2shards");
    let docs: Vec<serde_json::Map<String, Value>> = (0..200)
        .map(|i| {
            let id = if i % 4 == 0 {
                format!("tenant{}!{tag}-{i}", i % 3)
            } else {
                format!("{tag}-{i}")
            };
            json!({"id": id, "tag_s": tag})
                .as_object()
                .cloned()
                .expect("object")
        })
        .collect();
    let batches = router.split_by_shard(docs.clone()).expect("splits");
    assert_eq!(batches.len(), 2, "200 ids spread over both shards");
    let before: Vec<_> = router.node_stats();
    for (shard, batch) in &batches {
        let r = client.add(batch).await.expect("batch acknowledged");
        let want = view
            .shards
            .iter()
            .find(|s| &s.name == shard)
            .and_then(|s| s.leader())
            .expect("leader");
        assert_eq!(key(&r.timing.node), key(want.base_url.as_str()), "{shard}");
    }
    client
        .commit(Commit::default())
        .await
        .expect("commit acknowledged");
    let after = router.node_stats();
    let writes: u64 =
        after.iter().map(|s| s.writes).sum::<u64>() - before.iter().map(|s| s.writes).sum::<u64>();
    assert_eq!(writes, 3, "one request per shard batch, plus the commit");
    // Ask each shard's core alone (distrib=false) which ids it holds: Solr placed every
    // document where our hash said.
    let mut total = 0;
    for shard in &view.shards {
        let leader = shard.leader().expect("leader");
        let direct = SolrClient::builder(leader.base_url.as_str())
            .collection(&leader.core)
            .build()
            .expect("client");
        let r = direct
            .select(
                &Select::new(format!("tag_s:{tag}"))
                    .rows(1000)
                    .fl("id")
                    .param("distrib", "false"),
            )
            .await
            .expect("shard query");
        let held: HashSet<String> = r
            .docs()
            .iter()
            .filter_map(|d| d.get("id").and_then(Value::as_str).map(str::to_string))
            .collect();
        let expected: HashSet<String> = batches
            .iter()
            .filter(|(n, _)| *n == shard.name)
            .flat_map(|(_, b)| b.iter())
            .filter_map(|d| d.get("id").and_then(Value::as_str).map(str::to_string))
            .collect();
        assert_eq!(
            held, expected,
            "shard {} holds what compositeId says",
            shard.name
        );
        total += held.len();
    }
    assert_eq!(total, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pair_follower_killed_mid_reads_fails_over_and_comes_back() {
    let _net = support::shared().await;
    let _pair = PAIR_LOCK.lock().await;
    let s = pair();
    let follower = key(s.url(Some("follower")).expect("follower"));
    let leader = key(s.url(Some("leader")).expect("leader"));
    let router = Arc::new(
        Routing::builder(pooled())
            .collection("bench")
            .leader(&leader)
            .replica(&follower)
            .health(
                HealthPolicy::default()
                    .initial_backoff(Duration::from_millis(200))
                    .max_backoff(Duration::from_secs(2)),
            )
            .build()
            .expect("router builds"),
    );
    let client = client_over(&router);
    let (mut ok, mut failed, mut failed_after_down) = (0u32, 0u32, 0u32);
    let mut first_down_read = None;
    let mut killer = None;
    for i in 0..1000 {
        if i == 300 {
            let s2 = s.clone();
            killer = Some(tokio::task::spawn_blocking(move || {
                s2.kill_node("follower")
            }));
        }
        if i == 500 {
            // Every read from here on starts after the follower is dead.
            killer
                .take()
                .expect("killer spawned")
                .await
                .expect("joins")
                .expect("follower killed");
        }
        let down_before = router
            .stats_of(&follower)
            .is_some_and(|f| f.marked_down > 0);
        if down_before && first_down_read.is_none() {
            first_down_read = Some(i);
        }
        match client.select(&Select::new("*:*").rows(0)).await {
            Ok(_) => ok += 1,
            Err(e) => {
                failed += 1;
                eprintln!("read {i} failed: {e}");
                if down_before {
                    failed_after_down += 1;
                }
            }
        }
    }
    let f = router.stats_of(&follower).expect("follower counted");
    let l = router.stats_of(&leader).expect("leader counted");
    println!(
        "follower killed at read 300: {failed} failed reads before failover, {ok} succeeded; \
         follower marked down at read {first_down_read:?} ({} times), served {} reads; leader served {} reads",
        f.marked_down, f.answered, l.reads
    );
    assert_eq!(ok + failed, 1000);
    assert_eq!(
        failed_after_down, 0,
        "every read after the follower was marked down succeeded"
    );
    assert!(
        first_down_read.is_some_and(|i| i <= 501),
        "marked down right after the kill"
    );
    assert!(f.marked_down >= 1 && !f.up);
    assert!(
        f.reads >= 300 && l.reads >= 499,
        "follower served before, leader after"
    );

    // Restart it: the next probe after the backoff brings it back.
    let s2 = s.clone();
    blocking(move || Ok(s2.start_node("follower")?)).await;
    let answered_before = router.stats_of(&follower).expect("counted").answered;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        client
            .select(&Select::new("*:*").rows(0))
            .await
            .expect("reads keep succeeding");
        let f = router.stats_of(&follower).expect("counted");
        if f.up && f.answered > answered_before {
            break;
        }
        assert!(Instant::now() < deadline, "follower never came back: {f:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let r = client
        .select(&Select::new("*:*").rows(0))
        .await
        .expect("read");
    assert_eq!(
        key(&r.timing.node),
        follower,
        "reads are back on the follower"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cloud_leader_killed_mid_indexing_loses_no_acknowledged_doc() {
    const TOTAL: usize = 50_000;
    let _net = support::shared().await;
    let _cloud = CLOUD_LOCK.lock().await;
    let s = cloud();
    let router = Arc::new(
        Routing::builder(pooled())
            .collection("bench")
            .cloud_seed(s.url(Some("node1")).expect("node1"))
            .cloud_seed(s.url(Some("node2")).expect("node2"))
            .retry(
                RetryPolicy::default()
                    .max_attempts(10)
                    .max_wait(Duration::from_secs(20)),
            )
            .health(
                HealthPolicy::default()
                    .initial_backoff(Duration::from_millis(200))
                    .max_backoff(Duration::from_secs(2)),
            )
            .build()
            .expect("router builds"),
    );
    wait_healthy(&router).await;
    let leader_url = key(router.view().shards[0]
        .leader()
        .expect("leader")
        .base_url
        .as_str());
    let leader_node = s
        .nodes
        .iter()
        .find(|(_, u)| key(u) == leader_url)
        .map(|(n, _)| n.clone())
        .expect("leader is one of the instance's nodes");
    println!("leader before the kill: {leader_node} {leader_url}");
    let client = client_over(&router);
    let tag = support::tag("route_c");
    // 50,000 docs in 200 batches of 250: the routing study asks for 10,000, the
    // reliability study for 50,000; the same 200 requests cover both.
    let docs = support::docs(&tag, TOTAL, 0);
    let mut acked: Vec<String> = Vec::new();
    let mut reported: Vec<String> = Vec::new();
    let mut restart = None;
    let t0 = Instant::now();
    for (b, batch) in docs.chunks(TOTAL / 200).enumerate() {
        if b == 40 {
            let s2 = s.clone();
            let n = leader_node.clone();
            restart = Some(tokio::task::spawn_blocking(move || {
                s2.kill_node(&n)?;
                s2.start_node(&n)
            }));
        }
        if b == 120 {
            restart
                .take()
                .expect("spawned")
                .await
                .expect("joins")
                .expect("leader killed and restarted");
            println!(
                "leader restarted at batch 120 ({:?} after start)",
                t0.elapsed()
            );
        }
        let ids: Vec<String> = batch
            .iter()
            .map(|d| d["id"].as_str().expect("id").to_string())
            .collect();
        match client.add(batch).await {
            Ok(_) => acked.extend(ids),
            Err(Error::Update { report, cause, .. }) => {
                assert_eq!(report.sent, ids.len());
                assert!(report.is_balanced());
                let lost: HashSet<&str> = report
                    .failed
                    .iter()
                    .map(|f| f.id.as_str())
                    .chain(report.unknown.iter().map(String::as_str))
                    .collect();
                eprintln!(
                    "batch {b}: {} of {} not acknowledged: {}",
                    lost.len(),
                    report.sent,
                    cause
                        .map(|c| c.to_string())
                        .unwrap_or_else(|| report.failed[0].message.clone())
                );
                acked.extend(ids.iter().filter(|i| !lost.contains(i.as_str())).cloned());
                reported.extend(lost.iter().map(|s| s.to_string()));
            }
            Err(e) => panic!("batch {b}: an update error must list its ids, got {e}"),
        }
    }
    let acked_set: HashSet<&String> = acked.iter().collect();
    let reported_set: HashSet<&String> = reported.iter().collect();
    println!(
        "{TOTAL} docs: {} acknowledged, {} reported not acknowledged; {} view refreshes; node stats {:#?}",
        acked.len(),
        reported.len(),
        router.refreshes(),
        router.node_stats()
    );
    assert_eq!(acked.len() + reported.len(), TOTAL, "nothing silently lost");
    assert_eq!(acked_set.len(), acked.len());
    assert!(acked_set.is_disjoint(&reported_set));
    assert!(
        router.refreshes() >= 2,
        "the kill forced a refresh of the cluster view"
    );
    router.refresh().await.expect("CLUSTERSTATUS answers");
    let new_leader = key(router.view().shards[0]
        .leader()
        .expect("leader")
        .base_url
        .as_str());
    let to_new = router.stats_of(&new_leader).map_or(0, |s| s.writes);
    println!("leader after: {new_leader}, which took {to_new} write attempts");
    if new_leader != leader_url {
        assert!(to_new > 0, "writes followed the leader to {new_leader}");
    }

    // Commit (retry while the restarted node settles) and look for every acknowledged id.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match client.commit(Commit::default()).await {
            Ok(_) => break,
            Err(e) if Instant::now() < deadline => {
                eprintln!("commit: {e}; retrying");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(e) => panic!("commit never succeeded: {e}"),
        }
    }
    let found: HashSet<String> = client
        .cursor(Select::new(format!("tag_s:{tag}")).fl("id"), 1000)
        .map_ok(|d| d["id"].as_str().unwrap_or_default().to_string())
        .try_collect()
        .await
        .expect("cursor reads");
    let missing: Vec<&&String> = acked_set
        .iter()
        .filter(|i| !found.contains(i.as_str()))
        .take(5)
        .collect();
    println!(
        "found {} docs of the tag (acknowledged {}, reported {} of which {} were indexed anyway)",
        found.len(),
        acked.len(),
        reported.len(),
        reported.iter().filter(|i| found.contains(*i)).count()
    );
    assert!(missing.is_empty(), "acknowledged but missing: {missing:?}");
    // Leave the cluster as found: both replicas active.
    wait_healthy(&router).await;
}

/// A tiny HTTP/1.1 server for what real Solr does not send (429/503 with Retry-After):
/// answers request number `n` (0-based) with `script(n)`, closes each connection after one
/// answer, counts requests.
struct FaultServer {
    url: String,
    hits: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type Script = fn(usize) -> (u16, Vec<(&'static str, &'static str)>, &'static str);

async fn fault_server(script: Script) -> FaultServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("addr");
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    let task = tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let h = h.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                // Read the head, then the body by Content-Length.
                let head_end = loop {
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                    if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        break p + 4;
                    }
                };
                let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0);
                while buf.len() < head_end + len {
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let n = h.fetch_add(1, Ordering::SeqCst);
                let (status, headers, body) = script(n);
                let mut out = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                    body.len()
                );
                for (k, v) in headers {
                    out.push_str(&format!("{k}: {v}\r\n"));
                }
                out.push_str("\r\n");
                out.push_str(body);
                let _ = sock.write_all(out.as_bytes()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    FaultServer {
        url: format!("http://{addr}/solr"),
        hits,
        task,
    }
}

const BUSY: &str = r#"{"error":{"msg":"busy","code":503}}"#;
const EMPTY: &str =
    r#"{"responseHeader":{"status":0,"QTime":0},"response":{"numFound":0,"start":0,"docs":[]}}"#;

fn single(url: &str, retry: RetryPolicy) -> (Arc<Routing>, SolrClient) {
    let router = Arc::new(
        Routing::builder(pooled())
            .collection("bench")
            .leader(url)
            .read_preference(ReadPreference::Any)
            .retry(retry)
            .build()
            .expect("router builds"),
    );
    let client = client_over(&router);
    (router, client)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_after_is_honoured_and_the_budget_ends_in_retries_exhausted() {
    let _net = support::shared().await;
    let budget = RetryPolicy::default()
        .max_attempts(3)
        .max_wait(Duration::from_secs(30))
        .base_backoff(Duration::from_millis(10))
        .max_backoff(Duration::from_millis(100));

    // Always 503 + Retry-After: 1 -> three attempts, two waits of at least 1 s, then a clear error.
    let srv = fault_server(|_| (503, vec![("retry-after", "1")], BUSY)).await;
    let (_router, client) = single(&srv.url, budget);
    let t0 = Instant::now();
    let e = client
        .select(&Select::new("*:*"))
        .await
        .expect_err("budget spent");
    let took = t0.elapsed();
    println!("503 x3: {e} after {took:?}");
    match e {
        Error::RetriesExhausted {
            status,
            attempts,
            waited,
            ..
        } => {
            assert_eq!((status, attempts), (503, 3));
            assert!(waited >= Duration::from_secs(2), "waited {waited:?}");
        }
        other => panic!("expected RetriesExhausted, got {other}"),
    }
    assert!(took >= Duration::from_secs(2));
    assert_eq!(srv.hits.load(Ordering::SeqCst), 3);

    // 429 once, then 200: one retry after at least Retry-After.
    let srv = fault_server(|n| {
        if n == 0 {
            (429, vec![("retry-after", "1")], BUSY)
        } else {
            (200, vec![], EMPTY)
        }
    })
    .await;
    let (_router, client) = single(&srv.url, budget);
    let t0 = Instant::now();
    let r = client
        .select(&Select::new("*:*"))
        .await
        .expect("second attempt succeeds");
    assert!(t0.elapsed() >= Duration::from_secs(1));
    assert_eq!(r.timing.attempts, 2);
    assert_eq!(srv.hits.load(Ordering::SeqCst), 2);

    // A Retry-After beyond the budget ends at once, without waiting.
    let srv = fault_server(|_| (503, vec![("retry-after", "3600")], BUSY)).await;
    let (_router, client) = single(&srv.url, budget);
    let e = client
        .select(&Select::new("*:*"))
        .await
        .expect_err("gives up");
    assert!(
        matches!(e, Error::RetriesExhausted { attempts: 1, waited, .. } if waited == Duration::ZERO),
        "{e}"
    );
    assert_eq!(srv.hits.load(Ordering::SeqCst), 1);

    // A write answered 503 was refused before processing: retried like a read (the one
    // 429/503 policy Routing shares with Retry), then every id reported.
    let srv = fault_server(|_| (503, vec![("retry-after", "1")], BUSY)).await;
    let (router, client) = single(&srv.url, budget);
    let docs = support::docs(&support::tag("route_d"), 3, 0);
    match client.add(&docs).await {
        Err(Error::Update { report, cause, .. }) => {
            assert_eq!(
                (report.sent, report.failed.len(), report.unknown.len()),
                (3, 3, 0),
                "a 503 was refused before processing: nothing indexed, every id failed"
            );
            assert_eq!(cause.and_then(|c| c.status()), Some(503));
        }
        other => panic!("expected Error::Update, got {other:?}"),
    }
    assert_eq!(srv.hits.load(Ordering::SeqCst), 3);
    assert_eq!(router.node_stats()[0].writes, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pair_replication_lag_with_5s_poll_interval() {
    let _net = support::shared().await;
    let _pair = PAIR_LOCK.lock().await;
    let s = pair();
    let leader = support::client(
        s.url(Some("leader")).expect("leader"),
        TransportKind::Pooled,
        false,
    );
    let follower = support::client(
        s.url(Some("follower")).expect("follower"),
        TransportKind::Pooled,
        false,
    );
    const PROBES: usize = 5;
    const POLL: Duration = Duration::from_secs(5);
    let tag = support::tag("route_lag");
    let mut lags = Vec::new();
    for i in 0..PROBES {
        // A probe that starts right after the previous one was seen starts right after a
        // poll, and always waits a whole interval: stagger the starts over the interval so
        // the probes sample every phase of the poll.
        tokio::time::sleep(POLL * i as u32 / PROBES as u32).await;
        let id = format!("{tag}-{i}");
        leader
            .add(&[json!({"id": id, "tag_s": tag})])
            .await
            .expect("add acknowledged");
        leader.commit(Commit::default()).await.expect("commit");
        let acked = Instant::now();
        let deadline = acked + Duration::from_secs(60);
        let q = Select::new(format!("id:{}", solr_client::escape_query(&id))).rows(0);
        loop {
            let r = follower.select(&q).await.expect("follower answers");
            if r.num_found() == 1 {
                break;
            }
            if Instant::now() > deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let lag = acked.elapsed();
        let seen = Instant::now() <= deadline;
        println!(
            "probe {i}: {} after {lag:?}",
            if seen { "seen" } else { "NOT seen" }
        );
        lags.push((lag, seen));
    }
    let mean = lags.iter().map(|(l, _)| *l).sum::<Duration>() / PROBES as u32;
    let max = lags.iter().map(|(l, _)| *l).max().unwrap_or_default();
    println!("replication lag, poll interval 5 s, {PROBES} probes: mean {mean:?}, max {max:?}");
    assert!(
        lags.iter().all(|(_, seen)| *seen),
        "every probe reached the follower"
    );
}
