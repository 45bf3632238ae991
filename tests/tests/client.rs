//! Issue "solr-client": gzip bytes, update formats, kNN, cursor, timing consistency,
//! batch failures, Solr errors, escaping.

use std::collections::HashSet;

use futures::StreamExt;
use serde_json::Value;
use solr_client::{escape_query, Commit, Error, Knn, Select, TransportKind, UpdateFormat};

use crate::support::{self, client, docs, tag};

#[tokio::test]
async fn gzip_shrinks_wire_bytes_and_identity_when_off() {
    let _g = support::shared().await;
    let s = support::standalone();
    let url = s.url(None).unwrap();
    let t = tag("gz");
    let plain = client(url, TransportKind::Pooled, false);
    support::index_tagged(&plain, &t, 100).await;
    let q = Select::new(format!("tag_s:{t}"))
        .rows(100)
        .fl("id,title,body,category,price");
    for kind in [
        TransportKind::Fresh,
        TransportKind::Pooled,
        TransportKind::Http2,
    ] {
        let gz = client(url, kind, true)
            .select(&q)
            .await
            .expect("gzip select");
        assert_eq!(gz.docs().len(), 100);
        assert_eq!(
            gz.timing.content_encoding.as_deref(),
            Some("gzip"),
            "{kind}"
        );
        assert!(gz.timing.decompress.is_some());
        assert!(
            gz.timing.bytes_in < gz.timing.decoded_bytes,
            "{kind}: wire {} < decoded {}",
            gz.timing.bytes_in,
            gz.timing.decoded_bytes
        );
        let id = client(url, kind, false)
            .select(&q)
            .await
            .expect("plain select");
        assert_eq!(id.timing.content_encoding, None, "{kind}");
        assert!(id.timing.decompress.is_none());
        assert!(
            id.timing.bytes_in > id.timing.decoded_bytes,
            "{kind}: identity body plus headers on the wire"
        );
        assert_eq!(gz.docs(), id.docs(), "{kind}: same documents either way");
    }
}

#[tokio::test]
async fn json_xml_cbor_index_identically() {
    let _g = support::shared().await;
    let s = support::standalone();
    let url = s.url(None).unwrap();
    let mut stored = Vec::new();
    for format in UpdateFormat::ALL {
        let t = tag(&format!("fmt{format}"));
        let c = client(url, TransportKind::Pooled, false).with_update_format(format);
        let batch = docs(&t, 1000, 0);
        c.add(&batch)
            .await
            .unwrap_or_else(|e| panic!("{format}: {e}"));
        c.commit(Commit::default()).await.expect("commit");
        let r = c
            .select(
                &Select::new(format!("tag_s:{t}"))
                    .rows(1000)
                    .sort("seq_i asc")
                    .fl("title,body,category,price,popularity,seq_i"),
            )
            .await
            .expect("select");
        assert_eq!(r.num_found(), 1000, "{format}");
        stored.push((format, r.into_docs()));
    }
    let (_, json_docs) = &stored[0];
    for (format, d) in &stored[1..] {
        assert_eq!(d, json_docs, "{format} stored values equal JSON's");
    }
}

#[tokio::test]
async fn knn_returns_top_k_in_score_order() {
    let _g = support::shared().await;
    let s = support::standalone();
    let c = client(s.url(None).unwrap(), TransportKind::Pooled, false);
    let t = tag("knn");
    let batch = docs(&t, 60, 768);
    c.add(&batch).await.expect("add vectors");
    c.commit(Commit::default()).await.expect("commit");
    let v: Vec<f32> = batch[5]["vector"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect();
    let k = Knn::new("vector", v)
        .top_k(10)
        .pre_filter(format!("tag_s:{t}"));
    let r = c.select(&k.to_select().fl("id,score")).await.expect("knn");
    assert_eq!(r.docs().len(), 10);
    let scores: Vec<f64> = r
        .docs()
        .iter()
        .map(|d| d["score"].as_f64().unwrap())
        .collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "score order: {scores:?}"
    );
    assert_eq!(
        r.docs()[0]["id"],
        Value::String(format!("{t}-5")),
        "nearest is the doc itself"
    );
}

#[tokio::test]
async fn cursor_yields_each_of_10000_once() {
    let _g = support::shared().await;
    let s = support::standalone();
    let c = client(s.url(None).unwrap(), TransportKind::Pooled, false);
    let t = tag("cur");
    let all = docs(&t, 10_000, 0);
    for chunk in all.chunks(2000) {
        c.add(chunk).await.expect("add");
    }
    c.commit(Commit::default()).await.expect("commit");
    let mut seen = HashSet::new();
    let mut stream = Box::pin(c.cursor(Select::new(format!("tag_s:{t}")).fl("id"), 700));
    while let Some(doc) = stream.next().await {
        let doc = doc.expect("page");
        let id = doc["id"].as_str().unwrap().to_string();
        assert!(seen.insert(id.clone()), "{id} seen twice");
    }
    assert_eq!(seen.len(), 10_000);
}

#[tokio::test]
async fn timing_fields_present_and_consistent() {
    let _g = support::shared().await;
    let s = support::standalone();
    for kind in TransportKind::ALL {
        for gzip in [false, true] {
            let c = client(s.url(None).unwrap(), kind, gzip);
            for i in 0..3 {
                let r = c
                    .select(&Select::new("body:latency").rows(50))
                    .await
                    .expect("select");
                let t = &r.timing;
                let qtime = std::time::Duration::from_millis(u64::from(t.qtime_ms.expect("QTime")));
                // QTime is whole milliseconds, truncated: allow the 1 ms of rounding. Solr's
                // clock runs inside write + server wait: the end-of-write mark is taken after
                // the write call returns, so a descheduled client (CI saw 12 ms on a loaded
                // machine) moves time from server wait into write, never out of both.
                assert!(
                    qtime <= t.write + t.server_wait + std::time::Duration::from_millis(1),
                    "{kind}: QTime {qtime:?} > write {:?} + wait {:?}",
                    t.write,
                    t.server_wait
                );
                assert!(t.parse.is_some());
                assert!(t.decoded_bytes > 0);
                assert_eq!(
                    t.node,
                    s.url(None).unwrap().trim_end_matches('/'),
                    "node named"
                );
                if kind != TransportKind::Reqwest {
                    assert!(t.connection_id > 0);
                    assert_eq!(
                        t.reused,
                        i > 0 && kind != TransportKind::Fresh,
                        "{kind} request {i}"
                    );
                    assert_eq!(
                        t.connect.is_none(),
                        t.reused,
                        "connect absent exactly on reuse"
                    );
                    assert!(t.bytes_in > 0 && t.bytes_out > 0);
                }
            }
        }
    }
}

#[tokio::test]
async fn failed_batch_names_exactly_the_bad_documents() {
    let _g = support::shared().await;
    let s = support::standalone();
    let c = client(s.url(None).unwrap(), TransportKind::Pooled, false);
    let t = tag("bad");
    let mut batch = docs(&t, 10, 0);
    batch[3]["popularity"] = Value::String("not-a-number".into());
    batch[7]["price"] = Value::String("free".into());
    let err = c.add(&batch).await.expect_err("two docs are bad");
    match err {
        Error::Update { report, cause, .. } => {
            assert_eq!((report.sent, report.acknowledged), (10, 8));
            assert!(cause.is_none(), "Solr answered; per-document errors");
            assert!(report.unknown.is_empty() && report.other_errors.is_empty());
            let ids: Vec<&str> = report.failed.iter().map(|f| f.id.as_str()).collect();
            assert_eq!(ids, vec![format!("{t}-3"), format!("{t}-7")]);
        }
        other => panic!("expected Error::Update, got {other}"),
    }
    c.commit(Commit::default()).await.expect("commit");
    let r = c
        .select(&Select::new(format!("tag_s:{t}")).rows(0))
        .await
        .expect("select");
    assert_eq!(r.num_found(), 8, "the 8 good documents were indexed");
}

#[tokio::test]
async fn solr_errors_are_typed_and_user_text_is_escaped() {
    let _g = support::shared().await;
    let s = support::standalone();
    let c = client(s.url(None).unwrap(), TransportKind::Pooled, false);
    let err = c
        .select(&Select::new("title:(unbalanced"))
        .await
        .expect_err("syntax error");
    match &err {
        Error::Solr { status, body, .. } => {
            assert_eq!(*status, 400);
            assert!(!body.msg.is_empty());
        }
        other => panic!("expected a Solr error, got {other}"),
    }
    assert_eq!(err.status(), Some(400));
    // Hostile user text becomes literal terms: no local params, no error, and no `*:*`.
    // Within this test's own document (whose title has none of those words), an injected
    // `OR *:*` would match it; the escaped text does not.
    let t = tag("hostile");
    let mut doc = serde_json::json!({"id": format!("{t}-1"), "tag_s": t});
    doc["title"] = serde_json::json!("plain words only");
    c.add(&[doc]).await.expect("add");
    c.commit(Commit::default()).await.expect("commit");
    let fq = format!("tag_s:{t}");
    let all = c.select(&Select::new("*:*").fq(fq.clone())).await;
    assert_eq!(all.expect("select").num_found(), 1);
    let hostile = "{!func}sum(1,1) OR *:*";
    let r = c
        .select(&Select::new(format!("title:{}", escape_query(hostile))).fq(fq))
        .await
        .expect("escaped query runs");
    assert_eq!(r.num_found(), 0);
}

#[tokio::test]
async fn batched_add_accounts_for_every_document_and_blocking_client_works() {
    let _g = support::shared().await;
    let s = support::standalone();
    let url = s.url(None).unwrap().to_string();
    let c = client(&url, TransportKind::Pooled, false);
    let t = tag("batched");
    let mut batch = docs(&t, 95, 0);
    batch[10]["popularity"] = Value::String("x".into());
    batch[90]["price"] = Value::String("y".into());
    let report = c.add_batched(&batch, 20).await.expect("batched add");
    assert_eq!(report.requests, 5);
    assert_eq!((report.sent, report.acknowledged), (95, 93));
    assert!(report.unknown.is_empty() && report.other_errors.is_empty());
    assert!(report.is_balanced());
    let ids: Vec<&str> = report.failed.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, vec![format!("{t}-10"), format!("{t}-90")]);
    // The blocking wrapper, from a plain thread.
    let q = format!("tag_s:{t}");
    let found = std::thread::spawn(move || {
        let b = solr_client::blocking::SolrClient::new(client(&url, TransportKind::Fresh, false))
            .expect("blocking client");
        b.commit(Commit::default()).expect("commit");
        b.select(&Select::new(q).rows(0))
            .expect("select")
            .num_found()
    })
    .join()
    .expect("thread");
    assert_eq!(found, 93);
}

/// The blocking Indexer, from a plain thread: 250 documents in batches of 40, two of them
/// refused by Solr's schema, each counted once, and the 248 others found after a commit.
#[tokio::test]
async fn the_blocking_indexer_reports_every_document() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).unwrap().to_string();
    let t = tag("blkidx");
    let mut batch = docs(&t, 250, 0);
    batch[7]["popularity"] = Value::String("x".into());
    batch[201]["price"] = Value::String("y".into());
    let q = format!("tag_s:{t}");
    let (report, found) = std::thread::spawn(move || {
        let b = solr_client::blocking::SolrClient::new(client(&url, TransportKind::Pooled, false))
            .expect("blocking client");
        let builder = solr_client::Indexer::builder(b.inner().clone())
            .batch_docs(40)
            .in_flight(2);
        let mut indexer = b.indexer(builder).expect("indexer");
        indexer.index_iter(batch).expect("pushed");
        assert_eq!(indexer.pushed(), 250);
        let report = indexer.finish().expect("report");
        b.commit(Commit::default()).expect("commit");
        let found = b
            .select(&Select::new(q).rows(0))
            .expect("select")
            .num_found();
        (report, found)
    })
    .join()
    .expect("thread");
    assert!(report.is_balanced(), "{report:?}");
    assert_eq!((report.sent, report.acknowledged), (250, 248), "{report:?}");
    let mut failed: Vec<&str> = report.failed.iter().map(|f| f.id.as_str()).collect();
    failed.sort();
    assert_eq!(failed, vec![format!("{t}-201"), format!("{t}-7")]);
    assert_eq!(found, 248);
}

#[tokio::test]
async fn gzip_request_bodies_need_an_inflating_jetty() {
    use solr_client::transport::{Gzip, Pooled, PooledConfig};
    use solr_client::{SolrClient, TlsOptions};
    use std::sync::Arc;
    let _g = support::shared().await;
    let gz_client = |url: &str| {
        let t = Pooled::new(&TlsOptions::new(), PooledConfig::default()).expect("pooled");
        SolrClient::builder(url)
            .collection("bench")
            .custom_transport(Arc::new(Gzip::new(t).compress_requests(true)))
            .build()
            .expect("client")
    };
    let t = tag("gzreq");
    // Solr as distributed (Jetty inflateBufferSize 0): a gzip body is refused, every doc
    // reported. Solr's 400 names no document, so each is unknown (a body refused part way
    // could have indexed the first ones); here Solr indexed none.
    let plain = support::standalone();
    let err = gz_client(plain.url(None).unwrap())
        .add(&docs(&t, 5, 0))
        .await
        .expect_err("refused");
    let held = client(plain.url(None).unwrap(), TransportKind::Pooled, false);
    held.commit(Commit::default()).await.expect("commit");
    let q = Select::new(format!("tag_s:{t}")).rows(0);
    assert_eq!(held.select(&q).await.expect("select").num_found(), 0);
    match err {
        Error::Update { report, cause, .. } => {
            assert_eq!(
                (report.sent, report.unknown.len(), report.acknowledged),
                (5, 5, 0),
                "a 400 that names no document"
            );
            assert_eq!(
                cause.and_then(|c| c.status()),
                Some(400),
                "Solr rejects the undecoded body"
            );
        }
        other => panic!("expected Error::Update, got {other}"),
    }
    // With the launcher's --gzip-inflate (a GzipHandler inflate buffer), the same body indexes.
    let inflating = solr_harness::local_solr::LocalSolr::start(
        solr_harness::local_solr::Mode::Standalone,
        "e2e-inflate",
        &["--gzip-inflate"],
    )
    .expect("inflating Solr starts");
    let c = gz_client(inflating.url(None).unwrap());
    let r = c.add(&docs(&t, 5, 0)).await.expect("gzip body accepted");
    assert!(r.timing.bytes_out > 0);
    c.commit(Commit::default()).await.expect("commit");
    let n = c
        .select(&Select::new(format!("tag_s:{t}")).rows(0))
        .await
        .expect("select")
        .num_found();
    inflating.stop().expect("inflating Solr stops");
    assert_eq!(n, 5);
}
