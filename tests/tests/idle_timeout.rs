//! The server (Jetty's idle timeout, set to 1 s) closes an idle pooled
//! connection. The client keeps its own idle timeout *above* the server's (10 s) on
//! purpose, so the server is the one closing.
//!
//! What happens, as asserted here:
//! - long after the close (3 s idle): the pooled transport already saw the FIN, drops the
//!   dead connection at checkout and opens a new one. Reads and writes both succeed.
//! - in the race (a request written just as Jetty closes): a read is retried once on a new
//!   connection, so it always succeeds; a write is retried only when it certainly was not
//!   sent, otherwise it fails with `Error::Io { not_sent: false }` (inside `Error::Update`)
//!   and may or may not have been applied. The sweep below accounts for every write:
//!   acknowledged ones are all in Solr; ambiguous ones are in Solr or not; nothing else.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use solr_client::transport::{Pooled, PooledConfig};
use solr_client::{Commit, Error, Select, SolrClient, TlsOptions, Transport};

use crate::support::{self, tag};

/// Idle time "long after" Jetty's 1 s idle close: 3x, room for a busy JVM to close late.
const LONG_AFTER: Duration = Duration::from_secs(3);

fn pooled_client(url: &str) -> (SolrClient, Arc<Pooled>) {
    let pooled = Arc::new(
        Pooled::new(
            &TlsOptions::default(),
            PooledConfig::default().idle_timeout(Duration::from_secs(10)),
        )
        .expect("pooled"),
    );
    let c = SolrClient::builder(url)
        .collection("bench")
        .custom_transport(pooled.clone())
        .build()
        .expect("client");
    (c, pooled)
}

#[tokio::test]
async fn idle_connection_closed_by_jetty_is_replaced_without_error() {
    let _g = support::shared().await;
    let s = support::standalone_idle();
    let (c, pooled) = pooled_client(s.url(None).unwrap());
    let q = Select::new("*:*").rows(0);
    let first = c.select(&q).await.expect("first read");
    tokio::time::sleep(LONG_AFTER).await;
    let second = c
        .select(&q)
        .await
        .expect("read after Jetty closed the idle connection");
    assert_ne!(first.timing.connection_id, second.timing.connection_id);
    assert!(!second.timing.reused);
    assert_eq!(pooled.stats().connections_opened, 2);

    // A write after the close: the dead connection is dropped before sending, so the write
    // goes out on a new connection and is acknowledged.
    tokio::time::sleep(LONG_AFTER).await;
    let t = tag("idlew");
    let w = c
        .add(&[json!({"id": format!("{t}-0"), "tag_s": t})])
        .await
        .expect("write after the close");
    assert_eq!(w.timing.attempts, 1);
    assert!(!w.timing.reused);
    assert_eq!(pooled.stats().connections_opened, 3);
    c.commit(Commit::default()).await.expect("commit");
    let r = c
        .select(&Select::new(format!("tag_s:{t}")).rows(0))
        .await
        .expect("count");
    assert_eq!(r.num_found(), 1);
}

#[tokio::test]
async fn requests_racing_jettys_idle_close_reads_recover_writes_accounted() {
    let _g = support::shared().await;
    let s = support::standalone_idle();
    let (c, pooled) = pooled_client(s.url(None).unwrap());
    let t = tag("idlerace");
    let q = Select::new("*:*").rows(0);
    let (mut acked, mut ambiguous) = (HashSet::new(), HashSet::new());
    let (mut read_retried, mut write_new_conn) = (0, 0);
    let offsets: Vec<u64> = (0..16).map(|i| 900 + i * 25).collect();
    for (i, ms) in offsets.iter().enumerate() {
        // Read: idle for `ms`, then read. Always succeeds.
        c.select(&q).await.expect("warm read");
        tokio::time::sleep(Duration::from_millis(*ms)).await;
        let r = c
            .select(&q)
            .await
            .unwrap_or_else(|e| panic!("read after {ms} ms idle: {e}"));
        if r.timing.attempts == 2 {
            read_retried += 1;
        }
        // Write: idle for `ms`, then write one doc.
        c.select(&q).await.expect("warm read");
        tokio::time::sleep(Duration::from_millis(*ms)).await;
        let id = format!("{t}-{i}");
        match c.add(&[json!({"id": id, "tag_s": t})]).await {
            Ok(w) => {
                if !w.timing.reused {
                    write_new_conn += 1;
                }
                acked.insert(id);
            }
            Err(Error::Update {
                report,
                cause: Some(cause),
                ..
            }) if matches!(
                *cause,
                Error::Io {
                    not_sent: false,
                    ..
                }
            ) =>
            {
                assert_eq!((report.sent, report.unknown.len()), (1, 1));
                ambiguous.insert(id);
            }
            Err(e) => panic!("write after {ms} ms idle: unexpected {e:?}"),
        }
    }
    c.commit(Commit::default()).await.expect("commit");
    let r = c
        .select(&Select::new(format!("tag_s:{t}")).rows(100).fl("id"))
        .await
        .expect("select");
    let found: HashSet<String> = r
        .docs()
        .iter()
        .filter_map(|d| d["id"].as_str().map(str::to_string))
        .collect();
    eprintln!(
        "idle race over {} offsets: reads retried {read_retried}; writes acknowledged {} \
         (on a new connection {write_new_conn}), ambiguous {} (of which in Solr {}); \
         connections opened {}",
        offsets.len(),
        acked.len(),
        ambiguous.len(),
        ambiguous.intersection(&found).count(),
        pooled.stats().connections_opened
    );
    assert_eq!(acked.len() + ambiguous.len(), offsets.len());
    assert!(
        acked.is_subset(&found),
        "every acknowledged write is in Solr"
    );
    let known: HashSet<String> = acked.union(&ambiguous).cloned().collect();
    assert!(found.is_subset(&known), "nothing but what was sent");
}
