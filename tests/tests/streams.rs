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
//! - `/export` through a cloud client (`SolrClient::cloud`): both shards merged, every
//!   document once in order (`cloud_export.rs` has the 2x2 cloud, failover and failures);
//!   the router hands a streamed body out in more than one chunk.

use std::collections::HashSet;
use std::sync::OnceLock;
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use serde::Deserialize;
use serde_json::json;
use solr_client::transport::{RequestKind, Timeouts, Transport, WireRequest};
use solr_client::{Error, Export, Select, SolrClient, TransportKind};
use solr_harness::local_solr::{LocalSolr, Mode};
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_router_streams_an_export_body_in_chunks() {
    let _net = support::shared().await;
    let _g = LOCK.lock().await;
    let tag = data().await;
    let c = cloud_client();
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
        auth: None,
        streamed: false,
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

#[tokio::test]
async fn export_through_a_cloud_client_yields_both_shards() {
    let _net = support::shared().await;
    let _g = LOCK.lock().await;
    let tag = data().await;
    let c = cloud_client();
    let export = Export::new(format!("category:{tag}"))
        .fl("id,popularity")
        .sort("id asc");
    let rows: Vec<Row> = c
        .export_as::<Row>(&export)
        .await
        .expect("export")
        .try_collect()
        .await
        .expect("rows");
    let ids: HashSet<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!((rows.len(), ids.len()), (DOCS, DOCS), "every document once");
    assert!(rows.windows(2).all(|w| w[0].id < w[1].id), "id asc");
    // A streaming expression is distributed by Solr itself (its search() reads every
    // shard): through the cloud client it is one request, as through a plain one.
    let search = format!(
        r#"search(bench,q="category:{tag}",fl="id,popularity",sort="id asc",qt="/export")"#
    );
    let streamed: Vec<Row> = c
        .stream_as::<Row>(&search)
        .await
        .expect("stream")
        .try_collect()
        .await
        .expect("tuples");
    let ids: HashSet<&str> = streamed.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        (streamed.len(), ids.len()),
        (DOCS, DOCS),
        "every document once"
    );
}
