//! Solr's `update.chain` chosen by the client (builder, per
//! call, inherited by the indexer) and proven to reach Solr by what Solr then does; the
//! blocking twins of the admin handles, against the real standalone node.

use std::collections::HashSet;

use solr_client::admin::CreateCore;
use solr_client::{BatchReport, Commit, Error, Indexer, Select, SolrClient, TransportKind};

use crate::admin::{select_counter, select_requests};
use crate::indexer::{docs, ids_in_solr};
use crate::support::{self, tag};

fn client(url: &str, collection: &str) -> solr_client::SolrClientBuilder {
    SolrClient::builder(url)
        .collection(collection)
        .transport(TransportKind::Pooled)
}

fn ids(t: &str, at: &[usize]) -> Vec<String> {
    at.iter().map(|i| format!("{t}-{i}")).collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn failed_ids(r: &BatchReport) -> Vec<String> {
    sorted(r.failed.iter().map(|f| f.id.clone()).collect())
}

/// The report of an add that failed (some document was not indexed).
fn report_of(e: Error) -> BatchReport {
    match e {
        Error::Update { report, .. } => *report,
        other => panic!("expected an update error, got {other:?}"),
    }
}

async fn held(c: &SolrClient, t: &str) -> HashSet<String> {
    c.commit(Commit::default()).await.expect("commit");
    ids_in_solr(c, t).await
}

#[tokio::test]
async fn the_update_chain_reaches_solr_from_the_builder_a_call_and_the_indexer() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).expect("url").to_string();
    let tolerant = client(&url, "bench").build().expect("client");
    let strict = client(&url, "bench")
        .update_chain("strict")
        .build()
        .expect("client");

    // The core's default chain (the project's tolerant one): the bad document alone fails.
    let t = tag("chain-tol");
    let r = report_of(tolerant.add(&docs(&t, 3, &[1])).await.expect_err("one bad"));
    assert_eq!((r.acknowledged, failed_ids(&r)), (2, ids(&t, &[1])));
    assert!(r.not_attempted.is_empty() && r.unknown.is_empty(), "{r:?}");
    assert_eq!(
        held(&tolerant, &t).await,
        ids(&t, &[0, 2]).into_iter().collect()
    );

    // Per call, `strict` (Solr's stock processors): the batch stops at the bad document.
    let t = tag("chain-call");
    let r = report_of(
        tolerant
            .with_update_chain("strict")
            .add(&docs(&t, 3, &[1]))
            .await
            .expect_err("one bad"),
    );
    assert_eq!((r.acknowledged, failed_ids(&r)), (1, ids(&t, &[1])));
    assert_eq!(r.not_attempted, ids(&t, &[2]));
    assert_eq!(
        held(&tolerant, &t).await,
        ids(&t, &[0]).into_iter().collect()
    );

    // From the builder, through add_batched: each batch of 3 stops at its bad document.
    let t = tag("chain-bat");
    let r = strict
        .add_batched(&docs(&t, 6, &[1, 4]), 3)
        .await
        .expect("batched");
    assert_eq!(r.requests, 2);
    assert_eq!((r.acknowledged, failed_ids(&r)), (2, ids(&t, &[1, 4])));
    assert_eq!(sorted(r.not_attempted.clone()), ids(&t, &[2, 5]));
    assert!(r.is_balanced(), "{r:?}");
    assert_eq!(
        held(&tolerant, &t).await,
        ids(&t, &[0, 3]).into_iter().collect()
    );

    // The indexer inherits the client's chain; its own `param` replaces it.
    let t = tag("chain-idx");
    let mut ix = Indexer::builder(strict.clone())
        .batch_docs(3)
        .build()
        .expect("indexer");
    ix.index_iter(&docs(&t, 6, &[1, 4])).await.expect("pushed");
    let r = ix.finish().await;
    assert_eq!((r.acknowledged, failed_ids(&r)), (2, ids(&t, &[1, 4])));
    assert_eq!(sorted(r.not_attempted.clone()), ids(&t, &[2, 5]));
    let t = tag("chain-idx2");
    let mut ix = Indexer::builder(strict.clone())
        .batch_docs(3)
        .param("update.chain", "tolerant")
        .build()
        .expect("indexer");
    ix.index_iter(&docs(&t, 6, &[1, 4])).await.expect("pushed");
    let r = ix.finish().await;
    assert_eq!((r.acknowledged, failed_ids(&r)), (4, ids(&t, &[1, 4])));
    assert!(r.not_attempted.is_empty(), "{r:?}");

    // A chain Solr does not have: Solr refuses the request (400) with a message that names
    // no document. A 400 without a name could have stopped the batch part way, so each
    // document is unknown, never failed; the cause carries Solr's reason (and here nothing
    // was indexed).
    let t = tag("chain-none");
    let e = tolerant
        .with_update_chain("no_such_chain")
        .add(&docs(&t, 2, &[]))
        .await
        .expect_err("unknown chain");
    assert_eq!(e.status(), Some(400));
    assert!(e.to_string().contains("no_such_chain"), "{e}");
    let r = report_of(e);
    assert_eq!(
        (r.acknowledged, sorted(r.unknown.clone())),
        (0, ids(&t, &[0, 1]))
    );
    assert!(r.failed.is_empty(), "{r:?}");
    assert!(held(&tolerant, &t).await.is_empty());
}

#[tokio::test]
async fn blocking_admin_handles_run_against_the_standalone_node() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).expect("url").to_string();
    let core = tag("blkadm");
    let (u, c) = (url.clone(), core.clone());
    // Blocking calls belong on a thread of their own, outside the test's runtime.
    let outcome = std::thread::spawn(move || {
        let b = solr_client::blocking::SolrClient::new(client(&u, &c).build().expect("client"))
            .expect("blocking client");
        let info = b.system().info().expect("system info");
        assert_eq!(info.mode, "std");
        b.cores()
            .create(&CreateCore::new(&c).configset("bench"))
            .expect("create core");
        let st = b.cores().status(Some(&c)).expect("status");
        let start = st.core(&c).expect("our core").start_time.clone();
        assert_eq!(
            st.core(&c)
                .expect("our core")
                .index
                .as_ref()
                .map(|i| i.num_docs),
            Some(0)
        );
        b.cores().reload(&c).expect("reload");
        let st = b.cores().status(Some(&c)).expect("status");
        assert_ne!(st.core(&c).expect("our core").start_time, start);
        let fields = b.schema().fields().expect("fields");
        assert_eq!(
            fields.get("price").map(|f| f.field_type.as_str()),
            Some("pfloat")
        );
        assert_eq!(b.schema().unique_key().expect("key").unique_key, "id");
        // The select counter of our own core counts exactly our blocking searches.
        let q = select_counter();
        let count = |m: &solr_client::admin::Metrics| select_requests(m, &c);
        let before = count(&b.system().metrics(&q).expect("metrics"));
        for _ in 0..4 {
            b.select(&Select::new("*:*").rows(0)).expect("select");
        }
        assert_eq!(count(&b.system().metrics(&q).expect("metrics")), before + 4);
        // The Collections API of a standalone node: Solr's error, through the blocking twin.
        let e = b.collections().list().expect_err("not SolrCloud");
        assert!(matches!(e, Error::Solr { .. }), "{e:?}");
        b.cores().unload(&c, true).expect("unload");
        assert!(b
            .cores()
            .status(Some(&c))
            .expect("status")
            .core(&c)
            .is_none());
    })
    .join();
    if outcome.is_err() {
        // Leave no core behind, then fail with the thread's panic.
        let _ = client(&url, &core)
            .build()
            .expect("client")
            .cores()
            .unload(&core, true)
            .await;
    }
    if let Err(p) = outcome {
        std::panic::resume_unwind(p);
    }
}
