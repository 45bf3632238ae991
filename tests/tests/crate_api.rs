//! Crate hygiene, against the real local Solr: a cursor stream moved into a task,
//! the blocking wrapper's whole API (cursor as an iterator, typed select, get, batched adds,
//! deletes), and an error's `source()` chain from a real failure.

use std::collections::HashSet;
use std::error::Error as _;

use futures::StreamExt;
use serde::Deserialize;
use solr_client::request::Get;
use solr_client::{Commit, Error, Select, TransportKind};

use crate::support::{self, client, docs, tag};

#[tokio::test]
async fn cursor_stream_is_static_and_runs_in_a_spawned_task() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).unwrap();
    let t = tag("curspawn");
    let c = client(url, TransportKind::Pooled, false);
    c.add(&docs(&t, 250, 0)).await.expect("add");
    c.commit(Commit::default()).await.expect("commit");
    let stream = c.cursor(Select::new(format!("tag_s:{t}")).fl("id"), 40);
    // The stream owns its client: the one it came from can go.
    drop(c);
    let ids = tokio::spawn(async move {
        let mut stream = std::pin::pin!(stream);
        let mut ids = Vec::new();
        while let Some(doc) = stream.next().await {
            ids.push(doc.expect("page")["id"].as_str().expect("id").to_string());
        }
        ids
    })
    .await
    .expect("task");
    let unique: HashSet<&String> = ids.iter().collect();
    assert_eq!((ids.len(), unique.len()), (250, 250));
}

#[derive(Debug, Deserialize)]
struct Hit {
    id: String,
    seq_i: Option<i64>,
}

#[tokio::test]
async fn blocking_wrapper_covers_the_api_and_refuses_inside_a_runtime() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).unwrap().to_string();
    let t = tag("blk");
    let all = docs(&t, 30, 0);

    // Inside this test's runtime: a clear error, no panic, nothing sent.
    let inside = solr_client::blocking::SolrClient::new(client(&url, TransportKind::Pooled, false))
        .expect("blocking client");
    let err = inside.add(&all).expect_err("inside a runtime");
    assert!(matches!(err, Error::Config(_)), "{err:?}");
    drop(inside);

    let t2 = t.clone();
    // On a thread of its own (a spawn_blocking thread carries the runtime's context too).
    let thread = std::thread::spawn(move || {
        let t = t2;
        let b = solr_client::blocking::SolrClient::new(client(&url, TransportKind::Pooled, false))
            .expect("blocking client");
        b.ping().expect("ping");
        let report = b.add_batched(&all, 7).expect("batched add");
        assert_eq!((report.requests, report.acknowledged), (5, 30));
        assert!(report.is_balanced() && report.failed.is_empty());
        b.commit(Commit::default()).expect("commit");

        let q = Select::new(format!("tag_s:{t}"))
            .fl("id,seq_i")
            .sort("seq_i asc")
            .rows(5);
        let r = b.select_as::<Hit>(&q).expect("select_as");
        assert_eq!(r.num_found(), 30);
        let seqs: Vec<Option<i64>> = r.docs().iter().map(|h| h.seq_i).collect();
        assert_eq!(seqs, (0..5).map(Some).collect::<Vec<_>>());

        let got = b
            .get::<Hit>(&Get::new([format!("{t}-3"), format!("{t}-4")]))
            .expect("get");
        let mut ids: Vec<&str> = got.docs.iter().map(|h| h.id.as_str()).collect();
        ids.sort();
        assert_eq!(ids, vec![format!("{t}-3"), format!("{t}-4")]);

        let seen: Vec<String> = b
            .cursor(Select::new(format!("tag_s:{t}")).fl("id"), 8)
            .map(|d| d.expect("page")["id"].as_str().expect("id").to_string())
            .collect();
        let unique: HashSet<&String> = seen.iter().collect();
        assert_eq!((seen.len(), unique.len()), (30, 30));

        let (a, bb) = (format!("{t}-0"), format!("{t}-1"));
        b.delete_by_ids(&[a.as_str(), bb.as_str()])
            .expect("delete by ids");
        b.delete_by_query(&format!("tag_s:{t} AND seq_i:[20 TO *]"))
            .expect("delete by query");
        b.commit(Commit::default()).expect("commit");
        let left = b
            .select(&Select::new(format!("tag_s:{t}")).rows(0))
            .expect("select")
            .num_found();
        assert_eq!(left, 18);
    });
    thread.join().expect("blocking thread");
}

#[tokio::test]
async fn update_errors_keep_their_source_chain() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).unwrap();
    let t = tag("chain");
    let c = solr_client::SolrClient::builder(url)
        .collection("no_such_core_for_chain")
        .build()
        .expect("client");
    let err = c.add(&docs(&t, 2, 0)).await.expect_err("no such core");
    let Error::Update { report, .. } = &err else {
        panic!("expected an update error, got {err:?}");
    };
    assert_eq!((report.sent, report.acknowledged), (2, 0));
    // Walk the chain: the update error's source is the HTTP error that lost it.
    let cause = err.source().expect("Update has a source");
    let cause = cause
        .downcast_ref::<Box<Error>>()
        .expect("the source is the client's Error");
    assert_eq!(cause.status(), Some(404), "{cause:?}");

    // A connect failure: Update -> Connect -> the socket's io::Error.
    let dead = solr_client::SolrClient::builder("http://127.0.0.1:9/solr")
        .collection("bench")
        .build()
        .expect("client");
    let err = dead
        .add(&docs(&t, 1, 0))
        .await
        .expect_err("nothing listens");
    let mut chain = Vec::new();
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(&err);
    while let Some(e) = cur {
        chain.push(e);
        cur = e.source();
    }
    assert_eq!(chain.len(), 3, "{err:?}");
    assert!(chain[1]
        .downcast_ref::<Box<Error>>()
        .is_some_and(|e| e.is_connect()));
    assert!(chain[2].downcast_ref::<std::io::Error>().is_some());
}

#[tokio::test]
async fn pooled_config_is_set_from_the_client_builder() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).unwrap();
    let c = solr_client::SolrClient::builder(url)
        .collection("bench")
        .transport(TransportKind::Pooled)
        .pooled(solr_client::transport::PooledConfig::default().max_connections_per_host(1))
        .build()
        .expect("client");
    let q = Select::new("*:*").rows(0);
    let all = futures::future::join_all((0..8).map(|_| c.select(&q))).await;
    assert!(all.iter().all(Result::is_ok), "{all:?}");
    // Eight requests at once, one connection allowed: one opened, the others waited.
    let stats = c.transport().stats();
    assert_eq!((stats.connections_opened, stats.requests), (1, 8));
}
