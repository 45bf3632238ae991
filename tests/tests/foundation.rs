//! Issue "foundation": real Solr in every mode, TLS, gzip on GET and POST.

use std::time::{Duration, Instant};

use http::header::{HeaderValue, ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_TYPE};
use solr_client::{Commit, Error, RequestKind, Select, SolrClient, TransportKind};

use crate::support::{self, client, docs, tag};

#[tokio::test]
async fn standalone_add_commit_select_100() {
    let _g = support::shared().await;
    let s = support::standalone();
    let c = client(s.url(None).unwrap(), TransportKind::Pooled, false);
    let t = tag("std100");
    let r = c.add(&docs(&t, 100, 0)).await.expect("add");
    assert_eq!(r.docs_sent, 100);
    c.commit(Commit::default()).await.expect("commit");
    let r = c
        .select(&Select::new(format!("tag_s:{t}")).rows(0))
        .await
        .expect("select");
    assert_eq!(r.num_found(), 100);
    assert!(r.header.qtime.is_some(), "Solr sends QTime by default");
    assert_eq!(
        r.timing.qtime_ms, r.header.qtime,
        "QTime carried into the timing record"
    );
    assert!(r.timing.overhead().is_some());
    let ping = c.ping().await.expect("ping");
    assert_eq!(ping.status, "OK");
}

/// `omitHeader=true`: real Solr sends no responseHeader, so QTime is unknown (None), not 0,
/// and so is the overhead outside Solr (not the whole total).
#[tokio::test]
async fn omit_header_gives_no_qtime_and_no_overhead() {
    let _g = support::shared().await;
    let s = support::standalone();
    for kind in TransportKind::ALL {
        let c = client(s.url(None).unwrap(), kind, false);
        let r = c
            .select(&Select::new("*:*").rows(1).param("omitHeader", "true"))
            .await
            .expect("select");
        assert_eq!(r.header.qtime, None, "{kind}: header omitted");
        assert_eq!(r.timing.qtime_ms, None, "{kind}");
        assert_eq!(r.timing.overhead(), None, "{kind}: overhead unknown");
        assert!(r.timing.total() > Duration::ZERO, "{kind}");
    }
}

async fn wait_for_hits(c: &SolrClient, q: &str, want: u64, limit: Duration) -> Option<Duration> {
    let t0 = Instant::now();
    while t0.elapsed() < limit {
        if let Ok(r) = c.select(&Select::new(q).rows(0)).await {
            if r.num_found() == want {
                return Some(t0.elapsed());
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    None
}

#[tokio::test]
async fn pair_follower_replicates_leader() {
    let _g = support::shared().await;
    let p = support::pair();
    let leader = client(p.url(Some("leader")).unwrap(), TransportKind::Pooled, false);
    let follower = client(
        p.url(Some("follower")).unwrap(),
        TransportKind::Pooled,
        false,
    );
    let t = tag("pair");
    leader.add(&docs(&t, 3, 0)).await.expect("add on leader");
    leader
        .commit(Commit::default())
        .await
        .expect("commit on leader");
    let q = format!("tag_s:{t}");
    let lag = wait_for_hits(&follower, &q, 3, Duration::from_secs(60)).await;
    assert!(lag.is_some(), "follower never saw the leader's documents");
}

#[tokio::test]
async fn cloud_both_replicas_serve_the_doc() {
    let _g = support::shared().await;
    let cl = support::cloud();
    assert_eq!(
        cl.nodes
            .iter()
            .filter(|(n, _)| n.starts_with("node"))
            .count(),
        2
    );
    let first = client(cl.url(Some("node1")).unwrap(), TransportKind::Pooled, false);
    let t = tag("cloud");
    first.add(&docs(&t, 1, 0)).await.expect("add");
    first.commit(Commit::default()).await.expect("commit");
    for node in ["node1", "node2"] {
        let c = client(cl.url(Some(node)).unwrap(), TransportKind::Pooled, false);
        let r = c
            .select(&Select::new(format!("tag_s:{t}")).param("distrib", "false"))
            .await
            .unwrap_or_else(|e| panic!("{node}: {e}"));
        assert_eq!(r.num_found(), 1, "replica on {node} serves the doc");
    }
}

#[tokio::test]
async fn tls_select_needs_the_generated_ca() {
    let _g = support::shared().await;
    let s = support::standalone_tls();
    let url = s.url(None).unwrap();
    assert!(url.starts_with("https://"), "{url}");
    for kind in [
        TransportKind::Fresh,
        TransportKind::Pooled,
        TransportKind::Http2,
        TransportKind::Reqwest,
    ] {
        let ok = support::tls_client(s, kind);
        let r = ok
            .select(&Select::new("*:*").rows(0))
            .await
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert!(r.header.status == 0);
        if kind != TransportKind::Reqwest {
            assert!(r.timing.tls.is_some(), "{kind}: TLS handshake timed");
        }
        // Without the CA: refused.
        let bad = client(url, kind, false);
        let err = bad
            .select(&Select::new("*:*"))
            .await
            .expect_err("unknown CA must be refused");
        assert!(err.is_connect(), "{kind}: {err}");
        if kind != TransportKind::Reqwest {
            assert!(matches!(err, Error::Tls { .. }), "{kind}: {err}");
        }
    }
}

#[tokio::test]
async fn gzip_on_get_and_post() {
    let _g = support::shared().await;
    let s = support::standalone();
    let c = client(s.url(None).unwrap(), TransportKind::Pooled, false);
    let params = Select::new("*:*").rows(20).params();
    // GET
    let mut get = c.wire(
        http::Method::GET,
        "select",
        params.clone(),
        RequestKind::Read,
    );
    get.headers
        .insert(ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
    let r = c.send_raw(get).await.expect("GET");
    assert_eq!(
        r.headers.get(CONTENT_ENCODING).map(|v| v.as_bytes()),
        Some(&b"gzip"[..]),
        "GET gzipped"
    );
    // POST (form body)
    let body = params
        .iter()
        .map(|(k, v)| format!("{k}={}", v.replace(':', "%3A").replace('*', "%2A")))
        .collect::<Vec<_>>()
        .join("&");
    let mut post = c.wire(http::Method::POST, "select", Vec::new(), RequestKind::Read);
    post.headers
        .insert(ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
    post.headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/x-www-form-urlencoded"),
    );
    post.body = body.into();
    let r = c.send_raw(post).await.expect("POST");
    assert_eq!(r.status, 200);
    assert_eq!(
        r.headers.get(CONTENT_ENCODING).map(|v| v.as_bytes()),
        Some(&b"gzip"[..]),
        "POST gzipped"
    );
}

#[tokio::test]
async fn busy_port_fails_with_one_clear_line() {
    let _g = support::shared().await;
    let s = support::standalone();
    let port = url::Url::parse(s.url(None).unwrap())
        .unwrap()
        .port()
        .unwrap()
        .to_string();
    let err = solr_harness::local_solr::LocalSolr::start(
        solr_harness::local_solr::Mode::Standalone,
        "e2e-busy",
        &["--port", &port],
    )
    .expect_err("the port is taken by the e2e node");
    let msg = format!("{err:#}");
    assert!(
        msg.contains(&format!("port {port} on 127.0.0.1 is already in use")),
        "{msg}"
    );
    assert!(msg.contains("log: "), "names the log: {msg}");
    // The e2e node is untouched.
    let c = client(s.url(None).unwrap(), TransportKind::Pooled, false);
    c.ping().await.expect("the running node still answers");
}

/// `solr.sh start cloud --replica-types nrt,tlog,pull` (for read routing by replica type):
/// collection `bench` has one active replica of each type, a TLOG or NRT one leading; a bad
/// list or a non-cloud mode is refused before any JVM starts.
#[tokio::test]
async fn cloud_replica_types_make_one_replica_of_each_type() {
    use solr_harness::local_solr::{LocalSolr, Mode};
    let _g = support::shared().await;
    for (mode, types) in [(Mode::Cloud, "nrt,foo"), (Mode::Pair, "nrt,pull")] {
        let err = LocalSolr::start(mode, "e2e-bad-types", &["--replica-types", types])
            .expect_err("refused");
        assert!(format!("{err:#}").contains("--replica-types"), "{err:#}");
    }
    struct Stop(LocalSolr);
    impl Drop for Stop {
        fn drop(&mut self) {
            let _ = self.0.stop();
        }
    }
    let s = Stop(
        LocalSolr::start(
            Mode::Cloud,
            "e2e-cloud-types",
            &["--replica-types", "nrt,tlog,pull"],
        )
        .expect("cloud with replica types starts"),
    );
    let c = client(
        s.0.url(Some("node1")).unwrap(),
        TransportKind::Pooled,
        false,
    );
    let mut req = c.wire(
        http::Method::GET,
        "admin",
        vec![
            ("action".into(), "CLUSTERSTATUS".into()),
            ("collection".into(), "bench".into()),
            ("wt".into(), "json".into()),
        ],
        RequestKind::Admin,
    );
    req.path = "admin/collections".into();
    let resp = c.send_raw(req).await.expect("CLUSTERSTATUS");
    let v: serde_json::Value = serde_json::from_slice(&resp.body).expect("JSON");
    let replicas = v["cluster"]["collections"]["bench"]["shards"]["shard1"]["replicas"]
        .as_object()
        .expect("replicas")
        .clone();
    let mut types: Vec<String> = replicas
        .values()
        .map(|r| r["type"].as_str().unwrap_or("?").to_string())
        .collect();
    types.sort();
    assert_eq!(types, ["NRT", "PULL", "TLOG"]);
    for r in replicas.values() {
        assert_eq!(r["state"], "active", "{r}");
        if r["type"] == "PULL" {
            assert!(r.get("leader").is_none(), "a PULL replica never leads: {r}");
        }
    }
    let leaders = replicas.values().filter(|r| r["leader"] == "true").count();
    assert_eq!(leaders, 1);
}
