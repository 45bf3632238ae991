//! Issue 12, item 5, HTTP/1.1: the `reqwest` transport, like `pooled`, resends an idempotent
//! read once when the server closed the (pooled) connection after reading the request
//! without answering; a write in the same situation is returned as possibly sent. (`pooled`
//! is covered in `faults`, `http2` in `h2_faults`.)

use std::time::Duration;

use serde_json::json;
use solr_client::{Error, Select, SolrClient, TransportKind};

use crate::support::fault_server::{Fault, FaultServer, SELECT_OK, UPDATE_OK};
use crate::support::{self};

async fn bounded<F: std::future::Future>(what: &str, f: F) -> F::Output {
    match tokio::time::timeout(Duration::from_secs(20), f).await {
        Ok(v) => v,
        Err(_) => panic!("{what}: no answer within 20 s"),
    }
}

fn reqwest_client(url: &str) -> SolrClient {
    SolrClient::builder(url)
        .collection("bench")
        .transport(TransportKind::Reqwest)
        .build()
        .expect("client")
}

#[tokio::test]
async fn reqwest_request_lost_to_a_closing_connection_read_retried_write_reported() {
    let _g = support::shared().await;
    let srv = FaultServer::start(vec![
        Fault::Ok(SELECT_OK),
        Fault::CloseWithoutReply,
        Fault::Ok(SELECT_OK),
    ])
    .await;
    let c = reqwest_client(&srv.url());
    let q = Select::new("*:*").rows(0);
    bounded("read 1", c.select(&q)).await.expect("read 1");
    let r = bounded("read 2", c.select(&q))
        .await
        .expect("a read on a dying connection is resent");
    assert_eq!(r.timing.attempts, 2);
    assert_eq!(srv.accepted(), 2);
    let seen: Vec<usize> = srv.seen().iter().map(|s| s.conn).collect();
    assert_eq!(
        seen,
        [0, 0, 1],
        "read 2 sent on the old connection, then on a new one"
    );

    let srv = FaultServer::start(vec![
        Fault::Ok(UPDATE_OK),
        Fault::CloseWithoutReply,
        Fault::Ok(UPDATE_OK),
    ])
    .await;
    let c = reqwest_client(&srv.url());
    let docs = [json!({"id": "x1"})];
    bounded("write 1", c.add(&docs)).await.expect("write 1");
    match bounded("write 2", c.add(&docs)).await {
        Err(Error::Update {
            report,
            cause: Some(cause),
        }) if report.sent == 1 && report.unknown.len() == 1 => assert!(
            matches!(
                *cause,
                Error::Io {
                    not_sent: false,
                    ..
                }
            ),
            "{cause:?}"
        ),
        other => panic!("expected an ambiguous write (Io, not_sent false), got {other:?}"),
    }
    assert_eq!(srv.accepted(), 1, "the write was not resent");
    assert_eq!(srv.seen().len(), 2, "the server did receive the write");
}
