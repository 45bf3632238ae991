//! `/export` through a SolrCloud client on the 2x2 cloud (`bench`, compositeId, 2 shards x
//! 2 replicas): one `distrib=false` export per shard, merged by the sort.
//! - 50,000 tagged documents (a missing `popularity` on every seventh, a 1000-byte docValues
//!   string on each): every id exactly once, in `popularity desc, id asc` order as Solr's
//!   `/export` orders a shard (a missing number as 0), both shards served; the peak RSS
//!   growth of a child process that reads them all stays under [`RSS_BOUND`], far below the
//!   size of the tuples read;
//! - with node2 stopped after the client loaded its view and node2 preferred: each shard's
//!   export fails on node2 before its first tuple and is read from its replica on node1,
//!   every id exactly once;
//! - a node that dies in the middle of one shard's body (a fault server, the one fault real
//!   Solr cannot produce on demand): the tuples before it, then `Error::ExportIncomplete`
//!   naming the shard, then nothing.

use std::collections::HashSet;
use std::time::Duration;

use futures::TryStreamExt;
use serde::Deserialize;
use serde_json::json;
use solr_client::transport::ReplicaPreference;
use solr_client::{Error, Export, SolrClient};
use solr_harness::local_solr::LocalSolr;

use crate::support::fault_server::{Fault, FaultServer};
use crate::support::{self, cloud_nodes};

/// The documents the big export reads.
const DOCS: usize = 50_000;
/// The length of each document's `pad_s`.
const PAD: usize = 1000;
const MIB: u64 = 1024 * 1024;
/// Peak RSS growth allowed while the child reads all of them (the tuples weigh about
/// `DOCS * PAD` = 48 MiB). Measured: 2.7 MiB.
const RSS_BOUND: u64 = 16 * MIB;

#[derive(Debug, Deserialize)]
struct Row {
    id: String,
    popularity: Option<i64>,
    #[serde(default)]
    pad_s: String,
}

fn popularity(i: usize) -> Option<i64> {
    (!i.is_multiple_of(7)).then_some((i % 1000) as i64 - 500)
}

/// `a` comes before (or with) `b` in `popularity desc, id asc`, a missing number being 0.
fn in_order(a: &Row, b: &Row) -> bool {
    let (x, y) = (a.popularity.unwrap_or(0), b.popularity.unwrap_or(0));
    x > y || (x == y && a.id < b.id)
}

fn cloud_client(seeds: Vec<String>, preference: ReplicaPreference) -> SolrClient {
    SolrClient::cloud(seeds)
        .collection("bench")
        .replica_preference(preference)
        .refresh_interval(Duration::from_secs(3600))
        .build()
        .expect("cloud client builds")
}

fn s() -> &'static LocalSolr {
    support::cloud2x2()
}

/// Indexes the tagged documents once per process; returns the tag.
async fn data() -> String {
    static TAG: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    TAG.get_or_init(|| async {
        let tag = support::tag("cloudexport");
        let pad = "p".repeat(PAD);
        let c = cloud_client(cloud_nodes::seeds(s()), ReplicaPreference::default());
        for start in (0..DOCS).step_by(5_000) {
            let docs: Vec<_> = (start..start + 5_000)
                .map(|i| {
                    let mut d =
                        json!({"id": format!("{tag}-{i:06}"), "category": tag, "pad_s": pad});
                    if let Some(p) = popularity(i) {
                        d["popularity"] = json!(p);
                    }
                    d
                })
                .collect();
            c.add(&docs).await.expect("index");
        }
        c.commit(solr_client::Commit::default())
            .await
            .expect("commit");
        tag
    })
    .await
    .clone()
}

fn export(tag: &str) -> Export {
    Export::new(format!("category:{tag}"))
        .fl("id,popularity,pad_s")
        .sort("popularity desc,id asc")
}

fn status_kib(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    s.lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc/self/status"))
}

/// The child's part: after a small warm-up export, reads the whole export keeping only the
/// previous row, and prints the count, whether it was in order, and the peak RSS growth.
async fn child(seeds: &str, tag: &str) {
    let c = cloud_client(
        seeds.split(',').map(str::to_string).collect(),
        ReplicaPreference::default(),
    );
    let warm = Export::new(format!("id:{tag}-000001"))
        .fl("id,popularity,pad_s")
        .sort("popularity desc,id asc");
    let n: Vec<Row> = c
        .export_as(&warm)
        .await
        .expect("warm-up")
        .try_collect()
        .await
        .expect("warm-up rows");
    assert_eq!(n.len(), 1);
    std::fs::write("/proc/self/clear_refs", "5").expect("clear_refs");
    let before = status_kib("VmRSS:");
    let mut rows = c.export_as::<Row>(&export(tag)).await.expect("export");
    let (mut count, mut sorted, mut bytes) = (0u64, true, 0u64);
    let mut prev: Option<Row> = None;
    while let Some(row) = rows.try_next().await.expect("row") {
        count += 1;
        bytes += (row.id.len() + row.pad_s.len()) as u64;
        if let Some(p) = &prev {
            sorted &= in_order(p, &row);
        }
        prev = Some(row);
    }
    let peak = status_kib("VmHWM:");
    println!(
        "CLOUD_EXPORT count={count} sorted={sorted} bytes={bytes} growth_kib={}",
        peak.saturating_sub(before)
    );
}

/// A field of the child's report line.
fn field(line: &str, name: &str) -> String {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("{name} in {line}"))
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cloud_export_yields_every_document_once_in_order_at_constant_memory() {
    if let (Ok(seeds), Ok(tag)) = (
        std::env::var("E2E_CLOUD_EXPORT_SEEDS"),
        std::env::var("E2E_CLOUD_EXPORT_TAG"),
    ) {
        return child(&seeds, &tag).await;
    }
    let _net = support::shared().await;
    let tag = data().await;
    let c = cloud_client(cloud_nodes::seeds(s()), ReplicaPreference::default());
    let mut tuples = c.export_as::<Row>(&export(&tag)).await.expect("export");
    let served = tuples.shards();
    let names: HashSet<&str> = served.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.len(), 2, "one export per shard: {served:?}");
    let mut rows = Vec::with_capacity(DOCS);
    while let Some(row) = tuples.try_next().await.expect("row") {
        rows.push(row);
    }
    let ids: HashSet<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(rows.len(), DOCS, "every document");
    assert_eq!(ids.len(), DOCS, "each once");
    let want: HashSet<String> = (0..DOCS).map(|i| format!("{tag}-{i:06}")).collect();
    assert!(
        ids.iter().all(|id| want.contains(*id)),
        "only the tagged ids"
    );
    assert!(
        rows.windows(2).all(|w| in_order(&w[0], &w[1])),
        "popularity desc, id asc"
    );
    for r in &rows {
        let i: usize =
            r.id.rsplit('-')
                .next()
                .and_then(|n| n.parse().ok())
                .expect("n");
        assert_eq!(r.popularity, popularity(i), "{}", r.id);
        assert_eq!(r.pad_s.len(), PAD, "{}", r.id);
    }
    drop(rows);

    let exe = std::env::current_exe().expect("test binary");
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "cloud_export::a_cloud_export_yields_every_document_once_in_order_at_constant_memory",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("E2E_CLOUD_EXPORT_SEEDS", cloud_nodes::seeds(s()).join(","))
        .env("E2E_CLOUD_EXPORT_TAG", &tag)
        .output()
        .expect("child runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The report may follow the harness's `test ... ` on the same line.
    let line = text
        .lines()
        .find_map(|l| l.split("CLOUD_EXPORT ").nth(1))
        .unwrap_or_else(|| panic!("no report from the child: {text}"));
    assert_eq!(field(line, "count"), DOCS.to_string(), "{line}");
    assert_eq!(field(line, "sorted"), "true", "{line}");
    let bytes: u64 = field(line, "bytes").parse().expect("bytes");
    let growth = field(line, "growth_kib").parse::<u64>().expect("kib") * 1024;
    println!(
        "cloud export of {DOCS} documents ({:.1} MiB of ids and pads): peak RSS +{:.1} MiB",
        bytes as f64 / MIB as f64,
        growth as f64 / MIB as f64
    );
    assert!(
        bytes > 2 * RSS_BOUND,
        "the tuples outweigh the bound: {bytes}"
    );
    assert!(
        growth <= RSS_BOUND,
        "peak RSS grew by {growth} bytes, over {RSS_BOUND}"
    );
}

/// Waits (up to 180 s) until a fresh view has both nodes live and every replica usable.
async fn wait_whole(c: &SolrClient) {
    let router = c.cloud_router().expect("a cloud client");
    let deadline = std::time::Instant::now() + Duration::from_secs(180);
    loop {
        if router.refresh().await.is_ok() {
            let v = router.view();
            if v.live_urls.len() == 2 && v.shards.len() == 2 && v.read_replicas().all(|r| r.usable)
            {
                return;
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never whole: {:?}",
            router.view()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shard_whose_replica_is_down_is_read_from_its_other_replica() {
    let tag = data().await;
    // node2 goes down: no other test may use the instance meanwhile.
    let _net = support::exclusive().await;
    let node1 = cloud_nodes::node_url(s(), "node1");
    let node2 = cloud_nodes::node_url(s(), "node2");
    let c = cloud_client(
        cloud_nodes::seeds(s()),
        ReplicaPreference::default().node(node2.clone()),
    );
    wait_whole(&c).await;
    let router = c.cloud_router().expect("a cloud client").clone();
    let before = router.stats_of(&node2).expect("node2 known");
    cloud_nodes::stop_node(s(), "node2").await;
    let result = async {
        let ex = Export::new(format!("category:{tag}"))
            .fl("id")
            .sort("id asc");
        let mut tuples = c.export_as::<Row>(&ex).await?;
        let served = tuples.shards();
        let mut ids = Vec::new();
        while let Some(row) = tuples.try_next().await? {
            ids.push(row.id);
        }
        Ok::<_, Error>((served, ids))
    }
    .await;
    let down = router.stats_of(&node2).expect("node2 known");
    cloud_nodes::start_node(s(), "node2").await;
    wait_whole(&c).await;
    let (served, ids) = result.expect("the export, from node1");
    assert_eq!(served.len(), 2, "{served:?}");
    assert!(
        served.iter().all(|(_, n)| n.trim_end_matches('/') == node1),
        "{served:?}"
    );
    assert!(
        !down.up && down.marked_down > before.marked_down,
        "{down:?}"
    );
    let set: HashSet<&str> = ids.iter().map(String::as_str).collect();
    assert_eq!((ids.len(), set.len()), (DOCS, DOCS), "every id once");
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "id asc");
}

/// CLUSTERSTATUS of a one-node cluster on `node` (`127.0.0.1:PORT`): `bench`, two shards,
/// one replica each, both on that node.
fn one_node_status(node: &str) -> &'static str {
    let name = format!("{node}_solr");
    let replica = |core: &str| json!({"core": core, "node_name": name, "type": "NRT", "state": "active", "leader": "true"});
    let status = json!({"responseHeader":{"status":0,"QTime":0},"cluster":{
        "live_nodes":[name],
        "collections":{"bench":{"router":{"name":"compositeId"},"shards":{
            "shard1":{"range":"80000000-ffffffff","state":"active","replicas":{"core_node1":replica("bench_shard1_replica_n1")}},
            "shard2":{"range":"0-7fffffff","state":"active","replicas":{"core_node2":replica("bench_shard2_replica_n2")}}}}}}});
    Box::leak(status.to_string().into_boxed_str())
}

fn export_body(ids: &[&str]) -> String {
    let docs: Vec<_> = ids.iter().map(|id| json!({"id": id})).collect();
    json!({"responseHeader":{"status":0},"response":{"numFound":ids.len(),"docs":docs}}).to_string()
}

#[tokio::test]
async fn a_node_dying_in_the_middle_of_a_shard_is_an_incomplete_export() {
    // Whichever shard asks first gets the whole body, the other one the cut one: a0..a9
    // all come before b0 and b1, then the cut shard's error.
    let whole: Vec<String> = (0..10).map(|i| format!("a{i}")).collect();
    let whole: Vec<&str> = whole.iter().map(String::as_str).collect();
    let full = Box::leak(export_body(&whole).into_boxed_str());
    let cut_body = export_body(&["b0", "b1", "b2", "b3"]);
    let cut_at = cut_body.find("b2").expect("b2") - 2;
    let cut = Box::leak(cut_body[..cut_at].to_string().into_boxed_str());
    // The node serving both shards; the seed answers CLUSTERSTATUS naming it.
    let node = FaultServer::start(vec![Fault::Ok(full), Fault::PartialThenReset(cut)]).await;
    let seed = FaultServer::start(vec![Fault::Ok(one_node_status(&node.authority()))]).await;
    let c = cloud_client(vec![seed.url()], ReplicaPreference::default());
    let ex = Export::new("*:*").fl("id").sort("id asc");
    let tuples = c
        .export_as::<Row>(&ex)
        .await
        .expect("both shards have a first tuple");
    let out: Vec<Result<Row, Error>> = futures::StreamExt::collect(tuples).await;
    let ids: Vec<&str> = out
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .map(|r| r.id.as_str())
        .collect();
    let mut want = whole.clone();
    want.extend(["b0", "b1"]);
    assert_eq!(ids, want, "the tuples before the cut, in order");
    assert_eq!(out.len(), want.len() + 1, "then one error, then nothing");
    match &out[want.len()] {
        Err(
            e @ Error::ExportIncomplete {
                shard,
                handed_out,
                from_shard,
                ..
            },
        ) => {
            assert!(["shard1", "shard2"].contains(&shard.as_str()), "{e}");
            assert_eq!((*handed_out, *from_shard), (12, 2), "{e:?}");
            let text = e.to_string();
            assert!(
                text.contains("export incomplete") && text.contains(shard.as_str()),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
    // Two exports on the node (one per shard), each with distrib=false on its core.
    let seen = node.seen();
    assert_eq!(seen.len(), 2, "{seen:?}");
    let mut cores: Vec<&str> = seen
        .iter()
        .map(|r| {
            assert!(r.line.contains("distrib=false"), "{}", r.line);
            r.line.split('/').nth(2).expect("core")
        })
        .collect();
    cores.sort();
    assert_eq!(
        cores,
        ["bench_shard1_replica_n1", "bench_shard2_replica_n2"]
    );
}
