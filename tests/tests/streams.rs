//! `/export` and streaming expressions as typed streams, against a real local SolrCloud of
//! 2 shards (its own instance `e2e-streams`):
//! - `/export` of a few thousand documents into a struct, every id exactly once and as many
//!   as the core's numFound, through pooled, fresh, http2, reqwest, pooled+gzip and http2+gzip (streamed bodies);
//!   a pooled connection is reused after a body read to its end, closed after one given up;
//! - a sort on a field without docValues: `Error::Solr` with Solr's message;
//! - `search(...)` with `qt=/export` across both shards: every document once;
//! - an expression that yields tuples and then fails (`div` by zero on the sixth tuple): the
//!   five tuples, then `Error::Solr` with Solr's message, then nothing;
//! - `/sql` on a Solr without its `sql` module: a typed error naming the missing handler;
//! - `/export` through a cloud client (`SolrClient::cloud`, its routing transport): every id
//!   of the serving core's shard exactly once, as many as that core's numFound, and streamed:
//!   the first tuple is handed out while the attempt is still outstanding on its node (the
//!   body being read), and the router hands the body out in more than one chunk;
//! - the same with one node stopped before the call: the other node serves it, exact counts.

use std::collections::HashSet;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use serde::Deserialize;
use serde_json::json;
use solr_client::transport::{RequestKind, Timeouts, Transport, WireRequest};
use solr_client::{Error, Export, Select, SolrClient, TransportKind};
use solr_harness::local_solr::{project_root, LocalSolr, Mode};
use tokio::sync::Mutex;

use crate::support;

static LOCK: Mutex<()> = Mutex::const_new(());
/// The documents this file indexes (once per test process).
const DOCS: usize = 3_000;

fn cloud() -> &'static LocalSolr {
    static S: OnceLock<LocalSolr> = OnceLock::new();
    S.get_or_init(|| {
        LocalSolr::start(
            Mode::Cloud,
            "e2e-streams",
            &["--shards", "2", "--replicas", "1"],
        )
        .unwrap_or_else(|e| panic!("cannot start e2e-streams: {e:#}"))
    })
}

fn client(kind: TransportKind, gzip: bool) -> SolrClient {
    support::client(cloud().url(Some("node1")).expect("node1"), kind, gzip)
}

#[derive(Debug, Deserialize)]
struct Row {
    id: String,
    popularity: i64,
}

/// The core of `bench` on node1: `/export` answers from one core, so the export and its
/// count (`distrib=false`) both name it.
async fn node1_core(c: &SolrClient) -> String {
    let node1 = cloud()
        .url(Some("node1"))
        .expect("node1")
        .trim_end_matches('/');
    let status = c
        .collections()
        .cluster_status(Some("bench"))
        .await
        .expect("cluster status");
    let state = &status.cluster.collections["bench"];
    state
        .shards
        .values()
        .flat_map(|s| s.replicas.values())
        .find(|r| r.base_url.as_deref().map(|u| u.trim_end_matches('/')) == Some(node1))
        .map(|r| r.core.clone())
        .expect("a bench core on node1")
}

/// Indexes the tagged documents once; returns the tag.
async fn data() -> String {
    static TAG: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    TAG.get_or_init(|| async {
        let tag = support::tag("streams");
        let docs: Vec<_> = (0..DOCS)
            .map(|i| json!({"id": format!("{tag}-{i:05}"), "category": tag, "popularity": i}))
            .collect();
        let c = client(TransportKind::Pooled, false);
        c.add(&docs).await.expect("index");
        c.commit(solr_client::Commit::default())
            .await
            .expect("commit");
        tag
    })
    .await
    .clone()
}

#[tokio::test]
async fn export_yields_every_id_once_through_every_transport() {
    let _net = support::shared().await;
    let _g = LOCK.lock().await;
    let tag = data().await;
    let q = format!("category:{tag}");
    let kinds = [
        (TransportKind::Pooled, false),
        (TransportKind::Fresh, false),
        (TransportKind::Http2, false),
        (TransportKind::Reqwest, false),
        (TransportKind::Pooled, true),
        (TransportKind::Http2, true),
    ];
    for (kind, gzip) in kinds {
        let c = client(kind, gzip);
        let core = node1_core(&c).await;
        // /export answers from one core: numFound of the same core (distrib=false).
        let local = Select::new(q.clone())
            .rows(0)
            .param("distrib", "false")
            .collection(core.clone());
        let found = c.select(&local).await.expect("count").num_found();
        assert!(
            found > 0 && found < DOCS as u64,
            "{kind}: one shard's share: {found}"
        );
        let export = Export::new(q.clone())
            .fl("id,popularity")
            .sort("id asc")
            .collection(core);
        let mut tuples = c.export_as::<Row>(&export).await.expect("export");
        let mut rows = Vec::new();
        while let Some(row) = tuples.try_next().await.expect("row") {
            rows.push(row);
        }
        let timing = tuples.timing();
        assert!(
            timing.decoded_bytes > 0,
            "{kind}: the body's size once read"
        );
        let encoding = timing.content_encoding.as_deref();
        assert_eq!(encoding, gzip.then_some("gzip"), "{kind} gzip={gzip}");
        // The wire bytes, counted as the body was read: the compressed size with gzip;
        // reqwest's are the payload as it came (the body's exact size without gzip), the
        // others' socket bytes (the head and chunk framing on top of it).
        let (wire, decoded) = (timing.bytes_in, timing.decoded_bytes);
        if gzip {
            assert!(
                wire > 0 && wire < decoded,
                "{kind}+gzip: {wire} < {decoded}"
            );
        } else if kind == TransportKind::Reqwest {
            assert_eq!(wire, decoded, "{kind}: the payload");
        } else {
            assert!(wire > decoded, "{kind}: {wire} socket bytes > {decoded}");
        }
        let ids: HashSet<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids.len(), rows.len(), "{kind} gzip={gzip}: an id twice");
        assert_eq!(rows.len() as u64, found, "{kind} gzip={gzip}");
        for r in &rows {
            let n: i64 =
                r.id.rsplit('-')
                    .next()
                    .and_then(|s| s.parse().ok())
                    .expect("n");
            assert_eq!(r.popularity, n, "{}", r.id);
        }
        if kind == TransportKind::Pooled && !gzip {
            // Read to its end, each export's connection went back to the pool: a second
            // export (and the count before) reuse the one connection.
            let again: Vec<Row> = c
                .export_as::<Row>(&export)
                .await
                .expect("export again")
                .try_collect()
                .await
                .expect("rows again");
            assert_eq!(again.len(), rows.len());
            assert_eq!(
                c.transport().stats().connections_opened,
                1,
                "the status, the count and both exports on one connection"
            );
            // Given up after one row, an export's connection is closed, never reused with
            // the rest of its body unread: the next request opens a new one.
            let mut partial = c.export_as::<Row>(&export).await.expect("export");
            partial
                .try_next()
                .await
                .expect("a row")
                .expect("one row at least");
            drop(partial);
            let again = c.select(&local).await.expect("count again").num_found();
            assert_eq!(again, found);
            assert_eq!(c.transport().stats().connections_opened, 2);
        }
    }
}

#[tokio::test]
async fn a_sort_without_docvalues_is_solrs_error() {
    let _net = support::shared().await;
    let _g = LOCK.lock().await;
    let c = client(TransportKind::Pooled, false);
    let export = Export::new("*:*").fl("id").sort("title asc");
    let err = c.export_as::<Row>(&export).await.expect_err("refused");
    match err {
        Error::Solr { status, body, .. } => {
            assert_eq!(status, 400);
            assert!(body.msg.contains("docValues"), "{}", body.msg);
            assert!(body.msg.contains("title"), "{}", body.msg);
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn an_expression_runs_across_both_shards_and_an_exception_comes_after_its_tuples() {
    let _net = support::shared().await;
    let _g = LOCK.lock().await;
    let tag = data().await;
    let c = client(TransportKind::Pooled, false);
    let search = format!(
        r#"search(bench,q="category:{tag}",fl="id,popularity",sort="id asc",qt="/export")"#
    );
    let rows: Vec<Row> = c
        .stream_as::<Row>(&search)
        .await
        .expect("stream")
        .try_collect()
        .await
        .expect("rows");
    let ids: HashSet<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(rows.len(), DOCS, "every document of both shards");
    assert_eq!(ids.len(), DOCS, "each once");
    assert!(
        rows.windows(2).all(|w| w[0].id < w[1].id),
        "merged in id order"
    );

    #[derive(Debug, Deserialize)]
    struct Ratio {
        id: String,
        x: f64,
    }
    let failing = format!("select({search},id,div(100,sub(popularity,5)) as x)");
    let out: Vec<_> = c
        .stream_as::<Ratio>(failing)
        .await
        .expect("head")
        .collect()
        .await;
    assert_eq!(out.len(), 6, "{out:?}");
    for (i, r) in out[..5].iter().enumerate() {
        let r = r.as_ref().expect("tuple before the exception");
        assert_eq!(r.id, format!("{tag}-{i:05}"));
        // Solr's division and Rust's may differ in the last bit.
        let want = 100.0 / (i as f64 - 5.0);
        assert!((r.x - want).abs() < 1e-9, "{} against {want}", r.x);
    }
    match &out[5] {
        Err(Error::Solr { body, .. }) => {
            assert!(body.msg.contains("0 denominator"), "{}", body.msg)
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn sql_without_solrs_sql_module_is_a_typed_error() {
    let _net = support::shared().await;
    let _g = LOCK.lock().await;
    let c = client(TransportKind::Pooled, false);
    let err = c
        .sql_as::<Row>("SELECT id, popularity FROM bench LIMIT 3")
        .await
        .expect_err("this Solr has no sql module");
    match err {
        Error::Solr { status, body, .. } => {
            assert_eq!(status, 500);
            assert!(body.msg.contains("SQLHandler"), "{}", body.msg);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_blocking_export_is_an_iterator() {
    let _net = support::shared_blocking();
    let async_client = client(TransportKind::Pooled, false);
    let for_setup = async_client.clone();
    let (tag, core) = std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().expect("rt");
        rt.block_on(async move { (data().await, node1_core(&for_setup).await) })
    })
    .join()
    .expect("set-up");
    let c = solr_client::blocking::SolrClient::new(async_client).expect("blocking");
    let q = format!("category:{tag}");
    let export = Export::new(q.clone())
        .fl("id,popularity")
        .collection(core.clone());
    let rows: Vec<Row> = c
        .export_as::<Row>(&export)
        .expect("export")
        .collect::<solr_client::Result<_>>()
        .expect("rows");
    let ids: HashSet<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), rows.len(), "an id twice");
    let n = rows.len();
    let local = Select::new(q)
        .rows(0)
        .param("distrib", "false")
        .collection(core);
    let found = c.select(&local).expect("count").num_found();
    assert!(found > 0, "the core holds some of the documents");
    assert_eq!(n as u64, found);
}

/// A cloud client on the instance, both nodes as seeds. Its view is refreshed on demand
/// (`Routing::refresh`) and on failures only, so no timed request of its own runs beside an
/// export.
fn cloud_client() -> SolrClient {
    let seeds: Vec<String> = ["node1", "node2"]
        .iter()
        .map(|n| cloud().url(Some(n)).expect("node").to_string())
        .collect();
    SolrClient::cloud(seeds)
        .collection("bench")
        .refresh_interval(Duration::from_secs(3600))
        .build()
        .expect("cloud client builds")
}

fn key(u: &str) -> String {
    u.trim_end_matches('/').to_string()
}

/// One core of `bench`: its node, the tagged ids its shard holds by the view's hash ranges,
/// and Solr's count of the tagged documents in that core (`distrib=false`).
#[derive(Debug)]
struct CoreShare {
    core: String,
    node: String,
    ids: HashSet<String>,
    found: u64,
}

/// Every core of `bench` with its share of the tagged documents; Solr's count of each
/// core is its shard's share by the hash ranges, and the shares add up to all documents.
async fn shares(c: &SolrClient, tag: &str) -> Vec<CoreShare> {
    let router = c.cloud_router().expect("a cloud client");
    router.refresh().await.expect("cluster view");
    let view = router.view();
    let all: Vec<String> = (0..DOCS).map(|i| format!("{tag}-{i:05}")).collect();
    let mut out = Vec::new();
    let mut per_shard = 0;
    for shard in &view.shards {
        let ids: HashSet<String> = all
            .iter()
            .filter(|id| view.shard_for_key(id).expect("hashed").name == shard.name)
            .cloned()
            .collect();
        per_shard += ids.len();
        for r in &shard.replicas {
            let plain = support::client(r.base_url.as_str(), TransportKind::Pooled, false);
            let count = Select::new(format!("category:{tag}"))
                .rows(0)
                .param("distrib", "false")
                .collection(r.core.clone());
            let found = plain.select(&count).await.expect("count").num_found();
            assert_eq!(found, ids.len() as u64, "{}: its shard's share", r.core);
            out.push(CoreShare {
                core: r.core.clone(),
                node: key(r.base_url.as_str()),
                ids: ids.clone(),
                found,
            });
        }
    }
    assert_eq!(per_shard, DOCS, "every document in one shard");
    out
}

/// Exports the tagged documents through the cloud client `c`. The first tuple is handed
/// out while its attempt is still outstanding on the serving node (the router holds it
/// until the body ends: the body is still being read); read to the end, nothing is
/// outstanding. Returns the serving node and the ids in the order read.
async fn export_through_cloud(c: &SolrClient, tag: &str) -> (String, Vec<String>) {
    let router = c.cloud_router().expect("a cloud client");
    let export = Export::new(format!("category:{tag}"))
        .fl("id,popularity")
        .sort("id asc");
    let mut tuples = c.export_as::<Row>(&export).await.expect("export");
    let first = tuples.try_next().await.expect("row").expect("a first row");
    let node = key(&tuples.timing().node);
    let outstanding = |n: &str| router.stats_of(n).expect("a known node").outstanding;
    assert_eq!(outstanding(&node), 1, "the body is being read");
    assert_eq!(tuples.timing().decoded_bytes, 0, "the body has not ended");
    let mut ids = vec![first.id];
    while let Some(row) = tuples.try_next().await.expect("row") {
        ids.push(row.id);
    }
    assert!(
        tuples.timing().decoded_bytes > 0,
        "the body's size once read"
    );
    assert_eq!(outstanding(&node), 0, "read to its end");
    (node, ids)
}

/// `ids` are, exactly once each, the share of a core on `node`; their count is that core's
/// numFound.
fn assert_one_cores_share(shares: &[CoreShare], node: &str, ids: &[String]) {
    let set: HashSet<String> = ids.iter().cloned().collect();
    assert_eq!(set.len(), ids.len(), "an id twice");
    let share = shares
        .iter()
        .find(|s| s.node == node && s.ids == set)
        .unwrap_or_else(|| panic!("{} ids from {node}: no core's share; {shares:?}", ids.len()));
    assert_eq!(ids.len() as u64, share.found, "{}", share.core);
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "sorted by id");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_through_a_cloud_client_streams_one_cores_share_exactly() {
    let _net = support::shared().await;
    let _g = LOCK.lock().await;
    let tag = data().await;
    let c = cloud_client();
    let shares = shares(&c, &tag).await;
    let (node, ids) = export_through_cloud(&c, &tag).await;
    assert_one_cores_share(&shares, &node, &ids);

    // The router's own streaming path, below the client: the body comes in as it arrives,
    // several chunks (a body read whole first is handed out as one).
    let router = c.cloud_router().expect("a cloud client");
    let export = Export::new(format!("category:{tag}"))
        .fl("id,popularity")
        .sort("id asc");
    let req = WireRequest {
        method: http::Method::GET,
        node: url::Url::parse(cloud().url(Some("node1")).expect("node1")).expect("url"),
        path: "bench/export".into(),
        query: export.params(),
        headers: http::HeaderMap::new(),
        body: Default::default(),
        kind: RequestKind::Read,
        timeouts: Timeouts::default(),
        max_response_bytes: 1 << 20,
        deadline: None,
        route: None,
    };
    let mut resp = router.send_streaming(req).await.expect("a head");
    assert_eq!(resp.status, http::StatusCode::OK);
    let (mut chunks, mut bytes) = (0, 0u64);
    while let Some(chunk) = resp.body.next().await {
        bytes += chunk.expect("chunk").len() as u64;
        chunks += 1;
    }
    assert!(chunks > 1, "{chunks} chunk(s) for {bytes} bytes");
    assert_eq!(resp.timing().decoded_bytes, bytes);
}

/// Runs `solr.sh ARGS` (stop-node has no harness method); panics with its stderr when it
/// fails.
fn solr_sh(args: &[&str]) {
    let out = std::process::Command::new("bash")
        .arg(project_root().join("local-solr/solr.sh"))
        .args(args)
        .output()
        .expect("solr.sh runs");
    assert!(
        out.status.success(),
        "solr.sh {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Starts node2 again when dropped, so that a failing test leaves the instance whole (a
/// failed start shows in the wait for the whole cluster that follows).
struct Node2Back;

impl Drop for Node2Back {
    fn drop(&mut self) {
        if let Err(e) = cloud().start_node("node2") {
            eprintln!("node2 did not start again: {e:#}");
        }
    }
}

/// Waits (up to 180 s) until the client's refreshed view has both nodes live and every
/// replica usable.
async fn wait_whole(c: &SolrClient) {
    let router = c.cloud_router().expect("a cloud client");
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        if router.refresh().await.is_ok() {
            let v = router.view();
            if v.live_urls.len() == 2 && !v.shards.is_empty() && v.read_replicas().all(|r| r.usable)
            {
                return;
            }
        }
        assert!(
            Instant::now() < deadline,
            "never whole again: {:?}",
            router.view()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_through_a_cloud_client_with_a_node_stopped_is_served_by_the_other() {
    let _net = support::shared().await;
    let _g = LOCK.lock().await;
    let tag = data().await;
    let c = cloud_client();
    wait_whole(&c).await;
    let shares = shares(&c, &tag).await;
    let node1 = key(cloud().url(Some("node1")).expect("node1"));
    let node2 = key(cloud().url(Some("node2")).expect("node2"));
    let router = c.cloud_router().expect("a cloud client").clone();
    let before = router.stats_of(&node2).expect("node2 known");
    assert!(before.up, "{before:?}");

    // Stopped after the client's view was loaded with both nodes live: a call either tries
    // node2 first (refused: marked down, the next node) or skips it once marked down.
    tokio::task::spawn_blocking(|| solr_sh(&["stop-node", "e2e-streams", "node2"]))
        .await
        .expect("joins");
    let back = Node2Back;
    for _ in 0..2 {
        let (node, ids) = export_through_cloud(&c, &tag).await;
        assert_eq!(node, node1, "served by the node still running");
        assert_one_cores_share(&shares, &node, &ids);
    }
    let down = router.stats_of(&node2).expect("node2 known");
    assert!(!down.up, "{down:?}");
    assert_eq!(down.marked_down, before.marked_down + 1, "{down:?}");

    tokio::task::spawn_blocking(move || drop(back))
        .await
        .expect("node2 started again");
    wait_whole(&c).await;
}
