//! The one-line SolrCloud client (`SolrClient::cloud`) on a real local cloud of 2 shards x
//! 2 replicas (its own instance `e2e-cloud-client`, since these tests kill and stop nodes):
//! - a round trip with nothing but seed URLs and a collection; an admin-only client (no
//!   collection) lists collections and refuses a search unsent;
//! - a shard leader killed in the middle of an `Indexer` run: every document is
//!   acknowledged, failed, unknown or not attempted; Solr holds every acknowledged id
//!   exactly once and no failed or not-attempted one; re-sending the reported ones after
//!   the node is back makes Solr hold all;
//! - an alias swapped between two collections during reads: no error, and every read
//!   answers from one collection, the new one once the swap has returned;
//! - a node stopped and started again: the same client marks it down, then back up, and
//!   reads reach it again.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use serde_json::json;
use solr_client::admin::CreateCollection;
use solr_client::transport::RetryPolicy;
use solr_client::{Commit, Error, Indexer, Select, SolrClient};
use solr_harness::local_solr::LocalSolr;
use tokio::sync::Mutex;

use crate::support;
use crate::support::cloud_nodes::{self, node_url, seeds, wait_for};

static LOCK: Mutex<()> = Mutex::const_new(());

fn cloud() -> &'static LocalSolr {
    static S: OnceLock<LocalSolr> = OnceLock::new();
    cloud_nodes::instance(
        &S,
        "e2e-cloud-client",
        &["--shards", "2", "--replicas", "2"],
    )
}

fn key(u: &str) -> String {
    u.trim_end_matches('/').to_string()
}

/// A cloud client on `collection` that notices changes quickly.
fn quick_client(s: &LocalSolr, collection: &str) -> SolrClient {
    SolrClient::cloud(seeds(s))
        .collection(collection)
        .liveness_interval(Duration::from_millis(300))
        .refresh_interval(Duration::from_secs(1))
        .retry(
            RetryPolicy::default()
                .max_attempts(6)
                .max_wait(Duration::from_secs(5)),
        )
        .build()
        .expect("cloud client builds")
}

/// Waits (up to 120 s) until every shard has a leader and every replica is usable, as
/// the client's own refreshed view says.
async fn wait_healthy(client: &SolrClient) {
    let router = client.cloud_router().expect("a cloud client");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if router.refresh().await.is_ok() {
            let v = router.view();
            let all_usable = v.read_replicas().all(|r| r.usable);
            if !v.shards.is_empty() && v.shards.iter().all(|s| s.leader().is_some()) && all_usable {
                return;
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

/// The ids Solr holds for `tag` (each as often as Solr returns it).
async fn held_ids(client: &SolrClient, tag: &str) -> Vec<String> {
    client.commit(Commit::default()).await.expect("commit");
    client
        .cursor(Select::new(format!("tag_s:{tag}")).fl("id"), 1000)
        .map_ok(|d| d["id"].as_str().unwrap_or_default().to_string())
        .try_collect()
        .await
        .expect("cursor reads")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_line_client_round_trip_and_admin_only_client() {
    let _net = support::shared().await;
    let _one = LOCK.lock().await;
    let s = cloud();
    let client = SolrClient::cloud(seeds(s))
        .collection("bench")
        .build()
        .expect("builds");
    wait_healthy(&client).await;
    let tag = support::tag("cc_rt");
    support::index_tagged(&client, &tag, 30).await;
    let r = client
        .select(&Select::new(format!("tag_s:{tag}")).rows(0))
        .await
        .expect("search");
    assert_eq!(r.num_found(), 30);
    let state = client.cloud_state().expect("cloud state");
    assert_eq!(state.resolved, vec!["bench".to_string()]);
    assert_eq!(state.leaders.len(), 2, "{state:?}");
    assert!(state.leaders.iter().all(|(_, l)| l.is_some()), "{state:?}");

    let admin = SolrClient::cloud(seeds(s))
        .build()
        .expect("admin-only builds");
    let list = admin
        .collections()
        .list()
        .await
        .expect("collections listed");
    assert!(list.collections.contains(&"bench".to_string()), "{list:?}");
    let e = admin
        .select(&Select::new("*:*"))
        .await
        .expect_err("no collection");
    assert!(
        matches!(&e, Error::Config(m) if m.contains("admin-only")),
        "{e}"
    );
    let reads: u64 = admin
        .cloud_router()
        .expect("router")
        .node_stats()
        .iter()
        .map(|n| n.reads)
        .sum();
    assert_eq!(reads, 0, "the search was never sent");
}

/// The instance's name of the node at `url`.
fn node_name(s: &LocalSolr, url: &str) -> String {
    s.nodes
        .iter()
        .find(|(_, u)| key(u) == key(url))
        .map(|(n, _)| n.clone())
        .expect("one of the instance's nodes")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leader_killed_mid_indexer_run_every_document_indexed_once_or_reported() {
    const N: usize = 3000;
    let _net = support::shared().await;
    let _one = LOCK.lock().await;
    let s = cloud();
    let client = quick_client(s, "bench");
    wait_healthy(&client).await;
    let state = client.cloud_state().expect("state");
    let leader_url = state.leaders[0].1.clone().expect("shard leader");
    let victim = node_name(s, &leader_url);
    println!(
        "killing {victim} ({leader_url}), leader of {}",
        state.leaders[0].0
    );

    let tag = support::tag("cc_kill");
    let docs = support::docs(&tag, N, 0);
    let ids: Vec<String> = docs
        .iter()
        .map(|d| d["id"].as_str().expect("id").to_string())
        .collect();
    // The kill happens inside the progress hook once a fifth is acknowledged: the run is
    // certainly in the middle, and goes on after it.
    let killed_at = Arc::new(AtomicUsize::new(0));
    let mut indexer = Indexer::builder(client.clone())
        .batch_docs(50)
        .in_flight(2)
        .retries(1)
        .progress({
            let (s, victim, killed_at) = (s.clone(), victim.clone(), killed_at.clone());
            move |p| {
                if p.acknowledged >= N / 5 && killed_at.load(Ordering::Acquire) == 0 {
                    s.kill_node(&victim).expect("leader killed");
                    killed_at.store(p.pushed, Ordering::Release);
                }
            }
        })
        .build()
        .expect("indexer");
    indexer.index_iter(&docs).await.expect("pushed");
    let r = indexer.finish().await;
    let killed_at = killed_at.load(Ordering::Acquire);
    println!(
        "killed after {killed_at} pushed; report: sent {} acknowledged {} failed {} unknown {} \
         not attempted {}; {:?}",
        r.sent,
        r.acknowledged,
        r.failed.len(),
        r.unknown.len(),
        r.not_attempted.len(),
        client.cloud_state()
    );
    assert!(
        killed_at > 0 && killed_at < N,
        "the kill came in the middle of the run"
    );
    assert_eq!(r.sent, N);
    assert!(
        r.is_balanced(),
        "acknowledged + failed + unknown + not attempted == sent: {r:?}"
    );
    let reported: Vec<String> = r
        .failed
        .iter()
        .map(|f| f.id.clone())
        .chain(r.unknown.iter().cloned())
        .chain(r.not_attempted.iter().cloned())
        .collect();
    let acked_ids = r.acknowledged_ids(&ids);
    assert_eq!(acked_ids.len(), r.acknowledged);

    cloud_nodes::start_node(s, &victim).await;
    wait_healthy(&client).await;
    check_held(&client, &tag, &acked_ids, &r).await;

    // Re-send every reported document: Solr then holds all, each once.
    let again: Vec<&serde_json::Value> = docs
        .iter()
        .filter(|d| reported.contains(&d["id"].as_str().unwrap_or_default().to_string()))
        .collect();
    assert_eq!(again.len(), reported.len());
    for batch in again.chunks(100) {
        client
            .add(batch)
            .await
            .expect("re-sent after the node is back");
    }
    let mut held = held_ids(&client, &tag).await;
    held.sort();
    let mut want = ids.clone();
    want.sort();
    assert_eq!(held, want, "every document, exactly once");
}

/// Solr holds every acknowledged id exactly once, and no failed or not-attempted id; an
/// unknown id may or may not be there.
async fn check_held(
    client: &SolrClient,
    tag: &str,
    acked: &[String],
    r: &solr_client::BatchReport,
) {
    let held = held_ids(client, tag).await;
    let held_set: HashSet<&String> = held.iter().collect();
    assert_eq!(held_set.len(), held.len(), "no id held twice");
    let missing: Vec<&String> = acked.iter().filter(|i| !held_set.contains(i)).collect();
    assert!(
        missing.is_empty(),
        "{} acknowledged ids missing: {:?}",
        missing.len(),
        &missing[..missing.len().min(5)]
    );
    let refused: Vec<&String> = r
        .failed
        .iter()
        .map(|f| &f.id)
        .chain(&r.not_attempted)
        .filter(|i| held_set.contains(i))
        .collect();
    assert!(
        refused.is_empty(),
        "failed or not-attempted ids held: {refused:?}"
    );
    let unknown_held = r.unknown.iter().filter(|i| held_set.contains(i)).count();
    assert_eq!(held.len(), acked.len() + unknown_held);
}

/// Creates collection `name` (1 shard x 2 replicas) holding `n` documents with ids
/// `{name}-{i}`, replacing one an earlier run left.
async fn collection_with(admin: &SolrClient, name: &str, n: usize) {
    let list = admin.collections().list().await.expect("list");
    if list.collections.iter().any(|c| c == name) {
        admin
            .collections()
            .delete(name)
            .await
            .expect("old one deleted");
    }
    let create = CreateCollection::new(name)
        .configset("bench")
        .shards(1)
        .replicas(2)
        .wait_for_final_state(true);
    admin.collections().create(&create).await.expect("created");
    let client = SolrClient::cloud(seeds(cloud()))
        .collection(name)
        .build()
        .expect("client");
    wait_healthy(&client).await;
    let docs: Vec<_> = (0..n)
        .map(|i| json!({"id": format!("{name}-{i}")}))
        .collect();
    client.add(&docs).await.expect("indexed");
    client.commit(Commit::default()).await.expect("commit");
}

/// One read through the alias: which collection answered (by the ids it holds), with when
/// the read started and ended.
struct Read {
    start: Instant,
    end: Instant,
    from: Result<String, String>,
}

async fn read_alias(client: &SolrClient) -> Read {
    let start = Instant::now();
    let res = client.select(&Select::new("*:*").fl("id").rows(50)).await;
    let end = Instant::now();
    let from = res.map_err(|e| e.to_string()).and_then(|r| {
        let ids: Vec<String> = r
            .docs()
            .iter()
            .map(|d| d["id"].as_str().unwrap_or_default().to_string())
            .collect();
        let colls: HashSet<&str> = ids
            .iter()
            .filter_map(|i| i.split_once('-').map(|(c, _)| c))
            .collect();
        match colls.into_iter().collect::<Vec<_>>().as_slice() {
            [one] if ids.len() == want_count(one) => Ok(one.to_string()),
            other => Err(format!(
                "mixed or partial answer: {other:?}, {} ids",
                ids.len()
            )),
        }
    });
    Read { start, end, from }
}

const OLD: &str = "ccold";
const NEW: &str = "ccnew";

/// The documents each collection of the alias test holds.
fn want_count(collection: &str) -> usize {
    if collection == OLD {
        3
    } else {
        5
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alias_swapped_during_reads_every_read_answers_from_its_current_collection() {
    let _net = support::shared().await;
    let _one = LOCK.lock().await;
    let s = cloud();
    let admin = SolrClient::cloud(seeds(s)).build().expect("admin client");
    let aliases = admin.collections().list_aliases().await.expect("aliases");
    if aliases.aliases.contains_key("cclive") {
        // Left by an earlier run on this instance.
        admin
            .collections()
            .delete_alias("cclive")
            .await
            .expect("old alias deleted");
    }
    collection_with(&admin, OLD, want_count(OLD)).await;
    collection_with(&admin, NEW, want_count(NEW)).await;
    admin
        .collections()
        .create_alias("cclive", &[OLD])
        .await
        .expect("alias");
    let client = quick_client(s, "cclive");
    // A reader reads without pause while the alias is swapped under it.
    let reads = Arc::new(std::sync::Mutex::new(Vec::<Read>::new()));
    let reader = tokio::spawn({
        let (client, reads) = (client.clone(), reads.clone());
        async move {
            while reads.lock().expect("lock").len() < 400 {
                let r = read_alias(&client).await;
                let stop = r.from.is_err();
                reads.lock().expect("lock").push(r);
                if stop {
                    return;
                }
            }
        }
    });
    let count = |pred: &dyn Fn(&Read) -> bool| {
        reads
            .lock()
            .expect("lock")
            .iter()
            .filter(|r| pred(r))
            .count()
    };
    while count(&|_| true) < 20 && !reader.is_finished() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let swap_start = Instant::now();
    admin
        .collections()
        .create_alias("cclive", &[NEW])
        .await
        .expect("swapped");
    let swapped = Instant::now();
    while count(&|r| r.start > swapped) < 20 && !reader.is_finished() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    reader.abort();
    let _ = reader.await;
    let reads = std::mem::take(&mut *reads.lock().expect("lock"));
    let errors: Vec<&String> = reads.iter().filter_map(|r| r.from.as_ref().err()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let (mut before, mut during, mut after) = (0, 0, 0);
    for r in &reads {
        let from = r.from.as_deref().expect("checked");
        if r.end < swap_start {
            assert_eq!(from, OLD, "a read before the swap");
            before += 1;
        } else if r.start > swapped {
            assert_eq!(from, NEW, "a read after the swap");
            after += 1;
        } else {
            during += 1;
        }
    }
    println!(
        "{} reads: {before} before the swap, {during} during, {after} after",
        reads.len()
    );
    assert!(
        before >= 20 && after >= 20,
        "{before} before, {after} after"
    );
    // A write through the alias after a refresh goes to the new collection's leader.
    let router = client.cloud_router().expect("router");
    router.refresh().await.expect("refresh");
    assert_eq!(
        client.cloud_state().expect("state").resolved,
        vec![NEW.to_string()]
    );
    let w = client
        .add(&[json!({"id": format!("{NEW}-w")})])
        .await
        .expect("written");
    let leader = client.cloud_state().expect("state").leaders[0].1.clone();
    assert_eq!(
        Some(key(&w.timing.node)),
        leader,
        "the write went to the leader"
    );
    client.commit(Commit::default()).await.expect("commit");
    assert_eq!(
        (count_in(OLD).await, count_in(NEW).await),
        (want_count(OLD) as u64, want_count(NEW) as u64 + 1),
        "the write landed in the new collection only"
    );
}

/// How many documents collection `c` holds.
async fn count_in(c: &str) -> u64 {
    let client = SolrClient::cloud(seeds(cloud()))
        .collection(c)
        .build()
        .expect("client");
    let r = client
        .select(&Select::new("*:*").rows(0))
        .await
        .expect("count");
    r.num_found()
}

/// Reads (failing over as needed) until `done` holds for the client's state, up to 120 s;
/// every read must succeed. Returns the reads' nodes.
async fn read_until(
    client: &SolrClient,
    what: &str,
    done: impl Fn(&SolrClient) -> bool,
) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut nodes = Vec::new();
    while !done(client) {
        let r = client.select(&Select::new("*:*").rows(0)).await;
        nodes.push(key(&r
            .unwrap_or_else(|e| panic!("a read failed while waiting for {what}: {e}"))
            .timing
            .node));
        assert!(
            Instant::now() < deadline,
            "{what}: {:?}",
            client.cloud_state()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    nodes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn node_stopped_and_started_is_marked_down_then_back_without_a_new_client() {
    let _net = support::shared().await;
    let _one = LOCK.lock().await;
    let s = cloud();
    let client = quick_client(s, "bench");
    wait_healthy(&client).await;
    let node2 = node_url(s, "node2");
    let health = |c: &SolrClient| c.cloud_state().and_then(|st| st.node(&node2).cloned());
    let before = health(&client).expect("node2 known");
    assert!(before.up && before.live, "{before:?}");

    cloud_nodes::stop_node(s, "node2").await;
    read_until(&client, "node2 marked down", |c| {
        health(c).is_some_and(|h| !h.up)
    })
    .await;
    let down = health(&client).expect("known");
    assert_eq!(down.marked_down, before.marked_down + 1, "{down:?}");

    cloud_nodes::start_node(s, "node2").await;
    // No request needed: the liveness check brings it back.
    wait_for(&client, "node2 back up after a liveness check", |c| {
        health(c).is_some_and(|h| h.up && h.live)
    })
    .await;
    wait_healthy(&client).await;
    let mut served = Vec::new();
    for _ in 0..20 {
        let r = client
            .select(&Select::new("*:*").rows(0))
            .await
            .expect("read");
        served.push(key(&r.timing.node));
    }
    assert!(
        served.contains(&node2),
        "reads are back on node2: {served:?}"
    );
}
